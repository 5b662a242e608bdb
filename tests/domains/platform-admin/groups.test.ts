import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditIndex, permissionGroups, users } from "@db/control/schema";
import { all, get } from "@/platform/db/work";
import { newId } from "@/platform/ids";
import { PLATFORM_PERMISSION_KEYS } from "@/platform/permissions/registry";
import { ADMIN, createPlatformUser, expectValidationCases, startTestApp, unique, type TestApp } from "@tests/helpers";

const BASE = "/api/v1/platform/groups";
let t: TestApp;
let admin: string;
let adminId: string;

const groupRow = (id: string) => t.rt.control.read((db) => get<any>(db.select().from(permissionGroups).where(eq(permissionGroups.id, id))));
const auditFor = (resourceId: string) => t.rt.control.read((db) => all<any>(db.select().from(auditIndex).where(eq(auditIndex.resource_id, resourceId))));
const allBut = (key: string) => PLATFORM_PERMISSION_KEYS.filter((k) => k !== key);

async function create(name: string, keys: string[], token = admin) {
  const r = await t.request("POST", BASE, { token, body: { name, description: `About ${name}`, permission_keys: keys } });
  expect(r.status).toBe(201);
  return r.body;
}

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.adminToken();
  adminId = (await t.rt.control.read((db) => get<any>(db.select().from(users).where(eq(users.email, ADMIN.email)))))!.id;
});

afterAll(async () => {
  await t.close();
});

describe("access", () => {
  const routes = (id: string) =>
    [
      ["GET", BASE, "platform.admins.read", undefined],
      ["POST", BASE, "platform.admins.update", { name: "Nope", permission_keys: [] }],
      ["PATCH", `${BASE}/${id}`, "platform.admins.update", { base_version: 1, name: "Nope" }],
    ] as const;

  test("401 without a token on every route", async () => {
    for (const [method, path, , body] of routes(newId())) {
      const r = await t.request(method, path, { body });
      expect({ method, status: r.status }).toEqual({ method, status: 401 });
      expect(r.headers.get("www-authenticate")).toBe("Bearer");
    }
  });

  test("403 for a platform user holding every platform key but the route's; nothing changes", async () => {
    const g = await create(unique("Guarded"), ["platform.orgs.list"]);
    for (const [method, path, key, body] of routes(g.id)) {
      const lacking = await createPlatformUser(t, "Lacking", allBut(key));
      const r = await t.request(method, path, { token: lacking.token, body });
      expect({ method, status: r.status, code: r.body.code }).toEqual({ method, status: 403, code: "forbidden" });
    }
    expect((await groupRow(g.id)).version).toBe(1);
    const list = await t.request("GET", `${BASE}?search=Nope`, { token: admin });
    expect(list.body.total).toBe(0);
  });
});

