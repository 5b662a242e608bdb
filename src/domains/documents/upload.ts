import { createHash, randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { Transform } from "node:stream";
import type { Config } from "@/config";
import { invalid } from "@/platform/errors";
import { idempotentForm, readMultipart } from "@/platform/http/multipart";
import { checkDeclaredType, SNIFF_HEAD_BYTES, sniffFileType, type SniffedType } from "./processing/file-types";

// An upload as it arrives (docs/documents/documents.md, "Upload"): the form is streamed
// through readMultipart; the file part goes to a staging file under DATA_DIR
// while its SHA-256 and size are computed and its first bytes kept for
// sniffing, so no upload is ever held whole in memory. The staged file is then
// checked (type allow-list, declared type) and copied into object storage.

export type StagedFile = {
  path: string;
  fileName: string;
  size: number;
  sha256: string;
  type: SniffedType;
};

export type ReceivedUpload = { fields: Record<string, string | string[]>; file: StagedFile; discard(): Promise<void> };

/**
 * An upload as the verbs take it: received when the verb asks, after its own
 * refusals (a locked document refuses before its upload is read). The verbs
 * never see the HTTP request; uploadOf makes a source of one.
 */
export type UploadSource = { receive(): Promise<ReceivedUpload> };

/** The multipart form of an upload route's request, read when the verb asks for it. */
export const uploadOf = (config: Config, request: Request): UploadSource => ({ receive: () => receiveUpload(config, request) });

/** A staged file this old belongs to no upload in flight: a process stopped while it was being received. */
const STALE_STAGING_MS = 60 * 60 * 1000;
/** Removes staged files left by a stopped process, never one in flight (the folder holds only uploads being received: a short list). */
async function sweepStaleStaging(dir: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => null);
    if (info && now - info.mtimeMs > STALE_STAGING_MS) await rm(path, { force: true });
  }
}

const FILE_FIELD = "file";

/** Keeps the first `max` bytes that pass through, and hashes and counts them all. */
class Tap extends Transform {
  readonly hash = createHash("sha256");
  size = 0;
  private readonly head: Buffer[] = [];
  private headBytes = 0;

  constructor(private readonly max: number) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: Buffer) => void) {
    this.hash.update(chunk);
    this.size += chunk.length;
    if (this.headBytes < this.max) {
      const part = chunk.subarray(0, this.max - this.headBytes);
      this.head.push(Buffer.from(part));
      this.headBytes += part.length;
    }
    done(null, chunk);
  }

  headBytesRead(): Uint8Array {
    return Buffer.concat(this.head);
  }
}

/** A file name as kept: the last path segment, control characters dropped, at most 255 characters. */
function cleanFileName(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return cleaned.slice(0, 255) || "upload";
}

/**
 * Reads the form of an upload route: the text fields, and the one file (part
 * `file`) staged on disk. 422 without a file, with an empty one, with a file
 * in another part, when the bytes are not an allowed type or contradict the
 * declared type; 413 past the upload limit. The caller must discard() the
 * staged file once it is stored (or the request failed).
 */
export async function receiveUpload(config: Config, request: Request): Promise<ReceivedUpload> {
  const dir = join(config.dataDir, "tmp", "uploads");
  await mkdir(dir, { recursive: true });
  await sweepStaleStaging(dir);
  const staged: { path: string; tap: Tap; fileName: string; declaredType: string }[] = [];
  const discardAll = () => Promise.all(staged.map((s) => rm(s.path, { force: true }))).then(() => {});
  try {
    const form = await readMultipart(
      request,
      {
        maxFields: config.inputLimits.multipartMaxFields,
        maxFieldBytes: config.inputLimits.multipartMaxFieldBytes,
        maxFileBytes: config.uploadLimit,
      },
      async (file) => {
        if (file.field !== FILE_FIELD) {
          file.stream.resume();
          throw invalid(["body", file.field], `Files go in the part named "${FILE_FIELD}"`, "value_error");
        }
        const path = join(dir, randomUUID());
        const tap = new Tap(SNIFF_HEAD_BYTES);
        staged.push({ path, tap, fileName: cleanFileName(file.filename), declaredType: file.declaredType });
        await pipeline(file.stream, tap, createWriteStream(path));
      },
    );
    const s = staged[0];
    if (!s) throw invalid(["body", FILE_FIELD], `A file is required in the part named "${FILE_FIELD}"`, "missing");
    if (s.tap.size === 0) throw invalid(["body", FILE_FIELD], "The file is empty", "value_error");
    const sniffed = await sniffFileType(s.tap.headBytesRead());
    if (!sniffed.allowed) {
      const what = sniffed.detected ? `${sniffed.detected} files are` : "This kind of file is";
      throw invalid(["body", FILE_FIELD], `${what} not accepted: upload a PDF, JPEG, PNG, TIFF, HEIC or DICOM file`, "file_type_not_allowed");
    }
    const { allowed: _allowed, ...type } = sniffed;
    const declared = checkDeclaredType(type, s.declaredType, s.fileName);
    if (!declared.ok) throw invalid(["body", FILE_FIELD], `The file's type does not match its content: ${declared.message}`, "file_type_mismatch");
    const sha256 = s.tap.hash.digest("hex");
    // Idempotency-Key: the form (file and fields) is the request body it is checked against
    await idempotentForm(request, JSON.stringify([sha256, s.fileName, Object.entries(form.fields).sort(([a], [b]) => (a < b ? -1 : 1))]));
    return {
      fields: form.fields,
      file: { path: s.path, fileName: s.fileName, size: s.tap.size, sha256, type },
      discard: discardAll,
    };
  } catch (err) {
    await discardAll();
    throw err;
  }
}
