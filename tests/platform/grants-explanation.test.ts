import { describe, expect, test } from "bun:test";
import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";
import { ANYWHERE, CONTEXTS_AT, Grants, SCOPE_TYPES, type GrantContext, type GrantSource, type ScopeType, type Where } from "@/platform/tenancy/grants";
import { effectiveKeys, grantChains, keysAt } from "@/domains/iam/access/evaluate";
import type { ScopeNode } from "@/domains/iam/access/scope-tree";

// The guard (`Grants.covers`, per request) and the effective-permission
// explanation (domains/iam/access/evaluate.ts, the IAM API) answer from one
// rule of where a grant reaches. Over the enforcement matrix (every kind of
// assignment, org-admin or not, at every kind of place a request acts) the keys
// the guard lets through equal the keys the explanation says the member holds.

const ORG = "01900000-0000-7000-8000-00000000000a";
const L1 = "01900000-0000-7000-8000-0000000000b1";
const L2 = "01900000-0000-7000-8000-0000000000b2";
const L3 = "01900000-0000-7000-8000-0000000000b3"; // a location no grant names
const P1 = "01900000-0000-7000-8000-0000000000c1";
const P2 = "01900000-0000-7000-8000-0000000000c2";
const P3 = "01900000-0000-7000-8000-0000000000c3"; // a provider no grant names

const node = (id: string, type: ScopeType): ScopeNode => ({
  id,
  type,
  name: `${type} ${id.slice(-2)}`,
  parent_id: type === "org" ? null : ORG,
  path: type === "org" ? `org:${ORG}` : `org:${ORG}/${type}:${id}`,
});
const NODES = [
  node(ORG, "org"),
  node(L1, "location"),
  node(L2, "location"),
  node(L3, "location"),
  node(P1, "provider"),
  node(P2, "provider"),
  node(P3, "provider"),
];
const NODE = new Map(NODES.map((n) => [n.id, n]));
const at = (id: string) => NODE.get(id)!;

/** A group's keys (not in registry order: answers are). */
const GROUP_KEYS = ["schedule.read", "patients.read", "locations.write"];

const source = (scope_type: ScopeType, scope_node_id: string, context: GrantContext, is_org_admin: boolean, n = 0): GrantSource => ({
  assignment_id: `a-${scope_type}-${scope_node_id.slice(-2)}-${context}-${is_org_admin}-${n}`,
  group_id: is_org_admin ? "g-admin" : "g-desk",
  group_name: is_org_admin ? "Administrators" : "Front desk",
  keys: is_org_admin ? [] : GROUP_KEYS,
  is_org_admin,
  scope_node_id,
  scope_type,
  context,
  expires_at: null,
});

const inOrder = (keys: Iterable<string>) => {
  const set = new Set(keys);
  return ORG_PERMISSION_KEYS.filter((k) => set.has(k));
};

/** What the guard lets through at `where`: every org key `covers` allows, in registry order. */
const guardKeys = (sources: GrantSource[], where: Where) => {
  const grants = new Grants(sources);
  return ORG_PERMISSION_KEYS.filter((k) => grants.covers(k, where));
};

/** The explanation at a node in a context, checked against its own grant chains. */
function explained(sources: GrantSource[], id: string, context: GrantContext = "all") {
  const keys = effectiveKeys(sources, at(id), context);
  expect(grantChains(sources, at(id), context, (x) => NODE.get(x)).map((c) => c.key)).toEqual(keys);
  return keys;
}

/**
 * The places a request acts at (docs/iam/iam.md's enforcement table) and what
 * the explanation says there: a node's answer (context all, or the org node's
 * context location / provider for a location / provider no grant names); a
 * record at a location and of a provider is reached through either node.
 */
const TARGETS: { name: string; where: Where; explain: (s: GrantSource[]) => string[] }[] = [
  { name: "the org node", where: {}, explain: (s) => explained(s, ORG) },
  { name: "the org node, context org", where: {}, explain: (s) => explained(s, ORG, "org") },
  { name: "a location", where: { location: L1 }, explain: (s) => explained(s, L1) },
  { name: "a location, context location", where: { location: L1 }, explain: (s) => explained(s, L1, "location") },
  { name: "another location", where: { location: L2 }, explain: (s) => explained(s, L2) },
  { name: "every location (the org node, context location)", where: { location: L3 }, explain: (s) => explained(s, ORG, "location") },
  { name: "a provider", where: { provider: P1 }, explain: (s) => explained(s, P1) },
  { name: "another provider", where: { provider: P2 }, explain: (s) => explained(s, P2) },
  { name: "every provider (the org node, context provider)", where: { provider: P3 }, explain: (s) => explained(s, ORG, "provider") },
  { name: "a record at a location, of a provider", where: { location: L1, provider: P1 }, explain: (s) => inOrder([...explained(s, L1), ...explained(s, P1)]) },
  {
    name: "a record at another location, of a provider",
    where: { location: L2, provider: P1 },
    explain: (s) => inOrder([...explained(s, L2), ...explained(s, P1)]),
  },
  { name: "a record at a location only", where: { location: L1, provider: null }, explain: (s) => explained(s, L1) },
  { name: "a record of a provider only", where: { location: null, provider: P1 }, explain: (s) => explained(s, P1) },
  { name: "a record with neither", where: { location: null, provider: null }, explain: (s) => explained(s, ORG) },
  { name: "ANYWHERE (an unfiltered list)", where: ANYWHERE, explain: (s) => keysAt(s, ANYWHERE) },
];

