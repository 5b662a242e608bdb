// Contract test for object storage, run against LocalDiskStorage (served by the real
// /api/files route on a local Bun server) and S3Storage (against an s3rver instance
// this file starts on 127.0.0.1 with a random port). Signed URLs are fetched over
// real HTTP, so bytes and response headers are checked end to end.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import type { Config } from "@/config";
import type { Runtime } from "@/platform/runtime";
import type { ObjectStorage } from "@/platform/storage/types";
import { createStorage } from "@/platform/storage/factory";
import { LocalDiskStorage } from "@/platform/storage/local";
import { S3Storage, contentDisposition } from "@/platform/storage/s3";
import { fileRoutes } from "@/domains/system/routes";
import { AppError } from "@/platform/errors";
import { waitFor } from "@tests/support/wait";
import { BUCKET, startS3rver } from "@tests/support/s3rver";

type Harness = { storage: ObjectStorage; close: () => Promise<void> };

/** Local disk in a temp dir, downloads served by the production route on 127.0.0.1:<random>. */
async function localHarness(): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), "cusp-storage-local-"));
  const rt = {} as Runtime;
  // Only the route is mounted, not the full app; map AppError as the HTTP core does (status + code).
  const app = new Elysia()
    .onError(({ error }) => (error instanceof AppError ? Response.json({ code: error.code }, { status: error.status }) : undefined))
    .use(fileRoutes(rt));
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
  const storageConfig: Config["storage"] = { kind: "local", dir, secret: new Uint8Array(randomBytes(48)), publicBaseUrl: `http://127.0.0.1:${server.port}` };
  rt.storage = await createStorage({ storage: storageConfig } as Config);
  return {
    storage: rt.storage,
    close: async () => {
      await rt.storage.close();
      await server.stop(true);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

type S3Config = Extract<Config["storage"], { kind: "s3" }>;
const s3Config = (endpoint: string, overrides: Partial<S3Config> = {}): S3Config => ({
  kind: "s3",
  bucket: BUCKET,
  endpoint,
  region: "us-east-1",
  accessKeyId: "S3RVER",
  secretAccessKey: "S3RVER",
  forcePathStyle: true,
  ...overrides,
});

async function s3Harness(): Promise<Harness> {
  const s3rver = await startS3rver();
  const storage = await createStorage({ storage: s3Config(s3rver.endpoint) } as Config);
  return {
    storage,
    close: async () => {
      await storage.close();
      await s3rver.close();
    },
  };
}

/** Bytes that survive only a byte-exact path: every byte value, then random data. */
function sampleBytes(size = 70_000): Uint8Array {
  const b = new Uint8Array(size);
  for (let i = 0; i < 256; i++) b[i] = i;
  b.set(randomBytes(size - 256), 256);
  return b;
}

async function download(url: string) {
  const res = await fetch(url, { redirect: "manual" });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** `refusal`: what the server says when it refuses an expired URL. */
function contract(kind: "local" | "s3", open: () => Promise<Harness>, refusal: RegExp) {
  describe(`storage contract: ${kind}`, () => {
    let h: Harness;
    let storage: ObjectStorage;
    beforeAll(async () => {
      h = await open();
      storage = h.storage;
    });
    afterAll(async () => {
      await h?.close();
    });

    test("is the expected implementation and answers ping", async () => {
      expect(storage.kind).toBe(kind);
      expect(storage).toBeInstanceOf(kind === "local" ? LocalDiskStorage : S3Storage);
      await storage.ping();
    });

    test("put then get returns the exact bytes; put overwrites", async () => {
      const bytes = sampleBytes();
      await storage.put("org-1/docs/scan.bin", bytes, "application/octet-stream");
      const got = await storage.get("org-1/docs/scan.bin");
      expect(got).toBeInstanceOf(Uint8Array);
      expect(got!.byteLength).toBe(70_000);
      expect(Buffer.from(got!).equals(Buffer.from(bytes))).toBe(true);

      await storage.put("org-1/docs/scan.bin", new Uint8Array([1, 2, 3]), "application/octet-stream");
      expect(Array.from((await storage.get("org-1/docs/scan.bin"))!)).toEqual([1, 2, 3]);
      await storage.put("org-1/docs/empty.txt", new Uint8Array(), "text/plain");
      expect((await storage.get("org-1/docs/empty.txt"))!.byteLength).toBe(0);
    });

    test("putFile stores a file from disk; stream reads it back in pieces; a missing key streams null", async () => {
      const bytes = sampleBytes(300_000);
      const path = join(mkdtempSync(join(tmpdir(), "cusp-put-")), "staged.bin");
      writeFileSync(path, bytes);
      await storage.putFile("org-1/docs/staged.bin", path, "application/pdf");
      expect(Buffer.from((await storage.get("org-1/docs/staged.bin"))!).equals(Buffer.from(bytes))).toBe(true);
      const chunks: Uint8Array[] = [];
      for await (const chunk of (await storage.stream("org-1/docs/staged.bin"))!) chunks.push(chunk);
      expect(chunks.length).toBeGreaterThan(1); // streamed, not read whole
      expect(Buffer.concat(chunks).equals(Buffer.from(bytes))).toBe(true);
      expect(await storage.stream("org-1/docs/never-written.bin")).toBeNull();
    });

    test("get of a missing key is null", async () => {
      expect(await storage.get("org-1/docs/never-written.pdf")).toBeNull();
      expect(await storage.get("no-such-prefix/at/all")).toBeNull();
    });

    test("delete removes the object; deleting a missing key is fine", async () => {
      await storage.put("org-1/tmp/gone.txt", new TextEncoder().encode("bye"), "text/plain");
      expect(new TextDecoder().decode((await storage.get("org-1/tmp/gone.txt"))!)).toBe("bye");
      await storage.delete("org-1/tmp/gone.txt");
      expect(await storage.get("org-1/tmp/gone.txt")).toBeNull();
      await storage.delete("org-1/tmp/gone.txt");
      await storage.delete("org-1/tmp/never-existed.txt");
    });

    test("a signed attachment URL serves the exact bytes with disposition and type", async () => {
      const bytes = sampleBytes(20_000);
      await storage.put("org-1/docs/9f1c/xray.pdf", bytes, "application/pdf");
      const url = await storage.signedUrl("org-1/docs/9f1c/xray.pdf", {
        expiresInSeconds: 300,
        disposition: "attachment",
        fileName: "Chart export 2024.pdf",
        contentType: "application/pdf",
      });
      expect(url.startsWith("http://127.0.0.1:")).toBe(true);
      const res = await download(url);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-disposition")).toBe('attachment; filename="Chart export 2024.pdf"');
      expect(res.headers.get("content-type")).toBe("application/pdf");
      expect(res.bytes.byteLength).toBe(20_000);
      expect(Buffer.from(res.bytes).equals(Buffer.from(bytes))).toBe(true);
    });

    test("a signed inline URL defaults the file name to the key's last segment", async () => {
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
      await storage.put("org-1/photos/intraoral-3.png", png, "image/png");
      const url = await storage.signedUrl("org-1/photos/intraoral-3.png", { expiresInSeconds: 300, disposition: "inline", contentType: "image/png" });
      const res = await download(url);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-disposition")).toBe('inline; filename="intraoral-3.png"');
      expect(res.headers.get("content-type")).toBe("image/png");
      expect(Array.from(res.bytes)).toEqual(Array.from(png));
    });

    test("the signed URL's content type overrides the stored one", async () => {
      await storage.put("org-1/docs/note.txt", new TextEncoder().encode("plain words"), "application/octet-stream");
      const url = await storage.signedUrl("org-1/docs/note.txt", {
        expiresInSeconds: 300,
        disposition: "inline",
        fileName: "note.txt",
        contentType: "text/plain; charset=utf-8",
      });
      const res = await download(url);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      expect(new TextDecoder().decode(res.bytes)).toBe("plain words");
    });

    test("an expired signed URL is refused", async () => {
      await storage.put("org-1/docs/short-lived.pdf", new TextEncoder().encode("%PDF-secret"), "application/pdf");
      const url = await storage.signedUrl("org-1/docs/short-lived.pdf", {
        expiresInSeconds: 1,
        disposition: "attachment",
        fileName: "s.pdf",
        contentType: "application/pdf",
      });
      const fresh = await download(url);
      expect(fresh.status).toBe(200);
      expect(new TextDecoder().decode(fresh.bytes)).toBe("%PDF-secret");
      // Both sides round expiry to whole seconds on the wall clock (s3rver takes no clock):
      // poll until the URL is refused, which takes at most 2 s; the deadline adds slack.
      const stale = await waitFor(() => download(url).then((r) => (r.status === 200 ? null : r)), {
        timeoutMs: 4_000,
        intervalMs: 50,
        what: "the signed URL to expire",
      });
      expect(stale.status).toBe(403);
      expect(new TextDecoder().decode(stale.bytes)).not.toContain("%PDF-secret");
      expect(new TextDecoder().decode(stale.bytes)).toMatch(refusal);
    });
  });
}

contract("local", localHarness, /"code":"invalid_signature"/);
contract("s3", s3Harness, /<Code>AccessDenied<\/Code><Message>Request has expired<\/Message>/);

describe("local signed URLs", () => {
  let h: Harness;
  let storage: LocalDiskStorage;
  beforeAll(async () => {
    h = await localHarness();
    storage = h.storage as LocalDiskStorage;
    await storage.put("org-1/docs/a.pdf", new TextEncoder().encode("A"), "application/pdf");
    await storage.put("org-1/docs/b.pdf", new TextEncoder().encode("B"), "application/pdf");
  });
  afterAll(async () => {
    await h?.close();
  });

  const query = (url: string) => Object.fromEntries(new URL(url).searchParams) as Record<string, string>;
  const sign = () =>
    storage.signedUrl("org-1/docs/a.pdf", { expiresInSeconds: 300, disposition: "attachment", fileName: "a.pdf", contentType: "application/pdf" });

  test("have the documented shape /api/files?key&exp&d&fn&ct&sig", async () => {
    const before = Math.floor(Date.now() / 1000);
    const url = new URL(await sign());
    expect(url.pathname).toBe("/api/files");
    expect([...url.searchParams.keys()]).toEqual(["key", "exp", "d", "fn", "ct", "sig"]);
    const q = query(url.href);
    expect(q.key).toBe("org-1/docs/a.pdf");
    expect(Number(q.exp) - before).toBeGreaterThanOrEqual(300);
    expect(Number(q.exp) - before).toBeLessThanOrEqual(301);
    expect(q.d).toBe("attachment");
    expect(q.fn).toBe("a.pdf");
    expect(q.ct).toBe("application/pdf");
    expect(q.sig).toMatch(/^[A-Za-z0-9_-]{43}$/); // HMAC-SHA256, base64url
    expect(q.sig).toBe(storage.sign(["org-1/docs/a.pdf", q.exp, "attachment", "a.pdf", "application/pdf"].join("\n")));
    expect(storage.verify(q)).toEqual({ key: "org-1/docs/a.pdf", disposition: "attachment", fileName: "a.pdf", contentType: "application/pdf" });
  });

  test("a tampered signature or signed field is refused by verify() and over HTTP", async () => {
    const url = await sign();
    const q = query(url);
    const flipped = q.sig.startsWith("A") ? `B${q.sig.slice(1)}` : `A${q.sig.slice(1)}`;
    const variants: Record<string, string>[] = [
      { ...q, sig: flipped },
      { ...q, sig: q.sig.slice(0, -1) },
      { ...q, key: "org-1/docs/b.pdf" }, // the signature does not cover another document
      { ...q, exp: String(Number(q.exp) + 3600) }, // nor a longer lifetime
      { ...q, d: "inline" },
      { ...q, fn: "evil.html" },
      { ...q, ct: "text/html" },
    ];
    for (const v of variants) {
      expect(storage.verify(v)).toBeNull();
      const res = await download(`${new URL(url).origin}/api/files?${new URLSearchParams(v)}`);
      expect(res.status).toBe(403);
      expect(new TextDecoder().decode(res.bytes)).toContain("invalid_signature");
    }
    // a URL signed with another secret is refused too
    const other = new LocalDiskStorage({ dir: tmpdir(), secret: new Uint8Array(randomBytes(48)) });
    expect(
      storage.verify(
        query(
          `http://x${await other.signedUrl("org-1/docs/a.pdf", { expiresInSeconds: 300, disposition: "attachment", fileName: "a.pdf", contentType: "application/pdf" })}`,
        ),
      ),
    ).toBeNull();
    // the untouched URL still works
    const ok = await download(url);
    expect(ok.status).toBe(200);
    expect(new TextDecoder().decode(ok.bytes)).toBe("A");
  });

  test("an expired signature is refused by verify() even when correctly signed", () => {
    const exp = Math.floor(Date.now() / 1000) - 1;
    const sig = storage.sign(["org-1/docs/a.pdf", exp, "attachment", "a.pdf", "application/pdf"].join("\n"));
    expect(storage.verify({ key: "org-1/docs/a.pdf", exp: String(exp), d: "attachment", fn: "a.pdf", ct: "application/pdf", sig })).toBeNull();
  });

  test("a valid signature for a deleted object is a 404", async () => {
    await storage.put("org-1/docs/c.pdf", new TextEncoder().encode("C"), "application/pdf");
    const url = await storage.signedUrl("org-1/docs/c.pdf", { expiresInSeconds: 300, disposition: "attachment" });
    await storage.delete("org-1/docs/c.pdf");
    expect((await download(url)).status).toBe(404);
  });

  test("keys cannot leave the storage directory", async () => {
    await expect(storage.put("../escape.txt", new Uint8Array([1]), "text/plain")).rejects.toThrow("invalid storage key");
    await expect(storage.get("org-1/../../etc/passwd")).rejects.toThrow("invalid storage key");
  });
});

describe("s3 specifics", () => {
  let s3rver: Awaited<ReturnType<typeof startS3rver>>;
  beforeAll(async () => {
    s3rver = await startS3rver();
  });
  afterAll(async () => {
    await s3rver?.close();
  });

  test("pre-signed URLs carry the disposition and type as response overrides", async () => {
    const storage = new S3Storage(s3Config(s3rver.endpoint));
    const url = new URL(
      await storage.signedUrl("org-1/docs/x.pdf", { expiresInSeconds: 600, disposition: "attachment", fileName: "x.pdf", contentType: "application/pdf" }),
    );
    expect(url.origin).toBe(s3rver.endpoint);
    expect(url.pathname).toBe(`/${BUCKET}/org-1/docs/x.pdf`); // forcePathStyle
    expect(url.searchParams.get("X-Amz-Algorithm")).toBe("AWS4-HMAC-SHA256");
    expect(url.searchParams.get("X-Amz-Expires")).toBe("600");
    expect(url.searchParams.get("X-Amz-Credential")).toStartWith("S3RVER/");
    expect(url.searchParams.get("response-content-disposition")).toBe('attachment; filename="x.pdf"');
    expect(url.searchParams.get("response-content-type")).toBe("application/pdf");
    // no content type asked for: S3 answers with the stored one
    const plain = new URL(await storage.signedUrl("org-1/docs/x.pdf", { expiresInSeconds: 10 * 24 * 3600, disposition: "inline" }));
    expect(plain.searchParams.has("response-content-type")).toBe(false);
    expect(plain.searchParams.get("X-Amz-Expires")).toBe(String(7 * 24 * 3600)); // clamped to SigV4's maximum
    await storage.close();
  });

  test("stored content type is served when the URL does not override it; non-ASCII names get filename*", async () => {
    const storage = new S3Storage(s3Config(s3rver.endpoint));
    await storage.put("org-1/docs/Röntgen.pdf", new TextEncoder().encode("xray"), "application/pdf");
    const url = await storage.signedUrl("org-1/docs/Röntgen.pdf", { expiresInSeconds: 60, disposition: "attachment", fileName: 'Röntgen "links".pdf' });
    const res = await download(url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="R_ntgen _links_.pdf"; filename*=UTF-8''R%C3%B6ntgen%20%22links%22.pdf`);
    expect(new TextDecoder().decode(res.bytes)).toBe("xray");
    await storage.close();
  });

  test("contentDisposition keeps plain names and neutralises quotes and line breaks", () => {
    expect(contentDisposition("inline", "a b.png")).toBe('inline; filename="a b.png"');
    expect(contentDisposition("attachment", 'x"\\y.txt')).toBe('attachment; filename="x__y.txt"');
    expect(contentDisposition("attachment", "a\r\nb")).toBe(`attachment; filename="a__b"; filename*=UTF-8''a%0D%0Ab`);
  });

  test("requests with unknown credentials are refused", async () => {
    const stranger = new S3Storage(s3Config(s3rver.endpoint, { accessKeyId: "NOT-A-KEY", secretAccessKey: "nope" }));
    await expect(stranger.get("org-1/docs/x.pdf")).rejects.toMatchObject({ name: "InvalidAccessKeyId" });
    const res = await download(await stranger.signedUrl("org-1/docs/x.pdf", { expiresInSeconds: 60, disposition: "attachment" }));
    expect(res.status).toBe(403);
    expect(new TextDecoder().decode(res.bytes)).toContain("<Code>InvalidAccessKeyId</Code>");
    await stranger.close();
  });

  test("ping fails for a bucket that does not exist", async () => {
    const missing = new S3Storage(s3Config(s3rver.endpoint, { bucket: "no-such-bucket" }));
    await expect(missing.ping()).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
    await missing.close();
  });
});
