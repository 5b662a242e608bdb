import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { accessEpoch, iamAssignments, memberships, orgs, permissionGroups, platformGroupAssignments, sessions, shards, users } from "@db/control/schema";
import { all, get, getPrepared, prepared, run, type Work } from "@/platform/db/work";
import type { ControlDb } from "@/platform/db/control";
import type { Logger } from "@/platform/logger";
import type { ControlDatabase } from "@/platform/db/control";
import type { MessageBus } from "@/platform/cache/types";
import { Lru } from "@/platform/cache/lru";
import { then, type Maybe } from "@/platform/async/maybe";
import { ORG_PERMISSION_KEYS, PLATFORM_PERMISSION_KEYS } from "@/platform/permissions/registry";
import type { Actor } from "@/platform/auth/actor";
import { UUID_RE } from "@/platform/ids";
import { Grants, type GrantSource } from "./grants";

export type Principal = {
  userId: string;
  sessionId: string | null;
  email: string;
  displayName: string;
  isPlatformAdmin: boolean;
  isGlobalAccess: boolean;
  platformKeys: ReadonlySet<string>;
  /** When the first platform assignment behind platformKeys expires (epoch ms): no cache keeps the principal longer. */
  platformKeysUntil?: number | null;
};

export type OrgRecord = { id: string; name: string; slug: string; status: string; shard: { id: string; dsn: string; auth_token: string | null } };
/**
 * The caller's access to one org: `keys` are the keys held anywhere in it (the
 * route-level check), `grants` says where each applies; `until` is when the
 * first assignment behind it expires (epoch ms; no cache keeps it longer).
 */
export type OrgAccess = { org: OrgRecord; keys: ReadonlySet<string>; isOrgAdmin: boolean; grants: Grants; until: number | null };

/**
 * What one session resolved to: whether it is live, its caller, and a memo of
 * the caller's access per org id as the path spelled it. Kept as long as the
 * caches it was built from (TTL, cleared on every IAM invalidation), so a
 * request with a known token costs one lookup here instead of one per cache.
 */
export type SessionGrant = { userId: string; active: boolean; principal: Principal | null; orgs: Map<string, OrgAccess | null> };

export const actorOf = (p: Principal): Actor => ({ type: "user", id: p.userId, display_name: p.displayName });

const ALL_ORG_KEYS: ReadonlySet<string> = new Set(ORG_PERMISSION_KEYS);
const ALL_PLATFORM_KEYS: ReadonlySet<string> = new Set(PLATFORM_PERMISSION_KEYS);
const EVERYTHING = Grants.everything();
const TTL_MS = 30_000;
const MAX_ORGS_PER_GRANT = 1_000;
export const INVALIDATE_CHANNEL = "cusp:access:invalidate";
/** How often each instance reads the control database's access epoch. */
const EPOCH_EVERY_MS = 250;
/** Cached access not checked against the epoch for this long is not trusted (the epoch could not be read). */
const TRUST_FOR_MS = 1_000;

const epochRow = prepared<{ version: number }>((db) => db.select({ version: accessEpoch.version }).from(accessEpoch).where(eq(accessEpoch.id, 1)).prepare());

/**
 * Move the access epoch, inside the write that changes access (memberships,
 * groups, assignments, sessions, users): every instance drops its cached
 * access within a second of the commit, bus or no bus (AccessResolver).
 */
export function* bumpAccessEpoch(tx: ControlDb): Work<void> {
  yield* run(
    tx
      .update(accessEpoch)
      .set({ version: sql`${accessEpoch.version} + 1` })
      .where(eq(accessEpoch.id, 1)),
  );
}

const userById = prepared<{ id: string; email: string; display_name: string; status: string; is_platform_admin: boolean; is_global_access: boolean }>((db) =>
  db
    .select({
      id: users.id,
      email: users.email,
      display_name: users.display_name,
      status: users.status,
      is_platform_admin: users.is_platform_admin,
      is_global_access: users.is_global_access,
    })
    .from(users)
    .where(eq(users.id, sql.placeholder("id")))
    .prepare(),
);
const sessionById = prepared<{ revoked_at: string | null; expires_at: string }>((db) =>
  db
    .select({ revoked_at: sessions.revoked_at, expires_at: sessions.expires_at })
    .from(sessions)
    .where(eq(sessions.id, sql.placeholder("id")))
    .prepare(),
);
const orgById = prepared<{
  id: string;
  name: string;
  slug: string;
  status: string;
  deleted_at: string | null;
  shard_id: string;
  dsn: string;
  auth_token: string | null;
}>((db) =>
  db
    .select({
      id: orgs.id,
      name: orgs.name,
      slug: orgs.slug,
      status: orgs.status,
      deleted_at: orgs.deleted_at,
      shard_id: shards.id,
      dsn: shards.dsn,
      auth_token: shards.auth_token,
    })
    .from(orgs)
    .innerJoin(shards, eq(shards.id, orgs.shard_id))
    .where(eq(orgs.id, sql.placeholder("id")))
    .prepare(),
);

