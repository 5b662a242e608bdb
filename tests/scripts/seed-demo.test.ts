import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "@/config";
import { buildApp } from "@/app";
import { closeRuntime, createRuntime } from "@/platform/bootstrap/create-runtime";
import { REACTIONS } from "@/reactions";

const root = join(import.meta.dir, "../..");

describe("bun run seed:demo", () => {
  test("creates the demo org once, with its records reachable through the API", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cusp-seed-"));
    try {
      const run = () =>
        Bun.spawnSync([process.execPath, "run", "scripts/seed-demo.ts"], { cwd: root, env: { PATH: process.env.PATH!, DATA_DIR: dir, LOG_LEVEL: "silent" } });
      const first = run();
      expect(first.exitCode).toBe(0);
      expect(first.stdout.toString()).toContain("1000 patients");
      expect(run().stdout.toString()).toContain("already exists");

      const rt = await createRuntime(loadConfig({ DATA_DIR: dir, LOG_LEVEL: "silent" }), { withQueue: false, reactions: REACTIONS });
      try {
        const app = buildApp(rt);
        const get = async (path: string, token?: string) => {
          const res = await app.handle(new Request(`http://localhost${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {}));
          if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
          return res.json() as Promise<any>;
        };
        const login = await app.handle(
          new Request("http://localhost/api/v1/auth/login", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ email: "admin@example.com", password: "admin-password" }),
          }),
        );
        expect(login.status).toBe(200);
        const token = ((await login.json()) as { access_token: string }).access_token;
        const orgs = await get("/api/v1/admin/orgs?page_size=200", token);
        const demo = orgs.items.filter((o: { slug: string }) => o.slug === "demo-dental");
        expect(demo).toHaveLength(1);
        const P = `/api/v1/${demo[0].id}`;
        const locations = await get(`${P}/locations`, token);
        expect(locations.items.map((l: { timezone: string }) => l.timezone).sort()).toEqual(["America/Los_Angeles", "America/New_York"]);
        expect((await get(`${P}/patients?page_size=1`, token)).total).toBe(1000);
        expect((await get(`${P}/providers`, token)).total).toBe(6);
        expect((await get(`${P}/schedule/operatories`, token)).total).toBe(6);
        expect((await get(`${P}/appointment-types?is_active=true`, token)).total).toBe(5);
        expect((await get(`${P}/appointments?page_size=1`, token)).total).toBeGreaterThan(100);
      } finally {
        await closeRuntime(rt);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
