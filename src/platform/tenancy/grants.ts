import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";

// What a member may do where in an org, compiled once from their assignments
// (docs/iam/iam.md). The scope tree is org -> locations and org -> providers; an
// assignment grants its group's keys at one node for one context.

export const SCOPE_TYPES = ["org", "location", "provider"] as const;
export type ScopeType = (typeof SCOPE_TYPES)[number];
export const CONTEXTS = ["all", "org", "location", "provider", "self"] as const;
export type GrantContext = (typeof CONTEXTS)[number];

/** The contexts an assignment may carry at each kind of node (anything else is 422). */
export const CONTEXTS_AT: Record<ScopeType, readonly GrantContext[]> = {
  org: ["all", "org", "location", "provider"],
  location: ["all", "location"],
  provider: ["all", "provider", "self"],
};

/** One live assignment as the evaluation needs it. */
export type GrantSource = {
  assignment_id: string;
  group_id: string;
  group_name: string;
  keys: readonly string[];
  is_org_admin: boolean;
  scope_node_id: string;
  scope_type: ScopeType;
  context: GrantContext;
  expires_at: string | null;
};

/**
 * Where a request acts: a record's location and provider (either may be
 * absent: a patient with no home location is an org-level record), or
 * ANYWHERE for work over the whole org (an unfiltered list).
 */
export type Target = { location?: string | null; provider?: string | null };
export const ANYWHERE: unique symbol = Symbol("anywhere");
export type Where = Target | typeof ANYWHERE;

const ALL_ORG_KEYS: readonly string[] = ORG_PERMISSION_KEYS;

/** The keys an assignment grants: its group's, or every org key for an org-admin group. */
export const keysOf = (s: GrantSource): readonly string[] => (s.is_org_admin ? ALL_ORG_KEYS : s.keys);

/** Where an assignment sits: all the rule of reach reads of it. */
export type Placement = Pick<GrantSource, "scope_type" | "scope_node_id" | "context">;

/**
 * Does an assignment reach a request acting at `where`? The one statement of
 * where a grant reaches (docs/iam/iam.md's table): the guard applies it per
 * request (`Grants.covers`) and the effective-permission explanation per
 * assignment (domains/iam/access/evaluate.ts).
 *
 * The org node is every node's ancestor: in context all it reaches
 * everything (ANYWHERE included), in context org the org-level records (no
 * location, no provider), in context location / provider the records at
 * every location / of every provider. A location or provider node reaches
 * the records at that location / of that provider, in whichever context it
 * takes (`self` only says the provider is the member). A record at a location
 * and of a provider is reached through either.
 */
export function reaches(p: Placement, where: Where): boolean {
  if (p.scope_type === "org" && p.context === "all") return true;
  if (where === ANYWHERE) return false;
  const { location, provider } = where;
  if (p.scope_type === "location") return !!location && location === p.scope_node_id;
  if (p.scope_type === "provider") return !!provider && provider === p.scope_node_id;
  if (p.context === "org") return !location && !provider;
  return p.context === "location" ? !!location : !!provider;
}

/**
 * The place a node of the scope tree stands for, asked about in a context
 * (the effective-permission API): a location's or a provider's own records;
 * at the org node, org-level records (context all or org), or a record at a
 * location / of a provider that no grant names (context location /
 * provider: what reaches every location / provider). The org node's id
 * serves as that location or provider: no location or provider grant sits
 * at the org node.
 */
export function placeOf(node: { id: string; type: ScopeType }, context: GrantContext): Target {
  if (node.type === "location" || (node.type === "org" && context === "location")) return { location: node.id };
  if (node.type === "provider" || (node.type === "org" && context === "provider")) return { provider: node.id };
  return {};
}

type Placed = { placement: Placement; keys: Set<string> };

/** Does a grant among `placed` hold `key` and reach `where`? */
function reachedBy(placed: readonly Placed[] | undefined, key: string, where: Where): boolean {
  if (placed) for (const p of placed) if (p.keys.has(key) && reaches(p.placement, where)) return true;
  return false;
}

export class Grants {
  /** Keys of the grants that reach ANYWHERE (the org node, context all): allowed on every request without looking further. */
  readonly everywhere = new Set<string>();
  /** Keys held anywhere: the route-level check (lacking the key everywhere is 403 at once). */
  readonly any = new Set<string>();
  readonly isOrgAdmin: boolean;
  /**
   * Every other grant, keys merged per placement: those at the org node, and
   * those at a location or provider node by its id, so that a check looks only
   * at the grants of the nodes a request names. `reaches` decides.
   */
  private readonly atOrg: Placed[] = [];
  private readonly atNode = new Map<string, Placed[]>();

  constructor(readonly sources: readonly GrantSource[]) {
    let admin = false;
    const byPlacement = new Map<string, Placed>();
    for (const s of sources) {
      const keys = keysOf(s);
      for (const k of keys) this.any.add(k);
      if (reaches(s, ANYWHERE)) {
        for (const k of keys) this.everywhere.add(k);
        if (s.is_org_admin) admin = true;
        continue;
      }
      const id = `${s.scope_type}/${s.scope_node_id}/${s.context}`;
      let placed = byPlacement.get(id);
      if (!placed) {
        placed = { placement: { scope_type: s.scope_type, scope_node_id: s.scope_node_id, context: s.context }, keys: new Set() };
        byPlacement.set(id, placed);
        if (s.scope_type === "org") this.atOrg.push(placed);
        else {
          const atNode = this.atNode.get(s.scope_node_id);
          if (atNode) atNode.push(placed);
          else this.atNode.set(s.scope_node_id, [placed]);
        }
      }
      for (const k of keys) placed.keys.add(k);
    }
    this.isOrgAdmin = admin;
  }

  /** Every org key everywhere: a platform administrator with global access. */
  static everything(): Grants {
    return new Grants([
      {
        assignment_id: "global",
        group_id: "global",
        group_name: "Global platform access",
        keys: ALL_ORG_KEYS,
        is_org_admin: true,
        scope_node_id: "",
        scope_type: "org",
        context: "all",
        expires_at: null,
      },
    ]);
  }

  /** Does `key` reach this place? Some grant holding it reaches there (`reaches`). */
  covers(key: string, where: Where): boolean {
    if (this.everywhere.has(key)) return true;
    if (reachedBy(this.atOrg, key, where)) return true;
    if (where === ANYWHERE) return false; // it names no node
    return (
      (!!where.location && reachedBy(this.atNode.get(where.location), key, where)) ||
      (!!where.provider && reachedBy(this.atNode.get(where.provider), key, where))
    );
  }
}

/** The row of a group granted org-wide (the org node, context all): an org's first administrator, a member's `group_uuids`. */
export const orgWideAssignmentRow = (v: {
  id: string;
  orgId: string;
  membershipId: string;
  userId: string;
  groupId: string;
  now: string;
  createdBy?: string | null;
}) => ({
  id: v.id,
  org_id: v.orgId,
  membership_id: v.membershipId,
  user_id: v.userId,
  group_id: v.groupId,
  scope_node_id: v.orgId,
  scope_type: "org",
  context: "all",
  status: "active",
  created_by: v.createdBy ?? null,
  created_at: v.now,
  updated_at: v.now,
  version: 1,
});