/** The columns of a GrantSource: an assignment joined with its group. */
export const GRANT_SOURCE_COLUMNS = {
  assignment_id: iamAssignments.id,
  group_id: permissionGroups.id,
  group_name: permissionGroups.name,
  keys: permissionGroups.permission_keys,
  is_org_admin: permissionGroups.is_org_admin,
  scope_node_id: iamAssignments.scope_node_id,
  scope_type: iamAssignments.scope_type,
  context: iamAssignments.context,
  expires_at: iamAssignments.expires_at,
};

/**
 * The member's live assignments in the org: membership active, assignment
 * active and not expired, group active. Null when they are not an active member.
 */
export function* loadGrantSources(db: any, orgId: string, userId: string, now = new Date().toISOString()): Work<GrantSource[] | null> {
  const m = yield* get<{ id: string; status: string }>(
    db
      .select({ id: memberships.id, status: memberships.status })
      .from(memberships)
      .where(and(eq(memberships.org_id, orgId), eq(memberships.user_id, userId))),
  );
  if (!m || m.status !== "active") return null;
  const rows = yield* all<GrantSource>(
    db
      .select(GRANT_SOURCE_COLUMNS)
      .from(iamAssignments)
      .innerJoin(permissionGroups, eq(permissionGroups.id, iamAssignments.group_id))
      .where(
        and(
          eq(iamAssignments.membership_id, m.id),
          eq(iamAssignments.org_id, orgId),
          eq(iamAssignments.status, "active"),
          eq(permissionGroups.org_id, orgId),
          eq(permissionGroups.status, "active"),
        ),
      )
      .orderBy(asc(iamAssignments.created_at), asc(iamAssignments.id)),
  );
  return rows.filter((r) => !r.expires_at || r.expires_at > now);
}

const earliest = (sources: readonly GrantSource[]) => {
  const times = sources.flatMap((s) => (s.expires_at ? [Date.parse(s.expires_at)] : []));
  return times.length ? Math.min(...times) : null;
};

/**
 * Platform keys of a user's assignments that grant now: active, not expired, to an
 * active platform group; `until` is the earliest expiry among them (null: none).
 */
function* loadPlatformKeys(db: any, userId: string): Work<{ keys: Set<string>; until: number | null }> {
  const now = new Date().toISOString();
  const rows = yield* all<{ keys: string[]; expires_at: string | null }>(
    db
      .select({ keys: permissionGroups.permission_keys, expires_at: platformGroupAssignments.expires_at })
      .from(platformGroupAssignments)
      .innerJoin(permissionGroups, eq(permissionGroups.id, platformGroupAssignments.group_id))
      .where(
        and(
          eq(platformGroupAssignments.user_id, userId),
          eq(platformGroupAssignments.is_active, true),
          isNull(permissionGroups.org_id),
          eq(permissionGroups.status, "active"),
        ),
      ),
  );
  const live = rows.filter((r) => !r.expires_at || r.expires_at > now);
  const expiries = live.flatMap((r) => (r.expires_at ? [Date.parse(r.expires_at)] : []));
  return { keys: new Set(live.flatMap((r) => r.keys)), until: expiries.length ? Math.min(...expiries) : null };
}

/** A cache lifetime that ends no later than the principal's first platform assignment expiry. */
const ttlFor = (p: Principal | null, now = Date.now()) => (p?.platformKeysUntil ? Math.max(1, Math.min(TTL_MS, p.platformKeysUntil - now)) : TTL_MS);

/**
 * !!! TENANCY AND PERMISSION GUARD: changes here need two reviewers. !!!
 * Resolves who is calling and what they may do in an org. Results are cached
 * briefly per process; any IAM write publishes an invalidation on the bus so
 * every instance drops its cache at once. The bus is best effort: the write
 * also moves the control database's access epoch, which every instance reads
 * every 250 ms (dropping its caches when it moved), and a cache not checked
 * against the epoch for a second is not trusted. So a revocation holds on
 * every instance within a second even when the bus is down.
 */
