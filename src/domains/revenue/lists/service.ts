import { and, asc, count, desc, eq, inArray, isNull, ne, or, sql, type SQL } from "drizzle-orm";
import { patients } from "@db/tenant/patients";
import { smartListMembers, smartLists, type StoredFilter } from "@db/tenant/revenue";
import { all, get, run, type Work } from "@/platform/db/work";
import { audit } from "@/platform/audit/audit";
import { Conflict, invalid, NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { emit } from "@/platform/records/events";
import { LOCATION_NAMES, PATIENT_NAMES } from "@/platform/records/names";
import { pageFrom } from "@/platform/records/paging";
import { namesOf, ref } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { containsText } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { checkVersion } from "@/platform/records/versions";
import { locationRecords } from "@/domains/providers/locations/service";
import { SOURCE_VERSION } from "@/domains/revenue/fields/registry";
import { compileFilter } from "@/domains/revenue/filters/compile";
import { todayUtc } from "@/platform/time/dates";
import { presetOf } from "@/domains/revenue/presets/catalog";
import type {
  ArchiveQuery,
  ListScope,
  MembersAdd,
  MembersQuery,
  SmartList,
  SmartListCreate,
  SmartListFromPreset,
  SmartListListQuery,
  SmartListPatch,
} from "./schemas";

export type ListRow = typeof smartLists.$inferSelect;

export function serializeList(r: ListRow, locationName: string | null): SmartList {
  return {
    id: r.id,
    name: r.name,
    list_type: r.list_type as SmartList["list_type"],
    scope: r.scope as SmartList["scope"],
    owner: { uuid: r.owner_user_id, name: r.owner_name },
    scope_location: r.scope_location_id ? { uuid: r.scope_location_id, name: locationName } : null,
    description: r.description,
    filter_definition: (r.filter_definition as Record<string, unknown> | null) ?? null,
    is_pinned: r.is_pinned,
    sort_order: r.sort_order,
    tags: r.tags,
    preset_key: r.preset_key,
    last_executed_at: r.last_executed_at,
    last_result_count: r.last_result_count,
    source_version: r.source_version,
    needs_review: r.needs_review,
    review_reason: r.review_reason,
    version: r.version,
    base_version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  };
}

export const listRecords = defineResource<ListRow, SmartList>({
  table: smartLists,
  name: "smart_list",
  label: "Smart list",
  serialize: (r) => serializeList(r, null),
  practiceId: (r) => r.scope_location_id,
});

/** Organization and location lists, and the caller's own personal ones. */
const visibleTo = (userId: string) => or(ne(smartLists.scope, "personal"), eq(smartLists.owner_user_id, userId))!;

/**
 * !!! VISIBILITY CHECK: a personal list exists only for its owner. !!!
 * Everyone else gets the same 404 as for a missing or archived list.
 */
export function* requireVisible(db: TenantDb, id: string, userId: string): Work<ListRow> {
  const row = yield* listRecords.require(db, id);
  if (row.scope === "personal" && row.owner_user_id !== userId) throw new NotFound("Smart list");
  return row;
}

/** The list a read applies to (404 when missing, archived or another user's personal list). */
export function visibleList(ctx: OrgContext, id: string): Promise<ListRow> {
  return Promise.resolve(ctx.db.read((db) => requireVisible(db, id, ctx.actor.id)));
}

function* present(db: TenantDb, rows: ListRow[]): Work<SmartList[]> {
  const names = yield* namesOf(
    db,
    LOCATION_NAMES,
    rows.map((r) => r.scope_location_id),
  );
  return rows.map((r) => serializeList(r, r.scope_location_id ? (ref(r.scope_location_id, names).name ?? null) : null));
}

function* presentOne(db: TenantDb, row: ListRow): Work<SmartList> {
  return (yield* present(db, [row]))[0]!;
}

/** scope location needs scope_location_uuid; the other scopes take none (422). */
function checkScope(scope: ListScope, locationId: string | undefined): void {
  if (scope === "location" && !locationId) {
    throw invalid(["body", "scope_location_uuid"], "Required when scope is location", "missing", "scope_location_required");
  }
  if (scope !== "location" && locationId) {
    throw invalid(["body", "scope_location_uuid"], "Only lists with scope location take a location", "value_error", "scope_location_not_allowed");
  }
}

type NameKey = Pick<ListRow, "name" | "owner_user_id" | "scope" | "scope_location_id">;

/** One owner's live lists in one scope (and location) have distinct names, any case: 409 duplicate. */
function* assertNameFree(db: TenantDb, key: NameKey, selfId?: string): Work<void> {
  const t = smartLists;
  const conds: (SQL | undefined)[] = [
    sql`lower(${t.name}) = lower(${key.name})`,
    eq(t.owner_user_id, key.owner_user_id),
    eq(t.scope, key.scope),
    key.scope_location_id ? eq(t.scope_location_id, key.scope_location_id) : isNull(t.scope_location_id),
    isNull(t.deleted_at),
    selfId ? ne(t.id, selfId) : undefined,
  ];
  const clash = yield* get(
    db
      .select({ id: t.id })
      .from(t)
      .where(and(...conds))
      .limit(1),
  );
  if (clash) throw new Conflict("You already have a smart list with this name in this scope", "duplicate");
}

export async function listLists(ctx: OrgContext, q: SmartListListQuery) {
  const t = smartLists;
  return ctx.db.read(function* (db) {
    const page = yield* listRecords.list(db, q, {
      where: [
        visibleTo(ctx.actor.id),
        q.scope ? eq(t.scope, q.scope) : undefined,
        q.list_type ? eq(t.list_type, q.list_type) : undefined,
        q.is_pinned === undefined ? undefined : eq(t.is_pinned, q.is_pinned),
        q.search ? containsText(t.name, q.search) : undefined,
      ],
      orderBy: [desc(t.is_pinned), asc(t.sort_order), sql`lower(${t.name})`, asc(t.id)],
    });
    return { ...page, items: yield* present(db, page.items) };
  });
}

export async function getList(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return yield* presentOne(db, yield* requireVisible(db, id, ctx.actor.id));
  });
}

