import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createMember, twoOrgApp, type TestApp } from "@tests/helpers";
import { buildApp } from "@/app";
import { ORG_PERMISSION_KEYS, PERMISSIONS, REGISTRY_VERSION } from "@/platform/permissions/registry";
import { sha256 } from "@/platform/ids";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let locB: { id: string; version: number };

beforeAll(async () => {
  ({ t, admin, orgA, orgB } = await twoOrgApp());
  locB = (await t.request("POST", `/api/v1/${orgB}/locations`, { token: admin, body: { name: "B main", timezone: "Europe/London" } })).body;
});
afterAll(() => t.close());

/** Every org-scoped route of the app, with its path parameters filled in. */
function orgRoutes(orgId: string, recordId: string) {
  return buildApp(t.rt)
    .routes.filter((r: { path: string }) => r.path.startsWith("/api/v1/:org_id/"))
    .map((r: { method: string; path: string }) => ({ method: r.method, path: r.path.replace(":org_id", orgId).replace(/:[a-z_]+/g, recordId) }));
}

describe("org resolution and membership (tenant isolation)", () => {
  test("a member of org A gets 404 on every org-scoped route of org B, and B is unchanged", async () => {
    const memberA = await createMember(t, orgA, ORG_PERMISSION_KEYS);
    const routes = orgRoutes(orgB, locB.id);
    expect(routes.length).toBeGreaterThan(5);
    for (const r of routes) {
      const res = await t.request(r.method, r.path, {
        token: memberA.token,
        body: ["POST", "PATCH", "PUT"].includes(r.method) ? { name: "hijack", base_version: 1 } : undefined,
      });
      expect({ route: `${r.method} ${r.path}`, status: res.status, code: res.body?.code }).toEqual({
        route: `${r.method} ${r.path}`,
        status: 404,
        code: "not_found",
      });
    }
    const after = await t.request("GET", `/api/v1/${orgB}/locations/${locB.id}`, { token: admin });
    expect(after.body.name).toBe("B main");
    expect(after.body.version).toBe(1);
  });

  test("unknown and malformed org ids answer 404 exactly like a foreign org", async () => {
    const memberA = await createMember(t, orgA, ORG_PERMISSION_KEYS);
    const foreign = await t.request("GET", `/api/v1/${orgB}/locations`, { token: memberA.token });
    for (const org of ["01a1fe29-0000-7000-8000-000000000000", "not-a-uuid"]) {
      const r = await t.request("GET", `/api/v1/${org}/locations`, { token: memberA.token });
      expect(r.status).toBe(404);
      expect(r.body).toEqual(foreign.body);
    }
  });

  test("a record of another org is not reachable through this org's path", async () => {
    const r = await t.request("GET", `/api/v1/${orgA}/locations/${locB.id}`, { token: admin });
    expect(r.status).toBe(404);
    const p = await t.request("PATCH", `/api/v1/${orgA}/locations/${locB.id}`, { token: admin, body: { base_version: 1, name: "x" } });
    expect(p.status).toBe(404);
    const a = await t.request("POST", `/api/v1/${orgA}/locations/${locB.id}/archive`, { token: admin });
    expect(a.status).toBe(404);
    expect((await t.request("GET", `/api/v1/${orgB}/locations/${locB.id}`, { token: admin })).body.deleted_at).toBeNull();
  });

  test("an archived org disappears for its members", async () => {
    const org = await t.createOrg();
    const member = await createMember(t, org.id, ORG_PERMISSION_KEYS);
    expect((await t.request("GET", `/api/v1/${org.id}/locations`, { token: member.token })).status).toBe(200);
    expect((await t.request("POST", `/api/v1/admin/orgs/${org.id}/archive`, { token: admin })).status).toBe(200);
    expect((await t.request("GET", `/api/v1/${org.id}/locations`, { token: member.token })).status).toBe(404);
  });
});

describe("permissions", () => {
  test("a member without the route's key gets 403 and nothing changes", async () => {
    const reader = await createMember(t, orgA, ["locations.read"]);
    const r = await t.request("POST", `/api/v1/${orgA}/locations`, { token: reader.token, body: { name: "Nope", timezone: "UTC" } });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ detail: "You do not have permission to do this", code: "forbidden" });
    const list = await t.request("GET", `/api/v1/${orgA}/locations`, { token: reader.token });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(0);
  });

  test("403 comes before body validation", async () => {
    const reader = await createMember(t, orgA, ["locations.read"]);
    const r = await t.request("POST", `/api/v1/${orgA}/locations`, { token: reader.token, body: { bogus: true } });
    expect(r.status).toBe(403);
  });

  test("platform routes need platform keys: an org member gets 403", async () => {
    const member = await createMember(t, orgA, ORG_PERMISSION_KEYS);
    const r = await t.request("GET", "/api/v1/admin/orgs", { token: member.token });
    expect(r.status).toBe(403);
  });

  test("the org administrator group holds every org key; /iam/permission-keys publishes them", async () => {
    const org = await t.createOrg();
    const r = await t.request("GET", `/api/v1/${org.id}/iam/permission-keys`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ keys: ORG_PERMISSION_KEYS, registry_version: REGISTRY_VERSION });
  });

  test("the registry version is bumped whenever the set of keys changes", () => {
    // If this fails, you changed PERMISSIONS: bump REGISTRY_VERSION and record the new pair here.
    const pinned: Record<number, string> = {
      1: "ff1e5ab2516718cb3321d15629e73a2c50ba863cd910a89629e5abd8fddeeee1",
      2: "64617b2fee2ad0506303c37e182a6135e194efe96450da95e7881baafbb623cb",
      3: "874e470f0d92cd23b879b173e3e1e19009f1a0413403df26f4c0a50fb4b23040",
      4: "28e2f94f243990d62e676399ee19c19cd3d678ad3c6ba54f5520f287cbe188ec",
      5: "def3527e42cc48549f64cdfd80fad029b609aceebc6fa4700805a2a5d578b3ed",
      6: "d6b7752c9149455be2efce36d735f92425dc7c25a50318f1a5b22852c44596f7",
      7: "f4c42af5df97478ff4ba4de320d85a5af3b027e2305ef5db137952be2cf570bc",
      8: "b975d68f09385165c658cf66e0075876c9798b39ed04abf0058a9c107e786fe5",
      9: "221974416c78a43b99acf85c36289ad9fbddd8dadc98baf109dc0c61fa472177",
      10: "d78aa284c8e0faf736e4a9d8b726b6dc8237c7aa258ee34415edd377de873c0f",
    };
    const digest = sha256(
      PERMISSIONS.map((p) => p.key)
        .sort()
        .join(","),
    );
    expect({ version: REGISTRY_VERSION, digest }).toEqual({ version: REGISTRY_VERSION, digest: pinned[REGISTRY_VERSION] ?? "unpinned" });
  });

  test("the app refuses to start with a route that declares no guard", async () => {
    const { isGuarded } = await import("@/platform/http/guard");
    const routes = buildApp(t.rt).routes.filter((r: { path: string }) => r.path !== "/openapi/raw.json"); // the generator's own route
    expect(routes.every((r: { hooks?: object }) => isGuarded(r.hooks ?? {}))).toBe(true);
    const { Elysia } = await import("elysia");
    const bare = new Elysia().get("/x", () => "x");
    expect(isGuarded(bare.routes[0]!.hooks ?? {})).toBe(false);
  });
});
