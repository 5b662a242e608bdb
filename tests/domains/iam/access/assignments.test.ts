import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditOf, busDrained, iamMemberWithLogin, twoOrgApp, unique, waitForEvent, type TestApp } from "@tests/helpers";
import { iamAssignments, memberships, orgs } from "@db/control/schema";
import { get, run } from "@/platform/db/work";
import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";
import type { EventEnvelope } from "@/platform/events/envelope";

let t: TestApp;
let admin: string;
let adminId: string;
let orgA: string;
let orgB: string;
let A: string; // {P}/iam of org A
let B: string;
let PA: string; // /api/v1/{org A}
let adminGroup: string;
let adminAssignment: string; // the platform admin's org-admin grant in org A
let readers: string; // iam.users.read
let front: string; // locations.read + locations.write
let managers: string; // iam.users.read + iam.users.write
let phi: string; // patients.read
let groupB: string;
let loc1: string;
let loc2: string;
let prov1: string;
const events: EventEnvelope[] = [];

// Logged-in members (argon2 is slow on purpose: few of them, reused).
let manager: { id: string; token: string }; // managers group, org-wide
let nobody: { id: string; token: string }; // locations.read only
let outsider: { id: string; token: string }; // iam.users.read + write in org B only

const UNKNOWN = "01890000-0000-7000-8000-000000000000";
const email = (p = "u") => `${unique(p)}@example.com`;