type NewList = Omit<SmartListCreate, "list_type" | "scope_location_uuid" | "filter_definition"> & {
  list_type: SmartList["list_type"];
  filter_definition: StoredFilter | null;
  preset_key: string | null;
};

function* insertList(s: TxScope, list: NewList, locationUuid: string | undefined): Work<SmartList> {
  const location = locationUuid ? yield* locationRecords.require(s.tx, locationUuid) : null;
  const values = {
    ...list,
    description: list.description ?? null,
    scope_location_id: location?.id ?? null,
    owner_user_id: s.actor.id,
    owner_name: s.actor.display_name,
    source_version: list.filter_definition ? SOURCE_VERSION : null,
    needs_review: false,
  };
  yield* assertNameFree(s.tx, values);
  const row = yield* listRecords.create(s, values, { list_type: values.list_type, scope: values.scope, preset_key: values.preset_key });
  return yield* presentOne(s.tx, row);
}

export async function createList(ctx: OrgContext, input: SmartListCreate) {
  const { scope_location_uuid, filter_definition, ...fields } = input;
  if (input.list_type === "dynamic" && !filter_definition) {
    throw invalid(["body", "filter_definition"], "Required for a dynamic list", "missing", "filter_required");
  }
  if (input.list_type === "static" && filter_definition) {
    throw invalid(["body", "filter_definition"], "A static list has members, not a filter", "value_error", "filter_not_allowed");
  }
  checkScope(input.scope, scope_location_uuid);
  if (filter_definition) compileFilter(filter_definition, todayUtc());
  return withTransaction(ctx, (s) => insertList(s, { ...fields, filter_definition: filter_definition ?? null, preset_key: null }, scope_location_uuid));
}

export async function createListFromPreset(ctx: OrgContext, input: SmartListFromPreset) {
  const { preset_key, scope_location_uuid, name, description, ...fields } = input;
  checkScope(input.scope, scope_location_uuid);
  const preset = presetOf(preset_key, todayUtc());
  return withTransaction(ctx, (s) =>
    insertList(
      s,
      {
        ...fields,
        name: name ?? preset.name,
        description: description === undefined ? preset.description : description,
        list_type: "preset",
        filter_definition: preset.filter_definition,
        preset_key,
      },
      scope_location_uuid,
    ),
  );
}

export async function updateList(ctx: OrgContext, id: string, input: SmartListPatch) {
  const { base_version, filter_definition, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const current = yield* requireVisible(s.tx, id, s.actor.id);
    // stale first: a rule is never judged against a record the client has not seen
    checkVersion(current, base_version);
    if (filter_definition !== undefined) {
      if (current.list_type === "static") {
        throw invalid(["body", "filter_definition"], "A static list has members, not a filter", "value_error", "filter_not_allowed");
      }
      compileFilter(filter_definition, todayUtc());
    }
    if (patch.name !== undefined) yield* assertNameFree(s.tx, { ...current, name: patch.name }, id);
    const values: Partial<ListRow> = { ...patch };
    if (filter_definition !== undefined) Object.assign(values, { filter_definition, source_version: SOURCE_VERSION, needs_review: false, review_reason: null });
    return yield* presentOne(s.tx, yield* listRecords.update(s, id, base_version, values));
  });
}

