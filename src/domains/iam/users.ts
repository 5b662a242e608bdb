import { anyContains } from "@/platform/records/search";
import { and, asc, count, countDistinct, desc, eq, inArray, ne, sql, type SQL } from "drizzle-orm";
import { memberships, membershipGroups, permissionGroups, users } from "@db/control/schema";
import { all, get, run, type Work } from "@/platform/db/work";
import { newId, nowIso, randomToken, sha256 } from "@/platform/ids";
import { Conflict, NotFound, ValidationFailed, VersionConflict } from "@/platform/errors";
import { hashPassword } from "@/platform/auth/passwords";
import { withTransaction } from "@/platform/records/transaction";
import { audit } from "@/platform/audit/audit";
import { offsetOf, pageOf } from "@/platform/records/paging";
import type { OrgContext } from "@/platform/records/context";
import { assertHolds, callerKeys, groupKeys, requireActiveGroups, type GroupRow } from "./groups";
import type { Member, MemberCreate, MemberCreated, MemberListQuery, MemberPatch, MembershipStatus } from "./schemas";

export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

// Invited members have not agreed to join yet: the org does not see when they last logged in.
const visibleLastLogin = sql<string | null>`CASE WHEN ${memberships.status} = 'invited' THEN NULL ELSE ${users.last_login_at} END`;

const memberColumns = {
  user_id: users.id, email: users.email, display_name: users.display_name, last_login_at: visibleLastLogin,
  membership_id: memberships.id, status: memberships.status, joined_at: memberships.joined_at,
  version: memberships.version, created_at: memberships.created_at, updated_at: memberships.updated_at,
};
type MemberRow = { user_id: string; email: string; display_name: string; last_login_at: string | null; membership_id: string; status: string; joined_at: string | null; version: number; created_at: string; updated_at: string };

const serializeMember = (r: MemberRow, groups: { uuid: string; name: string }[]): Member => ({
  id: r.user_id, email: r.email, display_name: r.display_name, membership_status: r.status as MembershipStatus,
  joined_at: r.joined_at, last_login_at: r.last_login_at, groups,
  version: r.version, created_at: r.created_at, updated_at: r.updated_at,
});

function* groupsOf(db: any, membershipIds: string[]): Work<Map<string, { uuid: string; name: string }[]>> {
  const out = new Map<string, { uuid: string; name: string }[]>();
  if (!membershipIds.length) return out;
  const rows = yield* all<{ membership_id: string; uuid: string; name: string }>(
    db.select({ membership_id: membershipGroups.membership_id, uuid: permissionGroups.id, name: permissionGroups.name })
      .from(membershipGroups).innerJoin(permissionGroups, eq(permissionGroups.id, membershipGroups.group_id))
      .where(and(inArray(membershipGroups.membership_id, membershipIds), eq(permissionGroups.status, "active")))
      .orderBy(sql`${permissionGroups.name} COLLATE NOCASE`, asc(permissionGroups.id)),
  );
  for (const r of rows) {
    const list = out.get(r.membership_id) ?? [];
    list.push({ uuid: r.uuid, name: r.name });
    out.set(r.membership_id, list);
  }
  return out;
}

function* findMemberRow(db: any, orgId: string, userId: string): Work<MemberRow | undefined> {
  return yield* get<MemberRow>(
    db.select(memberColumns).from(memberships).innerJoin(users, eq(users.id, memberships.user_id))
      .where(and(eq(memberships.org_id, orgId), eq(memberships.user_id, userId))),
  );
}

function* requireMemberRow(db: any, orgId: string, userId: string): Work<MemberRow> {
  const row = yield* findMemberRow(db, orgId, userId);
  if (!row) throw new NotFound("User");
  return row;
}

export function* loadMember(db: any, orgId: string, userId: string): Work<Member> {
  const row = yield* requireMemberRow(db, orgId, userId);
  const groups = yield* groupsOf(db, [row.membership_id]);
  return serializeMember(row, groups.get(row.membership_id) ?? []);
}