async function createGroup(P: string, name: string, keys: string[]) {
  const r = await t.request("POST", `${P}/groups`, { token: admin, body: { name, permission_keys: keys } });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

/** An invited member of org A (of `P`), optionally with org-wide groups. */
async function member(opts: { groups?: string[]; P?: string } = {}) {
  const e = email("m");
  const r = await t.request("POST", `${opts.P ?? A}/users`, {
    token: admin,
    body: { email: e, display_name: `Member ${e}`, group_uuids: opts.groups ?? [] },
  });
  expect(r.status).toBe(201);
  return { id: r.body.id as string, email: e, display_name: `Member ${e}` };
}
/** An active member without a password round trip (argon2 is slow): invited, then activated in the control database. */
async function activeMember(groups: string[] = []) {
  const m = await member({ groups });
  await t.rt.control.write(function* (tx) {
    yield* run(
      tx
        .update(memberships)
        .set({ status: "active", joined_at: new Date().toISOString() })
        .where(and(eq(memberships.org_id, orgA), eq(memberships.user_id, m.id))),
    );
  });
  await t.rt.access.invalidate();
  return m;
}

const assign = (body: Record<string, unknown>, token = admin) => t.request("POST", `${A}/assignments`, { token, body });

async function assigned(body: Record<string, unknown>, token = admin) {
  const r = await assign(body, token);
  if (r.status !== 201) throw new Error(`assign failed: ${r.status} ${r.text}`);
  return r.body;
}

const list = (qs = "", token = admin) => t.request("GET", `${A}/assignments?${qs}`, { token });
const one = (id: string, token = admin) => t.request("GET", `${A}/assignments/${id}`, { token });
const totalOf = async (qs = "") => (await list(qs)).body.total as number;

async function cacheVersion(orgId = orgA) {
  const row = await t.rt.control.read((db) => get<{ v: number }>(db.select({ v: orgs.access_version }).from(orgs).where(eq(orgs.id, orgId))));
  return row!.v;
}

/** Moves an assignment's expiry into the past directly in the control database. */
async function expire(id: string) {
  await t.rt.control.write(function* (tx) {
    yield* run(
      tx
        .update(iamAssignments)
        .set({ expires_at: new Date(Date.now() - 60_000).toISOString() })
        .where(eq(iamAssignments.id, id)),
    );
  });
  await t.rt.access.invalidate();
}

async function createLocation(name: string) {
  const r = await t.request("POST", `${PA}/locations`, { token: admin, body: { name, timezone: "America/Chicago" } });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

beforeAll(async () => {
  const w = await twoOrgApp();
  ({ t, admin, orgA, orgB, pathA: PA } = w);
  A = `${PA}/iam`;
  B = `${w.pathB}/iam`;
  t.rt.events.subscribe(orgA, (e) => events.push(e));
  const groups = await t.request("GET", `${A}/groups`, { token: admin });
  adminGroup = groups.body.items.find((g: any) => g.is_org_admin).id;
  const initial = (await list()).body.items;
  expect(initial).toHaveLength(1);
  adminAssignment = initial[0].id;
  adminId = initial[0].user_id;
  readers = await createGroup(A, "Readers", ["iam.users.read"]);
  front = await createGroup(A, "Front desk", ["locations.read", "locations.write"]);
  managers = await createGroup(A, "Managers", ["iam.users.read", "iam.users.write"]);
  phi = await createGroup(A, "Chart readers", ["patients.read"]);
  const locOnly = await createGroup(A, "Location readers", ["locations.read"]);
  groupB = await createGroup(B, "Readers", ["iam.users.read"]);
  const writersB = await createGroup(B, "Managers", ["iam.users.read", "iam.users.write"]);
  loc1 = await createLocation("Main street");
  loc2 = await createLocation("Second street");
  const p = await t.request("POST", `${PA}/providers`, { token: admin, body: { first_name: "Ada", last_name: "Molar", abbreviation: "AM" } });
  expect(p.status).toBe(201);
  prov1 = p.body.id;
  [manager, nobody, outsider] = await Promise.all([
    iamMemberWithLogin(t, A, [managers]),
    iamMemberWithLogin(t, A, [locOnly]),
    iamMemberWithLogin(t, B, [writersB]),
  ]);
});

afterAll(async () => {
  await t.close();
});

describe("POST /iam/assignments", () => {
  test("grants a group at the org node by default (context all): 201, stored, audited, event, cache_version moves", async () => {
    const m = await member();
    const v0 = await cacheVersion();
    const from = events.length;
    const r = await assign({ user_id: m.id, group_uuid: readers });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      user_id: m.id,
      user: { id: m.id, email: m.email, display_name: m.display_name },
      group_uuid: readers,
      group: { id: readers, name: "Readers" },
      scope_node_uuid: orgA,
      scope_type: "org",
      context: "all",
      status: "active",
      expires_at: null,
      approval_uuid: null,
      created_by: adminId,
      created_at: expect.any(String),
      updated_at: r.body.created_at,
      version: 1,
    });
    expect(await cacheVersion()).toBe(v0 + 1);
    const got = await one(r.body.id);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r.body);
    const rows = await auditOf(t, orgA, r.body.id);
    expect(rows.map((x) => x.action)).toEqual(["iam_assignment.created"]);
    expect(rows[0].before).toBeNull();
    expect(rows[0].after).toEqual(r.body);
    const ev = await waitForEvent(events, (e) => e.type === "iam_assignment.created" && e.resource_id === r.body.id, { from });
    expect(ev).toMatchObject({
      org_id: orgA,
      resource_type: "iam_assignment",
      data: { id: r.body.id, user_id: m.id, group_uuid: readers, scope_node_uuid: orgA, status: "active" },
    });
    // an org-wide grant of context all is one of the member's groups in the users API
    expect((await t.request("GET", `${A}/users/${m.id}`, { token: admin })).body.groups).toEqual([{ uuid: readers, name: "Readers" }]);
  });

  test("at a location and at a provider, with a context the node takes and an expiry (stored in UTC)", async () => {
    const m = await member();
    const atLoc = await assign({ user_id: m.id, group_uuid: front, scope_node_uuid: loc1, context: "location", expires_at: "2099-01-01T10:00:00+02:00" });
    expect(atLoc.status).toBe(201);
    expect(atLoc.body).toMatchObject({
      scope_node_uuid: loc1,
      scope_type: "location",
      context: "location",
      status: "active",
      expires_at: "2099-01-01T08:00:00.000Z",
      group: { id: front, name: "Front desk" },
    });
    const atProv = await assign({ user_id: m.id, group_uuid: readers, scope_node_uuid: prov1, context: "self", expires_at: null });
    expect(atProv.status).toBe(201);
    expect(atProv.body).toMatchObject({ scope_node_uuid: prov1, scope_type: "provider", context: "self", expires_at: null });
    const mine = await list(`user_id=${m.id}`);
    expect(mine.body).toEqual({ items: [atLoc.body, atProv.body], total: 2 });
    // not an org-wide grant: no group in the users API
    expect((await t.request("GET", `${A}/users/${m.id}`, { token: admin })).body.groups).toEqual([]);
  });

  test("each node takes only its contexts: the others are 422 and store nothing", async () => {
    const m = await member();
    const cases: [string, string, boolean][] = [
      [orgA, "all", true],
      [orgA, "org", true],
      [orgA, "location", true],
      [orgA, "provider", true],
      [orgA, "self", false],
      [loc1, "all", true],
      [loc1, "location", true],
      [loc1, "org", false],
      [loc1, "provider", false],
      [loc1, "self", false],
      [prov1, "all", true],
      [prov1, "provider", true],
      [prov1, "self", true],
      [prov1, "org", false],
      [prov1, "location", false],
    ];
    for (const [node, context, ok] of cases) {
      const r = await assign({ user_id: m.id, group_uuid: readers, scope_node_uuid: node, context });
      expect({ node, context, status: r.status }).toEqual({ node, context, status: ok ? 201 : 422 });
      if (ok) expect(r.body.context).toBe(context);
      else expect(r.body.detail).toEqual([{ loc: ["body", "context"], msg: expect.any(String), type: "value_error" }]);
    }
    expect(await totalOf(`user_id=${m.id}`)).toBe(9);
  });

  test("404 for an unknown, removed or other org's member, an unknown or other org's group, a node not in the tree; nothing stored", async () => {
    const m = await member();
    const removed = await member();
    expect((await t.request("POST", `${A}/users/${removed.id}/remove`, { token: admin })).status).toBe(200);
    const inB = await member({ P: B });
    const archivedLoc = await createLocation("Archived soon");
    expect((await t.request("POST", `${PA}/locations/${archivedLoc}/archive`, { token: admin })).status).toBe(200);
    const total = await totalOf();
    const cases: Record<string, unknown>[] = [
      { user_id: UNKNOWN, group_uuid: readers },
      { user_id: inB.id, group_uuid: readers },
      { user_id: removed.id, group_uuid: readers },
      { user_id: m.id, group_uuid: UNKNOWN },
      { user_id: m.id, group_uuid: groupB },
      { user_id: m.id, group_uuid: readers, scope_node_uuid: UNKNOWN },
      { user_id: m.id, group_uuid: readers, scope_node_uuid: archivedLoc },
      { user_id: m.id, group_uuid: readers, scope_node_uuid: orgB },
    ];
    for (const body of cases) {
      const r = await assign(body);
      expect({ body, status: r.status, code: r.body.code }).toEqual({ body, status: 404, code: "not_found" });
    }
    expect(await totalOf()).toBe(total);
  });

  test("409 duplicate for the same member, group, node and context (whatever its status); another context or node is a new grant", async () => {
    const m = await member({ groups: [readers] });
    // the users API's group_uuids are org-node, context-all grants
    const dupOrg = await assign({ user_id: m.id, group_uuid: readers });
    expect(dupOrg.status).toBe(409);
    expect(dupOrg.body).toEqual({ detail: expect.any(String), code: "duplicate" });
    const first = await assigned({ user_id: m.id, group_uuid: readers, scope_node_uuid: loc1 });
    for (const body of [
      { user_id: m.id, group_uuid: readers, scope_node_uuid: loc1 },
      { user_id: m.id, group_uuid: readers, scope_node_uuid: loc1, context: "all", expires_at: "2099-01-01T00:00:00Z" },
    ]) {
      const r = await assign(body);
      expect(r.status).toBe(409);
      expect(r.body.code).toBe("duplicate");
    }
    expect((await t.request("POST", `${A}/assignments/${first.id}/suspend`, { token: admin })).status).toBe(200);
    expect((await assign({ user_id: m.id, group_uuid: readers, scope_node_uuid: loc1 })).body.code).toBe("duplicate");
    expect((await assign({ user_id: m.id, group_uuid: readers, scope_node_uuid: loc1, context: "location" })).status).toBe(201);
    expect((await assign({ user_id: m.id, group_uuid: readers, scope_node_uuid: loc2 })).status).toBe(201);
    expect(await totalOf(`user_id=${m.id}`)).toBe(4);
  });

  test("409 group_archived for an archived group; nothing stored", async () => {
    const m = await member();
    const old = await createGroup(A, unique("Old"), ["iam.users.read"]);
    expect((await t.request("POST", `${A}/groups/${old}/archive`, { token: admin })).status).toBe(200);
    const r = await assign({ user_id: m.id, group_uuid: old, scope_node_uuid: loc1 });
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ detail: expect.any(String), code: "group_archived" });
    expect(await totalOf(`user_id=${m.id}`)).toBe(0);
  });

  test("422 on missing, malformed, past or unknown fields and malformed JSON; nothing stored", async () => {
    const m = await member();
    const past = new Date(Date.now() - 60_000).toISOString();
    const cases: [Record<string, unknown>, (string | number)[]][] = [
      [{ group_uuid: readers }, ["body", "user_id"]],
      [{ user_id: m.id }, ["body", "group_uuid"]],
      [{ user_id: "nope", group_uuid: readers }, ["body", "user_id"]],
      [{ user_id: m.id, group_uuid: readers, scope_node_uuid: "loc-1" }, ["body", "scope_node_uuid"]],
      [{ user_id: m.id, group_uuid: readers, context: "everywhere" }, ["body", "context"]],
      [{ user_id: m.id, group_uuid: readers, expires_at: past }, ["body", "expires_at"]],
      [{ user_id: m.id, group_uuid: readers, expires_at: "2099-01-01" }, ["body", "expires_at"]],
      [{ user_id: m.id, group_uuid: readers, expires_at: "next week" }, ["body", "expires_at"]],
      [{ user_id: m.id, group_uuid: readers, status: "active" }, ["body", "status"]],
      [{ user_id: m.id, group_uuid: readers, id: UNKNOWN }, ["body", "id"]],
      [{ user_id: m.id, group_uuid: readers, scope_type: "org" }, ["body", "scope_type"]],
    ];
    for (const [body, loc] of cases) {
      const r = await assign(body);
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect(r.body.detail.map((d: any) => d.loc)).toContainEqual(loc);
    }
    const bad = await t.request("POST", `${A}/assignments`, { token: admin, rawBody: '{"user_id": ', headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(await totalOf(`user_id=${m.id}`)).toBe(0);
  });

  test("anti-escalation: a member cannot grant a group holding keys they lack org-wide (403); a subset is fine", async () => {
    const m = await member();
    for (const g of [front, adminGroup, phi]) {
      for (const node of [orgA, loc1]) {
        const r = await assign({ user_id: m.id, group_uuid: g, scope_node_uuid: node }, manager.token);
        expect({ g, node, status: r.status }).toEqual({ g, node, status: 403 });
        expect(r.body.code).toBe("forbidden");
      }
    }
    expect(await totalOf(`user_id=${m.id}`)).toBe(0);
    const ok = await assign({ user_id: m.id, group_uuid: readers, scope_node_uuid: loc1 }, manager.token);
    expect(ok.status).toBe(201);
    expect(ok.body.created_by).toBe(manager.id);
    expect((await assign({ user_id: m.id, group_uuid: managers }, manager.token)).status).toBe(201);
    expect(await totalOf(`user_id=${m.id}`)).toBe(2);
  });
});

