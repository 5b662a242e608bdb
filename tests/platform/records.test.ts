import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, startTestApp, type TestApp } from "@tests/helpers";
import { auditEntries } from "@db/tenant/audit";
import { auditIndex } from "@db/control/schema";
import { all } from "@/platform/db/work";
import { eq } from "drizzle-orm";

let t: TestApp;
let token: string;
let orgId: string;
const base = () => `/api/v1/${orgId}/locations`;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgId = (await t.createOrg()).id;
});
afterAll(() => t.close());

const create = async (name: string) => (await t.request("POST", base(), { token, body: { name, timezone: "America/Chicago" } })).body;

describe("versions and ETags", () => {
  test("version starts at 1, PATCH with base_version bumps it, ETag follows", async () => {
    const loc = await create("Versioned");
    expect(loc.version).toBe(1);
    const r = await t.request("PATCH", `${base()}/${loc.id}`, { token, body: { base_version: 1, name: "Versioned 2", city: "Austin" } });
    expect(r.status).toBe(200);
    expect(r.body.version).toBe(2);
    expect(r.body.name).toBe("Versioned 2");
    expect(r.body.city).toBe("Austin");
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body.updated_at >= loc.updated_at).toBe(true);
    expect(r.body.created_at).toBe(loc.created_at);
    const g = await t.request("GET", `${base()}/${loc.id}`, { token });
    expect(g.headers.get("etag")).toBe('"2"');
  });

  test("a stale base_version is 409 version_conflict and changes nothing", async () => {
    const loc = await create("Stale");
    await t.request("PATCH", `${base()}/${loc.id}`, { token, body: { base_version: 1, name: "Stale 2" } });
    const r = await t.request("PATCH", `${base()}/${loc.id}`, { token, body: { base_version: 1, name: "Lost update" } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("version_conflict");
    const g = (await t.request("GET", `${base()}/${loc.id}`, { token })).body;
    expect(g.name).toBe("Stale 2");
    expect(g.version).toBe(2);
  });

  test("PATCH without base_version is 422", async () => {
    const loc = await create("NoBase");
    const r = await t.request("PATCH", `${base()}/${loc.id}`, { token, body: { name: "x" } });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([{ loc: ["body", "base_version"], msg: "Field required", type: "missing" }]);
  });
});

describe("archive (soft delete)", () => {
  test("archived records leave lists and GET answers 404; data is kept", async () => {
    const loc = await create("Archived");
    const r = await t.request("POST", `${base()}/${loc.id}/archive`, { token });
    expect(r.status).toBe(200);
    expect(r.body.deleted_at).toBeString();
    expect(r.body.version).toBe(2);
    expect((await t.request("GET", `${base()}/${loc.id}`, { token })).status).toBe(404);
    const list = (await t.request("GET", `${base()}?page_size=200`, { token })).body;
    expect(list.items.map((l: { id: string }) => l.id)).not.toContain(loc.id);
    expect((await t.request("POST", `${base()}/${loc.id}/archive`, { token })).status).toBe(404);
    const rows = await auditOf(t, orgId, loc.id);
    expect(rows.map((x) => x.action)).toEqual(["location.created", "location.archived"]);
  });
});

describe("paging", () => {
  test("default page size, explicit paging, totals and stable order", async () => {
    const org = (await t.createOrg()).id;
    for (let i = 0; i < 7; i++) await t.request("POST", `/api/v1/${org}/locations`, { token, body: { name: `L${i}`, timezone: "UTC" } });
    const all1 = (await t.request("GET", `/api/v1/${org}/locations`, { token })).body;
    expect(all1.page).toBe(1);
    expect(all1.page_size).toBe(50);
    expect(all1.total).toBe(7);
    const p2 = (await t.request("GET", `/api/v1/${org}/locations?page=2&page_size=3`, { token })).body;
    expect(p2).toMatchObject({ page: 2, page_size: 3, total: 7 });
    expect(p2.items.map((l: { name: string }) => l.name)).toEqual(["L3", "L4", "L5"]);
    const beyond = (await t.request("GET", `/api/v1/${org}/locations?page=9&page_size=3`, { token })).body;
    expect(beyond.items).toEqual([]);
    expect(beyond.total).toBe(7);
    const search = (await t.request("GET", `/api/v1/${org}/locations?search=l6`, { token })).body;
    expect(search.items.map((l: { name: string }) => l.name)).toEqual(["L6"]);
  });
});

describe("audit", () => {
  test("every write leaves an entry with actor, action, before/after, request id and ip, indexed on the control database", async () => {
    const created = (await t.request("POST", base(), { token, body: { name: "Audited", timezone: "UTC" }, headers: { "x-request-id": "req-audit-1" } })).body;
    await t.request("PATCH", `${base()}/${created.id}`, { token, body: { base_version: 1, name: "Audited 2" }, headers: { "x-request-id": "req-audit-2" } });
    const db = await t.rt.orgDbs.get(orgId, (await t.rt.access.org(orgId))!.shard);
    const rows = await db.read((d) => all<any>(d.select().from(auditEntries).where(eq(auditEntries.resource_id, created.id)).orderBy(auditEntries.created_at)));
    expect(rows).toHaveLength(2);
    const [c, u] = rows;
    expect(c).toMatchObject({ action: "location.created", resource_type: "location", actor_type: "user", request_id: "req-audit-1", before: null });
    expect(c.after.name).toBe("Audited");
    expect(u).toMatchObject({ action: "location.updated", request_id: "req-audit-2" });
    expect(u.before.name).toBe("Audited");
    expect(u.after.name).toBe("Audited 2");
    expect(u.actor_display_name).toBe("Platform administrator");
    const index = await t.rt.control.read((d) =>
      all<any>(d.select().from(auditIndex).where(eq(auditIndex.resource_id, created.id)).orderBy(auditIndex.created_at)),
    );
    expect(index.map((i: { id: string }) => i.id)).toEqual([c.id, u.id]);
    expect(index[0].org_id).toBe(orgId);
    expect(Object.keys(index[0])).not.toContain("before");
  });

  test("a failed write leaves neither the record nor an audit entry", async () => {
    const db = await t.rt.orgDbs.get(orgId, (await t.rt.access.org(orgId))!.shard);
    const count = async () => (await db.read((d) => all(d.select().from(auditEntries)))).length;
    const before = await count();
    const r = await t.request("PATCH", `${base()}/01a1fe29-0000-7000-8000-000000000000`, { token, body: { base_version: 1, name: "ghost" } });
    expect(r.status).toBe(404);
    expect(await count()).toBe(before);
  });
});

describe("search", () => {
  test("%, _ and \\ in a search are taken literally, and matching ignores case", async () => {
    const org = (await t.createOrg()).id;
    for (const name of ["100% Smiles", "100X Smiles", "Under_score", "Underscore", "Back\\slash"]) {
      await t.request("POST", `/api/v1/${org}/locations`, { token, body: { name, timezone: "UTC" } });
    }
    const names = async (q: string) =>
      (await t.request("GET", `/api/v1/${org}/locations?search=${encodeURIComponent(q)}`, { token })).body.items.map((l: { name: string }) => l.name);
    expect(await names("100%")).toEqual(["100% Smiles"]);
    expect(await names("r_s")).toEqual(["Under_score"]);
    expect(await names("k\\s")).toEqual(["Back\\slash"]);
    expect(await names("SMILES")).toEqual(["100% Smiles", "100X Smiles"]);
  });
});

describe("query strings", () => {
  test("a comma inside a value stays one value; a repeated single-valued parameter is 422", async () => {
    const org = (await t.createOrg()).id;
    await t.request("POST", `/api/v1/${org}/locations`, { token, body: { name: "Smith, Jones & Co", timezone: "UTC" } });
    const r = await t.request("GET", `/api/v1/${org}/locations?search=${encodeURIComponent("Smith, Jones")}`, { token });
    expect(r.status).toBe(200);
    expect(r.body.items.map((l: { name: string }) => l.name)).toEqual(["Smith, Jones & Co"]);
    const twice = await t.request("GET", `/api/v1/${org}/locations?search=a&search=b`, { token });
    expect(twice.status).toBe(422);
    expect(twice.body.detail[0]).toEqual({ loc: ["query", "search"], msg: "Expected string, got array", type: "type_error" });
  });
});