export class AccessResolver {
  private readonly principals = new Lru<string, Principal | null>(10_000);
  private readonly sessionsOk = new Lru<string, boolean>(10_000);
  private readonly orgsById = new Lru<string, OrgRecord | null>(10_000);
  private readonly access = new Lru<string, OrgAccess | null>(20_000);
  private readonly grants = new Lru<string, SessionGrant>(10_000);
  private readonly unsubscribe: () => void;
  private epoch: number | null = null;
  private verifiedAt = 0;
  private readonly watch: ReturnType<typeof setInterval>;
  private lastWarning = 0;

  constructor(
    private readonly control: ControlDatabase,
    private readonly bus: MessageBus,
    private readonly logger?: Logger,
  ) {
    this.unsubscribe = bus.subscribe(INVALIDATE_CHANNEL, () => this.clearLocal());
    this.checkEpoch();
    this.watch = setInterval(() => this.checkEpoch(), EPOCH_EVERY_MS);
    this.watch.unref?.();
  }

  /** Read the access epoch: drop every cache when it moved; a failure leaves the caches to expire (TRUST_FOR_MS). */
  private checkEpoch(): void {
    try {
      const read = then(
        this.control.read((db) => getPrepared(db, epochRow, {})),
        (row) => {
          const version = row?.version ?? 0;
          if (this.epoch !== null && version !== this.epoch) this.clearLocal();
          this.epoch = version;
          this.verifiedAt = Date.now();
        },
      );
      if (read instanceof Promise) read.catch((err) => this.epochFailed(err));
    } catch (err) {
      this.epochFailed(err);
    }
  }

  private epochFailed(err: unknown) {
    const now = Date.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    this.logger?.warn({ err: (err as Error)?.message }, "the access epoch could not be read: cached access is dropped after a second");
  }

  /** Caches not verified against the epoch lately are dropped: the guard then asks the control database. */
  private trusted(): void {
    if (Date.now() - this.verifiedAt > TRUST_FOR_MS) this.clearLocal();
  }

  clearLocal(): void {
    this.principals.clear();
    this.sessionsOk.clear();
    this.orgsById.clear();
    this.access.clear();
    this.grants.clear();
  }

  /**
   * Tell every instance (including this one) that IAM data changed: the epoch
   * moves (if the write did not move it in its own transaction already) and
   * the bus tells the others at once. Never fails: the write has committed,
   * and an instance the bus misses notices the epoch within a second.
   */
  async invalidate(options: { epochMoved?: boolean } = {}): Promise<void> {
    this.clearLocal();
    try {
      if (!options.epochMoved) await this.control.write((tx) => bumpAccessEpoch(tx));
    } catch (err) {
      this.logger?.warn({ err: (err as Error)?.message }, "the access epoch could not be moved: other instances rely on the bus and their cache lifetime");
    }
    try {
      await this.bus.publish(INVALIDATE_CHANNEL, "1");
    } catch (err) {
      this.logger?.warn({ err: (err as Error)?.message }, "access invalidation not published: other instances notice the access epoch");
    }
  }

  close(): void {
    this.unsubscribe();
    clearInterval(this.watch);
  }

  // Each lookup answers synchronously from its cache (a value, not a promise),
  // so the guard's hot path never allocates a promise; misses may be async.

  sessionActive(sessionId: string): Maybe<boolean> {
    this.trusted();
    const hit = this.sessionsOk.get(sessionId);
    if (hit !== undefined) return hit;
    return then(
      this.control.read((db) => getPrepared(db, sessionById, { id: sessionId })),
      (row) => {
        const ok = !!row && !row.revoked_at && row.expires_at > new Date().toISOString();
        this.sessionsOk.set(sessionId, ok, TTL_MS);
        return ok;
      },
    );
  }

  /** The session's grant (see SessionGrant); `userId` is the token's subject. */
  session(sessionId: string, userId: string): Maybe<SessionGrant> {
    this.trusted();
    const hit = this.grants.get(sessionId);
    if (hit !== undefined && hit.userId === userId) return hit;
    const remember = (g: SessionGrant) => (this.grants.set(sessionId, g, ttlFor(g.principal)), g);
    return then(this.sessionActive(sessionId), (active) =>
      active
        ? then(this.principal(userId, sessionId), (principal) => remember({ userId, active, principal, orgs: new Map() }))
        : remember({ userId, active, principal: null, orgs: new Map() }),
    );
  }

