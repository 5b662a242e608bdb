import { newId } from "@/platform/ids";
import { Conflict, Forbidden, NotFound } from "@/platform/errors";
import { ORG_PERMISSION_KEYS, PERMISSIONS } from "@/platform/permissions/registry";
import { checkVersion } from "@/platform/records/versions";
import type { OrgContext } from "@/platform/records/context";
import type { OrgControlRead, OrgControlWrite } from "@/platform/tenancy/org-control";
import type { Work } from "@/platform/db/work";
import { activeGroups, findGroup, groupNameTaken, groupPage, insertGroup, updateGroupRow, type GroupRow } from "./repository";
import type { GroupCreate, GroupListQuery, GroupPatch, PermissionGroup } from "./schemas";

const ORG_KEYS = new Set(ORG_PERMISSION_KEYS);
const PHI_KEYS = new Set<string>(PERMISSIONS.filter((p) => p.contains_phi).map((p) => p.key));

/** The keys a group grants: the org-admin group holds every org key, even ones added later. */
export const groupKeys = (g: Pick<GroupRow, "permission_keys" | "is_org_admin">): string[] =>
  g.is_org_admin ? [...ORG_PERMISSION_KEYS] : g.permission_keys.filter((k) => ORG_KEYS.has(k));

export function serializeGroup(g: GroupRow): PermissionGroup {
  const keys = groupKeys(g);
  return {
    id: g.id,
    org_id: g.org_id!,
    name: g.name,
    description: g.description,
    status: g.status as PermissionGroup["status"],
    is_system: g.is_system,
    is_org_admin: g.is_org_admin,
    contains_phi: keys.some((k) => PHI_KEYS.has(k)),
    context_types: ["org"],
    scope_applicability: ["org"],
    permission_keys: keys,
    created_at: g.created_at,
    created_by: g.created_by,
    updated_at: g.updated_at,
    updated_by: g.updated_by,
    version: g.version,
  };
}

/**
 * !!! ANTI-ESCALATION: changes need two reviewers. !!!
 * What the caller may grant in this org: a member can only hand out, edit or take
 * away access made of keys they hold themselves (403 otherwise). The guard
 * resolved the caller's keys in this org; system actors hold every key.
 */
export function callerKeys(ctx: Pick<OrgContext, "actor" | "permissions">): ReadonlySet<string> {
  return ctx.actor.type !== "user" ? ORG_KEYS : (ctx.permissions ?? new Set());
}

export function assertHolds(
  caller: ReadonlySet<string>,
  keys: Iterable<string>,
  what = "grant or change access that includes permissions you do not hold",
): void {
  for (const k of keys) if (!caller.has(k)) throw new Forbidden(`You cannot ${what}`);
}

function* requireGroup(c: OrgControlRead, id: string): Work<GroupRow> {
  const g = yield* findGroup(c, id);
  if (!g) throw new NotFound("Permission group");
  return g;
}

/** Active groups of this org with these ids; 404 when any is missing, archived or another org's. */
export function* requireActiveGroups(c: OrgControlRead, ids: string[]): Work<GroupRow[]> {
  const wanted = [...new Set(ids)];
  const rows = yield* activeGroups(c, wanted);
  if (rows.length !== wanted.length) throw new NotFound("Permission group");
  return rows;
}

function* assertNameFree(c: OrgControlRead, name: string, exceptId?: string): Work<void> {
  if (yield* groupNameTaken(c, name, exceptId)) throw new Conflict("An active permission group with this name already exists", "duplicate");
}

function assertEditable(g: GroupRow): void {
  if (g.is_system || g.is_org_admin) throw new Conflict("System permission groups cannot be changed or archived", "system_group");
}

/** The group write's audit entry and event, in the write's own transaction. */
function* auditGroup(c: OrgControlWrite, action: string, before: PermissionGroup | null, after: PermissionGroup, changed?: string[]): Work<void> {
  yield* c.audit(
    { action: `permission_group.${action}`, resource_type: "permission_group", resource_id: after.id, before, after },
    {
      type: `permission_group.${action}`,
      resource_type: "permission_group",
      resource_id: after.id,
      data: changed ? { id: after.id, changed_fields: changed } : { id: after.id },
    },
  );
}

const changedFields = (a: PermissionGroup, b: PermissionGroup) =>
  (Object.keys(b) as (keyof PermissionGroup)[]).filter(
    (k) => !["version", "updated_at", "updated_by"].includes(k) && JSON.stringify(a[k]) !== JSON.stringify(b[k]),
  );

export async function listGroups(ctx: OrgContext, q: GroupListQuery) {
  const page = await ctx.control.read((c) => groupPage(c, q.status ?? "active", q));
  return { ...page, items: page.items.map(serializeGroup) };
}

export async function getGroup(ctx: OrgContext, id: string): Promise<PermissionGroup> {
  return serializeGroup(await ctx.control.read((c) => requireGroup(c, id)));
}

export async function groupPermissionIds(ctx: OrgContext, id: string) {
  return { items: (await getGroup(ctx, id)).permission_keys };
}

export async function createGroup(ctx: OrgContext, input: GroupCreate): Promise<PermissionGroup> {
  const keys = [...new Set(input.permission_keys)];
  assertHolds(callerKeys(ctx), keys);
  return ctx.control.write(function* (c) {
    yield* assertNameFree(c, input.name);
    const created = serializeGroup(
      yield* insertGroup(c, {
        id: newId(),
        name: input.name,
        description: input.description ?? "",
        permission_keys: keys,
        status: "active",
        is_system: false,
        is_org_admin: false,
        created_by: ctx.actor.id,
        updated_by: ctx.actor.id,
        created_at: c.now,
        updated_at: c.now,
      }),
    );
    yield* auditGroup(c, "created", null, created);
    return created;
  });
}

export async function updateGroup(ctx: OrgContext, id: string, input: GroupPatch): Promise<PermissionGroup> {
  const { base_version, ...patch } = input;
  const caller = callerKeys(ctx);
  return ctx.control.write(function* (c) {
    const current = yield* requireGroup(c, id);
    checkVersion(current, base_version);
    assertEditable(current);
    if (current.status !== "active") throw new Conflict("An archived permission group cannot be changed", "group_archived");
    assertHolds(caller, groupKeys(current));
    if (patch.permission_keys) assertHolds(caller, patch.permission_keys);
    if (patch.name !== undefined) yield* assertNameFree(c, patch.name, id);
    const row = yield* updateGroupRow(c, id, current.version, {
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.permission_keys ? { permission_keys: [...new Set(patch.permission_keys)] } : {}),
      updated_at: c.now,
      updated_by: ctx.actor.id,
    });
    const before = serializeGroup(current);
    const after = serializeGroup(row);
    yield* auditGroup(c, "updated", before, after, changedFields(before, after));
    return after;
  });
}

/** Archive: the group stops granting anything at once; archiving again changes nothing. */
export async function archiveGroup(ctx: OrgContext, id: string): Promise<PermissionGroup> {
  const caller = callerKeys(ctx);
  return ctx.control.write(function* (c) {
    const current = yield* requireGroup(c, id);
    assertEditable(current);
    if (current.status === "archived") return serializeGroup(current);
    assertHolds(caller, groupKeys(current));
    const after = serializeGroup(yield* updateGroupRow(c, id, current.version, { status: "archived", updated_at: c.now, updated_by: ctx.actor.id }));
    yield* auditGroup(c, "archived", serializeGroup(current), after, ["status"]);
    return after;
  });
}
