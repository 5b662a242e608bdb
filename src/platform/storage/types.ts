export type SignedUrlOptions = {
  expiresInSeconds: number;
  disposition: "attachment" | "inline";
  fileName?: string;
  contentType?: string;
};

/** Document bytes: local disk with HMAC-signed URLs, or S3 with pre-signed URLs. */
export interface ObjectStorage {
  readonly kind: "local" | "s3";
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  /** Stores a file from local disk (an upload staged by the API), streamed: never read whole into memory. */
  putFile(key: string, path: string, contentType: string): Promise<void>;
  get(key: string): Promise<Uint8Array | null>;
  /** The object's bytes as a stream (null when missing): for readers that need not hold it whole, such as the virus scan. */
  stream(key: string): Promise<AsyncIterable<Uint8Array> | null>;
  delete(key: string): Promise<void>;
  /** A URL the client can fetch without a bearer token until it expires. */
  signedUrl(key: string, options: SignedUrlOptions): Promise<string>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
