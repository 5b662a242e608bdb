import { and, asc, count, eq, inArray, ne, sql } from "drizzle-orm";
import { permissionGroups } from "@db/control/schema";
import { all, get, type Work } from "@/platform/db/work";
import { newId, nowIso } from "@/platform/ids";
import { Conflict, Forbidden, NotFound, VersionConflict } from "@/platform/errors";
import { ORG_PERMISSION_KEYS, PERMISSIONS } from "@/platform/permissions/registry";
import { withTransaction } from "@/platform/records/transaction";
import { audit } from "@/platform/audit/audit";
import { offsetOf, pageOf } from "@/platform/records/paging";
import type { OrgContext } from "@/platform/records/context";
import type { GroupCreate, GroupListQuery, GroupPatch, PermissionGroup } from "./schemas";

export type GroupRow = typeof permissionGroups.$inferSelect;

const ORG_KEYS = new Set(ORG_PERMISSION_KEYS);
const PHI_KEYS = new Set<string>(PERMISSIONS.filter((p) => p.contains_phi).map((p) => p.key));

/** The keys a group grants: the org-admin group holds every org key, even ones added later. */
export const groupKeys = (g: Pick<GroupRow, "permission_keys" | "is_org_admin">): string[] =>
  g.is_org_admin ? [...ORG_PERMISSION_KEYS] : g.permission_keys.filter((k) => ORG_KEYS.has(k));

export function serializeGroup(g: GroupRow): PermissionGroup {
  const keys = groupKeys(g);
  return {
    id: g.id, org_id: g.org_id!, name: g.name, description: g.description, status: g.status as PermissionGroup["status"],
    is_system: g.is_system, is_org_admin: g.is_org_admin, contains_phi: keys.some((k) => PHI_KEYS.has(k)),
    context_types: ["org"], scope_applicability: ["org"], permission_keys: keys,
    created_at: g.created_at, created_by: g.created_by, updated_at: g.updated_at, updated_by: g.updated_by, version: g.version,
  };
}

/**
 * !!! ANTI-ESCALATION: changes need two reviewers. !!!
 * What the caller may grant in this org: a member can only hand out, edit or take
 * away access made of keys they hold themselves (403 otherwise).
 */
export async function callerKeys(ctx: OrgContext): Promise<ReadonlySet<string>> {
  if (ctx.actor.type !== "user") return ORG_KEYS;
  const principal = await ctx.runtime.access.principal(ctx.actor.id, null);
  const access = principal ? await ctx.runtime.access.orgAccess(principal, ctx.org.id) : null;
  return access?.keys ?? new Set();
}

export function assertHolds(caller: ReadonlySet<string>, keys: Iterable<string>, what = "grant or change access that includes permissions you do not hold"): void {
  for (const k of keys) if (!caller.has(k)) throw new Forbidden(`You cannot ${what}`);
}

function* findGroup(db: any, orgId: string, id: string): Work<GroupRow | undefined> {
  return yield* get<GroupRow>(db.select().from(permissionGroups).where(and(eq(permissionGroups.id, id), eq(permissionGroups.org_id, orgId))));
}

function* requireGroup(db: any, orgId: string, id: string): Work<GroupRow> {
  const g = yield* findGroup(db, orgId, id);
  if (!g) throw new NotFound("Permission group");
  return g;
}

/** Active groups of this org with these ids; 404 when any is missing, archived or another org's. */
export function* requireActiveGroups(db: any, orgId: string, ids: string[]): Work<GroupRow[]> {
  const wanted = [...new Set(ids.map((i) => i.toLowerCase()))];
  if (!wanted.length) return [];
  const rows = yield* all<GroupRow>(
    db.select().from(permissionGroups).where(and(eq(permissionGroups.org_id, orgId), eq(permissionGroups.status, "active"), inArray(permissionGroups.id, wanted))),
  );
  if (rows.length !== wanted.length) throw new NotFound("Permission group");
  return rows;
}

function* assertNameFree(db: any, orgId: string, name: string, exceptId?: string): Work<void> {
  const taken = yield* get(
    db.select({ id: permissionGroups.id }).from(permissionGroups).where(and(
      eq(permissionGroups.org_id, orgId), eq(permissionGroups.status, "active"),
      sql`lower(${permissionGroups.name}) = lower(${name})`, exceptId ? ne(permissionGroups.id, exceptId) : undefined,
    )),
  );
  if (taken) throw new Conflict("An active permission group with this name already exists", "duplicate");
}

function assertEditable(g: GroupRow): void {
  if (g.is_system || g.is_org_admin) throw new Conflict("System permission groups cannot be changed or archived", "system_group");
}

