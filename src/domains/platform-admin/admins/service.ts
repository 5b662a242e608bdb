import { and, asc, count, eq, inArray, isNull, ne, or, sql } from "drizzle-orm";
import { platformAudit } from "@/platform/audit/audit";
import { orgs, platformGroupAssignments, users } from "@db/control/schema";
import { all, get, run, type Work } from "@/platform/db/work";
import type { ControlDb } from "@/platform/db/control";
import { declareUniqueConflict } from "@/platform/db/constraints";
import { Conflict, Forbidden, NotFound } from "@/platform/errors";
import { hashPassword } from "@/platform/auth/passwords";
import { newId, nowIso, UUID_RE } from "@/platform/ids";
import { pageFrom } from "@/platform/records/paging";
import { anyContains } from "@/platform/records/search";
import { checkVersion, updatedOrConflict } from "@/platform/records/versions";
import { PLATFORM_PERMISSION_KEYS } from "@/platform/permissions/registry";
import type { PlatformRuntime } from "@/platform/runtime";
import {
  assertAdminCreatorRemains,
  assertHoldsPlatformKeys,
  assignmentRow,
  assignmentsOf,
  liveAssignmentsOf,
  platformKeysOf,
  requireActivePlatformGroup,
  type AssignmentRow,
  type PlatformCaller,
} from "@/domains/platform-admin/groups/service";
import type { AdminCreate, AdminListQuery, AdminPatch, AssignmentCreate, PlatformAdmin, PlatformAdminSummary, PlatformAssignment } from "./schemas";

// Platform administrators are users with platform access: is_platform_admin (keys
// from their platform group assignments) or is_global_access (every platform key,
// every org). Every write here runs the control database's transaction with its
// audit entry (platform-level: the index row, no org) and then drops cached access
// on every instance, so a grant or revocation takes effect at the next request.

declareUniqueConflict("users.email", "Another account already uses this email");

type UserRow = typeof users.$inferSelect;

const hasPlatformAccess = () => or(eq(users.is_platform_admin, true), eq(users.is_global_access, true));
const statusOf = (s: string): PlatformAdmin["status"] => (s === "active" ? "active" : s === "suspended" ? "suspended" : "deactivated");

function* requireAdmin(db: ControlDb, id: string): Work<UserRow> {
  const u = UUID_RE.test(id)
    ? yield* get<UserRow>(
        db
          .select()
          .from(users)
          .where(and(eq(users.id, id), hasPlatformAccess())),
      )
    : undefined;
  if (!u) throw new NotFound("Platform administrator");
  return u;
}

/** The platform keys a user holds now, as access.ts computes them. */
const keysOf = (u: Pick<UserRow, "is_global_access" | "is_platform_admin">, live: AssignmentRow[]): string[] =>
  u.is_global_access
    ? [...PLATFORM_PERMISSION_KEYS].sort()
    : u.is_platform_admin
      ? [...new Set(live.flatMap((a) => platformKeysOf({ permission_keys: a.group_keys })))].sort()
      : [];

const groupsOf = (live: AssignmentRow[]) => {
  const seen = new Map<string, { id: string; name: string }>();
  for (const a of live) seen.set(a.group_id, { id: a.group_id, name: a.group_name });
  return [...seen.values()];
};

function adminFields(u: UserRow, live: AssignmentRow[]) {
  return {
    id: u.id,
    email: u.email,
    display_name: u.display_name,
    status: statusOf(u.status),
    is_global_access: u.is_global_access,
    last_login_at: u.last_login_at,
    created_at: u.created_at,
    updated_at: u.updated_at,
    version: u.version,
    groups: groupsOf(live),
  };
}

export function serializeAssignment(a: AssignmentRow, now = nowIso()): PlatformAssignment {
  const status = !a.is_active ? "removed" : a.expires_at && a.expires_at <= now ? "expired" : "active";
  return {
    id: a.id,
    group: { id: a.group_id, name: a.group_name },
    assigned_by: a.assigned_by ? { id: a.assigned_by, display_name: a.assigned_by_name } : null,
    assigned_at: a.assigned_at,
    expires_at: a.expires_at,
    is_active: status === "active" && a.group_status === "active",
    status,
  };
}

/** Active orgs each user is an active member of (membership lookup through access resolution). */
async function orgAccessOf(rt: PlatformRuntime, userIds: string[]): Promise<Map<string, { id: string; name: string }[]>> {
  const ids = await Promise.all(userIds.map((id) => rt.access.memberOrgIds(id)));
  const orgIds = [...new Set(ids.flat())];
  const names = orgIds.length
    ? await rt.control.read((db) =>
        all<{ id: string; name: string }>(
          db
            .select({ id: orgs.id, name: orgs.name })
            .from(orgs)
            .where(and(inArray(orgs.id, orgIds), isNull(orgs.deleted_at), ne(orgs.status, "archived")))
            .orderBy(sql`${orgs.name} COLLATE NOCASE`, asc(orgs.id)),
        ),
      )
    : [];
  return new Map(userIds.map((u, i) => [u, names.filter((o) => ids[i]!.includes(o.id))]));
}

