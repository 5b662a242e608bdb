import { and, asc, count, eq, getTableColumns, gt, inArray, isNull, ne, or, sql, type SQL } from "drizzle-orm";
import { permissionGroups, platformGroupAssignments, users } from "@db/control/schema";
import { all, get, run, type Work } from "@/platform/db/work";
import type { ControlDb } from "@/platform/db/control";
import { BadRequest, Conflict, Forbidden, NotFound } from "@/platform/errors";
import { newId, nowIso, UUID_RE } from "@/platform/ids";
import { platformAudit } from "@/platform/audit/audit";
import { pageFrom } from "@/platform/records/paging";
import { containsText } from "@/platform/records/search";
import { checkVersion, updatedOrConflict } from "@/platform/records/versions";
import { PLATFORM_PERMISSION_KEYS } from "@/platform/permissions/registry";
import type { Caller } from "@/platform/auth/actor";
import type { PlatformRuntime } from "@/platform/runtime";
import type { PlatformGroup, PlatformGroupCreate, PlatformGroupListQuery, PlatformGroupPatch } from "./schemas";

// Platform groups are permission_groups rows with org_id NULL. This file is the
// one place in the platform domain that queries them (and their assignments'
// grants): every query here names `org_id IS NULL`, so no org's group is ever
// read or changed through a platform route.

export type GroupRow = typeof permissionGroups.$inferSelect;

/** A platform route's caller: who (for the audit trail) and what they hold (for anti-escalation). */
export type PlatformCaller = Caller & { keys: ReadonlySet<string>; isGlobalAccess: boolean };

const PLATFORM_KEYS = new Set(PLATFORM_PERMISSION_KEYS);
const platformOnly = () => isNull(permissionGroups.org_id);

/** The platform keys a group grants (keys no longer in the registry grant nothing). */
export const platformKeysOf = (g: Pick<GroupRow, "permission_keys">): string[] => g.permission_keys.filter((k) => PLATFORM_KEYS.has(k));

/** An assignment that grants now: not removed, not expired, to an active platform group. */
export const grantsNow = (now: string): SQL =>
  and(
    eq(platformGroupAssignments.is_active, true),
    or(isNull(platformGroupAssignments.expires_at), gt(platformGroupAssignments.expires_at, now)),
    eq(permissionGroups.status, "active"),
    isNull(permissionGroups.org_id),
  )!;

/**
 * !!! ANTI-ESCALATION: changes need two reviewers. !!!
 * A caller hands out (assigns, creates or edits a group with) only platform keys
 * they hold themselves; 403 otherwise.
 */
export function assertHoldsPlatformKeys(caller: PlatformCaller, keys: Iterable<string>, what = "grant platform permissions you do not hold"): void {
  if (caller.isGlobalAccess) return;
  for (const k of keys) if (!caller.keys.has(k)) throw new Forbidden(`You cannot ${what}`);
}

/**
 * !!! LAST-ADMIN GUARD: changes need two reviewers. !!!
 * Run inside a write transaction after its change: 400 (rolling the change back)
 * unless some active user still holds platform.admins.create, through global
 * access or an assignment that grants now.
 */
export function* assertAdminCreatorRemains(tx: ControlDb, now: string): Work<void> {
  const global = yield* get<{ id: string }>(
    tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.status, "active"), eq(users.is_global_access, true)))
      .limit(1),
  );
  if (global) return;
  const grants = yield* all<{ keys: string[] }>(
    tx
      .select({ keys: permissionGroups.permission_keys })
      .from(platformGroupAssignments)
      .innerJoin(permissionGroups, eq(permissionGroups.id, platformGroupAssignments.group_id))
      .innerJoin(users, eq(users.id, platformGroupAssignments.user_id))
      .where(and(grantsNow(now), eq(users.status, "active"), eq(users.is_platform_admin, true))),
  );
  if (grants.some((g) => g.keys.includes("platform.admins.create"))) return;
  throw new BadRequest("No user holding platform.admins.create would remain", "last_platform_admin");
}

// ---- assignments' groups (read by the admins service) ---------------------------

export type AssignmentRow = {
  id: string;
  user_id: string;
  group_id: string;
  group_name: string;
  group_status: string;
  group_keys: string[];
  assigned_by: string | null;
  assigned_by_name: string | null;
  assigned_at: string;
  expires_at: string | null;
  is_active: boolean;
};

