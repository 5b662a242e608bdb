import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApp, type TestApp } from "@tests/helpers";

// A full disk under DATA_DIR (docs/platform/reliability.md): a small tmpfs is
// mounted as the data directory and filled. Writes are refused with a clear 503
// (nothing stored), reads go on, writes work again once there is room, and
// SQLite's integrity check passes on every database afterwards. Mounting needs
// root (CAP_SYS_ADMIN): elsewhere the test says why it was skipped.

const mountPoint = mkdtempSync(join(tmpdir(), "cusp-full-"));
const mounted = await (async () => {
  const p = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", mountPoint], { stderr: "pipe" });
  if (p.exitCode === 0) return null;
  return `mount -t tmpfs failed (${p.stderr.toString().trim() || `exit ${p.exitCode}`})`;
})();
if (mounted) console.warn(`disk-full.test: SKIPPED: a full disk cannot be made here: ${mounted}`);
const it = test.skipIf(!!mounted);

let t: TestApp | undefined;
let token = "";
let P = "";
const FILLER = join(mountPoint, "filler");

/** Fill the file system: write until it refuses. */
function fill() {
  const fd = openSync(FILLER, "a");
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch {
    // ENOSPC: full
  }
  try {
    for (;;) writeSync(fd, chunk.subarray(0, 512));
  } catch {
    // the last blocks too
  }
  closeSync(fd);
}

beforeAll(async () => {
  if (mounted) return;
  t = await startTestApp({ DATA_DIR: join(mountPoint, "data") });
  token = await t.adminToken();
  P = `/api/v1/${(await t.createOrg(token)).id}`;
});
afterAll(async () => {
  await t?.close();
  if (!mounted) Bun.spawnSync(["umount", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const create = (name: string) => t!.request("POST", `${P}/locations`, { token, body: { name, timezone: "UTC" } });
const names = async () => ((await t!.request("GET", `${P}/locations?page_size=200`, { token })).body.items as { name: string }[]).map((l) => l.name);

describe("a full disk under DATA_DIR", () => {
  it("writes are refused with 503 and nothing is stored; reads go on; with room again writes work; every database checks out", async () => {
    expect((await create("Before")).status).toBe(201);
    fill();
    // a write or two may still fit in pages SQLite holds; then every write is refused
    const answers: number[] = [];
    let refused: { status: number; body: any; headers: Headers } | null = null;
    for (let i = 0; i < 50 && !refused; i++) {
      const r = await create(`Full ${i}`);
      answers.push(r.status);
      if (r.status !== 201) refused = r;
    }
    expect(refused).not.toBeNull();
    expect(answers.filter((s) => s !== 201 && s !== 503)).toEqual([]);
    expect(refused!.status).toBe(503);
    expect(refused!.body).toEqual({ code: "service_unavailable", detail: "The service's storage is full: nothing was written; try again later" });
    expect(refused!.headers.get("retry-after")).toBe("30");
    const stored = await names();
    // what answered 201 is there; the refused write is not
    expect(stored).toContain("Before");
    expect(stored).not.toContain(`Full ${answers.length - 1}`);
    expect(stored.filter((n) => n.startsWith("Full ")).length).toBe(answers.filter((s) => s === 201).length);

    rmSync(FILLER);
    const again = await create("After");
    expect(again.status).toBe(201);
    expect(await names()).toContain("After");

    // no database was harmed
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true })) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.name.endsWith(".db")) files.push(p);
      }
    };
    walk(join(mountPoint, "data"));
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const f of files) {
      const db = new Database(f, { readonly: true });
      try {
        expect({ f, check: db.query("PRAGMA integrity_check").values() }).toEqual({ f, check: [["ok"]] });
      } finally {
        db.close();
      }
    }
  });
});