describe("GET /iam/assignments", () => {
  test("filters by member, group, node and status; oldest first; limit and offset", async () => {
    const locL = await createLocation(unique("List loc"));
    const m1 = await member();
    const m2 = await member();
    const a1 = await assigned({ user_id: m1.id, group_uuid: readers });
    const a2 = await assigned({ user_id: m1.id, group_uuid: front, scope_node_uuid: locL });
    const a3 = await assigned({ user_id: m2.id, group_uuid: readers, scope_node_uuid: locL, context: "location" });
    const ids = async (qs: string) => {
      const r = await list(qs);
      expect(r.status).toBe(200);
      return { ids: r.body.items.map((i: any) => i.id), total: r.body.total };
    };
    expect(await ids(`user_id=${m1.id}`)).toEqual({ ids: [a1.id, a2.id], total: 2 });
    expect(await ids(`scope_node_uuid=${locL}`)).toEqual({ ids: [a2.id, a3.id], total: 2 });
    expect(await ids(`scope_node_uuid=${locL}&group_uuid=${readers}`)).toEqual({ ids: [a3.id], total: 1 });
    expect(await ids(`user_id=${m2.id}&group_uuid=${front}`)).toEqual({ ids: [], total: 0 });
    const byGroup = await ids(`group_uuid=${front}`);
    expect(byGroup.ids).toContain(a2.id);
    expect(byGroup.ids).not.toContain(a1.id);
    // paging
    expect(await ids(`user_id=${m1.id}&limit=1`)).toEqual({ ids: [a1.id], total: 2 });
    expect(await ids(`user_id=${m1.id}&limit=1&offset=1`)).toEqual({ ids: [a2.id], total: 2 });
    expect(await ids(`user_id=${m1.id}&offset=5`)).toEqual({ ids: [], total: 2 });
    expect((await list("limit=500")).status).toBe(200);
    // status: suspended, then expired (derived from expires_at)
    expect((await t.request("POST", `${A}/assignments/${a2.id}/suspend`, { token: admin })).status).toBe(200);
    expect(await ids(`user_id=${m1.id}&status=suspended`)).toEqual({ ids: [a2.id], total: 1 });
    expect(await ids(`user_id=${m1.id}&status=active`)).toEqual({ ids: [a1.id], total: 1 });
    await expire(a1.id);
    expect(await ids(`user_id=${m1.id}&status=expired`)).toEqual({ ids: [a1.id], total: 1 });
    expect(await ids(`user_id=${m1.id}&status=active`)).toEqual({ ids: [], total: 0 });
    const items = (await list(`user_id=${m1.id}`)).body.items;
    expect(items.map((i: any) => i.status)).toEqual(["expired", "suspended"]);
    // a suspended grant that expires is expired
    await expire(a2.id);
    expect(await ids(`user_id=${m1.id}&status=expired`)).toEqual({ ids: [a1.id, a2.id], total: 2 });
    expect(await ids(`user_id=${m1.id}&status=suspended`)).toEqual({ ids: [], total: 0 });
  });

  test("422 on invalid limit, offset, status, ids or unknown parameters", async () => {
    for (const [qs, field] of [
      ["limit=0", "limit"],
      ["limit=501", "limit"],
      ["offset=-1", "offset"],
      ["status=revoked", "status"],
      ["user_id=nope", "user_id"],
      ["scope_node_uuid=x", "scope_node_uuid"],
      ["colour=red", "colour"],
    ]) {
      const r = await list(qs!);
      expect({ qs, status: r.status }).toEqual({ qs, status: 422 });
      expect(r.body.detail[0].loc).toEqual(["query", field]);
    }
  });
});