async function recordGroupWrite(ctx: OrgContext, action: string, before: PermissionGroup | null, after: PermissionGroup, changed?: string[]) {
  await ctx.runtime.access.invalidate();
  await withTransaction(ctx, function* (s) {
    yield* audit(s, { action: `permission_group.${action}`, resource_type: "permission_group", resource_id: after.id, before, after });
    s.after.events.push({ type: `permission_group.${action}`, resource_type: "permission_group", resource_id: after.id, data: changed ? { id: after.id, changed_fields: changed } : { id: after.id } });
  });
}

const changedFields = (a: PermissionGroup, b: PermissionGroup) =>
  (Object.keys(b) as (keyof PermissionGroup)[]).filter((k) => !["version", "updated_at", "updated_by"].includes(k) && JSON.stringify(a[k]) !== JSON.stringify(b[k]));

export async function listGroups(ctx: OrgContext, q: GroupListQuery) {
  return ctx.runtime.control.read(function* (db) {
    const where = and(eq(permissionGroups.org_id, ctx.org.id), eq(permissionGroups.status, q.status ?? "active"));
    const total = yield* get<{ n: number }>(db.select({ n: count() }).from(permissionGroups).where(where));
    const rows = yield* all<GroupRow>(
      db.select().from(permissionGroups).where(where)
        .orderBy(sql`${permissionGroups.name} COLLATE NOCASE`, asc(permissionGroups.id)).limit(q.page_size).offset(offsetOf(q)),
    );
    return pageOf(rows.map(serializeGroup), total?.n ?? 0, q);
  });
}

export async function getGroup(ctx: OrgContext, id: string): Promise<PermissionGroup> {
  return serializeGroup(await ctx.runtime.control.read((db) => requireGroup(db, ctx.org.id, id)));
}

export async function groupPermissionIds(ctx: OrgContext, id: string) {
  return { items: (await getGroup(ctx, id)).permission_keys };
}

export async function createGroup(ctx: OrgContext, input: GroupCreate): Promise<PermissionGroup> {
  const keys = [...new Set(input.permission_keys)];
  assertHolds(await callerKeys(ctx), keys);
  const now = nowIso();
  const row = await ctx.runtime.control.write(function* (tx) {
    yield* assertNameFree(tx, ctx.org.id, input.name);
    return (yield* get<GroupRow>(tx.insert(permissionGroups).values({
      id: newId(), org_id: ctx.org.id, name: input.name, description: input.description ?? "", permission_keys: keys,
      status: "active", is_system: false, is_org_admin: false, created_by: ctx.actor.id, updated_by: ctx.actor.id,
      created_at: now, updated_at: now, version: 1,
    }).returning()))!;
  });
  const created = serializeGroup(row);
  await recordGroupWrite(ctx, "created", null, created);
  return created;
}

export async function updateGroup(ctx: OrgContext, id: string, input: GroupPatch): Promise<PermissionGroup> {
  const { base_version, ...patch } = input;
  const caller = await callerKeys(ctx);
  const now = nowIso();
  const { before, row } = await ctx.runtime.control.write(function* (tx) {
    const current = yield* requireGroup(tx, ctx.org.id, id);
    if (current.version !== base_version) throw new VersionConflict(current.version);
    assertEditable(current);
    if (current.status !== "active") throw new Conflict("An archived permission group cannot be changed", "group_archived");
    assertHolds(caller, groupKeys(current));
    if (patch.permission_keys) assertHolds(caller, patch.permission_keys);
    if (patch.name !== undefined) yield* assertNameFree(tx, ctx.org.id, patch.name, id);
    const next = {
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.permission_keys ? { permission_keys: [...new Set(patch.permission_keys)] } : {}),
      version: current.version + 1, updated_at: now, updated_by: ctx.actor.id,
    };
    const row = yield* get<GroupRow>(tx.update(permissionGroups).set(next).where(and(eq(permissionGroups.id, id), eq(permissionGroups.version, current.version))).returning());
    if (!row) throw new VersionConflict();
    return { before: current, row };
  });
  const b = serializeGroup(before);
  const after = serializeGroup(row);
  await recordGroupWrite(ctx, "updated", b, after, changedFields(b, after));
  return after;
}

/** Archive: the group stops granting anything at once; archiving again changes nothing. */
export async function archiveGroup(ctx: OrgContext, id: string): Promise<PermissionGroup> {
  const caller = await callerKeys(ctx);
  const now = nowIso();
  const out = await ctx.runtime.control.write(function* (tx) {
    const current = yield* requireGroup(tx, ctx.org.id, id);
    assertEditable(current);
    if (current.status === "archived") return { before: current, row: null };
    assertHolds(caller, groupKeys(current));
    const row = (yield* get<GroupRow>(tx.update(permissionGroups).set({ status: "archived", version: current.version + 1, updated_at: now, updated_by: ctx.actor.id })
      .where(eq(permissionGroups.id, id)).returning()))!;
    return { before: current, row };
  });
  if (!out.row) return serializeGroup(out.before);
  const after = serializeGroup(out.row);
  await recordGroupWrite(ctx, "archived", serializeGroup(out.before), after, ["status"]);
  return after;
}
