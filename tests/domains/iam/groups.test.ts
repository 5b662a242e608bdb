import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, iamMemberWithLogin, twoOrgApp, unique, type TestApp } from "@tests/helpers";
import { permissionGroups } from "@db/control/schema";
import { run } from "@/platform/db/work";
import { newId, nowIso } from "@/platform/ids";
import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";
import type { EventEnvelope } from "@/platform/events/envelope";

let t: TestApp;
let admin: string;
let adminId: string;
let orgA: string;
let A: string;
let B: string;
let adminGroupA: string;
let groupB: string;
let platformGroup: string;
const events: EventEnvelope[] = [];

let reader: { id: string; token: string }; // iam.groups.read only
let editor: { id: string; token: string }; // iam.groups.read/write + locations.read
let plain: { id: string; token: string }; // locations.read only

async function createGroup(P: string, body: Record<string, unknown>, token = admin) {
  const r = await t.request("POST", `${P}/groups`, { token, body });
  if (r.status !== 201) throw new Error(`create group failed: ${r.status} ${r.text}`);
  return r.body;
}

async function getGroup(P: string, id: string) {
  const r = await t.request("GET", `${P}/groups/${id}`, { token: admin });
  expect(r.status).toBe(200);
  return r.body;
}

/** A logged-in member of a new group holding `keys`. */
async function memberWithLogin(P: string, keys: string[]) {
  const g = await createGroup(P, { name: unique("G"), permission_keys: keys });
  return { ...(await iamMemberWithLogin(t, P, [g.id])), group: g.id as string };
}

beforeAll(async () => {
  const w = await twoOrgApp();
  ({ t, admin, orgA } = w);
  A = `${w.pathA}/iam`;
  B = `${w.pathB}/iam`;
  t.rt.events.subscribe(orgA, (e) => events.push(e));
  adminGroupA = (await t.request("GET", `${A}/groups`, { token: admin })).body.items[0].id;
  adminId = (await t.request("GET", `${A}/users`, { token: admin })).body.items[0].id;
  groupB = (await createGroup(B, { name: "B only", permission_keys: ["locations.read"] })).id;
  // a platform group (org_id null) must never be reachable through an org path
  platformGroup = newId();
  const now = nowIso();
  await t.rt.control.write((tx) =>
    run(
      tx.insert(permissionGroups).values({
        id: platformGroup,
        org_id: null,
        name: "Platform ops",
        permission_keys: ["platform.orgs.list"],
        created_at: now,
        updated_at: now,
        version: 1,
      }),
    ),
  );
  [reader, editor, plain] = await Promise.all([
    memberWithLogin(A, ["iam.groups.read"]),
    memberWithLogin(A, ["iam.groups.read", "iam.groups.write", "locations.read"]),
    memberWithLogin(A, ["locations.read"]),
  ]);
});

afterAll(async () => {
  await t.close();
});

