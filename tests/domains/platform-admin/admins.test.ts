import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditIndex, platformGroupAssignments, users } from "@db/control/schema";
import { all, get, run } from "@/platform/db/work";
import { newId } from "@/platform/ids";
import { PLATFORM_PERMISSION_KEYS } from "@/platform/permissions/registry";
import { ADMIN, createMember, createPlatformUser, expectValidationCases, startTestApp, unique, waitFor, type TestApp } from "@tests/helpers";

const BASE = "/api/v1/platform/admins";
let t: TestApp;
let admin: string; // the bootstrap administrator (global access)
let adminId: string;
let readGroup: { id: string; name: string }; // platform.admins.list + read
let auditGroup: { id: string; name: string }; // platform.audit.read

const allBut = (key: string) => PLATFORM_PERMISSION_KEYS.filter((k) => k !== key);
const userRow = (id: string) => t.rt.control.read((db) => get<any>(db.select().from(users).where(eq(users.id, id))));
const userByEmail = (email: string) => t.rt.control.read((db) => get<any>(db.select().from(users).where(eq(users.email, email))));
const assignmentRows = (userId: string) =>
  t.rt.control.read((db) => all<any>(db.select().from(platformGroupAssignments).where(eq(platformGroupAssignments.user_id, userId))));
const auditFor = (resourceId: string) => t.rt.control.read((db) => all<any>(db.select().from(auditIndex).where(eq(auditIndex.resource_id, resourceId))));

async function createGroup(name: string, keys: string[]) {
  const r = await t.request("POST", "/api/v1/platform/groups", { token: admin, body: { name, permission_keys: keys } });
  expect(r.status).toBe(201);
  return r.body as { id: string; name: string };
}

/** A new platform admin created through the API in `groupId`, with a password, logged in. */
async function newAdmin(groupId: string, name = "Admin") {
  const email = `${unique("pa")}@example.com`;
  const r = await t.request("POST", BASE, { token: admin, body: { email, display_name: `${name} ${email}`, group_uuid: groupId, password: "admin-pass-1" } });
  expect(r.status).toBe(201);
  return { id: r.body.id as string, email, token: (await t.login(email, "admin-pass-1")).access_token };
}

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.adminToken();
  adminId = (await userByEmail(ADMIN.email)).id;
  readGroup = await createGroup("Admin readers", ["platform.admins.list", "platform.admins.read"]);
  auditGroup = await createGroup("Auditors", ["platform.audit.read"]);
});

afterAll(async () => {
  await t.close();
});

describe("access", () => {
  const routes = (id: string, assignmentId: string) =>
    [
      ["GET", BASE, "platform.admins.list", undefined],
      ["GET", `${BASE}/${id}`, "platform.admins.read", undefined],
      ["POST", BASE, "platform.admins.create", { email: "x@example.com", display_name: "X", group_uuid: newId() }],
      ["PATCH", `${BASE}/${id}`, "platform.admins.update", { display_name: "X" }],
      ["DELETE", `${BASE}/${id}`, "platform.admins.revoke", undefined],
      ["GET", `${BASE}/${id}/assignments`, "platform.admins.read", undefined],
      ["POST", `${BASE}/${id}/assignments`, "platform.admins.update", { group_uuid: newId() }],
      ["DELETE", `${BASE}/${id}/assignments/${assignmentId}`, "platform.admins.update", undefined],
    ] as const;

  test("401 without a token, with WWW-Authenticate, on every route", async () => {
    for (const [method, path, , body] of routes(adminId, newId())) {
      const r = await t.request(method, path, { body });
      expect({ path, method, status: r.status }).toEqual({ path, method, status: 401 });
      expect(r.headers.get("www-authenticate")).toBe("Bearer");
    }
  });

  test("403 for a platform user holding every platform key but the route's, and nothing changes", async () => {
    const target = await newAdmin(readGroup.id, "Target");
    const [assignment] = await assignmentRows(target.id);
    const before = await userRow(target.id);
    for (const [method, path, key, body] of routes(target.id, assignment.id)) {
      const lacking = await createPlatformUser(t, "Lacking", allBut(key));
      const r = await t.request(method, path, { token: lacking.token, body });
      expect({ path, method, status: r.status, code: r.body.code }).toEqual({ path, method, status: 403, code: "forbidden" });
    }
    expect(await userRow(target.id)).toEqual(before);
    expect((await assignmentRows(target.id)).map((a) => a.is_active)).toEqual([true]);
    expect(await userByEmail("x@example.com")).toBeUndefined();
  });

  test("403 for a signed-in user with no platform access", async () => {
    const plain = await createPlatformUser(t, "Plain");
    expect((await t.request("GET", BASE, { token: plain.token })).status).toBe(403);
  });
});