const assigner = sql<string | null>`(SELECT u.display_name FROM users u WHERE u.id = "platform_group_assignments"."assigned_by")`;
const assignmentColumns = {
  id: platformGroupAssignments.id,
  user_id: platformGroupAssignments.user_id,
  group_id: permissionGroups.id,
  group_name: permissionGroups.name,
  group_status: permissionGroups.status,
  group_keys: permissionGroups.permission_keys,
  assigned_by: platformGroupAssignments.assigned_by,
  assigned_by_name: assigner,
  assigned_at: platformGroupAssignments.assigned_at,
  expires_at: platformGroupAssignments.expires_at,
  is_active: platformGroupAssignments.is_active,
};

const assignmentsJoined = (db: ControlDb, where: SQL | undefined) =>
  db
    .select(assignmentColumns)
    .from(platformGroupAssignments)
    .innerJoin(permissionGroups, eq(permissionGroups.id, platformGroupAssignments.group_id))
    .where(and(isNull(permissionGroups.org_id), where));

/** Every platform assignment of the user (removed and expired ones too), newest first. */
export function* assignmentsOf(db: ControlDb, userId: string): Work<AssignmentRow[]> {
  return yield* all<AssignmentRow>(
    assignmentsJoined(db, eq(platformGroupAssignments.user_id, userId)).orderBy(
      sql`${platformGroupAssignments.assigned_at} DESC`,
      sql`${platformGroupAssignments.id} DESC`,
    ),
  );
}

/** Assignments that grant now, of these users. */
export function* liveAssignmentsOf(db: ControlDb, userIds: string[], now: string): Work<AssignmentRow[]> {
  if (!userIds.length) return [];
  return yield* all<AssignmentRow>(
    assignmentsJoined(db, and(grantsNow(now), inArray(platformGroupAssignments.user_id, userIds))).orderBy(
      sql`${permissionGroups.name} COLLATE NOCASE`,
      asc(permissionGroups.id),
    ),
  );
}

export function* assignmentRow(db: ControlDb, userId: string, assignmentId: string): Work<AssignmentRow | undefined> {
  return yield* get<AssignmentRow>(assignmentsJoined(db, and(eq(platformGroupAssignments.user_id, userId), eq(platformGroupAssignments.id, assignmentId))));
}

/** An active platform group by id; 404 when missing, archived or an org's group. */
export function* requireActivePlatformGroup(db: ControlDb, id: string): Work<GroupRow> {
  const g = UUID_RE.test(id) ? yield* platformGroupRow(db, id) : undefined;
  if (!g || g.status !== "active") throw new NotFound("Platform group");
  return g;
}

function* platformGroupRow(db: ControlDb, id: string): Work<GroupRow | undefined> {
  return yield* get<GroupRow>(
    db
      .select()
      .from(permissionGroups)
      .where(and(eq(permissionGroups.id, id), platformOnly())),
  );
}

// ---- platform groups -------------------------------------------------------------

// columns spelt out: drizzle leaves them unqualified in a one-table select, where "id" would be the subquery's own
const liveCount = (now: string) =>
  sql<number>`(SELECT count(*) FROM platform_group_assignments a WHERE a.group_id = "permission_groups"."id" AND a.is_active = 1 AND (a.expires_at IS NULL OR a.expires_at > ${now}))`;

type GroupWithCount = GroupRow & { active_assignment_count: number };

export function serializeGroup(g: GroupWithCount): PlatformGroup {
  return {
    id: g.id,
    org_id: null,
    name: g.name,
    description: g.description,
    status: g.status as PlatformGroup["status"],
    is_system: g.is_system,
    is_org_admin: false,
    contains_phi: false,
    context_types: ["all"],
    scope_applicability: ["platform"],
    permission_keys: platformKeysOf(g),
    active_assignment_count: g.status === "active" ? g.active_assignment_count : 0,
    created_at: g.created_at,
    created_by: g.created_by,
    updated_at: g.updated_at,
    updated_by: g.updated_by,
    version: g.version,
  };
}

function* groupWithCount(db: ControlDb, id: string): Work<PlatformGroup> {
  const row = yield* get<GroupWithCount>(
    db
      .select({ ...getTableColumns(permissionGroups), active_assignment_count: liveCount(nowIso()) })
      .from(permissionGroups)
      .where(and(eq(permissionGroups.id, id), platformOnly())),
  );
  if (!row) throw new NotFound("Platform group");
  return serializeGroup(row);
}