describe("POST /iam/groups", () => {
  test("201 with the spec's shape; contains_phi follows the registry; audited", async () => {
    const before = events.length;
    const g = await createGroup(A, {
      name: "  Billing  ",
      description: "Front office billing",
      permission_keys: ["locations.read", "locations.read", "iam.users.read"],
    });
    expect(g).toEqual({
      id: expect.any(String),
      org_id: orgA,
      name: "Billing",
      description: "Front office billing",
      status: "active",
      is_system: false,
      is_org_admin: false,
      contains_phi: false,
      context_types: ["org"],
      scope_applicability: ["org"],
      permission_keys: ["locations.read", "iam.users.read"],
      created_at: expect.any(String),
      created_by: adminId,
      updated_at: expect.any(String),
      updated_by: adminId,
      version: 1,
    });
    const phi = await createGroup(A, { name: unique("Auditors"), permission_keys: ["audit.read"] });
    expect(phi.contains_phi).toBe(true);
    expect(phi.description).toBe("");
    const rows = await auditOf(t, orgA, g.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      action: "permission_group.created",
      resource_type: "permission_group",
      before: null,
      after: { id: g.id, name: "Billing" },
    });
    expect(events.slice(before).map((e) => e.type)).toContain("permission_group.created");
  });

  test("409 duplicate name among active groups, case-insensitive; an archived name is free again", async () => {
    const name = unique("Hygienists");
    const g = await createGroup(A, { name, permission_keys: [] });
    const r = await t.request("POST", `${A}/groups`, { token: admin, body: { name: name.toUpperCase(), permission_keys: [] } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("duplicate");
    // the same name in another org is fine
    await createGroup(B, { name, permission_keys: [] });
    await t.request("POST", `${A}/groups/${g.id}/archive`, { token: admin });
    await createGroup(A, { name, permission_keys: [] });
  });

  test("422 for unknown or platform keys, missing fields, unknown fields and malformed JSON", async () => {
    const before = (await t.request("GET", `${A}/groups?page_size=200`, { token: admin })).body.total;
    const cases: [unknown, (string | number)[]][] = [
      [{ name: "X", permission_keys: ["locations.read", "patients.fly"] }, ["body", "permission_keys", 1]],
      [{ name: "X", permission_keys: ["platform.orgs.manage"] }, ["body", "permission_keys", 0]],
      [{ name: "X" }, ["body", "permission_keys"]],
      [{ permission_keys: [] }, ["body", "name"]],
      [{ name: "   ", permission_keys: [] }, ["body", "name"]],
      [{ name: "X", permission_keys: [], is_org_admin: true }, ["body", "is_org_admin"]],
      [{ name: "X", permission_keys: [], status: "archived" }, ["body", "status"]],
      [{ name: "X", permission_keys: "locations.read" }, ["body", "permission_keys"]],
    ];
    for (const [body, loc] of cases) {
      const r = await t.request("POST", `${A}/groups`, { token: admin, body });
      expect(r.status).toBe(422);
      expect(r.body.detail.map((d: any) => d.loc)).toContainEqual(loc);
    }
    const bad = await t.request("POST", `${A}/groups`, { token: admin, rawBody: "{nope", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body"], type: "json_invalid" });
    expect((await t.request("POST", `${A}/groups`, { token: admin, rawBody: "name=x", headers: { "content-type": "text/plain" } })).status).toBe(415);
    expect((await t.request("GET", `${A}/groups?page_size=200`, { token: admin })).body.total).toBe(before);
  });

  test("401, 403 without iam.groups.write, 404 for a non-member org, 403 for keys the caller lacks", async () => {
    const body = { name: unique("Refused"), permission_keys: ["locations.read"] };
    expect((await t.request("POST", `${A}/groups`, { body })).status).toBe(401);
    expect((await t.request("POST", `${A}/groups`, { token: reader.token, body })).status).toBe(403);
    expect((await t.request("POST", `${B}/groups`, { token: editor.token, body })).status).toBe(404);
    const esc = await t.request("POST", `${A}/groups`, { token: editor.token, body: { ...body, permission_keys: ["audit.read"] } });
    expect(esc.status).toBe(403);
    expect(esc.body.code).toBe("forbidden");
    const names = (await t.request("GET", `${A}/groups?page_size=200`, { token: admin })).body.items.map((g: any) => g.name);
    expect(names).not.toContain(body.name);
    expect((await t.request("POST", `${A}/groups`, { token: editor.token, body })).status).toBe(201);
  });
});

describe("GET /iam/groups", () => {
  test("active groups by default, archived on request, paged and sorted by name", async () => {
    const r = await t.request("GET", `${A}/groups`, { token: reader.token });
    expect(r.status).toBe(200);
    expect(r.body.page_size).toBe(50);
    expect(r.body.items.every((g: any) => g.status === "active")).toBe(true);
    const names = r.body.items.map((g: any) => g.name.toLowerCase());
    expect(names).toEqual([...names].sort());
    expect(r.body.items.some((g: any) => g.id === groupB || g.id === platformGroup)).toBe(false);
    const g = await createGroup(A, { name: unique("ToArchive"), permission_keys: [] });
    await t.request("POST", `${A}/groups/${g.id}/archive`, { token: admin });
    const archived = await t.request("GET", `${A}/groups?status=archived&page_size=200`, { token: admin });
    expect(archived.body.items.map((x: any) => x.id)).toContain(g.id);
    expect(archived.body.items.every((x: any) => x.status === "archived")).toBe(true);
    const p = await t.request("GET", `${A}/groups?page=2&page_size=1`, { token: admin });
    expect(p.body).toMatchObject({ page: 2, page_size: 1, total: r.body.total + 0 });
    expect(p.body.items).toHaveLength(1);
  });

  test("422 on bad query; 401, 403, 404", async () => {
    for (const qs of ["status=deleted", "page_size=0", "page_size=201", "page=x", "sort_by=name"]) {
      expect((await t.request("GET", `${A}/groups?${qs}`, { token: admin })).status).toBe(422);
    }
    expect((await t.request("GET", `${A}/groups`)).status).toBe(401);
    expect((await t.request("GET", `${A}/groups`, { token: plain.token })).status).toBe(403);
    expect((await t.request("GET", `${B}/groups`, { token: reader.token })).status).toBe(404);
  });
});

describe("GET /iam/groups/{id} and /permission-ids", () => {
  test("the org admin group holds every org key", async () => {
    const g = await getGroup(A, adminGroupA);
    expect(g).toMatchObject({ is_system: true, is_org_admin: true, contains_phi: true, permission_keys: ORG_PERMISSION_KEYS });
    const ids = await t.request("GET", `${A}/groups/${adminGroupA}/permission-ids`, { token: reader.token });
    expect(ids.status).toBe(200);
    expect(ids.body).toEqual({ items: ORG_PERMISSION_KEYS });
  });

  test("404 for unknown ids, another org's group and platform groups; 401/403/404 access", async () => {
    for (const id of ["01890000-0000-7000-8000-000000000000", "x", groupB, platformGroup]) {
      for (const suffix of ["", "/permission-ids"]) {
        const r = await t.request("GET", `${A}/groups/${id}${suffix}`, { token: admin });
        expect(r.status).toBe(404);
        expect(r.body.code).toBe("not_found");
      }
    }
    for (const suffix of ["", "/permission-ids"]) {
      expect((await t.request("GET", `${A}/groups/${adminGroupA}${suffix}`)).status).toBe(401);
      expect((await t.request("GET", `${A}/groups/${adminGroupA}${suffix}`, { token: plain.token })).status).toBe(403);
      expect((await t.request("GET", `${B}/groups/${groupB}${suffix}`, { token: reader.token })).status).toBe(404);
    }
    const k = await t.request("GET", `${B}/groups/${groupB}/permission-ids`, { token: admin });
    expect(k.body).toEqual({ items: ["locations.read"] });
  });
});

describe("PATCH /iam/groups/{id}", () => {
  test("changes name, description and keys; version, updated_by, audit and event follow", async () => {
    const g = await createGroup(A, { name: unique("Patchable"), permission_keys: ["locations.read"] });
    const before = events.length;
    const r = await t.request("PATCH", `${A}/groups/${g.id}`, {
      token: editor.token,
      body: { base_version: 1, description: "now with write", permission_keys: ["locations.read", "locations.write"] },
    });
    expect(r.status).toBe(403); // editor lacks locations.write
    const ok = await t.request("PATCH", `${A}/groups/${g.id}`, {
      token: admin,
      body: { base_version: 1, name: "Patched group", description: "d", permission_keys: ["locations.write"] },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      name: "Patched group",
      description: "d",
      permission_keys: ["locations.write"],
      version: 2,
      updated_by: adminId,
      created_by: adminId,
    });
    expect(ok.headers.get("etag")).toBe('"2"');
    const rows = await auditOf(t, orgA, g.id);
    expect(rows.map((x) => x.action)).toEqual(["permission_group.created", "permission_group.updated"]);
    expect(rows[1].before.permission_keys).toEqual(["locations.read"]);
    const ev = events.slice(before).find((e) => e.type === "permission_group.updated");
    expect((ev!.data.changed_fields as string[]).sort()).toEqual(["description", "name", "permission_keys"]);
  });

  test("409 stale version, duplicate name, system group, archived group; nothing changes", async () => {
    const g = await createGroup(A, { name: unique("Conflicted"), permission_keys: [] });
    const other = await createGroup(A, { name: unique("Taken"), permission_keys: [] });
    const stale = await t.request("PATCH", `${A}/groups/${g.id}`, { token: admin, body: { base_version: 2, name: "Changed" } });
    expect(stale.body.code).toBe("version_conflict");
    const dup = await t.request("PATCH", `${A}/groups/${g.id}`, { token: admin, body: { base_version: 1, name: other.name.toLowerCase() } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("duplicate");
    expect(await getGroup(A, g.id)).toEqual(g);
    // renaming a group to its own name is not a duplicate
    expect((await t.request("PATCH", `${A}/groups/${g.id}`, { token: admin, body: { base_version: 1, name: g.name } })).status).toBe(200);

    const sys = await getGroup(A, adminGroupA);
    const r = await t.request("PATCH", `${A}/groups/${adminGroupA}`, { token: admin, body: { base_version: sys.version, permission_keys: [] } });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("system_group");
    expect(await getGroup(A, adminGroupA)).toEqual(sys);

    const arch = (await t.request("POST", `${A}/groups/${other.id}/archive`, { token: admin })).body;
    const a = await t.request("PATCH", `${A}/groups/${other.id}`, { token: admin, body: { base_version: arch.version, name: "Revived" } });
    expect(a.status).toBe(409);
    expect(a.body.code).toBe("group_archived");
  });

  test("422 bad input; 401/403/404 including another org's group; refused requests change nothing", async () => {
    const g = await createGroup(A, { name: unique("Guarded"), permission_keys: ["locations.read"] });
    for (const body of [
      { name: "X" },
      { base_version: 1, permission_keys: ["nope"] },
      { base_version: 1, is_system: true },
      { base_version: 1, version: 9 },
      { base_version: 0 },
    ]) {
      expect((await t.request("PATCH", `${A}/groups/${g.id}`, { token: admin, body })).status).toBe(422);
    }
    expect((await t.request("PATCH", `${A}/groups/${g.id}`, { token: admin, rawBody: "[", headers: { "content-type": "application/json" } })).status).toBe(422);
    expect((await t.request("PATCH", `${A}/groups/${g.id}`, { body: { base_version: 1 } })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/groups/${g.id}`, { token: reader.token, body: { base_version: 1, name: "R" } })).status).toBe(403);
    expect((await t.request("PATCH", `${A}/groups/${groupB}`, { token: admin, body: { base_version: 1, name: "Stolen" } })).status).toBe(404);
    expect((await t.request("PATCH", `${A}/groups/${platformGroup}`, { token: admin, body: { base_version: 1, name: "Stolen" } })).status).toBe(404);
    expect((await t.request("PATCH", `${B}/groups/${groupB}`, { token: editor.token, body: { base_version: 1, name: "Stolen" } })).status).toBe(404);
    expect(await getGroup(A, g.id)).toEqual(g);
    expect((await getGroup(B, groupB)).name).toBe("B only");
  });
});

describe("POST /iam/groups/{id}/archive", () => {
  test("archives once; repeating changes nothing; system and foreign groups refused", async () => {
    const g = await createGroup(A, { name: unique("Archivable"), permission_keys: [] });
    const r = await t.request("POST", `${A}/groups/${g.id}/archive`, { token: editor.token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "archived", version: 2 });
    expect((await t.request("POST", `${A}/groups/${g.id}/archive`, { token: editor.token })).body.version).toBe(2);
    expect((await auditOf(t, orgA, g.id)).map((x) => x.action)).toEqual(["permission_group.created", "permission_group.archived"]);

    const sys = await t.request("POST", `${A}/groups/${adminGroupA}/archive`, { token: admin });
    expect(sys.status).toBe(409);
    expect(sys.body.code).toBe("system_group");
    expect((await getGroup(A, adminGroupA)).status).toBe("active");
    expect((await t.request("POST", `${A}/groups/${groupB}/archive`, { token: admin })).status).toBe(404);
    expect((await getGroup(B, groupB)).status).toBe("active");
    expect((await t.request("POST", `${A}/groups/${g.id}/archive`)).status).toBe(401);
    expect((await t.request("POST", `${A}/groups/${g.id}/archive`, { token: reader.token })).status).toBe(403);
    expect((await t.request("POST", `${B}/groups/${groupB}/archive`, { token: editor.token })).status).toBe(404);
    // a group holding keys the editor lacks cannot be archived by them
    const strong = await createGroup(A, { name: unique("Strong"), permission_keys: ["audit.read"] });
    expect((await t.request("POST", `${A}/groups/${strong.id}/archive`, { token: editor.token })).status).toBe(403);
    expect((await getGroup(A, strong.id)).status).toBe("active");
  });
});

describe("permission changes apply immediately", () => {
  test("editing or archiving a member's group changes what they may do on the next request", async () => {
    const m = await memberWithLogin(A, ["iam.groups.read"]);
    const probe = () => t.request("GET", `${A}/groups`, { token: m.token });
    expect((await probe()).status).toBe(200);
    const g = await getGroup(A, m.group);
    expect(
      (await t.request("PATCH", `${A}/groups/${m.group}`, { token: admin, body: { base_version: g.version, permission_keys: ["iam.users.read"] } })).status,
    ).toBe(200);
    expect((await probe()).status).toBe(403);
    expect((await t.request("GET", `${A}/users`, { token: m.token })).status).toBe(200);
    expect((await t.request("POST", `${A}/groups/${m.group}/archive`, { token: admin })).status).toBe(200);
    expect((await t.request("GET", `${A}/users`, { token: m.token })).status).toBe(403);
    // an archived group no longer shows on the member
    const member = await t.request("GET", `${A}/users/${m.id}`, { token: admin });
    expect(member.body.groups).toEqual([]);
  });
});