describe("GET /iam/assignments/{id}", () => {
  test("200 by id in any case; 404 for unknown, malformed or another org's ids", async () => {
    const got = await one(adminAssignment.toUpperCase());
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: adminAssignment, user_id: adminId, group_uuid: adminGroup, scope_type: "org", context: "all", status: "active" });
    const inB = (await t.request("GET", `${B}/assignments`, { token: admin })).body.items[0].id;
    for (const id of [UNKNOWN, "nope", inB]) {
      const r = await one(id);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
  });
});

describe("suspend and reactivate", () => {
  test("status and version follow; audit entries and events; repeating changes nothing", async () => {
    const m = await member();
    const a = await assigned({ user_id: m.id, group_uuid: readers, scope_node_uuid: loc2 });
    const from = events.length;
    const v0 = await cacheVersion();
    const s = await t.request("POST", `${A}/assignments/${a.id}/suspend`, { token: admin });
    expect(s.status).toBe(200);
    expect(s.body).toEqual({ ...a, status: "suspended", version: 2, updated_at: expect.any(String) });
    expect(await cacheVersion()).toBe(v0 + 1);
    const again = await t.request("POST", `${A}/assignments/${a.id}/suspend`, { token: admin });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(s.body);
    expect(await cacheVersion()).toBe(v0 + 1); // nothing written
    const re = await t.request("POST", `${A}/assignments/${a.id}/reactivate`, { token: admin });
    expect(re.status).toBe(200);
    expect(re.body).toMatchObject({ status: "active", version: 3 });
    const reAgain = await t.request("POST", `${A}/assignments/${a.id}/reactivate`, { token: admin });
    expect(reAgain.body).toEqual(re.body);
    const rows = await auditOf(t, orgA, a.id);
    expect(rows.map((x) => x.action)).toEqual(["iam_assignment.created", "iam_assignment.suspended", "iam_assignment.reactivated"]);
    expect(rows[1].before).toMatchObject({ status: "active", version: 1 });
    expect(rows[1].after).toEqual(s.body);
    expect(rows[2].before).toEqual(s.body);
    expect(rows[2].after).toEqual(re.body);
    const susp = await waitForEvent(events, (e) => e.type === "iam_assignment.suspended" && e.resource_id === a.id, { from });
    expect(susp.data).toEqual({ id: a.id, user_id: m.id, group_uuid: readers, scope_node_uuid: loc2, status: "suspended" });
    const react = await waitForEvent(events, (e) => e.type === "iam_assignment.reactivated" && e.resource_id === a.id, { from });
    expect(react.data.status).toBe("active");
    await busDrained(t.rt.bus);
    expect(
      events
        .slice(from)
        .filter((e) => e.resource_id === a.id)
        .map((e) => e.type),
    ).toEqual(["iam_assignment.suspended", "iam_assignment.reactivated"]);
  });

  test("422 invalid_transition for an expired assignment, suspended or not; it stays as it was", async () => {
    const m = await member();
    const a = await assigned({ user_id: m.id, group_uuid: readers, scope_node_uuid: loc1 });
    const b = await assigned({ user_id: m.id, group_uuid: readers, scope_node_uuid: loc2 });
    expect((await t.request("POST", `${A}/assignments/${b.id}/suspend`, { token: admin })).status).toBe(200);
    await expire(a.id);
    await expire(b.id);
    for (const [id, version] of [
      [a.id, 1],
      [b.id, 2],
    ] as const) {
      for (const action of ["suspend", "reactivate"]) {
        const r = await t.request("POST", `${A}/assignments/${id}/${action}`, { token: admin });
        expect({ action, status: r.status }).toEqual({ action, status: 422 });
        expect(r.body.code).toBe("invalid_transition");
        expect(r.body.detail).toEqual([{ loc: ["path", "assignment_uuid"], msg: expect.any(String), type: "invalid_transition" }]);
      }
      expect((await one(id)).body).toMatchObject({ status: "expired", version });
    }
  });

  test("anti-escalation: a member cannot suspend, reactivate or revoke a grant of keys they lack", async () => {
    const m = await member();
    const a = await assigned({ user_id: m.id, group_uuid: front, scope_node_uuid: loc1 });
    const mine = await assigned({ user_id: m.id, group_uuid: readers, scope_node_uuid: loc1 });
    for (const [method, path] of [
      ["POST", `/assignments/${a.id}/suspend`],
      ["DELETE", `/assignments/${a.id}`],
    ] as const) {
      const r = await t.request(method, `${A}${path}`, { token: manager.token });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe("forbidden");
    }
    expect((await t.request("POST", `${A}/assignments/${a.id}/suspend`, { token: admin })).status).toBe(200);
    expect((await t.request("POST", `${A}/assignments/${a.id}/reactivate`, { token: manager.token })).status).toBe(403);
    expect((await one(a.id)).body).toMatchObject({ status: "suspended", version: 2 });
    // a grant within the manager's own keys is theirs to manage
    expect((await t.request("POST", `${A}/assignments/${mine.id}/suspend`, { token: manager.token })).body.status).toBe("suspended");
    expect((await t.request("DELETE", `${A}/assignments/${mine.id}`, { token: manager.token })).status).toBe(204);
  });

  test("409 last_admin: the last org-wide org-admin grant can be neither suspended nor revoked", async () => {
    const before = (await one(adminAssignment)).body;
    for (const [method, path] of [
      ["POST", `/assignments/${adminAssignment}/suspend`],
      ["DELETE", `/assignments/${adminAssignment}`],
    ] as const) {
      const r = await t.request(method, `${A}${path}`, { token: admin });
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ detail: expect.any(String), code: "last_admin" });
    }
    expect((await one(adminAssignment)).body).toEqual(before);
    // an org-admin grant at a location is not the org's administrator
    const second = await activeMember();
    const atLoc = await assigned({ user_id: second.id, group_uuid: adminGroup, scope_node_uuid: loc1 });
    expect((await t.request("POST", `${A}/assignments/${adminAssignment}/suspend`, { token: admin })).body.code).toBe("last_admin");
    expect((await t.request("POST", `${A}/assignments/${atLoc.id}/suspend`, { token: admin })).status).toBe(200);
    // with a second administrator org-wide, one of the two may go
    const orgWide = await assigned({ user_id: second.id, group_uuid: adminGroup });
    const s = await t.request("POST", `${A}/assignments/${adminAssignment}/suspend`, { token: admin });
    expect(s.status).toBe(200);
    expect(s.body.status).toBe("suspended");
    const last = await t.request("DELETE", `${A}/assignments/${orgWide.id}`, { token: admin });
    expect(last.status).toBe(409);
    expect(last.body.code).toBe("last_admin");
    expect((await t.request("POST", `${A}/assignments/${adminAssignment}/reactivate`, { token: admin })).body.status).toBe("active");
    expect((await t.request("DELETE", `${A}/assignments/${orgWide.id}`, { token: admin })).status).toBe(204);
    expect((await one(adminAssignment)).body).toMatchObject({ status: "active", version: before.version + 2 });
  });
});