async function detailOf(rt: PlatformRuntime, u: UserRow): Promise<PlatformAdmin> {
  const live = await rt.control.read((db) => liveAssignmentsOf(db, [u.id], nowIso()));
  const access = await orgAccessOf(rt, [u.id]);
  return { ...adminFields(u, live), org_access: access.get(u.id) ?? [], effective_permissions: keysOf(u, live) };
}

// ---- reads ---------------------------------------------------------------------------

export async function listAdmins(rt: PlatformRuntime, q: AdminListQuery) {
  const now = nowIso();
  const { page, live } = await rt.control.read(function* (db) {
    const where = and(hasPlatformAccess(), q.search ? anyContains([users.email, users.display_name], q.search) : undefined);
    const page = yield* pageFrom<UserRow>(
      q,
      db.select({ n: count() }).from(users).where(where),
      db.select().from(users).where(where).orderBy(sql`${users.display_name} COLLATE NOCASE`, asc(users.id)),
    );
    const live = yield* liveAssignmentsOf(
      db,
      page.items.map((u) => u.id),
      now,
    );
    return { page, live };
  });
  const access = await orgAccessOf(
    rt,
    page.items.map((u) => u.id),
  );
  const items: PlatformAdminSummary[] = page.items.map((u) => ({
    ...adminFields(
      u,
      live.filter((a) => a.user_id === u.id),
    ),
    org_access_count: access.get(u.id)?.length ?? 0,
  }));
  return { ...page, items };
}

export async function getAdmin(rt: PlatformRuntime, id: string): Promise<PlatformAdmin> {
  return detailOf(rt, await rt.control.read((db) => requireAdmin(db, id)));
}

export async function listAssignments(rt: PlatformRuntime, id: string): Promise<{ items: PlatformAssignment[] }> {
  const now = nowIso();
  const rows = await rt.control.read(function* (db) {
    yield* requireAdmin(db, id);
    return yield* assignmentsOf(db, id);
  });
  return { items: rows.map((a) => serializeAssignment(a, now)) };
}

// ---- writes ----------------------------------------------------------------------------

/** Commit, then drop cached access on every instance: the change applies from the next request on. */
async function writeAndInvalidate<T>(rt: PlatformRuntime, work: (tx: ControlDb, now: string) => Work<T>): Promise<T> {
  const now = nowIso();
  const result = await rt.control.write((tx) => work(tx, now));
  await rt.access.invalidate();
  return result;
}

function* insertAssignment(tx: ControlDb, userId: string, groupId: string, expiresAt: string | null, caller: PlatformCaller, now: string): Work<string> {
  const id = newId();
  yield* run(
    tx.insert(platformGroupAssignments).values({
      id,
      user_id: userId,
      group_id: groupId,
      assigned_by: caller.actor.type === "user" ? caller.actor.id : null,
      assigned_at: now,
      expires_at: expiresAt,
      is_active: true,
    }),
  );
  yield* platformAudit(tx, caller, now, { action: "platform_group_assignment.created", resource_type: "platform_group_assignment", resource_id: id });
  return id;
}

/**
 * Grant platform access: the user (created when the email is unknown, without a
 * usable password unless one is given) gets the group. 409 when the user already
 * has platform access; 403 when the group holds keys the caller lacks.
 */
export async function createAdmin(rt: PlatformRuntime, input: AdminCreate, caller: PlatformCaller): Promise<PlatformAdmin> {
  const hash = input.password ? await hashPassword(input.password) : null;
  const userId = await writeAndInvalidate(rt, function* (tx, now) {
    const group = yield* requireActivePlatformGroup(tx, input.group_uuid);
    assertHoldsPlatformKeys(caller, platformKeysOf(group), "assign a group holding platform permissions you do not hold");
    const existing = yield* get<UserRow>(tx.select().from(users).where(eq(users.email, input.email)));
    let id: string;
    if (existing) {
      if (existing.is_platform_admin || existing.is_global_access) throw new Conflict("This user already has platform access", "duplicate");
      id = existing.id;
      yield* run(
        tx
          .update(users)
          .set({ is_platform_admin: true, updated_at: now, version: existing.version + 1 })
          .where(eq(users.id, id)),
      );
    } else {
      id = newId();
      yield* run(
        tx.insert(users).values({
          id,
          email: input.email,
          display_name: input.display_name,
          password_hash: hash,
          status: "active",
          is_platform_admin: true,
          is_global_access: false,
          created_at: now,
          updated_at: now,
          version: 1,
        }),
      );
    }
    yield* platformAudit(tx, caller, now, { action: "platform_admin.created", resource_type: "platform_admin", resource_id: id });
    yield* insertAssignment(tx, id, group.id, null, caller, now);
    return id;
  });
  return getAdmin(rt, userId);
}