  /** `orgAccess` through the session's memo; `orgId` as the path spelled it (validated here on a miss). */
  orgAccessIn(grant: SessionGrant, orgId: string): Maybe<OrgAccess | null> {
    const hit = grant.orgs.get(orgId);
    if (hit !== undefined && !(hit?.until && hit.until <= Date.now())) return hit;
    if (!grant.principal) return null;
    return then(this.orgAccessByPathId(grant.principal, orgId), (a) => {
      if (grant.orgs.size < MAX_ORGS_PER_GRANT) grant.orgs.set(orgId, a);
      return a;
    });
  }

  principal(userId: string, sessionId: string | null): Maybe<Principal | null> {
    const withSession = (p: Principal | null) => (p ? { ...p, sessionId } : null);
    this.trusted();
    const hit = this.principals.get(userId);
    if (hit !== undefined) return withSession(hit);
    return then(
      this.control.read(function* (db) {
        const u = yield* getPrepared(db, userById, { id: userId });
        if (!u || u.status !== "active") return null;
        const platform = u.is_global_access || !u.is_platform_admin ? null : yield* loadPlatformKeys(db, u.id);
        const platformKeys = u.is_global_access ? ALL_PLATFORM_KEYS : (platform?.keys ?? new Set<string>());
        return {
          userId: u.id,
          sessionId: null,
          email: u.email,
          displayName: u.display_name,
          isPlatformAdmin: u.is_platform_admin,
          isGlobalAccess: u.is_global_access,
          platformKeys,
          platformKeysUntil: platform?.until ?? null,
        } satisfies Principal;
      }),
      (p) => {
        this.principals.set(userId, p, ttlFor(p));
        return withSession(p);
      },
    );
  }

  org(orgId: string): Maybe<OrgRecord | null> {
    this.trusted();
    const hit = this.orgsById.get(orgId);
    if (hit !== undefined) return hit;
    return then(
      this.control.read((db) => getPrepared(db, orgById, { id: orgId })),
      (row) => {
        const o =
          row && !row.deleted_at && row.status !== "archived"
            ? { id: row.id, name: row.name, slug: row.slug, status: row.status, shard: { id: row.shard_id, dsn: row.dsn, auth_token: row.auth_token } }
            : null;
        this.orgsById.set(orgId, o, TTL_MS);
        return o;
      },
    );
  }

  /** `orgAccess` for an org id as a path spelled it: a malformed id is simply no access. */
  orgAccessByPathId(principal: Principal, orgId: string): Maybe<OrgAccess | null> {
    return UUID_RE.test(orgId) ? this.orgAccess(principal, orgId.toLowerCase()) : null;
  }

  /** The caller's access to an org, or null when the caller is not a member (callers answer 404). */
  orgAccess(principal: Principal, orgId: string): Maybe<OrgAccess | null> {
    const key = `${principal.userId}|${orgId}`;
    this.trusted();
    const hit = this.access.get(key);
    if (hit !== undefined) return hit; // kept no longer than the first expiry behind it (see remember)
    return then(this.org(orgId), (org): Maybe<OrgAccess | null> => {
      const remember = (a: OrgAccess | null) => (this.access.set(key, a, a?.until ? Math.max(1, Math.min(TTL_MS, a.until - Date.now())) : TTL_MS), a);
      if (!org) return remember(null);
      if (principal.isGlobalAccess) return remember({ org, keys: ALL_ORG_KEYS, isOrgAdmin: true, grants: EVERYTHING, until: null });
      return then(
        this.control.read((db) => loadGrantSources(db, orgId, principal.userId)),
        (sources) => {
          if (!sources) return remember(null);
          const grants = new Grants(sources);
          return remember({ org, keys: grants.any, isOrgAdmin: grants.isOrgAdmin, grants, until: earliest(sources) });
        },
      );
    });
  }

  /** Org ids the user is an active member of (for /auth/me/orgs). */
  async memberOrgIds(userId: string): Promise<string[]> {
    const rows = await this.control.read((db) =>
      all<{ org_id: string }>(
        db
          .select({ org_id: memberships.org_id })
          .from(memberships)
          .where(and(eq(memberships.user_id, userId), inArray(memberships.status, ["active"]))),
      ),
    );
    return rows.map((r) => r.org_id);
  }
}
