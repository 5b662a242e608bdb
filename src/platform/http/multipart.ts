import busboy from "busboy";
import type { Readable } from "node:stream";
import { type AppError, invalid, PayloadTooLarge, UnsupportedMediaType } from "@/platform/errors";
import { stateOf } from "./request-state";

// The one way a route reads multipart/form-data (uploads): streamed through
// busboy, with the same kind of bounds as JSON bodies. Text fields are
// collected within a count and a size (422); each file is handed over as a
// stream while it arrives, so it is never held whole, and cut off past the
// upload limit (413). core.ts leaves multipart bodies unread for this.

export type MultipartLimits = {
  /** Text fields at most (MULTIPART_MAX_FIELDS). */
  maxFields: number;
  /** Bytes of one text field at most (MULTIPART_MAX_FIELD_BYTES). */
  maxFieldBytes: number;
  /** Bytes of one file at most (UPLOAD_LIMIT_BYTES). */
  maxFileBytes: number;
  /** Files at most (default 1). */
  maxFiles?: number;
};

export type IncomingFile = { field: string; filename: string; declaredType: string; stream: Readable };
export type MultipartForm<T> = { fields: Record<string, string | string[]>; files: T[] };

const MAX_FIELD_NAME_BYTES = 200;

/**
 * Reads the form. `onFile` must consume the file's stream (to storage, a
 * hash...); what it returns is collected in `files`. Any bound crossed, or
 * `onFile` failing, rejects with the contract's error and stops reading.
 */
export async function readMultipart<T>(request: Request, limits: MultipartLimits, onFile: (file: IncomingFile) => Promise<T>): Promise<MultipartForm<T>> {
  const contentType = request.headers.get("content-type") ?? "";
  if (!/^multipart\/form-data;.*boundary=/i.test(contentType)) throw new UnsupportedMediaType("multipart/form-data");
  const maxFiles = limits.maxFiles ?? 1;
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      // file names as browsers send them (UTF-8), not busboy's Latin-1 default
      defParamCharset: "utf8",
      limits: {
        fields: limits.maxFields,
        fieldSize: limits.maxFieldBytes,
        fieldNameSize: MAX_FIELD_NAME_BYTES,
        files: maxFiles,
        fileSize: limits.maxFileBytes,
        parts: limits.maxFields + maxFiles,
        headerPairs: 20,
      },
    });
  } catch {
    throw new UnsupportedMediaType("multipart/form-data");
  }

  const fields: Record<string, string | string[]> = {};
  const pending: Promise<T>[] = [];
  let failure: AppError | Error | undefined;
  const fail = (err: AppError | Error) => {
    failure ??= err;
  };
  const tooMany = (what: string, max: number) => fail(invalid(["body"], `Form has more than ${max} ${what}`, "limit_exceeded"));

  parser.on("field", (name, value, info) => {
    if (info.nameTruncated) return fail(invalid(["body"], `Form field names are at most ${MAX_FIELD_NAME_BYTES} bytes`, "limit_exceeded"));
    if (info.valueTruncated) return fail(invalid(["body", name], `Must be at most ${limits.maxFieldBytes} bytes`, "limit_exceeded"));
    const prev = fields[name];
    fields[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  });
  parser.on("file", (field, stream, info) => {
    stream.on("limit", () => fail(new PayloadTooLarge(limits.maxFileBytes)));
    if (failure) {
      stream.resume(); // drain: nothing more is kept once the form has failed
      return;
    }
    const handled = onFile({ field, filename: info.filename ?? "", declaredType: info.mimeType, stream });
    handled.catch((err) => {
      fail(err as Error);
      stream.resume();
    });
    pending.push(handled);
  });
  parser.on("fieldsLimit", () => tooMany("text fields", limits.maxFields));
  parser.on("filesLimit", () => tooMany("files", maxFiles));
  parser.on("partsLimit", () => tooMany("parts", limits.maxFields + maxFiles));

  const finished = new Promise<void>((resolve, reject) => {
    parser.on("close", resolve);
    parser.on("error", (err) => reject(err));
  });
  finished.catch(() => {}); // observed below; a parse error must not surface as an unhandled rejection

  const reader = request.body?.getReader();
  try {
    while (reader && !failure) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!parser.write(value)) await new Promise((resolve) => parser.once("drain", resolve));
    }
    if (failure) {
      await reader?.cancel().catch(() => {});
      parser.destroy();
    } else {
      parser.end();
      await finished;
    }
  } catch {
    fail(invalid(["body"], "Malformed multipart body", "multipart_invalid"));
  }
  const files = await Promise.allSettled(pending);
  if (failure) throw failure;
  return { fields, files: files.map((f) => (f as PromiseFulfilledResult<T>).value) };
}

/**
 * An upload's Idempotency-Key, checked once its form is read: `fingerprint`
 * stands for the body (the file's hash and the fields). A key used before with
 * the same form replays that answer (IdempotentReplay); with another, 409.
 */
export async function idempotentForm(request: Request, fingerprint: string): Promise<void> {
  await stateOf(request).formIdempotency?.(fingerprint);
}