/** Active groups a membership holds (archived groups grant nothing). */
function* membershipGroupRows(db: any, membershipId: string): Work<GroupRow[]> {
  const rows = yield* all<{ g: GroupRow }>(
    db.select({ g: permissionGroups }).from(membershipGroups).innerJoin(permissionGroups, eq(permissionGroups.id, membershipGroups.group_id))
      .where(and(eq(membershipGroups.membership_id, membershipId), eq(permissionGroups.status, "active"))),
  );
  return rows.map((r) => r.g);
}

function* activeAdminCount(db: any, orgId: string): Work<number> {
  const row = yield* get<{ n: number }>(
    db.select({ n: countDistinct(memberships.id) }).from(memberships)
      .innerJoin(membershipGroups, eq(membershipGroups.membership_id, memberships.id))
      .innerJoin(permissionGroups, eq(permissionGroups.id, membershipGroups.group_id))
      .where(and(eq(memberships.org_id, orgId), eq(memberships.status, "active"), eq(permissionGroups.is_org_admin, true), eq(permissionGroups.status, "active"))),
  );
  return row?.n ?? 0;
}

/** An org must keep at least one active administrator, or nobody could manage it any more. */
function* assertNotLastAdmin(db: any, orgId: string, m: MemberRow, currentGroups: GroupRow[]): Work<void> {
  if (m.status !== "active" || !currentGroups.some((g) => g.is_org_admin)) return;
  if ((yield* activeAdminCount(db, orgId)) <= 1) throw new Conflict("This is the organization's last active administrator", "last_admin");
}

function* setGroups(tx: any, membershipId: string, groups: GroupRow[]): Work<void> {
  yield* run(tx.delete(membershipGroups).where(eq(membershipGroups.membership_id, membershipId)));
  if (groups.length) yield* run(tx.insert(membershipGroups).values(groups.map((g) => ({ membership_id: membershipId, group_id: g.id }))));
}

const allKeys = (groups: GroupRow[]) => groups.flatMap(groupKeys);

/** After the control-database write: drop cached permissions, then audit and announce in the org's own database. */
async function recordMemberWrite(ctx: OrgContext, action: string, before: Member | null, after: Member, data: Record<string, unknown> = {}) {
  await ctx.runtime.access.invalidate();
  await withTransaction(ctx, function* (s) {
    yield* audit(s, { action: `membership.${action}`, resource_type: "membership", resource_id: after.id, before, after });
    s.after.events.push({ type: `membership.${action}`, resource_type: "membership", resource_id: after.id, data: { id: after.id, ...data } });
  });
}

const SORTS: Record<MemberListQuery["sort_by"], SQL> = {
  display_name: sql`${users.display_name} COLLATE NOCASE`,
  email: sql`${users.email}`,
  joined_at: sql`${memberships.joined_at}`,
  last_login_at: visibleLastLogin,
  membership_status: sql`${memberships.status}`,
};

export async function listMembers(ctx: OrgContext, q: MemberListQuery) {
  return ctx.runtime.control.read(function* (db) {
    const conds: (SQL | undefined)[] = [eq(memberships.org_id, ctx.org.id), q.status ? eq(memberships.status, q.status) : ne(memberships.status, "removed")];
    if (q.search) {
      conds.push(anyContains([users.email, users.display_name], q.search));
    }
    const where = and(...conds);
    const total = yield* get<{ n: number }>(db.select({ n: count() }).from(memberships).innerJoin(users, eq(users.id, memberships.user_id)).where(where));
    const dir = q.sort_order === "desc" ? sql`DESC` : sql`ASC`;
    const rows = yield* all<MemberRow>(
      db.select(memberColumns).from(memberships).innerJoin(users, eq(users.id, memberships.user_id)).where(where)
        .orderBy(sql`${SORTS[q.sort_by]} ${dir} NULLS LAST`, q.sort_order === "desc" ? desc(users.id) : asc(users.id))
        .limit(q.page_size).offset(offsetOf(q)),
    );
    const groups = yield* groupsOf(db, rows.map((r) => r.membership_id));
    return pageOf(rows.map((r) => serializeMember(r, groups.get(r.membership_id) ?? [])), total?.n ?? 0, q);
  });
}