/**
 * Change an administrator's name or email. Changing someone's email hands their
 * account to whoever reads that mailbox, so the caller must hold every platform
 * key the administrator holds (and global access for a global administrator): 403.
 */
export async function updateAdmin(rt: PlatformRuntime, id: string, input: AdminPatch, caller: PlatformCaller): Promise<PlatformAdmin> {
  const { base_version, ...patch } = input;
  const user = await writeAndInvalidate(rt, function* (tx, now) {
    const current = yield* requireAdmin(tx, id);
    checkVersion(current, base_version);
    if (current.id !== caller.actor.id) {
      if (current.is_global_access && !caller.isGlobalAccess) throw new Forbidden("You cannot change an administrator with global access");
      assertHoldsPlatformKeys(
        caller,
        keysOf(current, yield* liveAssignmentsOf(tx, [id], now)),
        "change an administrator holding platform permissions you do not hold",
      );
    }
    const changes: Partial<UserRow> = {};
    if (patch.display_name !== undefined && patch.display_name !== current.display_name) changes.display_name = patch.display_name;
    if (patch.email !== undefined && patch.email !== current.email) {
      const taken = yield* get<{ id: string }>(
        tx
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.email, patch.email), ne(users.id, id))),
      );
      if (taken) throw new Conflict("Another account already uses this email", "duplicate");
      changes.email = patch.email;
    }
    if (!Object.keys(changes).length) return current;
    const updated = updatedOrConflict(
      yield* get<UserRow>(
        tx
          .update(users)
          .set({ ...changes, updated_at: now, version: current.version + 1 })
          .where(and(eq(users.id, id), eq(users.version, current.version)))
          .returning(),
      ),
    );
    yield* platformAudit(tx, caller, now, { action: "platform_admin.updated", resource_type: "platform_admin", resource_id: id });
    return updated;
  });
  return detailOf(rt, user);
}

/**
 * Revoke platform access: every assignment is removed and platform and global
 * access are cleared (org memberships are the orgs' own and stay). 400 when no
 * user holding platform.admins.create would remain.
 */
export async function revokeAdmin(rt: PlatformRuntime, id: string, caller: PlatformCaller): Promise<void> {
  await writeAndInvalidate(rt, function* (tx, now) {
    const current = yield* requireAdmin(tx, id);
    yield* run(
      tx
        .update(platformGroupAssignments)
        .set({ is_active: false })
        .where(and(eq(platformGroupAssignments.user_id, id), eq(platformGroupAssignments.is_active, true))),
    );
    yield* run(
      tx
        .update(users)
        .set({ is_platform_admin: false, is_global_access: false, updated_at: now, version: current.version + 1 })
        .where(eq(users.id, id)),
    );
    yield* assertAdminCreatorRemains(tx, now);
    yield* platformAudit(tx, caller, now, { action: "platform_admin.revoked", resource_type: "platform_admin", resource_id: id });
  });
}

/** Give an administrator a platform group. 403 when it holds keys the caller lacks; 409 when an assignment of it grants already. */
export async function addAssignment(rt: PlatformRuntime, id: string, input: AssignmentCreate, caller: PlatformCaller): Promise<PlatformAssignment> {
  const row = await writeAndInvalidate(rt, function* (tx, now) {
    yield* requireAdmin(tx, id);
    const group = yield* requireActivePlatformGroup(tx, input.group_uuid);
    assertHoldsPlatformKeys(caller, platformKeysOf(group), "assign a group holding platform permissions you do not hold");
    const live = yield* liveAssignmentsOf(tx, [id], now);
    if (live.some((a) => a.group_id === group.id)) throw new Conflict("The administrator already has this group", "duplicate");
    const assignmentId = yield* insertAssignment(tx, id, group.id, input.expires_at ?? null, caller, now);
    return (yield* assignmentRow(tx, id, assignmentId))!;
  });
  return serializeAssignment(row);
}

/** Take a group away (the assignment is kept as removed). 404 when it is not the admin's or already removed; 400 last-admin guard. */
export async function removeAssignment(rt: PlatformRuntime, id: string, assignmentId: string, caller: PlatformCaller): Promise<void> {
  await writeAndInvalidate(rt, function* (tx, now) {
    yield* requireAdmin(tx, id);
    const a = UUID_RE.test(assignmentId) ? yield* assignmentRow(tx, id, assignmentId) : undefined;
    if (!a || !a.is_active) throw new NotFound("Platform group assignment");
    yield* run(tx.update(platformGroupAssignments).set({ is_active: false }).where(eq(platformGroupAssignments.id, assignmentId)));
    yield* assertAdminCreatorRemains(tx, now);
    yield* platformAudit(tx, caller, now, {
      action: "platform_group_assignment.removed",
      resource_type: "platform_group_assignment",
      resource_id: assignmentId,
    });
  });
}