describe("DELETE /iam/assignments/{id}", () => {
  test("revokes: 204, gone, audited with what it was, event, cache_version moves; again is 404", async () => {
    const m = await member();
    const a = await assigned({ user_id: m.id, group_uuid: front, scope_node_uuid: prov1, context: "provider" });
    const from = events.length;
    const v0 = await cacheVersion();
    const r = await t.request("DELETE", `${A}/assignments/${a.id}`, { token: admin });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect(await cacheVersion()).toBe(v0 + 1);
    expect((await one(a.id)).status).toBe(404);
    expect(await totalOf(`user_id=${m.id}`)).toBe(0);
    const rows = await auditOf(t, orgA, a.id);
    expect(rows.map((x) => x.action)).toEqual(["iam_assignment.created", "iam_assignment.revoked"]);
    expect(rows[1].before).toEqual(a);
    expect(rows[1].after).toBeNull();
    const ev = await waitForEvent(events, (e) => e.type === "iam_assignment.revoked" && e.resource_id === a.id, { from });
    expect(ev.data).toEqual({ id: a.id, user_id: m.id, group_uuid: front, scope_node_uuid: prov1, status: "revoked" });
    const again = await t.request("DELETE", `${A}/assignments/${a.id}`, { token: admin });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe("not_found");
  });
});