export async function getMember(ctx: OrgContext, userId: string): Promise<Member> {
  return ctx.runtime.control.read((db) => loadMember(db, ctx.org.id, userId));
}

/**
 * Add a user to this org. A new email gets an account: active at once with a
 * password, otherwise invited. An existing account is always invited (its owner
 * accepts with their own password); a given password never replaces theirs.
 */
export async function createMember(ctx: OrgContext, input: MemberCreate): Promise<MemberCreated> {
  const orgId = ctx.org.id;
  const caller = await callerKeys(ctx);
  const known = await ctx.runtime.control.read((db) => get<{ id: string }>(db.select({ id: users.id }).from(users).where(eq(users.email, input.email))));
  const passwordHash = !known && input.password ? await hashPassword(input.password) : null;
  const token = randomToken();
  const now = nowIso();
  const expires = new Date(Date.now() + INVITATION_TTL_MS).toISOString();
  const out = await ctx.runtime.control.write(function* (tx) {
    const groups = yield* requireActiveGroups(tx, orgId, input.group_uuids ?? []);
    assertHolds(caller, allKeys(groups));
    const user = yield* get<{ id: string }>(tx.select({ id: users.id }).from(users).where(eq(users.email, input.email)));
    const userId = user?.id ?? newId();
    if (!user) {
      yield* run(tx.insert(users).values({ id: userId, email: input.email, display_name: input.display_name, password_hash: passwordHash, status: "active", created_at: now, updated_at: now, version: 1 }));
    }
    const active = !user && passwordHash !== null;
    const existing = yield* get<{ id: string; status: string; version: number }>(
      tx.select({ id: memberships.id, status: memberships.status, version: memberships.version }).from(memberships)
        .where(and(eq(memberships.org_id, orgId), eq(memberships.user_id, userId))),
    );
    if (existing && existing.status !== "removed") throw new Conflict("This user is already a member of the organization", "duplicate");
    const before = existing ? yield* loadMember(tx, orgId, userId) : null;
    const state = {
      status: active ? "active" : "invited", joined_at: active ? now : null,
      invitation_token_hash: active ? null : sha256(token), invitation_expires_at: active ? null : expires, updated_at: now,
    };
    const membershipId = existing?.id ?? newId();
    if (existing) yield* run(tx.update(memberships).set({ ...state, version: existing.version + 1 }).where(eq(memberships.id, existing.id)));
    else yield* run(tx.insert(memberships).values({ ...state, id: membershipId, org_id: orgId, user_id: userId, created_at: now, version: 1 }));
    yield* setGroups(tx, membershipId, groups);
    return { before, after: yield* loadMember(tx, orgId, userId), invited: !active };
  });
  await recordMemberWrite(ctx, "created", out.before, out.after, { membership_status: out.after.membership_status });
  return { ...out.after, invitation_token: out.invited ? token : null };
}

