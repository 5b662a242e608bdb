import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";
import { keysOf, placeOf, reaches, type GrantContext, type GrantSource, type Where } from "@/platform/tenancy/grants";
import type { ScopeNode } from "./scope-tree";

// Effective permissions: which of a member's live assignments grant at a node
// of the scope tree in a context. Where a grant reaches is the guard's own
// rule, `reaches` in platform/tenancy/grants.ts (`Grants.covers` applies it per
// request); `placeOf` there says which place a node in a context stands for.
// This file adds only the choice of grants by the context asked about, the
// grant chains and the answers' order (docs/iam/iam.md).

/**
 * Asked about in a context other than all, only the grants made in that
 * context (or in all) count: at a provider node, `provider` leaves out a
 * `self` grant and `self` the `provider` ones. Context all takes every grant
 * that reaches the place: what the guard lets through there.
 */
const madeIn = (s: GrantSource, context: GrantContext) => context === "all" || s.context === "all" || s.context === context;

/** The assignments that grant at `node` in `context`. */
function grantingAt(sources: readonly GrantSource[], node: ScopeNode, context: GrantContext): GrantSource[] {
  const where = placeOf(node, context);
  return sources.filter((s) => madeIn(s, context) && reaches(s, where));
}

const ORDER = new Map<string, number>(ORG_PERMISSION_KEYS.map((k, i) => [k, i]));
const inRegistryOrder = (keys: Iterable<string>) => [...keys].filter((k) => ORDER.has(k)).sort((a, b) => ORDER.get(a)! - ORDER.get(b)!);

/** The keys the member holds for a request acting at `where` (what the guard lets through there), in registry order. */
export function keysAt(sources: readonly GrantSource[], where: Where): string[] {
  const keys = new Set<string>();
  for (const s of sources) if (reaches(s, where)) for (const k of keysOf(s)) keys.add(k);
  return inRegistryOrder(keys);
}

/** The keys the member holds at `node` in `context`, in registry order. */
export function effectiveKeys(sources: readonly GrantSource[], node: ScopeNode, context: GrantContext): string[] {
  return keysAt(
    sources.filter((s) => madeIn(s, context)),
    placeOf(node, context),
  );
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
  for (const s of grantingAt(sources, node, context)) {
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
