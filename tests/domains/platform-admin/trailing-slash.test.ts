// The platform collections are documented without a trailing slash
// (docs/system/api-reference-document.md): both spellings keep answering, the same.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, unique, type TestApp } from "@tests/helpers";

let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
});
afterAll(() => t.close());

describe("platform collections, with and without a trailing slash", () => {
  test.each(["/api/v1/platform/admins", "/api/v1/platform/groups", "/api/v1/platform/orgs", "/api/v1/platform/audit"])(
    "GET %s answers the same list both ways",
    async (path) => {
      const bare = await t.request("GET", path, { token });
      const slashed = await t.request("GET", `${path}/`, { token });
      expect(bare.status).toBe(200);
      expect(slashed.status).toBe(200);
      expect(slashed.body.total).toBe(bare.body.total);
      expect(slashed.body.items.map((i: { id: string }) => i.id)).toEqual(bare.body.items.map((i: { id: string }) => i.id));
    },
  );

  test("POST creates both ways (groups and administrators)", async () => {
    for (const path of ["/api/v1/platform/groups", "/api/v1/platform/groups/"]) {
      const r = await t.request("POST", path, { token, body: { name: unique("Group"), permission_keys: ["platform.audit.read"] } });
      expect({ path, status: r.status }).toEqual({ path, status: 201 });
    }
    const group = (await t.request("POST", "/api/v1/platform/groups", { token, body: { name: unique("Admins"), permission_keys: [] } })).body;
    for (const path of ["/api/v1/platform/admins", "/api/v1/platform/admins/"]) {
      const email = `${unique("admin")}@example.com`.toLowerCase();
      const r = await t.request("POST", path, { token, body: { email, display_name: "Slash Test", group_uuid: group.id } });
      expect({ path, status: r.status, email: r.body.email }).toEqual({ path, status: 201, email });
    }
  });

  test("the document names each collection once, without the slash", async () => {
    const doc = (await t.request("GET", "/openapi.json")).body;
    const paths = Object.keys(doc.paths);
    expect(paths.filter((p) => p.endsWith("/"))).toEqual([]);
    for (const p of ["/api/v1/platform/admins", "/api/v1/platform/groups", "/api/v1/platform/orgs", "/api/v1/platform/audit"]) expect(paths).toContain(p);
  });
});
