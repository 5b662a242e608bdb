import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN } from "@tests/helpers";
import { startServer, type ServerProcess } from "@tests/support/server-process";

// The real server (src/server.ts in its own process) knows each request's
// client address: audit entries record it. Elysia learns the server only from
// its own listen(), so the process hands it over (a bench's floor server found
// the audit rows' ip_address null).

const dataDir = mkdtempSync(join(tmpdir(), "cusp-client-address-"));
let server: ServerProcess | undefined;
afterAll(async () => {
  await server?.kill("SIGTERM");
  rmSync(dataDir, { recursive: true, force: true });
});

describe("the client address of a request to the running service", () => {
  test("is the audit entry's ip_address", async () => {
    server = await startServer(dataDir);
    const login = await fetch(`${server.base}/api/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ADMIN),
    });
    expect(login.status).toBe(200);
    const token = ((await login.json()) as { access_token: string }).access_token;
    const auth = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    const org = await fetch(`${server.base}/api/v1/admin/orgs`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "Address Org", slug: `addr-${Date.now().toString(36)}` }),
    });
    expect(org.status).toBe(201);
    const orgId = ((await org.json()) as { id: string }).id;
    const loc = await fetch(`${server.base}/api/v1/${orgId}/locations`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ name: "Front", timezone: "America/New_York" }),
    });
    expect(loc.status).toBe(201);
    // the platform audit log (the audit index, written after commit): the location's creation
    let entries: { action: string; ip_address: string | null }[] = [];
    for (let i = 0; i < 50 && !entries.length; i++) {
      const r = await fetch(`${server.base}/api/v1/platform/audit?org_uuid=${orgId}&resource_type=location`, { headers: auth });
      expect(r.status).toBe(200);
      entries = ((await r.json()) as { items: { action: string; ip_address: string | null }[] }).items;
      if (!entries.length) await Bun.sleep(100);
    }
    const all = entries;
    expect(all.map((e) => [e.action, e.ip_address])).toEqual([["location.created", "127.0.0.1"]]);
  }, 60_000);
});
