import { and, asc, count, countDistinct, desc, eq, gt, inArray, isNull, ne, notInArray, or, sql, type SQL } from "drizzle-orm";
import { iamAssignments, memberships, permissionGroups, users } from "@db/control/schema";
import { newId } from "@/platform/ids";
import { orgWideAssignmentRow } from "@/platform/tenancy/grants";
import { all, get, run, type Work } from "@/platform/db/work";
import { pageFrom, type Page, type Paging } from "@/platform/records/paging";
import { anyContains } from "@/platform/records/search";
import { updatedOrConflict } from "@/platform/records/versions";
import type { OrgControlRead } from "@/platform/tenancy/org-control";

// Every query of the org's members and permission groups in the control
// database. Each takes the org's control scope first (`c.orgId` was bound by
// OrgControl), so none depends on an org id a verb remembered. Users are shared
// by every org: their rows are read and written here too, by id or email.

export type GroupRow = typeof permissionGroups.$inferSelect;
export type MemberRow = {
  user_id: string;
  email: string;
  display_name: string;
  last_login_at: string | null;
  membership_id: string;
  status: string;
  joined_at: string | null;
  version: number;
  created_at: string;
  updated_at: string;
};
export type GroupRef = { uuid: string; name: string };

// Invited members have not agreed to join yet: the org does not see when they last logged in.
const visibleLastLogin = sql<string | null>`CASE WHEN ${memberships.status} = 'invited' THEN NULL ELSE ${users.last_login_at} END`;

const memberColumns = {
  user_id: users.id,
  email: users.email,
  display_name: users.display_name,
  last_login_at: visibleLastLogin,
  membership_id: memberships.id,
  status: memberships.status,
  joined_at: memberships.joined_at,
  version: memberships.version,
  created_at: memberships.created_at,
  updated_at: memberships.updated_at,
};

const inOrg = (c: OrgControlRead) => eq(memberships.org_id, c.orgId);
const groupInOrg = (c: OrgControlRead) => eq(permissionGroups.org_id, c.orgId);

// ---- members ------------------------------------------------------------------------

export const MEMBER_SORTS = {
  display_name: sql`${users.display_name} COLLATE NOCASE`,
  email: sql`${users.email}`,
  joined_at: sql`${memberships.joined_at}`,
  last_login_at: visibleLastLogin,
  membership_status: sql`${memberships.status}`,
} satisfies Record<string, SQL>;

export type MemberFilter = Paging & { status?: string; search?: string; sort_by: keyof typeof MEMBER_SORTS; sort_order: "asc" | "desc" };

/** A page of members (removed ones only when asked for by status), sorted with nulls last, then by user id. */
export function* memberPage(c: OrgControlRead, q: MemberFilter): Work<Page<MemberRow>> {
  const where = and(
    inOrg(c),
    q.status ? eq(memberships.status, q.status) : ne(memberships.status, "removed"),
    q.search ? anyContains([users.email, users.display_name], q.search) : undefined,
  );
  const joined = <T>(select: T) => (select as any).from(memberships).innerJoin(users, eq(users.id, memberships.user_id)).where(where);
  const dir = q.sort_order === "desc" ? sql`DESC` : sql`ASC`;
  return yield* pageFrom<MemberRow>(
    q,
    joined(c.db.select({ n: count() })),
    joined(c.db.select(memberColumns)).orderBy(sql`${MEMBER_SORTS[q.sort_by]} ${dir} NULLS LAST`, q.sort_order === "desc" ? desc(users.id) : asc(users.id)),
  );
}

export function* memberRow(c: OrgControlRead, userId: string): Work<MemberRow | undefined> {
  return yield* get<MemberRow>(
    c.db
      .select(memberColumns)
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.user_id))
      .where(and(inOrg(c), eq(memberships.user_id, userId))),
  );
}

// A member's `groups` are their org-wide assignments (the org node, context
// "all"); assignments at locations and providers are managed and shown by the
// assignments API (access/). Only live ones count: active, not expired, group active.
const live = () =>
  and(
    eq(iamAssignments.status, "active"),
    or(isNull(iamAssignments.expires_at), gt(iamAssignments.expires_at, new Date().toISOString())),
    eq(permissionGroups.status, "active"),
  );
const orgWide = (c: OrgControlRead) => and(eq(iamAssignments.scope_node_id, c.orgId), eq(iamAssignments.context, "all"));

/** The active org-wide groups of each membership, by name. */
export function* groupRefsOf(c: OrgControlRead, membershipIds: string[]): Work<Map<string, GroupRef[]>> {
  const out = new Map<string, GroupRef[]>();
  if (!membershipIds.length) return out;
  const rows = yield* all<{ membership_id: string; uuid: string; name: string }>(
    c.db
      .select({ membership_id: iamAssignments.membership_id, uuid: permissionGroups.id, name: permissionGroups.name })
      .from(iamAssignments)
      .innerJoin(permissionGroups, eq(permissionGroups.id, iamAssignments.group_id))
      .where(and(eq(iamAssignments.org_id, c.orgId), groupInOrg(c), inArray(iamAssignments.membership_id, membershipIds), orgWide(c), live()))
      .orderBy(sql`${permissionGroups.name} COLLATE NOCASE`, asc(permissionGroups.id)),
  );
  for (const r of rows) {
    const list = out.get(r.membership_id) ?? [];
    list.push({ uuid: r.uuid, name: r.name });
    out.set(r.membership_id, list);
  }
  return out;
}

