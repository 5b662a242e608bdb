import { and, asc, count, eq, gt, inArray, isNotNull, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import { iamApprovals, iamAssignments, memberships, orgs, permissionGroups, users } from "@db/control/schema";
import { all, get, run, type Work } from "@/platform/db/work";
import { GRANT_SOURCE_COLUMNS, loadGrantSources } from "@/platform/tenancy/access";
import type { GrantSource } from "@/platform/tenancy/grants";
import type { OrgControlRead } from "@/platform/tenancy/org-control";
import { pageFrom, rangeFrom, type Page, type Paging } from "@/platform/records/paging";

// Every control-database query of assignments and approvals. Each takes the
// org's control scope first: `c.orgId` was bound by OrgControl.

export type AssignmentRow = typeof iamAssignments.$inferSelect & { group_name: string; email: string; display_name: string };
export type ApprovalRow = typeof iamApprovals.$inferSelect;

const inOrg = (c: OrgControlRead) => eq(iamAssignments.org_id, c.orgId);
const nowIso = () => new Date().toISOString();

/** "expired" is not stored: an assignment whose expires_at has passed is expired whatever its status says. */
export const EXPIRED = (now = nowIso()) => and(isNotNull(iamAssignments.expires_at), lte(iamAssignments.expires_at, now));
export const statusOf = (r: { status: string; expires_at: string | null }, now = nowIso()) => (r.expires_at && r.expires_at <= now ? "expired" : r.status);

const assignmentColumns = {
  a: iamAssignments,
  group_name: permissionGroups.name,
  email: users.email,
  display_name: users.display_name,
};
const joined = (q: any) =>
  q.from(iamAssignments).innerJoin(permissionGroups, eq(permissionGroups.id, iamAssignments.group_id)).innerJoin(users, eq(users.id, iamAssignments.user_id));
const flat = (r: { a: typeof iamAssignments.$inferSelect; group_name: string; email: string; display_name: string }): AssignmentRow => ({
  ...r.a,
  group_name: r.group_name,
  email: r.email,
  display_name: r.display_name,
});

export type AssignmentFilter = { user_id?: string; group_uuid?: string; scope_node_uuid?: string; status?: string; limit: number; offset: number };

function filterOf(c: OrgControlRead, q: Omit<AssignmentFilter, "limit" | "offset">): SQL | undefined {
  const now = nowIso();
  const status =
    q.status === "expired"
      ? EXPIRED(now)
      : q.status
        ? and(eq(iamAssignments.status, q.status), or(isNull(iamAssignments.expires_at), gt(iamAssignments.expires_at, now)))
        : undefined;
  return and(
    inOrg(c),
    q.user_id ? eq(iamAssignments.user_id, q.user_id) : undefined,
    q.group_uuid ? eq(iamAssignments.group_id, q.group_uuid) : undefined,
    q.scope_node_uuid ? eq(iamAssignments.scope_node_id, q.scope_node_uuid) : undefined,
    status,
  );
}

/** Assignments in creation order (then id), `limit`/`offset` as spec.md's assignments list has them. */
export function* assignmentPage(c: OrgControlRead, q: AssignmentFilter): Work<{ items: AssignmentRow[]; total: number }> {
  const where = filterOf(c, q);
  const page = yield* rangeFrom<any>(
    q,
    c.db.select({ n: count() }).from(iamAssignments).where(where),
    joined(c.db.select(assignmentColumns)).where(where).orderBy(asc(iamAssignments.created_at), asc(iamAssignments.id)),
  );
  return { items: page.items.map(flat), total: page.total };
}

export function* assignmentById(c: OrgControlRead, id: string): Work<AssignmentRow | undefined> {
  const row = yield* get<any>(joined(c.db.select(assignmentColumns)).where(and(inOrg(c), eq(iamAssignments.id, id))));
  return row ? flat(row) : undefined;
}

export function* sameGrant(c: OrgControlRead, v: { membership_id: string; group_id: string; scope_node_id: string; context: string }): Work<boolean> {
  return !!(yield* get(
    c.db
      .select({ id: iamAssignments.id })
      .from(iamAssignments)
      .where(
        and(
          inOrg(c),
          eq(iamAssignments.membership_id, v.membership_id),
          eq(iamAssignments.group_id, v.group_id),
          eq(iamAssignments.scope_node_id, v.scope_node_id),
          eq(iamAssignments.context, v.context),
        ),
      ),
  ));
}

export function* insertAssignment(c: OrgControlRead, values: Omit<typeof iamAssignments.$inferInsert, "org_id">): Work<void> {
  yield* run(c.db.insert(iamAssignments).values({ ...values, org_id: c.orgId }));
}

export function* updateAssignment(c: OrgControlRead, id: string, set: Partial<typeof iamAssignments.$inferInsert>): Work<void> {
  yield* run(
    c.db
      .update(iamAssignments)
      .set({ ...set, version: sql`${iamAssignments.version} + 1` })
      .where(and(inOrg(c), eq(iamAssignments.id, id))),
  );
}

export function* deleteAssignment(c: OrgControlRead, id: string): Work<void> {
  yield* run(c.db.delete(iamAssignments).where(and(inOrg(c), eq(iamAssignments.id, id))));
}

/** A membership's assignments waiting for an approval (org-wide ones only, or at any node). */
export function* pendingOfMembership(c: OrgControlRead, membershipId: string, where: "org-wide" | "anywhere"): Work<AssignmentRow[]> {
  const rows = yield* all<any>(
    joined(c.db.select(assignmentColumns)).where(
      and(
        inOrg(c),
        eq(iamAssignments.membership_id, membershipId),
        eq(iamAssignments.status, "pending_activation"),
        where === "org-wide" ? and(eq(iamAssignments.scope_node_id, c.orgId), eq(iamAssignments.context, "all")) : undefined,
      ),
    ),
  );
  return rows.map(flat);
}

/** Is the user a platform administrator with global access (an org administrator in every org)? */
export function* hasGlobalAccess(c: OrgControlRead, userId: string): Work<boolean> {
  return !!(yield* get<{ g: boolean }>(c.db.select({ g: users.is_global_access }).from(users).where(eq(users.id, userId))))?.g;
}

/** The live grants of one member (null when not an active member). */
export function* memberGrantSources(c: OrgControlRead, userId: string): Work<GrantSource[] | null> {
  return yield* loadGrantSources(c.db, c.orgId, userId);
}

/** The live grants of every active member, by user. */
export function* allMemberGrantSources(c: OrgControlRead): Work<Map<string, { email: string; display_name: string; sources: GrantSource[] }>> {
  const now = nowIso();
  const rows = yield* all<GrantSource & { user_id: string; email: string; display_name: string }>(
    c.db
      .select({
        user_id: users.id,
        email: users.email,
        display_name: users.display_name,
        ...GRANT_SOURCE_COLUMNS,
      })
      .from(iamAssignments)
      .innerJoin(memberships, eq(memberships.id, iamAssignments.membership_id))
      .innerJoin(permissionGroups, eq(permissionGroups.id, iamAssignments.group_id))
      .innerJoin(users, eq(users.id, iamAssignments.user_id))
      .where(
        and(
          inOrg(c),
          eq(memberships.org_id, c.orgId),
          eq(memberships.status, "active"),
          eq(iamAssignments.status, "active"),
          or(isNull(iamAssignments.expires_at), gt(iamAssignments.expires_at, now)),
          eq(permissionGroups.org_id, c.orgId),
          eq(permissionGroups.status, "active"),
        ),
      )
      .orderBy(sql`${users.display_name} COLLATE NOCASE`, asc(users.id)) as any, // scope_type and context are stored as text
  );
  const out = new Map<string, { email: string; display_name: string; sources: GrantSource[] }>();
  for (const { user_id, email, display_name, ...source } of rows) {
    const entry = out.get(user_id) ?? { email, display_name, sources: [] };
    entry.sources.push(source);
    out.set(user_id, entry);
  }
  return out;
}

/** The org's cache_version: moved by every IAM write in the org (Orgs.writeControl). */
export function* accessVersion(c: OrgControlRead): Work<number> {
  return (yield* get<{ v: number }>(c.db.select({ v: orgs.access_version }).from(orgs).where(eq(orgs.id, c.orgId))))?.v ?? 1;
}

/** A membership of the user in this org that is not removed. */
export function* liveMembership(c: OrgControlRead, userId: string): Work<{ id: string; status: string } | undefined> {
  return yield* get(
    c.db
      .select({ id: memberships.id, status: memberships.status })
      .from(memberships)
      .where(and(eq(memberships.org_id, c.orgId), eq(memberships.user_id, userId), sql`${memberships.status} <> 'removed'`)),
  );
}

// ---- approvals ------------------------------------------------------------------------

const approvalInOrg = (c: OrgControlRead) => eq(iamApprovals.org_id, c.orgId);

export function* insertApproval(c: OrgControlRead, values: Omit<typeof iamApprovals.$inferInsert, "org_id">): Work<void> {
  yield* run(c.db.insert(iamApprovals).values({ ...values, org_id: c.orgId }));
}

export function* approvalById(c: OrgControlRead, id: string): Work<ApprovalRow | undefined> {
  return yield* get<ApprovalRow>(
    c.db
      .select()
      .from(iamApprovals)
      .where(and(approvalInOrg(c), eq(iamApprovals.id, id))),
  );
}

export function* approvalPage(c: OrgControlRead, q: Paging & { status?: string }): Work<Page<ApprovalRow>> {
  const where = and(approvalInOrg(c), q.status ? eq(iamApprovals.status, q.status) : undefined);
  return yield* pageFrom<ApprovalRow>(
    q,
    c.db.select({ n: count() }).from(iamApprovals).where(where),
    c.db.select().from(iamApprovals).where(where).orderBy(sql`${iamApprovals.requested_at} DESC`, asc(iamApprovals.id)),
  );
}

/** Pending approvals of this org whose time is up. */
export function* stalePendingApprovals(c: OrgControlRead, now: string): Work<ApprovalRow[]> {
  return yield* all<ApprovalRow>(
    c.db
      .select()
      .from(iamApprovals)
      .where(and(approvalInOrg(c), eq(iamApprovals.status, "pending"), lte(iamApprovals.expires_at, now))),
  );
}

export function* updateApproval(c: OrgControlRead, id: string, set: Partial<typeof iamApprovals.$inferInsert>): Work<void> {
  yield* run(
    c.db
      .update(iamApprovals)
      .set({ ...set, version: sql`${iamApprovals.version} + 1` })
      .where(and(approvalInOrg(c), eq(iamApprovals.id, id))),
  );
}

/** Orgs with a pending approval past its expiry (the expiry job's work list). */
export function* orgsWithStaleApprovals(db: OrgControlRead["db"], now: string): Work<string[]> {
  const rows = yield* all<{ org_id: string }>(
    db
      .selectDistinct({ org_id: iamApprovals.org_id })
      .from(iamApprovals)
      .where(and(eq(iamApprovals.status, "pending"), lte(iamApprovals.expires_at, now))),
  );
  return rows.map((r) => r.org_id);
}

export function* groupsById(c: OrgControlRead, ids: string[]): Work<(typeof permissionGroups.$inferSelect)[]> {
  if (!ids.length) return [];
  return yield* all(
    c.db
      .select()
      .from(permissionGroups)
      .where(and(eq(permissionGroups.org_id, c.orgId), inArray(permissionGroups.id, ids))),
  );
}
