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
const keysOf = (s: GrantSource) => (s.is_org_admin ? ALL_ORG_KEYS : s.keys);

function addTo(map: Map<string, Set<string>>, id: string, keys: readonly string[]) {
  let set = map.get(id);
  if (!set) map.set(id, (set = new Set()));
  for (const k of keys) set.add(k);
}

export class Grants {
  /** Keys held at the org node with context all: every request. */
  readonly everywhere = new Set<string>();
  /** Keys for org-level records (no location or provider): org node, context org (plus everywhere). */
  readonly orgLevel = new Set<string>();
  /** Keys at every location (org node, context location) and at every provider (org node, context provider). */
  readonly allLocations = new Set<string>();
  readonly allProviders = new Set<string>();
  readonly locations = new Map<string, Set<string>>();
  readonly providers = new Map<string, Set<string>>();
  /** Keys held anywhere: the route-level check (lacking the key everywhere is 403 at once). */
  readonly any = new Set<string>();
  readonly isOrgAdmin: boolean;

  constructor(readonly sources: readonly GrantSource[]) {
    let admin = false;
    for (const s of sources) {
      const keys = keysOf(s);
      for (const k of keys) this.any.add(k);
      if (s.scope_type === "org") {
        const into =
          s.context === "all" ? this.everywhere : s.context === "org" ? this.orgLevel : s.context === "location" ? this.allLocations : this.allProviders;
        for (const k of keys) into.add(k);
        if (s.context === "all" && s.is_org_admin) admin = true;
      } else if (s.scope_type === "location") addTo(this.locations, s.scope_node_id, keys);
      else addTo(this.providers, s.scope_node_id, keys);
    }
    for (const k of this.everywhere) {
      this.orgLevel.add(k);
      this.allLocations.add(k);
      this.allProviders.add(k);
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

  /** Does `key` reach this place? A record at a location or of a provider is reached through either. */
  covers(key: string, where: Where): boolean {
    if (this.everywhere.has(key)) return true;
    if (where === ANYWHERE) return false;
    const { location, provider } = where;
    if (!location && !provider) return this.orgLevel.has(key);
    if (location && (this.allLocations.has(key) || !!this.locations.get(location)?.has(key))) return true;
    return !!provider && (this.allProviders.has(key) || !!this.providers.get(provider)?.has(key));
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