/** Live groups a membership holds: org-wide only, or at any node (what the member could do somewhere). */
export function* membershipGroupRows(c: OrgControlRead, membershipId: string, where: "org-wide" | "anywhere" = "org-wide"): Work<GroupRow[]> {
  const rows = yield* all<{ g: GroupRow }>(
    c.db
      .selectDistinct({ g: permissionGroups })
      .from(iamAssignments)
      .innerJoin(permissionGroups, eq(permissionGroups.id, iamAssignments.group_id))
      .where(
        and(
          eq(iamAssignments.org_id, c.orgId),
          groupInOrg(c),
          eq(iamAssignments.membership_id, membershipId),
          where === "org-wide" ? orgWide(c) : undefined,
          live(),
        ),
      ),
  );
  return rows.map((r) => r.g);
}

/** Active members holding an org-admin group org-wide. */
export function* activeAdminCount(c: OrgControlRead): Work<number> {
  const row = yield* get<{ n: number }>(
    c.db
      .select({ n: countDistinct(memberships.id) })
      .from(memberships)
      .innerJoin(iamAssignments, eq(iamAssignments.membership_id, memberships.id))
      .innerJoin(permissionGroups, eq(permissionGroups.id, iamAssignments.group_id))
      .where(and(inOrg(c), eq(memberships.status, "active"), eq(permissionGroups.is_org_admin, true), orgWide(c), live())),
  );
  return row?.n ?? 0;
}

/** Is the user a member of the org (active, invited or suspended; removed members are not)? */
export function* isMember(c: OrgControlRead, userId: string): Work<boolean> {
  return !!(yield* get(
    c.db
      .select({ id: memberships.id })
      .from(memberships)
      .where(and(inOrg(c), eq(memberships.user_id, userId), ne(memberships.status, "removed"))),
  ));
}

/** The membership row of a user in the org, in any status. */
export function* membershipOf(c: OrgControlRead, userId: string): Work<{ id: string; status: string; version: number } | undefined> {
  return yield* get(
    c.db
      .select({ id: memberships.id, status: memberships.status, version: memberships.version })
      .from(memberships)
      .where(and(inOrg(c), eq(memberships.user_id, userId))),
  );
}

type MembershipState = {
  status: string;
  joined_at?: string | null;
  invitation_token_hash?: string | null;
  invitation_expires_at?: string | null;
  updated_at: string;
};

export function* insertMembership(c: OrgControlRead, values: MembershipState & { id: string; user_id: string; created_at: string }): Work<void> {
  yield* run(c.db.insert(memberships).values({ ...values, org_id: c.orgId, version: 1 }));
}

/** Bump a membership to `version + 1` with `set`, unless someone wrote in between (409). */
export function* updateMembership(c: OrgControlRead, id: string, version: number, set: Partial<MembershipState>): Work<void> {
  updatedOrConflict(
    yield* get(
      c.db
        .update(memberships)
        .set({ ...set, version: version + 1 })
        .where(and(inOrg(c), eq(memberships.id, id), eq(memberships.version, version)))
        .returning({ id: memberships.id }),
    ),
  );
}

/**
 * Make `groups` the membership's org-wide assignments, active: ones no longer
 * listed are revoked, new ones granted, suspended or expired ones of listed
 * groups made active again; assignments elsewhere are kept. Pending ones are
 * settled before (settleForMemberWrite).
 */
export function* setMembershipGroups(
  c: OrgControlRead & { now?: string },
  membershipId: string,
  groups: GroupRow[],
  createdBy: string | null = null,
): Work<void> {
  const mine = yield* get<{ user_id: string }>(
    c.db
      .select({ user_id: memberships.user_id })
      .from(memberships)
      .where(and(inOrg(c), eq(memberships.id, membershipId))),
  );
  if (!mine) throw new Error("setMembershipGroups: the membership is not this org's");
  const ids = groups.map((g) => g.id);
  const scope = and(eq(iamAssignments.org_id, c.orgId), eq(iamAssignments.membership_id, membershipId), orgWide(c));
  yield* run(c.db.delete(iamAssignments).where(and(scope, ids.length ? notInArray(iamAssignments.group_id, ids) : undefined)));
  const kept = yield* all<{ id: string; group_id: string; status: string; expires_at: string | null }>(
    c.db
      .select({ id: iamAssignments.id, group_id: iamAssignments.group_id, status: iamAssignments.status, expires_at: iamAssignments.expires_at })
      .from(iamAssignments)
      .where(scope),
  );
  const now = c.now ?? new Date().toISOString();
  // a listed group is granted org-wide now: a suspended or expired grant of it becomes active again
  for (const k of kept) {
    if (k.status !== "active" || (k.expires_at && k.expires_at <= now)) {
      yield* run(
        c.db
          .update(iamAssignments)
          .set({ status: "active", expires_at: null, updated_at: now, version: sql`${iamAssignments.version} + 1` })
          .where(eq(iamAssignments.id, k.id)),
      );
    }
  }
  const held = new Set(kept.map((k) => k.group_id));
  const rows = ids
    .filter((id) => !held.has(id))
    .map((groupId) => orgWideAssignmentRow({ id: newId(), orgId: c.orgId, membershipId, userId: mine.user_id, groupId, now, createdBy }));
  if (rows.length) yield* run(c.db.insert(iamAssignments).values(rows));
}

