import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { iamMemberWithLogin, twoOrgApp, unique, waitFor, type TestApp } from "@tests/helpers";
import { iamAssignments, memberships } from "@db/control/schema";
import { run } from "@/platform/db/work";
import { ORG_PERMISSION_KEYS, REGISTRY_VERSION } from "@/platform/permissions/registry";

let t: TestApp;
let admin: string;
let adminId: string;
let orgA: string;
let orgB: string;
let A: string; // {P}/iam of org A
let B: string;
let PA: string;
let orgName: string;
let alpha: string; // location "Alpha"
let beta: string; // location "Beta"
let prov: string; // provider "Ada Molar"
// groups of org A
let locAdmin: string; // locations.read + locations.write
let provReaders: string; // locations.read + providers.read
let userReaders: string; // iam.users.read
let charts: string; // patients.read
let sched: string; // locations.read + schedule.read
// the member under study and their grants
let u: { id: string };
const grant: Record<string, any> = {};

let nobody: { id: string; token: string }; // locations.read only
let outsider: { id: string; token: string }; // iam.users.read in org B

const UNKNOWN = "01890000-0000-7000-8000-000000000000";

async function createGroup(P: string, name: string, keys: string[]) {
  const r = await t.request("POST", `${P}/groups`, { token: admin, body: { name, permission_keys: keys } });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

async function createLocation(name: string) {
  const r = await t.request("POST", `${PA}/locations`, { token: admin, body: { name, timezone: "America/Chicago" } });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

/** An active member of org A without a password round trip: invited through the API, activated in the control database. */
async function activeMember(groups: string[] = []) {
  const e = `${unique("eff")}@example.com`;
  const r = await t.request("POST", `${A}/users`, { token: admin, body: { email: e, display_name: `Member ${e}`, group_uuids: groups } });
  expect(r.status).toBe(201);
  await t.rt.control.write(function* (tx) {
    yield* run(
      tx
        .update(memberships)
        .set({ status: "active", joined_at: new Date().toISOString() })
        .where(and(eq(memberships.org_id, orgA), eq(memberships.user_id, r.body.id))),
    );
  });
  await t.rt.access.invalidate();
  return { id: r.body.id as string, email: e };
}

async function assigned(body: Record<string, unknown>) {
  const r = await t.request("POST", `${A}/assignments`, { token: admin, body });
  if (r.status !== 201) throw new Error(`assign failed: ${r.status} ${r.text}`);
  return r.body;
}

async function setExpiry(id: string, at: string | null) {
  await t.rt.control.write(function* (tx) {
    yield* run(tx.update(iamAssignments).set({ expires_at: at }).where(eq(iamAssignments.id, id)));
  });
  await t.rt.access.invalidate();
}

const qs = (q: Record<string, string | undefined>) =>
  Object.entries(q)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${v}`)
    .join("&");

async function effective(q: { user_id: string; scope_node_uuid?: string; context?: string }, token = admin) {
  const r = await t.request("GET", `${A}/effective-permissions?${qs(q)}`, { token });
  expect(r.status).toBe(200);
  return r.body;
}
const keysAt = async (user_id: string, scope_node_uuid?: string, context?: string) =>
  (await effective({ user_id, scope_node_uuid, context })).permissions as string[];

async function compare(user_id: string) {
  const r = await t.request("GET", `${A}/effective-permissions/compare?user_id=${user_id}`, { token: admin });
  expect(r.status).toBe(200);
  return r.body;
}

async function diagnostic(q: { user_id: string; scope_node_uuid?: string; context?: string }) {
  const r = await t.request("GET", `${A}/effective-permissions/diagnostic?${qs(q)}`, { token: admin });
  expect(r.status).toBe(200);
  return r.body;
}

async function treeVersion() {
  return (await t.request("GET", `${A}/scope-tree`, { token: admin })).body.scope_tree_version as number;
}

beforeAll(async () => {
  const w = await twoOrgApp();
  ({ t, admin, orgA, orgB, pathA: PA } = w);
  A = `${PA}/iam`;
  B = `${w.pathB}/iam`;
  orgName = (await t.request("GET", `/api/v1/admin/orgs/${orgA}`, { token: admin })).body.name;
  adminId = (await t.request("GET", `${A}/assignments`, { token: admin })).body.items[0].user_id;
  locAdmin = await createGroup(A, "Location admins", ["locations.read", "locations.write"]);
  provReaders = await createGroup(A, "Provider readers", ["locations.read", "providers.read"]);
  userReaders = await createGroup(A, "User readers", ["iam.users.read"]);
  charts = await createGroup(A, "Charts", ["patients.read"]);
  sched = await createGroup(A, "Schedulers", ["locations.read", "schedule.read"]);
  const locOnly = await createGroup(A, "Location readers", ["locations.read"]);
  const readersB = await createGroup(B, "Readers", ["iam.users.read"]);
  beta = await createLocation("Beta");
  alpha = await createLocation("Alpha");
  const p = await t.request("POST", `${PA}/providers`, { token: admin, body: { first_name: "Ada", last_name: "Molar", abbreviation: "AM" } });
  expect(p.status).toBe(201);
  prov = p.body.id;

  u = await activeMember();
  grant.orgAll = await assigned({ user_id: u.id, group_uuid: userReaders }); // everywhere
  grant.alpha = await assigned({ user_id: u.id, group_uuid: locAdmin, scope_node_uuid: alpha }); // at Alpha only
  grant.provSelf = await assigned({ user_id: u.id, group_uuid: provReaders, scope_node_uuid: prov, context: "self" }); // the provider's own records
  grant.orgCtx = await assigned({ user_id: u.id, group_uuid: charts, context: "org" }); // org-level records only
  grant.allLocs = await assigned({ user_id: u.id, group_uuid: sched, context: "location" }); // at every location

  [nobody, outsider] = await Promise.all([iamMemberWithLogin(t, A, [locOnly]), iamMemberWithLogin(t, B, [readersB])]);
});

afterAll(async () => {
  await t.close();
});

describe("GET /iam/effective-permissions", () => {
  test("org node: grants at the org node in context all and org; answer carries the three versions", async () => {
    const r = await effective({ user_id: u.id });
    expect(r).toEqual({
      user_id: u.id,
      scope_node_uuid: orgA,
      context: "all",
      permissions: ["iam.users.read", "patients.read"],
      cache_version: expect.any(Number),
      registry_version: REGISTRY_VERSION,
      scope_tree_version: await treeVersion(),
    });
    expect(await keysAt(u.id, orgA, "org")).toEqual(["iam.users.read", "patients.read"]);
    // asking about every location (or provider) from the org node: org-wide grants of that context
    expect(await keysAt(u.id, orgA, "location")).toEqual(["locations.read", "iam.users.read", "schedule.read"]);
    expect(await keysAt(u.id, orgA, "provider")).toEqual(["iam.users.read"]);
  });

  test("location nodes: org-wide, every-location and this location's grants, in registry order", async () => {
    expect(await keysAt(u.id, alpha)).toEqual(["locations.read", "locations.write", "iam.users.read", "schedule.read"]);
    expect(await keysAt(u.id, beta)).toEqual(["locations.read", "iam.users.read", "schedule.read"]);
    expect(await keysAt(u.id, alpha, "location")).toEqual(["locations.read", "locations.write", "iam.users.read", "schedule.read"]);
    const r = await effective({ user_id: u.id, scope_node_uuid: alpha, context: "location" });
    expect(r).toMatchObject({ scope_node_uuid: alpha, context: "location" });
  });

  test("provider node: all and self reach the provider's own grants, provider does not reach a self grant", async () => {
    expect(await keysAt(u.id, prov)).toEqual(["locations.read", "iam.users.read", "providers.read"]);
    expect(await keysAt(u.id, prov, "self")).toEqual(["locations.read", "iam.users.read", "providers.read"]);
    expect(await keysAt(u.id, prov, "provider")).toEqual(["iam.users.read"]);
  });

  test("an org administrator holds every org key at every node", async () => {
    for (const node of [undefined, alpha, prov]) expect(await keysAt(adminId, node)).toEqual(ORG_PERMISSION_KEYS);
  });

  test("a member without grants holds nothing; the node id is matched in any case", async () => {
    const m = await activeMember();
    expect(await keysAt(m.id)).toEqual([]);
    expect(await keysAt(m.id, alpha)).toEqual([]);
    const r = await effective({ user_id: u.id.toUpperCase(), scope_node_uuid: alpha.toUpperCase() });
    expect(r.permissions).toEqual(["locations.read", "locations.write", "iam.users.read", "schedule.read"]);
  });

  test("suspended and expired grants give nothing; reactivated or extended ones give again", async () => {
    const m = await activeMember();
    const a = await assigned({ user_id: m.id, group_uuid: locAdmin, scope_node_uuid: beta });
    const b = await assigned({ user_id: m.id, group_uuid: userReaders });
    expect(await keysAt(m.id, beta)).toEqual(["locations.read", "locations.write", "iam.users.read"]);
    expect((await t.request("POST", `${A}/assignments/${a.id}/suspend`, { token: admin })).status).toBe(200);
    expect(await keysAt(m.id, beta)).toEqual(["iam.users.read"]);
    expect((await t.request("POST", `${A}/assignments/${a.id}/reactivate`, { token: admin })).status).toBe(200);
    expect(await keysAt(m.id, beta)).toEqual(["locations.read", "locations.write", "iam.users.read"]);
    await setExpiry(b.id, new Date(Date.now() - 1000).toISOString());
    expect(await keysAt(m.id, beta)).toEqual(["locations.read", "locations.write"]);
    expect(await keysAt(m.id)).toEqual([]);
    await setExpiry(b.id, new Date(Date.now() + 3600_000).toISOString());
    expect(await keysAt(m.id)).toEqual(["iam.users.read"]);
  });

  test("a grant created with a near expiry stops granting once it passes", async () => {
    const m = await activeMember();
    const a = await assigned({ user_id: m.id, group_uuid: charts, expires_at: new Date(Date.now() + 800).toISOString() });
    expect(a.status).toBe("active");
    await waitFor(async () => (await keysAt(m.id)).length === 0, { what: "the grant to expire" });
    const listed = (await t.request("GET", `${A}/assignments?user_id=${m.id}`, { token: admin })).body.items;
    expect(listed.map((x: any) => x.status)).toEqual(["expired"]);
  });

  test("a suspended member or an archived group grants nothing", async () => {
    const m = await activeMember();
    const g = await createGroup(A, unique("Temp"), ["codes.read"]);
    await assigned({ user_id: m.id, group_uuid: g, scope_node_uuid: alpha });
    await assigned({ user_id: m.id, group_uuid: userReaders, scope_node_uuid: alpha });
    expect(await keysAt(m.id, alpha)).toEqual(["iam.users.read", "codes.read"]);
    expect((await t.request("POST", `${A}/groups/${g}/archive`, { token: admin })).status).toBe(200);
    expect(await keysAt(m.id, alpha)).toEqual(["iam.users.read"]);
    expect((await t.request("POST", `${A}/users/${m.id}/suspend`, { token: admin })).status).toBe(200);
    expect(await keysAt(m.id, alpha)).toEqual([]);
  });

  test("404 for an unknown, removed or other org's member and for a node not in the tree", async () => {
    const removed = await activeMember([userReaders]);
    expect((await t.request("POST", `${A}/users/${removed.id}/remove`, { token: admin })).status).toBe(200);
    const gone = await createLocation(unique("Gone"));
    expect((await t.request("POST", `${PA}/locations/${gone}/archive`, { token: admin })).status).toBe(200);
    const bLoc = await t.request("POST", `/api/v1/${orgB}/locations`, { token: admin, body: { name: "B", timezone: "UTC" } });
    const cases: Record<string, string>[] = [
      { user_id: UNKNOWN },
      { user_id: removed.id },
      { user_id: outsider.id },
      { user_id: u.id, scope_node_uuid: UNKNOWN },
      { user_id: u.id, scope_node_uuid: gone },
      { user_id: u.id, scope_node_uuid: orgB },
      { user_id: u.id, scope_node_uuid: bLoc.body.id },
    ];
    for (const path of ["", "/diagnostic"]) {
      for (const q of cases) {
        const r = await t.request("GET", `${A}/effective-permissions${path}?${qs(q)}`, { token: admin });
        expect({ path, q, status: r.status }).toEqual({ path, q, status: 404 });
        expect(r.body.code).toBe("not_found");
      }
    }
    for (const id of [UNKNOWN, removed.id, outsider.id]) {
      expect((await t.request("GET", `${A}/effective-permissions/compare?user_id=${id}`, { token: admin })).status).toBe(404);
    }
  });

  test("422 without user_id, with a malformed id, an unknown context or an unknown parameter", async () => {
    const cases: [string, string, string][] = [
      ["", "", "user_id"],
      ["", "user_id=nope", "user_id"],
      ["", `user_id=${u.id}&scope_node_uuid=x`, "scope_node_uuid"],
      ["", `user_id=${u.id}&context=everywhere`, "context"],
      ["", `user_id=${u.id}&colour=red`, "colour"],
      ["/diagnostic", `user_id=${u.id}&context=team`, "context"],
      ["/diagnostic", "", "user_id"],
      ["/compare", "", "user_id"],
      ["/compare", `user_id=${u.id}&scope_node_uuid=${alpha}`, "scope_node_uuid"],
    ];
    for (const [path, q, field] of cases) {
      const r = await t.request("GET", `${A}/effective-permissions${path}?${q}`, { token: admin });
      expect({ path, q, status: r.status }).toEqual({ path, q, status: 422 });
      expect(r.body.detail[0].loc).toEqual(["query", field]);
    }
  });
});

describe("versions", () => {
  test("cache_version moves with every IAM write in the org, not with reads or other orgs' writes", async () => {
    const v = async () => (await effective({ user_id: u.id })).cache_version as number;
    const v0 = await v();
    expect(await v()).toBe(v0);
    await t.request("GET", `${A}/assignments`, { token: admin });
    expect(await v()).toBe(v0);
    const g = await createGroup(A, unique("Cache"), ["codes.read"]);
    expect(await v()).toBe(v0 + 1);
    const a = await assigned({ user_id: u.id, group_uuid: g, scope_node_uuid: beta });
    expect(await v()).toBe(v0 + 2);
    expect((await t.request("POST", `${A}/assignments/${a.id}/suspend`, { token: admin })).status).toBe(200);
    expect(await v()).toBe(v0 + 3);
    expect((await t.request("DELETE", `${A}/assignments/${a.id}`, { token: admin })).status).toBe(204);
    expect(await v()).toBe(v0 + 4);
    await activeMember();
    expect(await v()).toBe(v0 + 5);
    await createGroup(B, unique("Other org"), ["codes.read"]);
    expect(await v()).toBe(v0 + 5);
    // a refused write moves nothing
    expect((await t.request("POST", `${A}/assignments`, { token: admin, body: { user_id: u.id, group_uuid: userReaders } })).status).toBe(409);
    expect(await v()).toBe(v0 + 5);
  });

  test("scope_tree_version follows the scope tree; all three answers carry the same versions", async () => {
    const before = await effective({ user_id: u.id });
    const loc = await createLocation(unique("Versioned"));
    const after = await effective({ user_id: u.id });
    expect(after.scope_tree_version).toBe(before.scope_tree_version + 1);
    expect(after.scope_tree_version).toBe(await treeVersion());
    expect(after.cache_version).toBe(before.cache_version); // not an IAM write
    const cmp = await compare(u.id);
    const diag = await diagnostic({ user_id: u.id });
    for (const r of [cmp, diag]) {
      expect({ cache: r.cache_version, registry: r.registry_version, tree: r.scope_tree_version }).toEqual({
        cache: after.cache_version,
        registry: REGISTRY_VERSION,
        tree: after.scope_tree_version,
      });
    }
    expect((await t.request("POST", `${PA}/locations/${loc}/archive`, { token: admin })).status).toBe(200);
    expect((await effective({ user_id: u.id })).scope_tree_version).toBe(after.scope_tree_version + 1);
  });
});

describe("GET /iam/effective-permissions/compare", () => {
  test("keys per location (by name), at the org node, and the keys that vary between locations", async () => {
    const r = await compare(u.id);
    const byId = new Map(r.locations.map((l: any) => [l.location_uuid, l]));
    expect(r.locations[0]).toEqual({
      location_uuid: alpha,
      name: "Alpha",
      permissions: ["locations.read", "locations.write", "iam.users.read", "schedule.read"],
    });
    expect(r.locations[1]).toEqual({ location_uuid: beta, name: "Beta", permissions: ["locations.read", "iam.users.read", "schedule.read"] });
    expect(byId.size).toBe(r.locations.length);
    expect(r.user_id).toBe(u.id);
    expect(r.org_permissions).toEqual(["iam.users.read", "patients.read"]);
    // locations.write is at Alpha only; locations created by other tests hold only the every-location keys
    expect(r.varies).toEqual(["locations.write"]);
    // suspending the Alpha grant makes every location alike
    expect((await t.request("POST", `${A}/assignments/${grant.alpha.id}/suspend`, { token: admin })).status).toBe(200);
    const same = await compare(u.id);
    expect(same.varies).toEqual([]);
    expect(same.locations[0].permissions).toEqual(["locations.read", "iam.users.read", "schedule.read"]);
    expect((await t.request("POST", `${A}/assignments/${grant.alpha.id}/reactivate`, { token: admin })).status).toBe(200);
    expect((await compare(u.id)).varies).toEqual(["locations.write"]);
  });

  test("a member with grants at single locations: every such key varies; nothing at the org node", async () => {
    const m = await activeMember();
    await assigned({ user_id: m.id, group_uuid: userReaders, scope_node_uuid: beta });
    await assigned({ user_id: m.id, group_uuid: sched, scope_node_uuid: alpha, context: "location" });
    const r = await compare(m.id);
    const at = (id: string) => r.locations.find((l: any) => l.location_uuid === id).permissions;
    expect(at(alpha)).toEqual(["locations.read", "schedule.read"]);
    expect(at(beta)).toEqual(["iam.users.read"]);
    expect(r.org_permissions).toEqual([]);
    expect(r.varies).toEqual(["locations.read", "iam.users.read", "schedule.read"]);
    // an org administrator holds the same everywhere
    const adminCmp = await compare(adminId);
    expect(adminCmp.varies).toEqual([]);
    expect(adminCmp.org_permissions).toEqual(ORG_PERMISSION_KEYS);
  });
});

describe("GET /iam/effective-permissions/diagnostic", () => {
  test("each key with its grant chain; a key granted twice lists both assignments", async () => {
    const r = await diagnostic({ user_id: u.id, scope_node_uuid: alpha });
    expect(r).toMatchObject({ user_id: u.id, scope_node_uuid: alpha, context: "all" });
    expect(r.permissions.map((p: any) => p.key)).toEqual(["locations.read", "locations.write", "iam.users.read", "schedule.read"]);
    const chain = (key: string) => r.permissions.find((p: any) => p.key === key).grants;
    const atAlpha = {
      assignment_uuid: grant.alpha.id,
      group: { id: locAdmin, name: "Location admins" },
      scope_node: { id: alpha, type: "location", name: "Alpha" },
      context: "all",
      expires_at: null,
    };
    const everyLocation = {
      assignment_uuid: grant.allLocs.id,
      group: { id: sched, name: "Schedulers" },
      scope_node: { id: orgA, type: "org", name: orgName },
      context: "location",
      expires_at: null,
    };
    const orgWide = {
      assignment_uuid: grant.orgAll.id,
      group: { id: userReaders, name: "User readers" },
      scope_node: { id: orgA, type: "org", name: orgName },
      context: "all",
      expires_at: null,
    };
    const byId = (a: any, b: any) => a.assignment_uuid.localeCompare(b.assignment_uuid);
    expect(chain("locations.read").toSorted(byId)).toEqual([atAlpha, everyLocation].toSorted(byId));
    expect(chain("locations.write")).toEqual([atAlpha]);
    expect(chain("iam.users.read")).toEqual([orgWide]);
    expect(chain("schedule.read")).toEqual([everyLocation]);
  });

  test("at a provider with context self, with the grant's expiry; keys not held are absent", async () => {
    const until = new Date(Date.now() + 86_400_000).toISOString();
    await setExpiry(grant.provSelf.id, until);
    const r = await diagnostic({ user_id: u.id, scope_node_uuid: prov, context: "self" });
    expect(r.context).toBe("self");
    expect(r.permissions.map((p: any) => p.key)).toEqual(["locations.read", "iam.users.read", "providers.read"]);
    expect(r.permissions.find((p: any) => p.key === "providers.read").grants).toEqual([
      {
        assignment_uuid: grant.provSelf.id,
        group: { id: provReaders, name: "Provider readers" },
        scope_node: { id: prov, type: "provider", name: "Ada Molar" },
        context: "self",
        expires_at: until,
      },
    ]);
    const asProvider = await diagnostic({ user_id: u.id, scope_node_uuid: prov, context: "provider" });
    expect(asProvider.permissions.map((p: any) => p.key)).toEqual(["iam.users.read"]);
    await setExpiry(grant.provSelf.id, null);
  });

  test("at the org node: the org-context grant is listed with its context", async () => {
    const r = await diagnostic({ user_id: u.id });
    expect(r.scope_node_uuid).toBe(orgA);
    expect(r.permissions).toEqual([
      {
        key: "iam.users.read",
        grants: [expect.objectContaining({ assignment_uuid: grant.orgAll.id, context: "all" })],
      },
      {
        key: "patients.read",
        grants: [
          {
            assignment_uuid: grant.orgCtx.id,
            group: { id: charts, name: "Charts" },
            scope_node: { id: orgA, type: "org", name: orgName },
            context: "org",
            expires_at: null,
          },
        ],
      },
    ]);
  });
});

describe("access to the effective-permission routes", () => {
  test("401 without a token, 403 without iam.users.read, 404 for another org's member; a holder is served", async () => {
    const reader = await iamMemberWithLogin(t, A, [userReaders]);
    for (const path of [
      `/effective-permissions?user_id=${u.id}`,
      `/effective-permissions/compare?user_id=${u.id}`,
      `/effective-permissions/diagnostic?user_id=${u.id}`,
    ]) {
      const anon = await t.request("GET", `${A}${path}`);
      expect(anon.status).toBe(401);
      expect(anon.headers.get("www-authenticate")).toBe("Bearer");
      expect((await t.request("GET", `${A}${path}`, { token: nobody.token })).status).toBe(403);
      expect((await t.request("GET", `${A}${path}`, { token: outsider.token })).status).toBe(404);
      expect((await t.request("GET", `${B}${path}`, { token: reader.token })).status).toBe(404);
      const ok = await t.request("GET", `${A}${path}`, { token: reader.token });
      expect(ok.status).toBe(200);
      expect(ok.body.user_id).toBe(u.id);
    }
    // a member may read their own effective permissions with the key
    expect((await effective({ user_id: reader.id }, reader.token)).permissions).toEqual(["iam.users.read"]);
  });
});
