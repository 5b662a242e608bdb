import { createHmac, timingSafeEqual } from "node:crypto";
import { access, copyFile, mkdir, open, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import type { ObjectStorage, SignedUrlOptions } from "./types";

export const LOCAL_FILES_PATH = "/api/files";

/** Document bytes on local disk; downloads go through HMAC-signed, expiring URLs this service serves. */
export class LocalDiskStorage implements ObjectStorage {
  readonly kind = "local" as const;
  private readonly root: string;

  constructor(private readonly opts: { dir: string; secret: Uint8Array; publicBaseUrl?: string }) {
    this.root = resolve(opts.dir);
  }

  private pathOf(key: string): string {
    const p = resolve(join(this.root, key));
    if (!p.startsWith(this.root + sep)) throw new Error("invalid storage key");
    return p;
  }

  async put(key: string, body: Uint8Array, _contentType: string) {
    const p = this.pathOf(key);
    await mkdir(dirname(p), { recursive: true });
    await writeFile(p, body);
  }

  async putFile(key: string, path: string, _contentType: string) {
    const p = this.pathOf(key);
    await mkdir(dirname(p), { recursive: true });
    await copyFile(path, p);
  }

  async stream(key: string): Promise<AsyncIterable<Uint8Array> | null> {
    // opened first, so a missing object is null here rather than an error mid-stream
    const handle = await open(this.pathOf(key), "r").catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return null;
      throw err;
    });
    if (!handle) return null;
    return handle.createReadStream({ autoClose: true, highWaterMark: 64 * 1024 });
  }

  async get(key: string) {
    try {
      return new Uint8Array(await readFile(this.pathOf(key)));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
  }

  async delete(key: string) {
    await rm(this.pathOf(key), { force: true });
  }

  sign(payload: string): string {
    return createHmac("sha256", this.opts.secret).update(payload).digest("base64url");
  }

  private payload(key: string, exp: number, disposition: string, fileName: string, contentType: string) {
    return [key, exp, disposition, fileName, contentType].join("\n");
  }

  async signedUrl(key: string, o: SignedUrlOptions) {
    const exp = Math.floor(Date.now() / 1000) + o.expiresInSeconds;
    const fileName = o.fileName ?? key.split("/").pop() ?? "file";
    const contentType = o.contentType ?? "application/octet-stream";
    const params = new URLSearchParams({ key, exp: String(exp), d: o.disposition, fn: fileName, ct: contentType });
    params.set("sig", this.sign(this.payload(key, exp, o.disposition, fileName, contentType)));
    return `${this.opts.publicBaseUrl ?? ""}${LOCAL_FILES_PATH}?${params}`;
  }

  /** Checks a signed URL's query; null when forged or expired. */
  verify(q: Record<string, string | undefined>): { key: string; disposition: string; fileName: string; contentType: string } | null {
    const { key, exp, d, fn, ct, sig } = q;
    if (!key || !exp || !d || !fn || !ct || !sig) return null;
    if (!/^\d+$/.test(exp) || Number(exp) < Date.now() / 1000) return null;
    const expected = Buffer.from(this.sign(this.payload(key, Number(exp), d, fn, ct)));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    return { key, disposition: d, fileName: fn, contentType: ct };
  }

  async ping() {
    await mkdir(this.root, { recursive: true });
    await access(this.root);
  }

  async close() {}
}