describe("create and list", () => {
  test("201: a platform group (org_id null) with platform keys; listed by name; audited", async () => {
    const name = unique("Support desk");
    const r = await t.request("POST", BASE, {
      token: admin,
      body: { name, description: "First line", permission_keys: ["platform.orgs.list", "platform.audit.read", "platform.orgs.list"] },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name,
      description: "First line",
      org_id: null,
      status: "active",
      is_system: false,
      is_org_admin: false,
      contains_phi: false,
      permission_keys: ["platform.orgs.list", "platform.audit.read"],
      active_assignment_count: 0,
      created_by: adminId,
      version: 1,
    });
    expect((await groupRow(r.body.id)).org_id).toBeNull();
    expect((await auditFor(r.body.id)).map((e) => [e.action, e.resource_type, e.org_id])).toEqual([["platform_group.created", "platform_group", null]]);

    const reader = await createPlatformUser(t, "Reader", ["platform.admins.read"]);
    const list = await t.request("GET", `${BASE}?search=${encodeURIComponent(name.toUpperCase())}`, { token: reader.token });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ page: 1, page_size: 50, total: 1 });
    expect(list.body.items[0].id).toBe(r.body.id);
  });

  test("the list holds platform groups only, by name, with how many assignments grant now", async () => {
    const org = await t.createOrg();
    const orgGroups = await t.request("GET", `/api/v1/${org.id}/iam/groups`, { token: admin });
    await createPlatformUser(t, "Holder", ["platform.audit.read"]);
    const r = await t.request("GET", `${BASE}?page_size=200`, { token: admin });
    expect(r.status).toBe(200);
    const ids = r.body.items.map((g: any) => g.id);
    expect(ids).not.toContain(orgGroups.body.items[0].id);
    expect(r.body.items.every((g: any) => g.org_id === null)).toBe(true);
    const names = r.body.items.map((g: any) => g.name.toLowerCase());
    expect(names).toEqual([...names].sort());
    const held = r.body.items.filter((g: any) => g.active_assignment_count === 1 && g.permission_keys.join() === "platform.audit.read");
    expect(held.length).toBeGreaterThanOrEqual(1);
  });

  test("409 on a name an active platform group has (case-insensitive); nothing created", async () => {
    const name = unique("Dup");
    await create(name, []);
    const r = await t.request("POST", BASE, { token: admin, body: { name: name.toUpperCase(), permission_keys: [] } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("duplicate");
    const list = await t.request("GET", `${BASE}?search=${encodeURIComponent(name)}`, { token: admin });
    expect(list.body.total).toBe(1);
  });

  test("403 anti-escalation: a group with keys the caller lacks; nothing created", async () => {
    const updater = await createPlatformUser(t, "Updater", ["platform.admins.update", "platform.admins.read"]);
    const name = unique("Escalate");
    const r = await t.request("POST", BASE, { token: updater.token, body: { name, permission_keys: ["platform.admins.update", "platform.admins.create"] } });
    expect(r.status).toBe(403);
    expect((await t.request("GET", `${BASE}?search=${encodeURIComponent(name)}`, { token: admin })).body.total).toBe(0);
    expect((await t.request("POST", BASE, { token: updater.token, body: { name, permission_keys: ["platform.admins.read"] } })).status).toBe(201);
  });

  test("422: org keys, unknown keys, missing fields, unknown fields, bad paging", async () => {
    const name = unique("Invalid");
    await expectValidationCases(t, "POST", BASE, admin, [
      [{ name, permission_keys: ["patients.read"] }, ["body", "permission_keys", 0], expect.any(String) as any],
      [{ name, permission_keys: ["platform.everything"] }, ["body", "permission_keys", 0], expect.any(String) as any],
      [{ permission_keys: [] }, ["body", "name"], "missing"],
      [{ name }, ["body", "permission_keys"], "missing"],
      [{ name: "  ", permission_keys: [] }, ["body", "name"], expect.any(String) as any],
      [{ name, permission_keys: [], org_id: newId() }, ["body", "org_id"], "extra_forbidden"],
    ]);
    expect((await t.request("GET", `${BASE}?search=${encodeURIComponent(name)}`, { token: admin })).body.total).toBe(0);
    for (const qs of ["page_size=201", "status=deleted", "foo=1"]) expect((await t.request("GET", `${BASE}?${qs}`, { token: admin })).status).toBe(422);
  });
});

