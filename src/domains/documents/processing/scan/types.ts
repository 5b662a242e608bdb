// What the documents.scan job calls to decide whether an upload is infected.
// A scanner either answers with a verdict or throws ScanError: an error is
// never turned into "clean", so a file is released only on a real OK.

/** The bytes of one document: a whole buffer, or a stream read once from start to end. */
export type ScanSource = AsyncIterable<Uint8Array> | Uint8Array;

export type ScanVerdict = { clean: true; engine: string } | { clean: false; signature: string; engine: string };

export type Scanner = {
  kind: "clamd" | "builtin";
  /** Reads `source` to its end (or until the engine refuses it) and gives the verdict; throws ScanError when it cannot tell. */
  scan(source: ScanSource): Promise<ScanVerdict>;
  /** Resolves when the engine answers; throws ScanError otherwise. */
  ping(): Promise<void>;
  /** Ends scans still in flight (they throw a retryable ScanError) and refuses new ones. */
  close(): Promise<void>;
};

/**
 * Why a scan gave no verdict. `unreachable`, `timeout`, `closed` and `source`
 * (the document's bytes could not be read) are retryable; `size_limit` is not
 * (the same file will be refused again); `engine` errors are retried because
 * clamd reports passing trouble (memory, a database reload) that way.
 */
export type ScanErrorReason = "unreachable" | "timeout" | "closed" | "source" | "engine" | "size_limit" | "protocol";

export class ScanError extends Error {
  readonly retryable: boolean;
  constructor(
    readonly reason: ScanErrorReason,
    message: string,
    options: { retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = "ScanError";
    this.retryable = options.retryable ?? RETRYABLE[reason];
  }
}

const RETRYABLE: Record<ScanErrorReason, boolean> = {
  unreachable: true,
  timeout: true,
  closed: true,
  source: true,
  engine: true,
  size_limit: false,
  protocol: false,
};

/** Byte chunks of a source, a buffer counting as one chunk. */
export async function* chunksOf(source: ScanSource): AsyncIterable<Uint8Array> {
  if (source instanceof Uint8Array) {
    yield source;
    return;
  }
  yield* source;
}
