import { asc, eq, isNull, sql } from "drizzle-orm";
import { locations, providers, scopeTreeState } from "@db/tenant/practice";
import { all, get } from "@/platform/db/work";
import { NotFound } from "@/platform/errors";
import type { OrgContext } from "@/platform/records/context";
import type { ScopeType } from "@/platform/tenancy/grants";

// The org's scope tree, read from its own database: the org node (id = the
// org's id), its live locations and its live providers, each a child of the
// org node. Providers hang under the org, not under a location, because one
// provider works at several locations (docs/iam/iam.md).

export type ScopeNode = { id: string; type: ScopeType; name: string; parent_id: string | null; path: string };
export type ScopeTree = { nodes: ScopeNode[]; version: number; byId: Map<string, ScopeNode> };

const personName = (p: { first_name: string; last_name: string }) => `${p.first_name} ${p.last_name}`.trim();

export async function loadScopeTree(ctx: OrgContext): Promise<ScopeTree> {
  const org = ctx.org;
  const { locs, provs, version } = await ctx.db.read(function* (db) {
    const locs = yield* all<{ id: string; name: string }>(
      db
        .select({ id: locations.id, name: locations.name })
        .from(locations)
        .where(isNull(locations.deleted_at))
        .orderBy(sql`${locations.name} COLLATE NOCASE`, asc(locations.id)),
    );
    const provs = yield* all<{ id: string; first_name: string; last_name: string }>(
      db
        .select({ id: providers.id, first_name: providers.first_name, last_name: providers.last_name })
        .from(providers)
        .where(isNull(providers.deleted_at))
        .orderBy(sql`${providers.last_name} COLLATE NOCASE`, sql`${providers.first_name} COLLATE NOCASE`, asc(providers.id)),
    );
    const state = yield* get<{ version: number }>(db.select({ version: scopeTreeState.version }).from(scopeTreeState).where(eq(scopeTreeState.id, 1)));
    return { locs, provs, version: state?.version ?? 1 };
  });
  const root: ScopeNode = { id: org.id, type: "org", name: org.name, parent_id: null, path: `org:${org.id}` };
  const nodes: ScopeNode[] = [
    root,
    ...locs.map((l): ScopeNode => ({ id: l.id, type: "location", name: l.name, parent_id: org.id, path: `${root.path}/location:${l.id}` })),
    ...provs.map((p): ScopeNode => ({ id: p.id, type: "provider", name: personName(p), parent_id: org.id, path: `${root.path}/provider:${p.id}` })),
  ];
  return { nodes, version, byId: new Map(nodes.map((n) => [n.id, n])) };
}

/** A node of the tree by id (the org node when none is named); 404 when it is not in the tree. */
export function requireNode(tree: ScopeTree, id: string | undefined): ScopeNode {
  const node = tree.byId.get(id ?? tree.nodes[0]!.id);
  if (!node) throw new NotFound("Scope node");
  return node;
}