describe("list", () => {
  test("platform admins only, by name, page_size 25 by default; search by email or name", async () => {
    const a = await newAdmin(readGroup.id, "Zebra Listed");
    const plain = await createPlatformUser(t, "Not An Admin");
    const r = await t.request("GET", BASE, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 25 });
    const ids = r.body.items.map((i: any) => i.id);
    expect(ids).toContain(adminId);
    expect(ids).not.toContain(plain.id);
    const names = r.body.items.map((i: any) => i.display_name.toLowerCase());
    expect(names).toEqual([...names].sort());
    const byEmail = await t.request("GET", `${BASE}?search=${encodeURIComponent(a.email.toUpperCase())}`, { token: admin });
    expect(byEmail.body.total).toBe(1);
    expect(byEmail.body.items[0]).toMatchObject({
      id: a.id,
      email: a.email,
      status: "active",
      is_global_access: false,
      groups: [{ id: readGroup.id, name: readGroup.name }],
      org_access_count: 0,
    });
    const byName = await t.request("GET", `${BASE}?search=zebra listed`, { token: admin });
    expect(byName.body.items.map((i: any) => i.id)).toEqual([a.id]);
  });

  test("paging: page_size up to 100; 101, 0 and unknown parameters are 422", async () => {
    const r = await t.request("GET", `${BASE}?page_size=1&page=2`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body.items.length).toBe(1);
    expect(r.body.total).toBeGreaterThan(1);
    expect((await t.request("GET", `${BASE}?page_size=100`, { token: admin })).status).toBe(200);
    for (const qs of ["page_size=101", "page_size=0", "page=0", "status=active"]) {
      const bad = await t.request("GET", `${BASE}?${qs}`, { token: admin });
      expect({ qs, status: bad.status }).toEqual({ qs, status: 422 });
      expect(bad.body.detail[0].loc[0]).toBe("query");
    }
  });
});

describe("detail", () => {
  test("groups, org_access and effective_permissions", async () => {
    const org = await t.createOrg();
    const m = await createMember(t, org.id, ["locations.read"], { platformKeys: ["platform.orgs.list", "platform.audit.read"] });
    const r = await t.request("GET", `${BASE}/${m.userId}`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: m.userId,
      email: m.email,
      status: "active",
      is_global_access: false,
      org_access: [{ id: org.id, name: org.name }],
      effective_permissions: ["platform.audit.read", "platform.orgs.list"],
    });
    expect(r.body.groups.length).toBe(1);
    expect(r.body.last_login_at).not.toBeNull();
  });

  test("the global administrator holds every platform key", async () => {
    const r = await t.request("GET", `${BASE}/${adminId.toUpperCase()}`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body.is_global_access).toBe(true);
    expect(r.body.effective_permissions).toEqual([...PLATFORM_PERMISSION_KEYS].sort());
  });

  test("404 for an unknown id, a malformed id and a user without platform access", async () => {
    const plain = await createPlatformUser(t, "No Access");
    for (const id of [newId(), "not-a-uuid", plain.id]) {
      for (const path of [`${BASE}/${id}`, `${BASE}/${id}/assignments`]) {
        const r = await t.request("GET", path, { token: admin });
        expect({ path, status: r.status, code: r.body.code }).toEqual({ path, status: 404, code: "not_found" });
      }
    }
  });
});