describe("GET /iam/user-access/{user_id}", () => {
  test("every assignment of one member in any status, oldest first", async () => {
    const m = await member({ groups: [readers] });
    const orgWide = (await list(`user_id=${m.id}`)).body.items[0];
    const a = await assigned({ user_id: m.id, group_uuid: front, scope_node_uuid: loc1 });
    const b = await assigned({ user_id: m.id, group_uuid: readers, scope_node_uuid: prov1, context: "self" });
    expect((await t.request("POST", `${A}/assignments/${a.id}/suspend`, { token: admin })).status).toBe(200);
    await expire(b.id);
    const r = await t.request("GET", `${A}/user-access/${m.id}`, { token: admin });
    expect(r.status).toBe(200);
    expect(r.body.user_id).toBe(m.id);
    expect(r.body.assignments.map((x: any) => [x.id, x.status])).toEqual([
      [orgWide.id, "active"],
      [a.id, "suspended"],
      [b.id, "expired"],
    ]);
    expect(r.body.assignments[0]).toMatchObject({ group_uuid: readers, scope_node_uuid: orgA, context: "all", created_by: adminId });
    // another member's grants are not listed
    expect(r.body.assignments.every((x: any) => x.user_id === m.id)).toBe(true);
  });

  test("404 for an unknown, malformed, removed or other org's member", async () => {
    const removed = await member({ groups: [readers] });
    expect((await t.request("POST", `${A}/users/${removed.id}/remove`, { token: admin })).status).toBe(200);
    const inB = await member({ P: B, groups: [groupB] });
    for (const id of [UNKNOWN, "nope", removed.id, inB.id]) {
      const r = await t.request("GET", `${A}/user-access/${id}`, { token: admin });
      expect({ id, status: r.status }).toEqual({ id, status: 404 });
    }
    // removing a member dropped every grant
    expect(await totalOf(`user_id=${removed.id}`)).toBe(0);
  });
});

