import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readMultipart, type IncomingFile } from "@/platform/http/multipart";
import { AppError, ValidationFailed } from "@/platform/errors";

const LIMITS = { maxFields: 5, maxFieldBytes: 100, maxFileBytes: 1000 };

/** What an upload route does with a file: consume it as it streams (here: hash and count). */
async function digest(file: IncomingFile) {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of file.stream) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).byteLength;
  }
  return { field: file.field, filename: file.filename, type: file.declaredType, size, sha256: hash.digest("hex") };
}

function formRequest(form: FormData) {
  return new Request("http://localhost/upload", { method: "POST", body: form });
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error("expected a refusal");
}

describe("readMultipart", () => {
  test("fields and a file, the file streamed to the handler", async () => {
    const form = new FormData();
    form.append("title", "Insurance card");
    form.append("tags", "front");
    form.append("tags", "2026");
    const bytes = new Uint8Array(900).fill(7);
    form.append("file", new File([bytes], "card.png", { type: "image/png" }));
    const result = await readMultipart(formRequest(form), LIMITS, digest);
    expect(result.fields).toEqual({ title: "Insurance card", tags: ["front", "2026"] });
    expect(result.files).toEqual([
      { field: "file", filename: "card.png", type: "image/png", size: 900, sha256: createHash("sha256").update(bytes).digest("hex") },
    ]);
  });

  test("a file over the limit is 413", async () => {
    const form = new FormData();
    form.append("file", new File([new Uint8Array(1001)], "big.pdf", { type: "application/pdf" }));
    const err = await refusal(readMultipart(formRequest(form), LIMITS, digest));
    expect(err.status).toBe(413);
    expect(err.message).toBe("Request body exceeds 1000 bytes");
  });

  test("too many fields, a field too long, or too many files is 422 naming the limit", async () => {
    const many = new FormData();
    for (let i = 0; i < 6; i++) many.append(`f${i}`, "x");
    const e1 = (await refusal(readMultipart(formRequest(many), LIMITS, digest))) as ValidationFailed;
    expect(e1.issues).toEqual([{ loc: ["body"], msg: "Form has more than 5 text fields", type: "limit_exceeded" }]);

    const long = new FormData();
    long.append("description", "d".repeat(101));
    const e2 = (await refusal(readMultipart(formRequest(long), LIMITS, digest))) as ValidationFailed;
    expect(e2.issues).toEqual([{ loc: ["body", "description"], msg: "Must be at most 100 bytes", type: "limit_exceeded" }]);

    const files = new FormData();
    files.append("a", new File(["1"], "a.txt"));
    files.append("b", new File(["2"], "b.txt"));
    const e3 = (await refusal(readMultipart(formRequest(files), LIMITS, digest))) as ValidationFailed;
    expect(e3.issues).toEqual([{ loc: ["body"], msg: "Form has more than 1 files", type: "limit_exceeded" }]);
  });

  test("not multipart is 415; a body cut short is 422", async () => {
    const json = new Request("http://localhost/upload", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect((await refusal(readMultipart(json, LIMITS, digest))).status).toBe(415);
    const cut = new Request("http://localhost/upload", {
      method: "POST",
      headers: { "content-type": "multipart/form-data; boundary=XYZ" },
      body: '--XYZ\r\nContent-Disposition: form-data; name="title"\r\n\r\nhalf',
    });
    const err = (await refusal(readMultipart(cut, LIMITS, digest))) as ValidationFailed;
    expect(err.issues).toEqual([{ loc: ["body"], msg: "Malformed multipart body", type: "multipart_invalid" }]);
  });

  test("the handler's own failure is the answer, and reading stops", async () => {
    const form = new FormData();
    form.append("file", new File([new Uint8Array(10)], "x.exe"));
    const err = await refusal(
      readMultipart(formRequest(form), LIMITS, async (f) => {
        f.stream.resume();
        throw new AppError(422, "file_type_not_allowed", "File type is not allowed");
      }),
    );
    expect([err.status, err.code]).toEqual([422, "file_type_not_allowed"]);
  });
});
