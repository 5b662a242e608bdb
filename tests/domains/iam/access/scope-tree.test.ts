import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { iamMemberWithLogin, twoOrgApp, type TestApp } from "@tests/helpers";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let orgAName: string;
let A: string; // {P}/iam of org A
let B: string;
let PA: string; // /api/v1/{org A}
let reader: { id: string; token: string }; // iam.users.read in org A
let nobody: { id: string; token: string }; // locations.read only in org A
let outsider: { id: string; token: string }; // iam.users.read in org B only

type Node = { id: string; type: string; name: string; parent_id: string | null; path: string };

async function createGroup(P: string, name: string, keys: string[]) {
  const r = await t.request("POST", `${P}/groups`, { token: admin, body: { name, permission_keys: keys } });
  expect(r.status).toBe(201);
  return r.body.id as string;
}

async function tree(P = A, token = admin): Promise<{ nodes: Node[]; scope_tree_version: number }> {
  const r = await t.request("GET", `${P}/scope-tree`, { token });
  expect(r.status).toBe(200);
  return r.body;
}

async function createLocation(P: string, name: string) {
  const r = await t.request("POST", `${P}/locations`, { token: admin, body: { name, timezone: "America/Chicago" } });
  expect(r.status).toBe(201);
  return r.body as { id: string; version: number };
}

async function createProvider(P: string, first_name: string, last_name: string, abbreviation: string) {
  const r = await t.request("POST", `${P}/providers`, { token: admin, body: { first_name, last_name, abbreviation } });
  expect(r.status).toBe(201);
  return r.body as { id: string; version: number };
}

beforeAll(async () => {
  const w = await twoOrgApp();
  ({ t, admin, orgA, orgB, pathA: PA } = w);
  A = `${PA}/iam`;
  B = `${w.pathB}/iam`;
  orgAName = (await t.request("GET", `/api/v1/admin/orgs/${orgA}`, { token: admin })).body.name;
  const readers = await createGroup(A, "Readers", ["iam.users.read"]);
  const front = await createGroup(A, "Front desk", ["locations.read"]);
  const readersB = await createGroup(B, "Readers", ["iam.users.read"]);
  [reader, nobody, outsider] = await Promise.all([
    iamMemberWithLogin(t, A, [readers]),
    iamMemberWithLogin(t, A, [front]),
    iamMemberWithLogin(t, B, [readersB]),
  ]);
});

afterAll(async () => {
  await t.close();
});