/**
 * Does one assignment (its node L1 for a location, P1 for a provider) reach
 * each target, in TARGETS' order? The table of docs/iam/iam.md, spelled out,
 * so that the comparison cannot pass by both sides answering nothing.
 */
const REACH: Record<string, string> = {
  "org all": "111111111111111",
  "org org": "110000000000010",
  "org location": "001111000111000",
  "org provider": "000000111110100",
  "location all": "001100000101000",
  "location location": "001100000101000",
  "provider all": "000000100110100",
  "provider provider": "000000100110100",
  "provider self": "000000100110100",
};
const HOME: Record<ScopeType, string> = { org: ORG, location: L1, provider: P1 };

describe("the guard and the explanation answer alike", () => {
  for (const scope of SCOPE_TYPES) {
    for (const context of CONTEXTS_AT[scope]) {
      for (const admin of [false, true]) {
        test(`one assignment at the ${scope} node, context ${context}${admin ? ", org-admin group" : ""}`, () => {
          const sources = [source(scope, HOME[scope], context, admin)];
          const held = admin ? ORG_PERMISSION_KEYS : inOrder(GROUP_KEYS);
          const reach = REACH[`${scope} ${context}`]!;
          expect(reach.length).toBe(TARGETS.length);
          TARGETS.forEach((t, i) => {
            const guard = guardKeys(sources, t.where);
            expect({ target: t.name, explanation: t.explain(sources) }).toEqual({ target: t.name, explanation: guard });
            expect({ target: t.name, explanation: keysAt(sources, t.where) }).toEqual({ target: t.name, explanation: guard });
            expect({ target: t.name, guard }).toEqual({ target: t.name, guard: reach[i] === "1" ? held : [] });
          });
        });
      }
    }
  }

  test("every pair of assignments, at either location or provider node: keys merge alike", () => {
    const all: GrantSource[] = [];
    for (const scope of SCOPE_TYPES) {
      const ids = scope === "org" ? [ORG] : scope === "location" ? [L1, L2] : [P1, P2];
      for (const id of ids) for (const context of CONTEXTS_AT[scope]) for (const admin of [false, true]) all.push(source(scope, id, context, admin));
    }
    let compared = 0;
    for (const a of all) {
      for (const b of all) {
        // the second one a group of other keys, so that merges show
        const other = { ...b, assignment_id: `${b.assignment_id}-2`, keys: b.is_org_admin ? [] : ["codes.read", "schedule.read"] };
        const sources = [a, other];
        for (const t of TARGETS) {
          const guard = guardKeys(sources, t.where);
          const said = t.explain(sources);
          if (said.join() !== guard.join()) expect({ sources, target: t.name, explanation: said }).toEqual({ sources, target: t.name, explanation: guard });
          compared++;
        }
      }
    }
    expect(compared).toBe(all.length * all.length * TARGETS.length);
  });

  test("a platform administrator with global access: every key at every place, by both", () => {
    const everything = Grants.everything();
    expect(everything.isOrgAdmin).toBe(true);
    for (const t of TARGETS) {
      expect(ORG_PERMISSION_KEYS.filter((k) => everything.covers(k, t.where))).toEqual(ORG_PERMISSION_KEYS);
      expect(t.explain([...everything.sources])).toEqual(ORG_PERMISSION_KEYS);
    }
  });

  test("an org-admin group counts as the org administrator only at the org node in context all", () => {
    for (const scope of SCOPE_TYPES)
      for (const context of CONTEXTS_AT[scope]) {
        const grants = new Grants([source(scope, HOME[scope], context, true)]);
        expect({ scope, context, admin: grants.isOrgAdmin }).toEqual({ scope, context, admin: scope === "org" && context === "all" });
      }
  });
});