function* assertNameFree(db: ControlDb, name: string, exceptId?: string): Work<void> {
  const taken = yield* get<{ id: string }>(
    db
      .select({ id: permissionGroups.id })
      .from(permissionGroups)
      .where(
        and(
          platformOnly(),
          eq(permissionGroups.status, "active"),
          sql`lower(${permissionGroups.name}) = lower(${name})`,
          exceptId ? ne(permissionGroups.id, exceptId) : undefined,
        ),
      ),
  );
  if (taken) throw new Conflict("An active platform group with this name already exists", "duplicate");
}

export async function listPlatformGroups(rt: PlatformRuntime, q: PlatformGroupListQuery) {
  const now = nowIso();
  const page = await rt.control.read((db) => {
    const where = and(platformOnly(), eq(permissionGroups.status, q.status ?? "active"), q.search ? containsText(permissionGroups.name, q.search) : undefined);
    return pageFrom<GroupWithCount>(
      q,
      db.select({ n: count() }).from(permissionGroups).where(where),
      db
        .select({ ...getTableColumns(permissionGroups), active_assignment_count: liveCount(now) })
        .from(permissionGroups)
        .where(where)
        .orderBy(sql`${permissionGroups.name} COLLATE NOCASE`, asc(permissionGroups.id)),
    );
  });
  return { ...page, items: page.items.map(serializeGroup) };
}

export async function createPlatformGroup(rt: PlatformRuntime, input: PlatformGroupCreate, caller: PlatformCaller): Promise<PlatformGroup> {
  const keys = [...new Set(input.permission_keys)];
  assertHoldsPlatformKeys(caller, keys, "create a group with platform permissions you do not hold");
  const created = await rt.control.write(function* (tx) {
    const now = nowIso();
    yield* assertNameFree(tx, input.name);
    const id = newId();
    yield* run(
      tx.insert(permissionGroups).values({
        id,
        org_id: null,
        name: input.name,
        description: input.description ?? "",
        permission_keys: keys,
        status: "active",
        is_system: false,
        is_org_admin: false,
        created_by: caller.actor.id,
        updated_by: caller.actor.id,
        created_at: now,
        updated_at: now,
        version: 1,
      }),
    );
    yield* platformAudit(tx, caller, now, { action: "platform_group.created", resource_type: "platform_group", resource_id: id });
    return yield* groupWithCount(tx, id);
  });
  return created; // a new group is held by no one: no cached access changes
}

export async function updatePlatformGroup(rt: PlatformRuntime, id: string, input: PlatformGroupPatch, caller: PlatformCaller): Promise<PlatformGroup> {
  const { base_version, ...patch } = input;
  const updated = await rt.control.write(function* (tx) {
    const now = nowIso();
    const current = UUID_RE.test(id) ? yield* platformGroupRow(tx, id) : undefined;
    if (!current) throw new NotFound("Platform group");
    checkVersion(current, base_version);
    if (current.is_system) throw new Conflict("System permission groups cannot be changed", "system_group");
    if (current.status !== "active") throw new Conflict("An archived platform group cannot be changed", "group_archived");
    // editing a group changes what every holder may do: the caller must hold both what it grants and what it will grant
    assertHoldsPlatformKeys(caller, platformKeysOf(current), "change a group holding platform permissions you do not hold");
    if (patch.permission_keys) assertHoldsPlatformKeys(caller, patch.permission_keys);
    if (patch.name !== undefined) yield* assertNameFree(tx, patch.name, id);
    updatedOrConflict(
      yield* get<GroupRow>(
        tx
          .update(permissionGroups)
          .set({
            ...(patch.name !== undefined ? { name: patch.name } : {}),
            ...(patch.description !== undefined ? { description: patch.description } : {}),
            ...(patch.permission_keys ? { permission_keys: [...new Set(patch.permission_keys)] } : {}),
            updated_at: now,
            updated_by: caller.actor.id,
            version: current.version + 1,
          })
          .where(and(eq(permissionGroups.id, id), eq(permissionGroups.version, current.version), platformOnly()))
          .returning(),
      ),
    );
    // taking platform.admins.create out of the last group that grants it would lock the platform out
    if (patch.permission_keys) yield* assertAdminCreatorRemains(tx, now);
    yield* platformAudit(tx, caller, now, { action: "platform_group.updated", resource_type: "platform_group", resource_id: id });
    return yield* groupWithCount(tx, id);
  });
  await rt.access.invalidate(); // holders' platform keys may have changed, on every instance
  return updated;
}