describe("GET /iam/location-access/{location_uuid}", () => {
  test("active members holding a key at the location, with those keys", async () => {
    const locX = await createLocation(unique("Access loc"));
    const [atLoc, orgWide, allLocations, orgOnly, atProvider, elsewhere, invited] = [
      await activeMember(),
      await activeMember([readers]),
      await activeMember(),
      await activeMember(),
      await activeMember(),
      await activeMember(),
      await member(),
    ];
    const atLocGrant = await assigned({ user_id: atLoc.id, group_uuid: front, scope_node_uuid: locX, context: "location" });
    await assigned({ user_id: allLocations.id, group_uuid: managers, context: "location" });
    await assigned({ user_id: orgOnly.id, group_uuid: readers, context: "org" });
    await assigned({ user_id: atProvider.id, group_uuid: front, scope_node_uuid: prov1 });
    await assigned({ user_id: elsewhere.id, group_uuid: front, scope_node_uuid: loc2 });
    await assigned({ user_id: invited.id, group_uuid: front, scope_node_uuid: locX });
    const access = async () => {
      const r = await t.request("GET", `${A}/location-access/${locX}`, { token: admin });
      expect(r.status).toBe(200);
      expect(r.body.location_uuid).toBe(locX);
      return new Map<string, any>(r.body.users.map((u: any) => [u.user_id, u]));
    };
    const users = await access();
    expect(users.get(atLoc.id)).toEqual({
      user_id: atLoc.id,
      email: atLoc.email,
      display_name: atLoc.display_name,
      permissions: ["locations.read", "locations.write"],
    });
    expect(users.get(orgWide.id)?.permissions).toEqual(["iam.users.read"]);
    expect(users.get(allLocations.id)?.permissions).toEqual(["iam.users.read", "iam.users.write"]);
    expect(users.get(adminId)?.permissions).toEqual(ORG_PERMISSION_KEYS);
    expect(users.get(nobody.id)?.permissions).toEqual(["locations.read"]);
    for (const absent of [orgOnly, atProvider, elsewhere, invited]) expect(users.has(absent.id)).toBe(false);
    // a suspended grant or a suspended member holds nothing
    expect((await t.request("POST", `${A}/assignments/${atLocGrant.id}/suspend`, { token: admin })).status).toBe(200);
    expect((await t.request("POST", `${A}/users/${orgWide.id}/suspend`, { token: admin })).status).toBe(200);
    const after = await access();
    expect(after.has(atLoc.id)).toBe(false);
    expect(after.has(orgWide.id)).toBe(false);
    expect(after.has(allLocations.id)).toBe(true);
  });

  test("404 for an unknown or archived location, a provider's or the org's node, another org's location", async () => {
    const gone = await createLocation(unique("Gone"));
    expect((await t.request("POST", `${PA}/locations/${gone}/archive`, { token: admin })).status).toBe(200);
    const inB = await t.request("POST", `/api/v1/${orgB}/locations`, { token: admin, body: { name: "B loc", timezone: "UTC" } });
    expect(inB.status).toBe(201);
    for (const id of [UNKNOWN, "nope", gone, prov1, orgA, inB.body.id]) {
      const r = await t.request("GET", `${A}/location-access/${id}`, { token: admin });
      expect({ id, status: r.status }).toEqual({ id, status: 404 });
      expect(r.body.code).toBe("not_found");
    }
  });
});