describe("GET /iam/scope-tree", () => {
  test("a fresh org's tree is its org node alone, at version 1", async () => {
    const r = await tree(B);
    expect(r).toEqual({
      nodes: [{ id: orgB, type: "org", name: expect.any(String), parent_id: null, path: `org:${orgB}` }],
      scope_tree_version: 1,
    });
    expect(r.nodes[0]!.name).toStartWith("Org ");
  });

  test("a new location appears at once under the org node and the version moves", async () => {
    const before = await tree();
    const loc = await createLocation(PA, "Northside");
    const after = await tree();
    expect(after.scope_tree_version).toBe(before.scope_tree_version + 1);
    expect(after.nodes[0]).toEqual({ id: orgA, type: "org", name: orgAName, parent_id: null, path: `org:${orgA}` });
    expect(after.nodes.find((n) => n.id === loc.id)).toEqual({
      id: loc.id,
      type: "location",
      name: "Northside",
      parent_id: orgA,
      path: `org:${orgA}/location:${loc.id}`,
    });
    expect(after.nodes).toHaveLength(before.nodes.length + 1);
    // the other org's tree is untouched
    expect((await tree(B)).nodes.map((n) => n.id)).toEqual([orgB]);
  });

  test("providers hang under the org node, named 'first last', after the locations", async () => {
    const before = await tree();
    const p = await createProvider(PA, "Zoe", "Adams", "ZA1");
    const after = await tree();
    expect(after.scope_tree_version).toBe(before.scope_tree_version + 1);
    const node = after.nodes.find((n) => n.id === p.id);
    expect(node).toEqual({ id: p.id, type: "provider", name: "Zoe Adams", parent_id: orgA, path: `org:${orgA}/provider:${p.id}` });
    const types = after.nodes.map((n) => n.type);
    expect(types[0]).toBe("org");
    expect(types.lastIndexOf("location")).toBeLessThan(types.indexOf("provider"));
  });

  test("order: org node, locations by name (case-insensitive), providers by last then first name", async () => {
    const { orgC, PC, C } = await freshOrg();
    const l1 = await createLocation(PC, "beta");
    const l2 = await createLocation(PC, "Alpha");
    const l3 = await createLocation(PC, "Charlie");
    const p1 = await createProvider(PC, "Bob", "Smith", "BS");
    const p2 = await createProvider(PC, "amy", "smith", "AS");
    const p3 = await createProvider(PC, "Carl", "Jones", "CJ");
    const r = await tree(C);
    expect(r.nodes.map((n) => n.id)).toEqual([orgC, l2.id, l1.id, l3.id, p3.id, p2.id, p1.id]);
    expect(r.nodes.map((n) => n.name).slice(1)).toEqual(["Alpha", "beta", "Charlie", "Carl Jones", "amy smith", "Bob Smith"]);
    expect(r.nodes.slice(1).every((n) => n.parent_id === orgC)).toBe(true);
    expect(r.scope_tree_version).toBe(7); // 1 + six additions
  });

  test("renaming a location moves the version and shows the new name; other edits do not", async () => {
    const loc = await createLocation(PA, "Old name");
    const v0 = (await tree()).scope_tree_version;
    const phone = await t.request("PATCH", `${PA}/locations/${loc.id}`, { token: admin, body: { base_version: loc.version, phone: "555-0100" } });
    expect(phone.status).toBe(200);
    expect((await tree()).scope_tree_version).toBe(v0);
    const renamed = await t.request("PATCH", `${PA}/locations/${loc.id}`, { token: admin, body: { base_version: phone.body.version, name: "New name" } });
    expect(renamed.status).toBe(200);
    const after = await tree();
    expect(after.scope_tree_version).toBe(v0 + 1);
    expect(after.nodes.find((n) => n.id === loc.id)?.name).toBe("New name");
  });

  test("archiving a location or a provider removes its node and moves the version", async () => {
    const loc = await createLocation(PA, "Closing soon");
    const prov = await createProvider(PA, "Leaving", "Doctor", "LD");
    const v0 = (await tree()).scope_tree_version;
    expect((await t.request("POST", `${PA}/locations/${loc.id}/archive`, { token: admin })).status).toBe(200);
    const mid = await tree();
    expect(mid.scope_tree_version).toBe(v0 + 1);
    expect(mid.nodes.map((n) => n.id)).not.toContain(loc.id);
    expect(mid.nodes.map((n) => n.id)).toContain(prov.id);
    expect((await t.request("POST", `${PA}/providers/${prov.id}/archive`, { token: admin })).status).toBe(200);
    const after = await tree();
    expect(after.scope_tree_version).toBe(v0 + 2);
    expect(after.nodes.map((n) => n.id)).not.toContain(prov.id);
  });

  test("renaming a provider moves the version and the node's name", async () => {
    const prov = await createProvider(PA, "Ann", "Before", "AB9");
    const v0 = (await tree()).scope_tree_version;
    const r = await t.request("PATCH", `${PA}/providers/${prov.id}`, { token: admin, body: { base_version: prov.version, last_name: "After" } });
    expect(r.status).toBe(200);
    const after = await tree();
    expect(after.scope_tree_version).toBe(v0 + 1);
    expect(after.nodes.find((n) => n.id === prov.id)?.name).toBe("Ann After");
  });

  test("IAM writes and reads leave the tree version alone", async () => {
    const v0 = (await tree()).scope_tree_version;
    await createGroup(A, "Unrelated", ["locations.read"]);
    await tree(A, reader.token);
    expect((await tree()).scope_tree_version).toBe(v0);
  });

  test("a reader may read it; 401 without a token, 403 without iam.users.read, 404 for another org", async () => {
    const mine = await tree(A, reader.token);
    expect(mine.nodes[0]!.id).toBe(orgA);
    const anon = await t.request("GET", `${A}/scope-tree`);
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    const forbidden = await t.request("GET", `${A}/scope-tree`, { token: nobody.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe("forbidden");
    const other = await t.request("GET", `${A}/scope-tree`, { token: outsider.token });
    expect(other.status).toBe(404);
    expect(other.body.code).toBe("not_found");
    expect((await t.request("GET", `${B}/scope-tree`, { token: reader.token })).status).toBe(404);
    expect((await t.request("GET", `/api/v1/not-a-uuid/iam/scope-tree`, { token: admin })).status).toBe(404);
    // the path's org id is matched whatever its case
    expect((await t.request("GET", `/api/v1/${orgA.toUpperCase()}/iam/scope-tree`, { token: reader.token })).status).toBe(200);
  });
});

async function freshOrg() {
  const orgC = (await t.createOrg()).id;
  return { orgC, PC: `/api/v1/${orgC}`, C: `/api/v1/${orgC}/iam` };
}