/** A removed member keeps nothing: every assignment, at every node. */
export function* dropAllAssignments(c: OrgControlRead, membershipId: string): Work<void> {
  yield* run(c.db.delete(iamAssignments).where(and(eq(iamAssignments.org_id, c.orgId), eq(iamAssignments.membership_id, membershipId))));
}

/** Memberships the user holds in other orgs (not removed). */
export function* membershipsElsewhere(c: OrgControlRead, userId: string): Work<number> {
  const row = yield* get<{ n: number }>(
    c.db
      .select({ n: count() })
      .from(memberships)
      .where(and(eq(memberships.user_id, userId), ne(memberships.org_id, c.orgId), ne(memberships.status, "removed"))),
  );
  return row?.n ?? 0;
}

// ---- user accounts (shared by every org) ------------------------------------------------

export function* userIdByEmail(c: OrgControlRead, email: string): Work<string | undefined> {
  return (yield* get<{ id: string }>(c.db.select({ id: users.id }).from(users).where(eq(users.email, email))))?.id;
}

export function* insertUser(
  c: OrgControlRead,
  values: { id: string; email: string; display_name: string; password_hash: string | null; now: string },
): Work<void> {
  const { now, ...user } = values;
  yield* run(c.db.insert(users).values({ ...user, status: "active", created_at: now, updated_at: now, version: 1 }));
}

export function* userAccount(c: OrgControlRead, userId: string): Work<{ is_platform_admin: boolean; version: number } | undefined> {
  return yield* get(c.db.select({ is_platform_admin: users.is_platform_admin, version: users.version }).from(users).where(eq(users.id, userId)));
}

export function* renameUser(c: OrgControlRead, userId: string, version: number, displayName: string, now: string): Work<void> {
  yield* run(
    c.db
      .update(users)
      .set({ display_name: displayName, version: version + 1, updated_at: now })
      .where(eq(users.id, userId)),
  );
}

// ---- permission groups ------------------------------------------------------------------

export function* findGroup(c: OrgControlRead, id: string): Work<GroupRow | undefined> {
  return yield* get<GroupRow>(
    c.db
      .select()
      .from(permissionGroups)
      .where(and(groupInOrg(c), eq(permissionGroups.id, id))),
  );
}

/** The org's active groups with these ids (another org's never match). */
export function* activeGroups(c: OrgControlRead, ids: string[]): Work<GroupRow[]> {
  if (!ids.length) return [];
  return yield* all<GroupRow>(
    c.db
      .select()
      .from(permissionGroups)
      .where(and(groupInOrg(c), eq(permissionGroups.status, "active"), inArray(permissionGroups.id, ids))),
  );
}

/** Is there an active group with this name (any case), other than `exceptId`? */
export function* groupNameTaken(c: OrgControlRead, name: string, exceptId?: string): Work<boolean> {
  return !!(yield* get(
    c.db
      .select({ id: permissionGroups.id })
      .from(permissionGroups)
      .where(
        and(
          groupInOrg(c),
          eq(permissionGroups.status, "active"),
          sql`lower(${permissionGroups.name}) = lower(${name})`,
          exceptId ? ne(permissionGroups.id, exceptId) : undefined,
        ),
      ),
  ));
}

export function* groupPage(c: OrgControlRead, status: string, q: Paging): Work<Page<GroupRow>> {
  const where = and(groupInOrg(c), eq(permissionGroups.status, status));
  return yield* pageFrom<GroupRow>(
    q,
    c.db.select({ n: count() }).from(permissionGroups).where(where),
    c.db.select().from(permissionGroups).where(where).orderBy(sql`${permissionGroups.name} COLLATE NOCASE`, asc(permissionGroups.id)),
  );
}

type GroupValues = Omit<typeof permissionGroups.$inferInsert, "org_id" | "version">;

export function* insertGroup(c: OrgControlRead, values: GroupValues): Work<GroupRow> {
  return (yield* get<GroupRow>(
    c.db
      .insert(permissionGroups)
      .values({ ...values, org_id: c.orgId, version: 1 })
      .returning(),
  ))!;
}

/** Bump a group to `version + 1` with `set`, unless someone wrote in between (409). */
export function* updateGroupRow(c: OrgControlRead, id: string, version: number, set: Partial<GroupValues>): Work<GroupRow> {
  return updatedOrConflict(
    yield* get<GroupRow>(
      c.db
        .update(permissionGroups)
        .set({ ...set, version: version + 1 })
        .where(and(groupInOrg(c), eq(permissionGroups.id, id), eq(permissionGroups.version, version)))
        .returning(),
    ),
  );
}