describe("the members API and access", () => {
  test("PATCH /iam/users group_uuids replaces the org-wide grants only; grants at nodes stay", async () => {
    const m = await member({ groups: [readers] });
    const atLoc = await assigned({ user_id: m.id, group_uuid: front, scope_node_uuid: loc1 });
    const orgCtx = await assigned({ user_id: m.id, group_uuid: managers, context: "org" });
    const before = (await list(`user_id=${m.id}`)).body.items;
    expect(before.map((x: any) => [x.group_uuid, x.scope_node_uuid, x.context])).toEqual([
      [readers, orgA, "all"],
      [front, loc1, "all"],
      [managers, orgA, "org"],
    ]);
    const r = await t.request("PATCH", `${A}/users/${m.id}`, { token: admin, body: { base_version: 1, group_uuids: [front] } });
    expect(r.status).toBe(200);
    expect(r.body.groups).toEqual([{ uuid: front, name: "Front desk" }]);
    const after = (await list(`user_id=${m.id}`)).body.items;
    expect(after.map((x: any) => x.id)).toEqual([atLoc.id, orgCtx.id, expect.any(String)]);
    expect(after[2]).toMatchObject({ group_uuid: front, scope_node_uuid: orgA, scope_type: "org", context: "all", status: "active", created_by: adminId });
  });

  test("a grant takes effect on the member's next request; suspending or revoking it ends it", async () => {
    const read = async () => (await list(`user_id=${nobody.id}`, nobody.token)).status;
    expect(await read()).toBe(403);
    const a = await assigned({ user_id: nobody.id, group_uuid: readers });
    expect(await read()).toBe(200);
    expect((await t.request("POST", `${A}/assignments/${a.id}/suspend`, { token: admin })).status).toBe(200);
    expect(await read()).toBe(403);
    expect((await t.request("POST", `${A}/assignments/${a.id}/reactivate`, { token: admin })).status).toBe(200);
    expect(await read()).toBe(200);
    await expire(a.id);
    expect(await read()).toBe(403);
    expect((await t.request("DELETE", `${A}/assignments/${a.id}`, { token: admin })).status).toBe(204);
    expect(await read()).toBe(403);
  });

  test("401 without a token, 403 without the key, 404 for another org's member; refusals change nothing", async () => {
    const m = await member();
    const a = await assigned({ user_id: m.id, group_uuid: readers, scope_node_uuid: loc2 });
    const total = await totalOf();
    const routes: [string, string, unknown?][] = [
      ["GET", "/assignments"],
      ["POST", "/assignments", { user_id: m.id, group_uuid: readers, scope_node_uuid: loc1 }],
      ["GET", `/assignments/${a.id}`],
      ["POST", `/assignments/${a.id}/suspend`],
      ["POST", `/assignments/${a.id}/reactivate`],
      ["DELETE", `/assignments/${a.id}`],
      ["GET", `/user-access/${m.id}`],
      ["GET", `/location-access/${loc1}`],
    ];
    for (const [method, path, body] of routes) {
      const anon = await t.request(method, `${A}${path}`, { body });
      expect({ method, path, status: anon.status }).toEqual({ method, path, status: 401 });
      expect(anon.headers.get("www-authenticate")).toBe("Bearer");
      const forbidden = await t.request(method, `${A}${path}`, { token: nobody.token, body });
      expect({ method, path, status: forbidden.status }).toEqual({ method, path, status: 403 });
      const other = await t.request(method, `${A}${path}`, { token: outsider.token, body });
      expect({ method, path, status: other.status }).toEqual({ method, path, status: 404 });
    }
    // a member holding the keys is served
    const reads = await t.request("GET", `${A}/assignments/${a.id}`, { token: manager.token });
    expect(reads.status).toBe(200);
    expect(await totalOf()).toBe(total);
    expect((await one(a.id)).body).toEqual(a);
  });
});