export async function updateMember(ctx: OrgContext, userId: string, input: MemberPatch): Promise<Member> {
  const orgId = ctx.org.id;
  const caller = await callerKeys(ctx);
  const now = nowIso();
  const out = await ctx.runtime.control.write(function* (tx) {
    const m = yield* requireMemberRow(tx, orgId, userId);
    if (m.version !== input.base_version) throw new VersionConflict(m.version);
    if (m.status === "removed") throw new Conflict("The user was removed from the organization; add them again instead", "membership_removed");
    const before = yield* loadMember(tx, orgId, userId);
    const current = yield* membershipGroupRows(tx, m.membership_id);
    assertHolds(caller, allKeys(current), "change a member who holds permissions you do not hold");
    const changed: string[] = [];
    if (input.group_uuids) {
      const next = yield* requireActiveGroups(tx, orgId, input.group_uuids);
      assertHolds(caller, allKeys(next));
      if (!next.some((g) => g.is_org_admin)) yield* assertNotLastAdmin(tx, orgId, m, current);
      yield* setGroups(tx, m.membership_id, next);
      changed.push("groups");
    }
    if (input.display_name !== undefined && input.display_name !== m.display_name) {
      // The account is shared by every org it belongs to: one org may not rename someone another org (or the platform) knows.
      const u = (yield* get<{ is_platform_admin: boolean; version: number }>(tx.select({ is_platform_admin: users.is_platform_admin, version: users.version }).from(users).where(eq(users.id, userId))))!;
      const elsewhere = yield* get<{ n: number }>(
        tx.select({ n: count() }).from(memberships).where(and(eq(memberships.user_id, userId), ne(memberships.org_id, orgId), ne(memberships.status, "removed"))),
      );
      if (u.is_platform_admin || (elsewhere?.n ?? 0) > 0) {
        throw new Conflict("This account is also used outside this organization; only its owner can change its name", "shared_account");
      }
      yield* run(tx.update(users).set({ display_name: input.display_name, version: u.version + 1, updated_at: now }).where(eq(users.id, userId)));
      changed.push("display_name");
    }
    const bumped = yield* get(tx.update(memberships).set({ version: m.version + 1, updated_at: now })
      .where(and(eq(memberships.id, m.membership_id), eq(memberships.version, m.version))).returning({ id: memberships.id }));
    if (!bumped) throw new VersionConflict();
    return { before, after: yield* loadMember(tx, orgId, userId), changed };
  });
  await recordMemberWrite(ctx, "updated", out.before, out.after, { changed_fields: out.changed });
  return out.after;
}

type StatusAction = "suspend" | "remove" | "reactivate";
const TRANSITIONS: Record<StatusAction, { to: MembershipStatus; from: MembershipStatus[]; event: string }> = {
  suspend: { to: "suspended", from: ["active"], event: "suspended" },
  remove: { to: "removed", from: ["active", "invited", "suspended"], event: "removed" },
  reactivate: { to: "active", from: ["suspended"], event: "reactivated" },
};

/** Suspend, remove or reactivate a member. Repeating a change that already happened returns the member unchanged. */
export async function changeMemberStatus(ctx: OrgContext, userId: string, action: StatusAction): Promise<Member> {
  const orgId = ctx.org.id;
  const rule = TRANSITIONS[action];
  const caller = await callerKeys(ctx);
  const now = nowIso();
  const out = await ctx.runtime.control.write(function* (tx) {
    const m = yield* requireMemberRow(tx, orgId, userId);
    if (m.status === rule.to) return { before: null, after: yield* loadMember(tx, orgId, userId) };
    if (!rule.from.includes(m.status as MembershipStatus)) {
      throw new ValidationFailed([{ loc: ["path", "user_id"], msg: `Cannot ${action} a member whose status is ${m.status}`, type: "invalid_transition" }], "invalid_transition");
    }
    const before = yield* loadMember(tx, orgId, userId);
    const current = yield* membershipGroupRows(tx, m.membership_id);
    assertHolds(caller, allKeys(current), "change a member who holds permissions you do not hold");
    if (rule.to !== "active") yield* assertNotLastAdmin(tx, orgId, m, current);
    // A removed member keeps nothing: no groups, no usable invitation.
    if (rule.to === "removed") yield* setGroups(tx, m.membership_id, []);
    yield* run(tx.update(memberships).set({
      status: rule.to, version: m.version + 1, updated_at: now,
      ...(rule.to === "active" ? { joined_at: m.joined_at ?? now } : { invitation_token_hash: null, invitation_expires_at: null }),
    }).where(eq(memberships.id, m.membership_id)));
    return { before, after: yield* loadMember(tx, orgId, userId) };
  });
  if (out.before) await recordMemberWrite(ctx, rule.event, out.before, out.after, { membership_status: out.after.membership_status });
  return out.after;
}