export async function archiveList(ctx: OrgContext, id: string, q: ArchiveQuery) {
  return withTransaction(ctx, function* (s) {
    yield* requireVisible(s.tx, id, s.actor.id);
    return yield* presentOne(s.tx, yield* listRecords.archive(s, id, q.base_version));
  });
}

/** Pin or unpin (no base_version: the flag is set, whatever it was); unchanged lists keep their version. */
export async function pinList(ctx: OrgContext, id: string, pinned: boolean) {
  return withTransaction(ctx, function* (s) {
    const row = yield* requireVisible(s.tx, id, s.actor.id);
    if (row.is_pinned === pinned) return yield* presentOne(s.tx, row);
    return yield* presentOne(s.tx, yield* listRecords.update(s, id, undefined, { is_pinned: pinned }, { action: pinned ? "pinned" : "unpinned" }));
  });
}

// ---- static members ----------------------------------------------------------------------

function requireStatic(row: ListRow): void {
  if (row.list_type !== "static") throw invalid(["path", "list_uuid"], "Only static lists have members", "value_error", "not_static_list");
}

function* memberCount(db: TenantDb, listId: string): Work<number> {
  return (yield* get(db.select({ n: count() }).from(smartListMembers).where(eq(smartListMembers.list_id, listId))))?.n ?? 0;
}

export async function listMembers(ctx: OrgContext, id: string, q: MembersQuery) {
  const m = smartListMembers;
  return ctx.db.read(function* (db) {
    requireStatic(yield* requireVisible(db, id, ctx.actor.id));
    const page = yield* pageFrom(
      q,
      db.select({ n: count() }).from(m).where(eq(m.list_id, id)),
      db.select({ patient_id: m.patient_id, added_at: m.added_at }).from(m).where(eq(m.list_id, id)).orderBy(asc(m.added_at), asc(m.patient_id)),
    );
    const names = yield* namesOf(
      db,
      PATIENT_NAMES,
      page.items.map((r) => r.patient_id),
    );
    return { ...page, items: page.items.map((r) => ({ patient: ref(r.patient_id, names), added_at: r.added_at })) };
  });
}

function* recordMembers(s: TxScope, row: ListRow, action: "members_added" | "member_removed", data: Record<string, unknown>): Work<void> {
  yield* audit(s, { action: `smart_list.${action}`, resource_type: "smart_list", resource_id: row.id, before: null, after: data });
  emit(s, {
    type: `smart_list.${action}`,
    resource_type: "smart_list",
    resource_id: row.id,
    practice_id: row.scope_location_id,
    data: { id: row.id, ...data },
  });
}

/** Add live patients of this org (404 for any other); members already in the list and repeats in the request are ignored. */
export async function addMembers(ctx: OrgContext, id: string, input: MembersAdd) {
  const m = smartListMembers;
  return withTransaction(ctx, function* (s) {
    const row = yield* requireVisible(s.tx, id, s.actor.id);
    requireStatic(row);
    const wanted = [...new Set(input.patient_uuids)];
    const live = yield* all(
      s.tx
        .select({ id: patients.id })
        .from(patients)
        .where(and(inArray(patients.id, wanted), isNull(patients.deleted_at))),
    );
    if (live.length !== wanted.length) throw new NotFound("Patient");
    const already = new Set(
      (yield* all(
        s.tx
          .select({ patient_id: m.patient_id })
          .from(m)
          .where(and(eq(m.list_id, id), inArray(m.patient_id, wanted))),
      )).map((r) => r.patient_id),
    );
    const fresh = wanted.filter((p) => !already.has(p));
    if (fresh.length) {
      yield* run(s.tx.insert(m).values(fresh.map((patient_id) => ({ list_id: id, patient_id, added_at: s.now }))));
      yield* recordMembers(s, row, "members_added", { added: fresh.length });
    }
    return { added: fresh.length, ignored: input.patient_uuids.length - fresh.length, member_count: yield* memberCount(s.tx, id) };
  });
}

export async function removeMember(ctx: OrgContext, id: string, patientId: string) {
  const m = smartListMembers;
  await withTransaction(ctx, function* (s) {
    const row = yield* requireVisible(s.tx, id, s.actor.id);
    requireStatic(row);
    const gone = yield* get(
      s.tx
        .delete(m)
        .where(and(eq(m.list_id, id), eq(m.patient_id, patientId)))
        .returning({ patient_id: m.patient_id }),
    );
    if (!gone) throw new NotFound("List member");
    yield* recordMembers(s, row, "member_removed", { patient_id: patientId });
  });
}
