import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";
import type { GrantContext, GrantSource } from "@/platform/tenancy/grants";
import type { ScopeNode } from "./scope-tree";

// Effective permissions: which of a member's live assignments reach a node of
// the scope tree in a context, the same rules the guard applies per request
// (platform/tenancy/grants.ts; docs/iam/iam.md has the table).

/**
 * The contexts that count at `node` when asking for `context`. "all" means
 * whatever applies to the node's own kind of record: org-level records at the
 * org node, location-bound ones at a location, provider-bound (and the
 * provider's own, "self") at a provider.
 */
function wanted(node: ScopeNode, context: GrantContext): Set<GrantContext> {
  if (context !== "all") return new Set(["all", context]);
  if (node.type === "org") return new Set(["all", "org"]);
  if (node.type === "location") return new Set(["all", "location"]);
  return new Set(["all", "provider", "self"]);
}

/** Does this assignment reach `node` in `context`? The org node is every node's ancestor. */
export function reaches(s: GrantSource, node: ScopeNode, context: GrantContext): boolean {
  if (s.scope_type !== "org" && s.scope_node_id !== node.id) return false;
  return wanted(node, context).has(s.context);
}

const keysOf = (s: GrantSource): readonly string[] => (s.is_org_admin ? ORG_PERMISSION_KEYS : s.keys);
const ORDER = new Map<string, number>(ORG_PERMISSION_KEYS.map((k, i) => [k, i]));
const inRegistryOrder = (keys: Iterable<string>) => [...keys].filter((k) => ORDER.has(k)).sort((a, b) => ORDER.get(a)! - ORDER.get(b)!);

/** The keys the member holds at `node` in `context`, in registry order. */
export function effectiveKeys(sources: readonly GrantSource[], node: ScopeNode, context: GrantContext): string[] {
  const keys = new Set<string>();
  for (const s of sources) if (reaches(s, node, context)) for (const k of keysOf(s)) keys.add(k);
  return inRegistryOrder(keys);
}

export type GrantLink = {
  assignment_uuid: string;
  group: { id: string; name: string };
  scope_node: { id: string; type: string; name: string };
  context: GrantContext;
  expires_at: string | null;
};

/** Each key the member holds at `node`, with every assignment that grants it there. */
export function grantChains(
  sources: readonly GrantSource[],
  node: ScopeNode,
  context: GrantContext,
  nodeOf: (id: string) => ScopeNode | undefined,
): { key: string; grants: GrantLink[] }[] {
  const chains = new Map<string, GrantLink[]>();
  for (const s of sources) {
    if (!reaches(s, node, context)) continue;
    const at = nodeOf(s.scope_node_id);
    const link: GrantLink = {
      assignment_uuid: s.assignment_id,
      group: { id: s.group_id, name: s.group_name },
      scope_node: { id: s.scope_node_id, type: s.scope_type, name: at?.name ?? "" },
      context: s.context,
      expires_at: s.expires_at,
    };
    for (const k of keysOf(s)) chains.set(k, [...(chains.get(k) ?? []), link]);
  }
  return inRegistryOrder(chains.keys()).map((key) => ({ key, grants: chains.get(key)! }));
}

/** Keys per location, the org-wide ones, and the keys granted at some locations only. */
export function compareLocations(sources: readonly GrantSource[], org: ScopeNode, locations: readonly ScopeNode[]) {
  const perLocation = locations.map((l) => ({ location_uuid: l.id, name: l.name, permissions: effectiveKeys(sources, l, "all") }));
  const counts = new Map<string, number>();
  for (const l of perLocation) for (const k of l.permissions) counts.set(k, (counts.get(k) ?? 0) + 1);
  const varies = inRegistryOrder([...counts].filter(([, n]) => n < locations.length).map(([k]) => k));
  return { locations: perLocation, org_permissions: effectiveKeys(sources, org, "all"), varies };
}
