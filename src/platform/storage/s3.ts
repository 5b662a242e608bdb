import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, PutObjectCommand, S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { ObjectStorage, SignedUrlOptions } from "./types";

/** The S3 part of Config["storage"] (extra fields such as `kind` are ignored). */
export type S3StorageOptions = {
  bucket: string;
  endpoint?: string;
  region: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
};

/** SigV4 pre-signed URLs cannot live longer than seven days. */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/**
 * A Content-Disposition value: `attachment; filename="..."` or `inline; filename="..."`,
 * the same shape the local-disk download route sends. Non-ASCII names get an ASCII
 * fallback plus an RFC 5987 `filename*`.
 */
export function contentDisposition(disposition: "attachment" | "inline", fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_");
  let value = `${disposition}; filename="${ascii}"`;
  if (/[^\x20-\x7e]/.test(fileName)) {
    const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    value += `; filename*=UTF-8''${encoded}`;
  }
  return value;
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; Code?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === "NoSuchKey" || e?.Code === "NoSuchKey" || e?.name === "NotFound" || e?.$metadata?.httpStatusCode === 404;
}

/** Document bytes in an S3 (or S3-compatible) bucket; downloads go through pre-signed GET URLs. */
export class S3Storage implements ObjectStorage {
  readonly kind = "s3" as const;
  readonly bucket: string;
  private readonly client: S3Client;

  constructor(opts: S3StorageOptions) {
    this.bucket = opts.bucket;
    const config: S3ClientConfig = { region: opts.region, forcePathStyle: opts.forcePathStyle };
    if (opts.endpoint) {
      config.endpoint = opts.endpoint;
      // S3-compatible servers often do not implement the SDK's default flexible
      // checksums; only send/expect them when an operation requires them.
      config.requestChecksumCalculation = "WHEN_REQUIRED";
      config.responseChecksumValidation = "WHEN_REQUIRED";
    }
    if (opts.accessKeyId && opts.secretAccessKey) {
      config.credentials = { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey };
    }
    // Otherwise the SDK's default provider chain (env, shared config, instance role) applies.
    this.client = new S3Client(config);
  }

  async put(key: string, body: Uint8Array, contentType: string) {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType, ContentLength: body.byteLength }));
  }

  async putFile(key: string, path: string, contentType: string) {
    const size = (await stat(path)).size;
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: createReadStream(path), ContentType: contentType, ContentLength: size }),
    );
  }

  async stream(key: string): Promise<AsyncIterable<Uint8Array> | null> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return (res.Body as AsyncIterable<Uint8Array> | undefined) ?? (async function* () {})();
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async get(key: string) {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      if (!res.Body) return new Uint8Array();
      return new Uint8Array(await res.Body.transformToByteArray());
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async delete(key: string) {
    // DeleteObject succeeds for a missing key, like LocalDiskStorage.delete.
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async signedUrl(key: string, o: SignedUrlOptions) {
    const fileName = o.fileName ?? key.split("/").pop() ?? "file";
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: contentDisposition(o.disposition, fileName),
      // Without an explicit type S3 answers with the type stored at put().
      ...(o.contentType ? { ResponseContentType: o.contentType } : {}),
    });
    const expiresIn = Math.min(MAX_PRESIGN_SECONDS, Math.max(1, Math.floor(o.expiresInSeconds)));
    return getSignedUrl(this.client, command, { expiresIn });
  }

  async ping() {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }

  async close() {
    this.client.destroy();
  }
}
