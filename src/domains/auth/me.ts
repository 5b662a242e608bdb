import { and, eq, gt, isNull, ne, or } from "drizzle-orm";
import { iamAssignments, memberships, orgs, permissionGroups } from "@db/control/schema";
import { all } from "@/platform/db/work";
import type { PlatformRuntime } from "@/platform/runtime";
import type { Principal } from "@/platform/tenancy/access";

export async function listMyOrgs(rt: PlatformRuntime, p: Principal) {
  const rows = await rt.control.read(function* (db) {
    const ms = yield* all<{ id: string; org_id: string; name: string; slug: string; status: string; membership_status: string }>(
      db
        .select({ id: memberships.id, org_id: orgs.id, name: orgs.name, slug: orgs.slug, status: orgs.status, membership_status: memberships.status })
        .from(memberships)
        .innerJoin(orgs, eq(orgs.id, memberships.org_id))
        .where(and(eq(memberships.user_id, p.userId), ne(memberships.status, "removed"), isNull(orgs.deleted_at)))
        .orderBy(orgs.name),
    );
    const admins = yield* all<{ membership_id: string }>(
      db
        .select({ membership_id: iamAssignments.membership_id })
        .from(iamAssignments)
        .innerJoin(permissionGroups, eq(permissionGroups.id, iamAssignments.group_id))
        .innerJoin(memberships, eq(memberships.id, iamAssignments.membership_id))
        .where(
          and(
            eq(memberships.user_id, p.userId),
            eq(permissionGroups.is_org_admin, true),
            eq(permissionGroups.status, "active"),
            eq(iamAssignments.scope_type, "org"),
            eq(iamAssignments.context, "all"),
            eq(iamAssignments.status, "active"),
            or(isNull(iamAssignments.expires_at), gt(iamAssignments.expires_at, new Date().toISOString())),
          ),
        ),
    );
    const adminSet = new Set(admins.map((a) => a.membership_id));
    return ms.map((m) => ({
      id: m.org_id,
      name: m.name,
      slug: m.slug,
      status: m.status,
      membership_status: m.membership_status,
      is_org_admin: adminSet.has(m.id),
    }));
  });
  return { is_platform_admin: p.isPlatformAdmin, orgs: rows };
}