describe("update", () => {
  test("200: name, description and keys change, version goes up; holders' keys change at once; audited", async () => {
    const g = await create(unique("Ops"), ["platform.orgs.list"]);
    const holder = await createPlatformUser(t, "Ops holder", []);
    const assign = await t.request("POST", `/api/v1/platform/admins/${holder.id}/assignments`, { token: admin, body: { group_uuid: g.id } });
    expect(assign.status).toBe(201);
    expect((await t.request("GET", "/api/v1/platform/audit", { token: holder.token })).status).toBe(403);
    const name = unique("Ops and audit");
    const r = await t.request("PATCH", `${BASE}/${g.id}`, {
      token: admin,
      body: { base_version: 1, name, description: "More", permission_keys: ["platform.orgs.list", "platform.audit.read"] },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name,
      description: "More",
      permission_keys: ["platform.orgs.list", "platform.audit.read"],
      version: 2,
      updated_by: adminId,
    });
    expect(r.body.active_assignment_count).toBe(1);
    expect((await t.request("GET", "/api/v1/platform/audit", { token: holder.token })).status).toBe(200);
    expect((await auditFor(g.id)).map((e) => e.action)).toEqual(["platform_group.created", "platform_group.updated"]);
    // and taking a key away stops it granting at once
    expect((await t.request("PATCH", `${BASE}/${g.id}`, { token: admin, body: { base_version: 2, permission_keys: ["platform.orgs.list"] } })).status).toBe(
      200,
    );
    expect((await t.request("GET", "/api/v1/platform/audit", { token: holder.token })).status).toBe(403);
  });

  test("409 on a stale base_version and on a taken name; nothing changes", async () => {
    const a = await create(unique("Alpha"), []);
    const b = await create(unique("Beta"), []);
    const stale = await t.request("PATCH", `${BASE}/${a.id}`, { token: admin, body: { base_version: 2, name: "Whatever" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const taken = await t.request("PATCH", `${BASE}/${a.id}`, { token: admin, body: { base_version: 1, name: b.name } });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe("duplicate");
    expect(await groupRow(a.id)).toMatchObject({ name: a.name, version: 1 });
  });

  test("404 for an unknown group, a malformed id and an org's group", async () => {
    const org = await t.createOrg();
    const orgGroup = (await t.request("GET", `/api/v1/${org.id}/iam/groups`, { token: admin })).body.items[0];
    for (const id of [newId(), "nope", orgGroup.id]) {
      const r = await t.request("PATCH", `${BASE}/${id}`, { token: admin, body: { base_version: 1, name: "Hijack" } });
      expect({ id, status: r.status }).toEqual({ id, status: 404 });
    }
    expect((await groupRow(orgGroup.id)).name).toBe(orgGroup.name);
  });

  test("403 anti-escalation: changing a group holding keys the caller lacks, or adding such keys; nothing changes", async () => {
    const updater = await createPlatformUser(t, "Updater", ["platform.admins.update", "platform.orgs.list"]);
    const big = await create(unique("Big"), ["platform.audit.export"]);
    const small = await create(unique("Small"), ["platform.orgs.list"]);
    expect((await t.request("PATCH", `${BASE}/${big.id}`, { token: updater.token, body: { base_version: 1, permission_keys: [] } })).status).toBe(403);
    expect(
      (await t.request("PATCH", `${BASE}/${small.id}`, { token: updater.token, body: { base_version: 1, permission_keys: ["platform.audit.export"] } })).status,
    ).toBe(403);
    expect(await groupRow(big.id)).toMatchObject({ permission_keys: ["platform.audit.export"], version: 1 });
    expect(await groupRow(small.id)).toMatchObject({ permission_keys: ["platform.orgs.list"], version: 1 });
    expect((await t.request("PATCH", `${BASE}/${small.id}`, { token: updater.token, body: { base_version: 1, description: "ok" } })).status).toBe(200);
  });

  test("422: missing base_version, org keys, unknown fields", async () => {
    const g = await create(unique("Val"), []);
    await expectValidationCases(t, "PATCH", `${BASE}/${g.id}`, admin, [
      [{ name: "X" }, ["body", "base_version"], "missing"],
      [{ base_version: 1, permission_keys: ["iam.users.read"] }, ["body", "permission_keys", 0], expect.any(String) as any],
      [{ base_version: 1, status: "archived" }, ["body", "status"], "extra_forbidden"],
    ]);
    expect((await groupRow(g.id)).version).toBe(1);
  });
});

describe("last-admin guard", () => {
  test("400 when a change would leave no user holding platform.admins.create; nothing changes", async () => {
    const t2 = await startTestApp();
    try {
      const root = await t2.adminToken();
      const creator = await createPlatformUser(t2, "Creator", ["platform.admins.create", "platform.admins.update", "platform.admins.revoke"]);
      const rootId = (await t2.rt.control.read((db) => get<any>(db.select().from(users).where(eq(users.email, ADMIN.email)))))!.id;
      expect((await t2.request("DELETE", `/api/v1/platform/admins/${rootId}`, { token: creator.token })).status).toBe(204);
      expect((await t2.request("GET", BASE, { token: root })).status).toBe(403);
      const list = await t2.request("GET", BASE, { token: (await createPlatformUser(t2, "Reader", ["platform.admins.read"])).token });
      const group = list.body.items.find((g: any) => g.permission_keys.includes("platform.admins.create"));
      const r = await t2.request("PATCH", `${BASE}/${group.id}`, {
        token: creator.token,
        body: { base_version: 1, permission_keys: ["platform.admins.update", "platform.admins.revoke"] },
      });
      expect(r.status).toBe(400);
      expect(r.body.code).toBe("last_platform_admin");
      const row = await t2.rt.control.read((db) => get<any>(db.select().from(permissionGroups).where(eq(permissionGroups.id, group.id))));
      expect(row).toMatchObject({ version: 1, permission_keys: ["platform.admins.create", "platform.admins.update", "platform.admins.revoke"] });
      expect((await t2.request("GET", "/api/v1/platform/admins", { token: creator.token })).status).toBe(403); // still no list key, but...
      expect((await t2.request("DELETE", `/api/v1/platform/admins/${newId()}`, { token: creator.token })).status).toBe(404); // ...create and revoke still held
    } finally {
      await t2.close();
    }
  });
});