describe("create", () => {
  test("an unknown email creates the user, without a usable password, holding the group; audited", async () => {
    const email = `${unique("new")}@Example.com`;
    const r = await t.request("POST", BASE, { token: admin, body: { email, display_name: "  New Admin ", group_uuid: readGroup.id } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      email: email.toLowerCase(),
      display_name: "New Admin",
      status: "active",
      is_global_access: false,
      groups: [{ id: readGroup.id, name: readGroup.name }],
      org_access: [],
      effective_permissions: ["platform.admins.list", "platform.admins.read"],
      version: 1,
    });
    const row = await userRow(r.body.id);
    expect(row).toMatchObject({ is_platform_admin: true, password_hash: null });
    const login = await t.request("POST", "/api/v1/auth/login", { body: { email, password: "anything-at-all" } });
    expect(login.status).toBe(401);
    const [assignment] = await assignmentRows(r.body.id);
    expect(assignment).toMatchObject({ group_id: readGroup.id, assigned_by: adminId, is_active: true, expires_at: null });
    const entries = await auditFor(r.body.id);
    expect(entries.map((e) => [e.action, e.resource_type, e.actor_id, e.org_id])).toEqual([["platform_admin.created", "platform_admin", adminId, null]]);
    expect((await auditFor(assignment.id)).map((e) => e.action)).toEqual(["platform_group_assignment.created"]);
  });

  test("with a password the new admin signs in and uses the group's keys at once", async () => {
    const a = await newAdmin(readGroup.id);
    expect((await t.request("GET", BASE, { token: a.token })).status).toBe(200);
    expect((await t.request("GET", "/api/v1/platform/audit", { token: a.token })).status).toBe(403);
  });

  test("a known email without platform access becomes an admin and keeps its account (name, password)", async () => {
    const org = await t.createOrg();
    const m = await createMember(t, org.id, ["locations.read"], { displayName: "Existing Person" });
    const r = await t.request("POST", BASE, {
      token: admin,
      body: { email: m.email, display_name: "Other Name", group_uuid: auditGroup.id, password: "ignored-pass" },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: m.userId,
      display_name: "Existing Person",
      org_access: [{ id: org.id }],
      effective_permissions: ["platform.audit.read"],
    });
    // the member's own token gains the key at once
    expect((await t.request("GET", "/api/v1/platform/audit", { token: m.token })).status).toBe(200);
    expect((await t.login(m.email, m.password)).access_token).toBeString();
  });

  test("409 when the user already has platform access; nothing changes", async () => {
    const a = await newAdmin(readGroup.id);
    const before = await userRow(a.id);
    const r = await t.request("POST", BASE, { token: admin, body: { email: a.email, display_name: "Again", group_uuid: auditGroup.id } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("duplicate");
    expect(await userRow(a.id)).toEqual(before);
    expect((await assignmentRows(a.id)).length).toBe(1);
    const global = await t.request("POST", BASE, { token: admin, body: { email: ADMIN.email, display_name: "Me", group_uuid: auditGroup.id } });
    expect(global.status).toBe(409);
  });

  test("404 for an unknown group or an org's group; nothing is created", async () => {
    const org = await t.createOrg();
    const groups = await t.request("GET", `/api/v1/${org.id}/iam/groups`, { token: admin });
    const orgGroup = groups.body.items[0].id;
    for (const group of [newId(), orgGroup]) {
      const email = `${unique("nogroup")}@example.com`;
      const r = await t.request("POST", BASE, { token: admin, body: { email, display_name: "N", group_uuid: group } });
      expect(r.status).toBe(404);
      expect(await userByEmail(email)).toBeUndefined();
    }
  });

  test("403 anti-escalation: a group holding keys the caller lacks; nothing is created", async () => {
    const creator = await createPlatformUser(t, "Creator", ["platform.admins.create", "platform.admins.list", "platform.admins.read"]);
    const email = `${unique("esc")}@example.com`;
    const r = await t.request("POST", BASE, { token: creator.token, body: { email, display_name: "E", group_uuid: auditGroup.id } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("forbidden");
    expect(await userByEmail(email)).toBeUndefined();
    const ok = await t.request("POST", BASE, { token: creator.token, body: { email, display_name: "E", group_uuid: readGroup.id } });
    expect(ok.status).toBe(201);
  });

  test("422 validation; nothing is created", async () => {
    const email = `${unique("val")}@example.com`;
    await expectValidationCases(t, "POST", BASE, admin, [
      [{ display_name: "A", group_uuid: readGroup.id }, ["body", "email"], "missing"],
      [{ email, group_uuid: readGroup.id }, ["body", "display_name"], "missing"],
      [{ email, display_name: "A" }, ["body", "group_uuid"], "missing"],
      [{ email: "not-an-email", display_name: "A", group_uuid: readGroup.id }, ["body", "email"], expect.any(String) as any],
      [{ email, display_name: "A", group_uuid: "nope" }, ["body", "group_uuid"], expect.any(String) as any],
      [{ email, display_name: "A", group_uuid: readGroup.id, password: "short" }, ["body", "password"], expect.any(String) as any],
      [{ email, display_name: "A", group_uuid: readGroup.id, is_global_access: true }, ["body", "is_global_access"], "extra_forbidden"],
      [{ email, display_name: " ", group_uuid: readGroup.id }, ["body", "display_name"], expect.any(String) as any],
    ]);
    expect(await userByEmail(email)).toBeUndefined();
  });
});

describe("update", () => {
  test("display_name and email change, version goes up; audited", async () => {
    const a = await newAdmin(readGroup.id);
    const email = `${unique("renamed")}@example.com`;
    const r = await t.request("PATCH", `${BASE}/${a.id}`, { token: admin, body: { base_version: 1, display_name: "Renamed", email: email.toUpperCase() } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: a.id,
      display_name: "Renamed",
      email,
      version: 2,
      effective_permissions: ["platform.admins.list", "platform.admins.read"],
    });
    expect((await auditFor(a.id)).map((e) => e.action)).toEqual(["platform_admin.created", "platform_admin.updated"]);
    expect((await t.login(email, "admin-pass-1")).access_token).toBeString();
    // no change: no new version
    const same = await t.request("PATCH", `${BASE}/${a.id}`, { token: admin, body: { display_name: "Renamed" } });
    expect(same.body.version).toBe(2);
  });

  test("409 on an email another user has and on a stale base_version; nothing changes", async () => {
    const a = await newAdmin(readGroup.id);
    const other = await createPlatformUser(t, "Other");
    const otherEmail = (await userRow(other.id)).email;
    const before = await userRow(a.id);
    const taken = await t.request("PATCH", `${BASE}/${a.id}`, { token: admin, body: { email: otherEmail } });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe("duplicate");
    const stale = await t.request("PATCH", `${BASE}/${a.id}`, { token: admin, body: { base_version: 7, display_name: "Never" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    expect(await userRow(a.id)).toEqual(before);
  });

  test("404 for an unknown id or a user without platform access", async () => {
    const plain = await createPlatformUser(t, "Plain Patch");
    for (const id of [newId(), plain.id]) expect((await t.request("PATCH", `${BASE}/${id}`, { token: admin, body: { display_name: "X" } })).status).toBe(404);
    expect((await userRow(plain.id)).display_name).toBe("Plain Patch");
  });

  test("403: changing an administrator who holds more than the caller (the global administrator)", async () => {
    const updater = await createPlatformUser(t, "Updater", ["platform.admins.update"]);
    const before = await userRow(adminId);
    const r = await t.request("PATCH", `${BASE}/${adminId}`, { token: updater.token, body: { email: "takeover@example.com" } });
    expect(r.status).toBe(403);
    expect(await userRow(adminId)).toEqual(before);
    // an admin holding only keys the updater holds may be changed
    const small = await createPlatformUser(t, "Small", ["platform.admins.update"]);
    expect((await t.request("PATCH", `${BASE}/${small.id}`, { token: updater.token, body: { display_name: "Smaller" } })).status).toBe(200);
  });

  test("422 validation", async () => {
    const a = await newAdmin(readGroup.id);
    await expectValidationCases(t, "PATCH", `${BASE}/${a.id}`, admin, [
      [{ email: "nope" }, ["body", "email"], expect.any(String) as any],
      [{ display_name: "" }, ["body", "display_name"], expect.any(String) as any],
      [{ status: "suspended" }, ["body", "status"], "extra_forbidden"],
      [{ base_version: 0 }, ["body", "base_version"], expect.any(String) as any],
    ]);
  });
});

describe("revoke", () => {
  test("204: assignments removed, platform access cleared, the admin's token is refused at once; audited", async () => {
    const a = await newAdmin(readGroup.id);
    expect((await t.request("GET", BASE, { token: a.token })).status).toBe(200);
    const r = await t.request("DELETE", `${BASE}/${a.id}`, { token: admin });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await t.request("GET", BASE, { token: a.token })).status).toBe(403);
    expect((await assignmentRows(a.id)).map((x) => x.is_active)).toEqual([false]);
    expect(await userRow(a.id)).toMatchObject({ is_platform_admin: false, is_global_access: false, status: "active" });
    expect((await t.request("GET", `${BASE}/${a.id}`, { token: admin })).status).toBe(404);
    expect((await auditFor(a.id)).map((e) => e.action)).toEqual(["platform_admin.created", "platform_admin.revoked"]);
    // the account stays: the user signs in, and may be granted platform access again
    expect((await t.login(a.email, "admin-pass-1")).access_token).toBeString();
    const again = await t.request("POST", BASE, { token: admin, body: { email: a.email, display_name: "Again", group_uuid: auditGroup.id } });
    expect(again.status).toBe(201);
    expect(again.body.effective_permissions).toEqual(["platform.audit.read"]);
  });

  test("404 for an unknown or already revoked admin", async () => {
    const a = await newAdmin(readGroup.id);
    expect((await t.request("DELETE", `${BASE}/${a.id}`, { token: admin })).status).toBe(204);
    expect((await t.request("DELETE", `${BASE}/${a.id}`, { token: admin })).status).toBe(404);
    expect((await t.request("DELETE", `${BASE}/${newId()}`, { token: admin })).status).toBe(404);
  });
});

describe("assignments", () => {
  test("add (201, with expires_at), list, remove (204); audited", async () => {
    const a = await newAdmin(readGroup.id);
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const add = await t.request("POST", `${BASE}/${a.id}/assignments`, { token: admin, body: { group_uuid: auditGroup.id, expires_at: expires } });
    expect(add.status).toBe(201);
    expect(add.body).toMatchObject({
      group: { id: auditGroup.id, name: auditGroup.name },
      assigned_by: { id: adminId, display_name: "Platform administrator" },
      expires_at: expires,
      is_active: true,
      status: "active",
    });
    // takes effect at once for the admin's own token
    expect((await t.request("GET", "/api/v1/platform/audit", { token: a.token })).status).toBe(200);
    const list = await t.request("GET", `${BASE}/${a.id}/assignments`, { token: admin });
    expect(list.status).toBe(200);
    expect(list.body.items.map((i: any) => i.group.id).sort()).toEqual([auditGroup.id, readGroup.id].sort());
    const del = await t.request("DELETE", `${BASE}/${a.id}/assignments/${add.body.id}`, { token: admin });
    expect(del.status).toBe(204);
    // revoked: the admin's token is refused right after the DELETE
    expect((await t.request("GET", "/api/v1/platform/audit", { token: a.token })).status).toBe(403);
    const after = await t.request("GET", `${BASE}/${a.id}/assignments`, { token: admin });
    expect(after.body.items.find((i: any) => i.id === add.body.id)).toMatchObject({ is_active: false, status: "removed" });
    expect((await auditFor(add.body.id)).map((e) => e.action)).toEqual(["platform_group_assignment.created", "platform_group_assignment.removed"]);
    // a removed assignment no longer blocks a new one
    expect((await t.request("POST", `${BASE}/${a.id}/assignments`, { token: admin, body: { group_uuid: auditGroup.id } })).status).toBe(201);
  });

  test("409 when the group is already assigned (and grants); nothing added", async () => {
    const a = await newAdmin(readGroup.id);
    const r = await t.request("POST", `${BASE}/${a.id}/assignments`, { token: admin, body: { group_uuid: readGroup.id } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("duplicate");
    expect((await assignmentRows(a.id)).length).toBe(1);
  });

  test("404: unknown admin, unknown group, an assignment of another admin, a removed assignment", async () => {
    const a = await newAdmin(readGroup.id);
    const b = await newAdmin(readGroup.id);
    const [bAssignment] = await assignmentRows(b.id);
    expect((await t.request("POST", `${BASE}/${newId()}/assignments`, { token: admin, body: { group_uuid: auditGroup.id } })).status).toBe(404);
    expect((await t.request("POST", `${BASE}/${a.id}/assignments`, { token: admin, body: { group_uuid: newId() } })).status).toBe(404);
    expect((await t.request("DELETE", `${BASE}/${a.id}/assignments/${bAssignment.id}`, { token: admin })).status).toBe(404);
    expect((await t.request("DELETE", `${BASE}/${a.id}/assignments/${newId()}`, { token: admin })).status).toBe(404);
    expect((await t.request("DELETE", `${BASE}/${newId()}/assignments/${bAssignment.id}`, { token: admin })).status).toBe(404);
    expect((await assignmentRows(b.id))[0].is_active).toBe(true);
    expect((await assignmentRows(a.id)).length).toBe(1);
  });

  test("403 anti-escalation: assigning a group holding keys the caller lacks; nothing added", async () => {
    const a = await newAdmin(readGroup.id);
    const updater = await createPlatformUser(t, "Updater", ["platform.admins.update", "platform.admins.list", "platform.admins.read"]);
    const r = await t.request("POST", `${BASE}/${a.id}/assignments`, { token: updater.token, body: { group_uuid: auditGroup.id } });
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("forbidden");
    expect((await assignmentRows(a.id)).length).toBe(1);
  });

  test("422 validation: missing or malformed group_uuid, expires_at in the past or malformed, unknown fields", async () => {
    const a = await newAdmin(readGroup.id);
    await expectValidationCases(t, "POST", `${BASE}/${a.id}/assignments`, admin, [
      [{}, ["body", "group_uuid"], "missing"],
      [{ group_uuid: "x" }, ["body", "group_uuid"], expect.any(String) as any],
      [{ group_uuid: auditGroup.id, expires_at: "2001-01-01T00:00:00Z" }, ["body", "expires_at"], expect.any(String) as any],
      [{ group_uuid: auditGroup.id, expires_at: "tomorrow" }, ["body", "expires_at"], expect.any(String) as any],
      [{ group_uuid: auditGroup.id, is_active: false }, ["body", "is_active"], "extra_forbidden"],
    ]);
    expect((await assignmentRows(a.id)).length).toBe(1);
  });

  test("an assignment stops granting when it expires, with no write in between", async () => {
    const a = await newAdmin(readGroup.id);
    const expires = new Date(Date.now() + 1500).toISOString();
    const add = await t.request("POST", `${BASE}/${a.id}/assignments`, { token: admin, body: { group_uuid: auditGroup.id, expires_at: expires } });
    expect(add.status).toBe(201);
    expect((await t.request("GET", "/api/v1/platform/audit", { token: a.token })).status).toBe(200); // cached now
    await waitFor(async () => (await t.request("GET", "/api/v1/platform/audit", { token: a.token })).status === 403, { timeoutMs: 5000, intervalMs: 100 });
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(expires));
    const list = await t.request("GET", `${BASE}/${a.id}/assignments`, { token: admin });
    expect(list.body.items.find((i: any) => i.id === add.body.id)).toMatchObject({ is_active: false, status: "expired" });
    const detail = await t.request("GET", `${BASE}/${a.id}`, { token: admin });
    expect(detail.body.effective_permissions).toEqual(["platform.admins.list", "platform.admins.read"]);
    // an expired assignment does not block assigning the group again
    expect((await t.request("POST", `${BASE}/${a.id}/assignments`, { token: admin, body: { group_uuid: auditGroup.id } })).status).toBe(201);
  });

  test("an assignment already expired or inactive in the database grants nothing", async () => {
    const u = await createPlatformUser(t, "Stale Grants", []);
    const now = new Date().toISOString();
    await t.rt.control.write(function* (tx) {
      yield* run(
        tx.insert(platformGroupAssignments).values({
          id: newId(),
          user_id: u.id,
          group_id: auditGroup.id,
          assigned_at: now,
          expires_at: new Date(Date.now() - 1000).toISOString(),
        }),
      );
      yield* run(tx.insert(platformGroupAssignments).values({ id: newId(), user_id: u.id, group_id: readGroup.id, assigned_at: now, is_active: false }));
    });
    await t.rt.access.invalidate();
    expect((await t.request("GET", "/api/v1/platform/audit", { token: u.token })).status).toBe(403);
    expect((await t.request("GET", BASE, { token: u.token })).status).toBe(403);
  });
});

describe("last-admin guard", () => {
  let t2: TestApp;
  let root: string;
  let rootId: string;

  beforeAll(async () => {
    t2 = await startTestApp();
    root = await t2.adminToken();
    rootId = (await t2.rt.control.read((db) => get<any>(db.select().from(users).where(eq(users.email, ADMIN.email)))))!.id;
  });
  afterAll(async () => {
    await t2.close();
  });

  test("400 when no user holding platform.admins.create would remain; 204 once another holds it", async () => {
    const revoker = await createPlatformUser(t2, "Revoker", ["platform.admins.revoke", "platform.admins.update", "platform.admins.read"]);
    const refused = await t2.request("DELETE", `${BASE}/${rootId}`, { token: revoker.token });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe("last_platform_admin");
    const still = await t2.request("GET", `${BASE}/${rootId}`, { token: root });
    expect(still.body.is_global_access).toBe(true);

    const creator = await createPlatformUser(t2, "Creator", ["platform.admins.create"]);
    expect((await t2.request("DELETE", `${BASE}/${rootId}`, { token: revoker.token })).status).toBe(204);
    expect((await t2.request("GET", BASE, { token: root })).status).toBe(403);

    // the creator is now the last holder: neither revoking them nor removing their assignment is allowed
    const [assignment] = await t2.rt.control.read((db) =>
      all<any>(
        db
          .select()
          .from(platformGroupAssignments)
          .where(and(eq(platformGroupAssignments.user_id, creator.id))),
      ),
    );
    const revoke = await t2.request("DELETE", `${BASE}/${creator.id}`, { token: revoker.token });
    expect(revoke.status).toBe(400);
    const remove = await t2.request("DELETE", `${BASE}/${creator.id}/assignments/${assignment.id}`, { token: revoker.token });
    expect(remove.status).toBe(400);
    const rows = await t2.rt.control.read((db) => all<any>(db.select().from(platformGroupAssignments).where(eq(platformGroupAssignments.user_id, creator.id))));
    expect(rows.map((r) => r.is_active)).toEqual([true]);
    expect((await t2.rt.control.read((db) => get<any>(db.select().from(users).where(eq(users.id, creator.id)))))!.is_platform_admin).toBe(true);
    const auditRows = await t2.rt.control.read((db) => all<any>(db.select().from(auditIndex).where(eq(auditIndex.resource_id, creator.id))));
    expect(auditRows).toEqual([]);
  });
});
