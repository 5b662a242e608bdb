import { NotFound, invalid } from "@/platform/errors";
import { CONTEXTS_AT } from "@/platform/tenancy/grants";
import type { OrgContext } from "@/platform/records/context";
import { REGISTRY_VERSION } from "@/platform/permissions/registry";
import { accessVersion, allMemberGrantSources, liveMembership, memberGrantSources } from "./repository";
import { compareLocations, effectiveKeys, grantChains } from "./evaluate";
import { loadScopeTree, requireNode, type ScopeTree } from "./scope-tree";
import type { EffectiveQuery } from "./schemas";

// Effective permissions as the guard evaluates them, read for one member
// (docs/iam/iam.md). Each answer carries the three versions a client compares to
// know whether what it holds is stale.

async function memberView(ctx: OrgContext, userId: string) {
  const [tree, control] = await Promise.all([
    loadScopeTree(ctx),
    ctx.control.read(function* (c) {
      if (!(yield* liveMembership(c, userId))) throw new NotFound("User");
      return { sources: (yield* memberGrantSources(c, userId)) ?? [], cacheVersion: yield* accessVersion(c) };
    }),
  ]);
  return { tree, sources: control.sources, versions: versionsOf(tree, control.cacheVersion) };
}

const versionsOf = (tree: ScopeTree, cacheVersion: number) => ({
  cache_version: cacheVersion,
  registry_version: REGISTRY_VERSION,
  scope_tree_version: tree.version,
});

/** The node asked about, and a context it takes (the table of docs/iam/iam.md; 422 otherwise). */
function nodeFor(tree: ScopeTree, q: EffectiveQuery) {
  const node = requireNode(tree, q.scope_node_uuid);
  if (!CONTEXTS_AT[node.type].includes(q.context)) {
    throw invalid(["query", "context"], `A ${node.type} node takes context ${CONTEXTS_AT[node.type].join(", ")}`);
  }
  return node;
}

export async function effectivePermissions(ctx: OrgContext, q: EffectiveQuery) {
  const { tree, sources, versions } = await memberView(ctx, q.user_id);
  const node = nodeFor(tree, q);
  return { user_id: q.user_id, scope_node_uuid: node.id, context: q.context, permissions: effectiveKeys(sources, node, q.context), ...versions };
}

export async function effectiveDiagnostic(ctx: OrgContext, q: EffectiveQuery) {
  const { tree, sources, versions } = await memberView(ctx, q.user_id);
  const node = nodeFor(tree, q);
  const permissions = grantChains(sources, node, q.context, (id) => tree.byId.get(id));
  return { user_id: q.user_id, scope_node_uuid: node.id, context: q.context, permissions, ...versions };
}

export async function compareEffective(ctx: OrgContext, userId: string) {
  const { tree, sources, versions } = await memberView(ctx, userId);
  const org = tree.nodes[0]!;
  const locations = tree.nodes.filter((n) => n.type === "location");
  return { user_id: userId, ...compareLocations(sources, org, locations), ...versions };
}

/** Active members holding at least one key at a location, with those keys. */
export async function locationAccess(ctx: OrgContext, locationId: string) {
  const tree = await loadScopeTree(ctx);
  const node = tree.byId.get(locationId);
  if (!node || node.type !== "location") throw new NotFound("Location");
  const members = await ctx.control.read((c) => allMemberGrantSources(c));
  const users = [...members].flatMap(([user_id, m]) => {
    const permissions = effectiveKeys(m.sources, node, "all");
    return permissions.length ? [{ user_id, email: m.email, display_name: m.display_name, permissions }] : [];
  });
  return { location_uuid: node.id, users };
}

export async function scopeTree(ctx: OrgContext) {
  const tree = await loadScopeTree(ctx);
  return { nodes: tree.nodes, scope_tree_version: tree.version };
}
