import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@tests/support/wait";
import { freePort } from "@tests/support/server-process";

const root = join(import.meta.dir, "../..");

/** Polls `url` until it answers 2xx (the process is listening). */
const waitForUp = (url: string, timeoutMs = 20_000) =>
  waitFor(
    () =>
      fetch(url).then(
        (r) => r.ok,
        () => false,
      ),
    { timeoutMs, intervalMs: 50, what: `${url} to come up` },
  );

describe("the service process", () => {
  test("starts on embedded defaults with no env, serves, and shuts down gracefully on SIGTERM finishing in-flight requests", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cusp-server-"));
    const port = await freePort();
    // Only PATH, a data dir and a port: everything else is the embedded default.
    const proc = Bun.spawn([process.execPath, "run", "src/server.ts"], {
      cwd: root,
      env: { PATH: process.env.PATH!, DATA_DIR: dir, PORT: String(port) },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      await waitForUp(`http://127.0.0.1:${port}/api/ping`);
      const health = await fetch(`http://127.0.0.1:${port}/api/health`);
      expect(health.status).toBe(200);
      // a login hashes with argon2id: long enough to be in flight when SIGTERM lands
      const inflight = fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "admin@example.com", password: "admin-password" }),
      });
      // Kept: lets the login reach the server before SIGTERM. Nothing outside the
      // process shows a request has started, and too long a wait lets it finish first.
      await Bun.sleep(5);
      proc.kill("SIGTERM");
      const res = await inflight;
      expect(res.status).toBe(200);
      expect((await res.json()).token_type).toBe("bearer");
      expect(await proc.exited).toBe(0);
      const out = await new Response(proc.stdout).text();
      const lines = out
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines.some((l) => l.msg === "cusp listening" && l.level === "info")).toBe(true);
      expect(lines.some((l) => l.level === "warn" && /default credentials/.test(l.msg))).toBe(true);
      expect(lines.at(-1).msg).toBe("stopped");
      // request log lines are structured and carry no bodies or tokens
      const req = lines.find((l) => l.msg === "request" && l.route === "/api/v1/auth/login");
      expect(req).toMatchObject({ method: "POST", status: 200 });
      expect(out).not.toContain("admin-password");
    } finally {
      proc.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
