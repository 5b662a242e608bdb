import { and, eq, inArray, isNull, ne, or, type SQL } from "drizzle-orm";
import { operatories, providers } from "@db/tenant/practice";
import { scheduleViewDefaults, scheduleViews, scheduleViewShortcuts } from "@db/tenant/schedule-config";
import { all, get, run, type Work } from "@/platform/db/work";
import { audit } from "@/platform/audit/audit";
import { invalid, NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { emit } from "@/platform/records/events";
import { LOCATION_NAMES } from "@/platform/records/names";
import { namesOf } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";
import type {
  ScheduleView,
  ScheduleViewCreate,
  ScheduleViewDefault,
  ScheduleViewDeleteQuery,
  ScheduleViewListQuery,
  ScheduleViewPatch,
  ScheduleViewShortcut,
} from "./schemas";

type ViewRow = typeof scheduleViews.$inferSelect;
/** The calling user's own settings for the views in hand. */
type UserState = { defaults: Set<string>; shortcuts: Map<string, number> };

function serialize(r: ViewRow, locationName: string | null, me: UserState): ScheduleView {
  return {
    id: r.id,
    location: { uuid: r.location_id, name: locationName },
    name: r.name,
    view_type: r.view_type as ScheduleView["view_type"],
    visibility: r.visibility as ScheduleView["visibility"],
    is_default: me.defaults.has(r.id),
    keyboard_shortcut: me.shortcuts.get(r.id) ?? null,
    min_operatory_width_px: r.min_operatory_width_px,
    operatory_uuids: r.operatory_ids,
    provider_uuids: r.provider_ids,
    privacy_mode: r.privacy_mode,
    show_business_days_only: r.show_business_days_only,
    show_missed_appointments: r.show_missed_appointments,
    show_production: r.show_production,
    show_provider_bars: r.show_provider_bars,
    start_time: r.start_time,
    time_increment: r.time_increment,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

// The audit trail records the shared configuration (and its owner), not any user's derived flags.
function auditView(r: ViewRow) {
  const { is_default: _d, keyboard_shortcut: _k, ...shared } = serialize(r, null, { defaults: new Set(), shortcuts: new Map() });
  return { ...shared, owner_user_id: r.owner_user_id, deleted_at: r.deleted_at };
}

const records = defineResource<ViewRow, ReturnType<typeof auditView>>({
  table: scheduleViews,
  name: "schedule_view",
  label: "Schedule view",
  serialize: auditView,
  practiceId: (r) => r.location_id,
});

/** Shared views and the caller's own personal ones. */
const visibleTo = (userId: string) => or(eq(scheduleViews.visibility, "shared"), eq(scheduleViews.owner_user_id, userId))!;

/**
 * !!! VISIBILITY CHECK: a personal view exists only for its owner. !!!
 * Everyone else gets the same 404 as for a missing view.
 */
function* requireVisible(db: TenantDb, id: string, userId: string): Work<ViewRow> {
  const row = yield* records.require(db, id);
  if (row.visibility === "personal" && row.owner_user_id !== userId) throw new NotFound("Schedule view");
  return row;
}

function* userState(db: TenantDb, userId: string, viewIds: string[]): Work<UserState> {
  if (!viewIds.length) return { defaults: new Set(), shortcuts: new Map() };
  const defaults = yield* all(
    db
      .select({ view_id: scheduleViewDefaults.view_id })
      .from(scheduleViewDefaults)
      .where(and(eq(scheduleViewDefaults.user_id, userId), inArray(scheduleViewDefaults.view_id, viewIds))),
  );
  const shortcuts = yield* all(
    db
      .select({ view_id: scheduleViewShortcuts.view_id, key: scheduleViewShortcuts.keyboard_shortcut })
      .from(scheduleViewShortcuts)
      .where(and(eq(scheduleViewShortcuts.user_id, userId), inArray(scheduleViewShortcuts.view_id, viewIds))),
  );
  return { defaults: new Set(defaults.map((d) => d.view_id)), shortcuts: new Map(shortcuts.map((s) => [s.view_id, s.key])) };
}

function* present(db: TenantDb, rows: ViewRow[], userId: string): Work<ScheduleView[]> {
  const nameOf = yield* namesOf(
    db,
    LOCATION_NAMES,
    rows.map((r) => r.location_id),
  );
  const me = yield* userState(
    db,
    userId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => serialize(r, nameOf.get(r.location_id) ?? null, me));
}

function* presentOne(db: TenantDb, row: ViewRow, userId: string): Work<ScheduleView> {
  return (yield* present(db, [row], userId))[0]!;
}

/** Operatories must be live and of the view's location; providers must be live (404 / 422). */
function* checkRefs(
  db: TenantDb,
  locationId: string,
  input: { operatory_uuids?: string[]; provider_uuids?: string[] },
): Work<{ operatory_ids?: string[]; provider_ids?: string[] }> {
  const out: { operatory_ids?: string[]; provider_ids?: string[] } = {};
  if (input.operatory_uuids) {
    const ids = input.operatory_uuids;
    const rows = ids.length
      ? yield* all(
          db
            .select({ id: operatories.id, location_id: operatories.location_id })
            .from(operatories)
            .where(and(inArray(operatories.id, ids), isNull(operatories.deleted_at))),
        )
      : [];
    const found = new Map(rows.map((r) => [r.id, r.location_id]));
    ids.forEach((id) => {
      if (!found.has(id)) throw new NotFound("Operatory");
    });
    ids.forEach((id, i) => {
      if (found.get(id) !== locationId)
        throw invalid(["body", "operatory_uuids", i], "The operatory belongs to another location", "value_error", "operatory_location_mismatch");
    });
    out.operatory_ids = ids;
  }
  if (input.provider_uuids) {
    const ids = input.provider_uuids;
    const rows = ids.length
      ? yield* all(
          db
            .select({ id: providers.id })
            .from(providers)
            .where(and(inArray(providers.id, ids), isNull(providers.deleted_at))),
        )
      : [];
    if (rows.length !== ids.length) throw new NotFound("Provider");
    out.provider_ids = ids;
  }
  return out;
}

/** Drop other users' defaults and shortcuts on a view they can no longer see (or nobody can). */
function* forgetView(tx: TenantDb, viewId: string, keepUserId?: string): Work<void> {
  for (const table of [scheduleViewDefaults, scheduleViewShortcuts]) {
    yield* run(tx.delete(table).where(and(eq(table.view_id, viewId), keepUserId ? ne(table.user_id, keepUserId) : undefined)));
  }
}

export async function listScheduleViews(ctx: OrgContext, q: ScheduleViewListQuery) {
  const me = ctx.actor.id;
  return ctx.db.read(function* (db) {
    const locationId = q.location_uuid;
    if (locationId) yield* locationRecords.require(db, locationId);
    const where: (SQL | undefined)[] = [
      visibleTo(me),
      locationId ? eq(scheduleViews.location_id, locationId) : undefined,
      q.visibility ? eq(scheduleViews.visibility, q.visibility) : undefined,
    ];
    const page = yield* records.list(db, q, { where, orderBy: [scheduleViews.name, scheduleViews.id] });
    return { ...page, items: yield* present(db, page.items, me) };
  });
}

export async function getScheduleView(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return yield* presentOne(db, yield* requireVisible(db, id, ctx.actor.id), ctx.actor.id);
  });
}

export async function createScheduleView(ctx: OrgContext, input: ScheduleViewCreate) {
  const { location_uuid, operatory_uuids, provider_uuids, ...fields } = input;
  return withTransaction(ctx, function* (s) {
    const location = yield* locationRecords.require(s.tx, location_uuid);
    const refs = yield* checkRefs(s.tx, location.id, { operatory_uuids, provider_uuids });
    const row = yield* records.create(
      s,
      { ...fields, ...refs, location_id: location.id, owner_user_id: s.actor.id },
      { location_id: location.id, visibility: fields.visibility },
    );
    return yield* presentOne(s.tx, row, s.actor.id);
  });
}

export async function updateScheduleView(ctx: OrgContext, id: string, input: ScheduleViewPatch) {
  const { base_version, operatory_uuids, provider_uuids, ...fields } = input;
  const me = ctx.actor.id;
  return withTransaction(ctx, function* (s) {
    const current = yield* requireVisible(s.tx, id, me);
    if (fields.visibility === "personal" && current.visibility === "shared" && current.owner_user_id !== me) {
      throw invalid(["body", "visibility"], "Only the view's creator may make it personal", "value_error", "not_view_owner");
    }
    const refs = yield* checkRefs(s.tx, current.location_id, { operatory_uuids, provider_uuids });
    const row = yield* records.update(s, id, base_version, { ...fields, ...refs });
    if (current.visibility === "shared" && row.visibility === "personal") yield* forgetView(s.tx, id, row.owner_user_id);
    return yield* presentOne(s.tx, row, me);
  });
}

export async function deleteScheduleView(ctx: OrgContext, id: string, q: ScheduleViewDeleteQuery) {
  await withTransaction(ctx, function* (s) {
    yield* requireVisible(s.tx, id, s.actor.id);
    yield* records.archive(s, id, q.base_version, "deleted");
    yield* forgetView(s.tx, id);
  });
}

/** Audit and publish a change of the caller's own setting on a view (the view's version does not move). */
function* recordUserSetting(s: TxScope, row: ViewRow, action: string, before: Record<string, unknown>, after: Record<string, unknown>): Work<void> {
  yield* audit(s, {
    action: `schedule_view.${action}`,
    resource_type: "schedule_view",
    resource_id: row.id,
    before: { user_id: s.actor.id, ...before },
    after: { user_id: s.actor.id, ...after },
  });
  emit(s, {
    type: `schedule_view.${action}`,
    resource_type: "schedule_view",
    resource_id: row.id,
    practice_id: row.location_id,
    data: { id: row.id, user_id: s.actor.id, ...after },
  });
}

export async function setScheduleViewShortcut(ctx: OrgContext, id: string, input: ScheduleViewShortcut) {
  const me = ctx.actor.id;
  const key = input.keyboard_shortcut;
  return withTransaction(ctx, function* (s) {
    const row = yield* requireVisible(s.tx, id, me);
    const previous = yield* get(
      s.tx
        .select({ key: scheduleViewShortcuts.keyboard_shortcut })
        .from(scheduleViewShortcuts)
        .where(and(eq(scheduleViewShortcuts.user_id, me), eq(scheduleViewShortcuts.view_id, id))),
    );
    // the key moves: whichever of the caller's views held it loses it
    const holder =
      key === null
        ? undefined
        : yield* get(
            s.tx
              .select({ view_id: scheduleViewShortcuts.view_id })
              .from(scheduleViewShortcuts)
              .where(and(eq(scheduleViewShortcuts.user_id, me), eq(scheduleViewShortcuts.keyboard_shortcut, key))),
          );
    yield* run(
      s.tx
        .delete(scheduleViewShortcuts)
        .where(
          and(
            eq(scheduleViewShortcuts.user_id, me),
            key === null ? eq(scheduleViewShortcuts.view_id, id) : or(eq(scheduleViewShortcuts.view_id, id), eq(scheduleViewShortcuts.keyboard_shortcut, key)),
          ),
        ),
    );
    if (key !== null) yield* run(s.tx.insert(scheduleViewShortcuts).values({ user_id: me, keyboard_shortcut: key, view_id: id, created_at: s.now }));
    const clearedFrom = holder && holder.view_id !== id ? holder.view_id : null;
    yield* recordUserSetting(s, row, "shortcut_set", { keyboard_shortcut: previous?.key ?? null }, { keyboard_shortcut: key, cleared_view_id: clearedFrom });
    return yield* presentOne(s.tx, row, me);
  });
}

export async function setScheduleViewDefault(ctx: OrgContext, id: string, input: ScheduleViewDefault) {
  const me = ctx.actor.id;
  return withTransaction(ctx, function* (s) {
    const row = yield* requireVisible(s.tx, id, me);
    const mine = and(eq(scheduleViewDefaults.user_id, me), eq(scheduleViewDefaults.location_id, row.location_id));
    const previous = yield* get(s.tx.select({ view_id: scheduleViewDefaults.view_id }).from(scheduleViewDefaults).where(mine));
    if (input.is_default) {
      yield* run(s.tx.delete(scheduleViewDefaults).where(mine));
      yield* run(s.tx.insert(scheduleViewDefaults).values({ user_id: me, location_id: row.location_id, view_id: id, created_at: s.now }));
    } else if (previous?.view_id === id) {
      yield* run(s.tx.delete(scheduleViewDefaults).where(mine));
    }
    const replaced = input.is_default && previous && previous.view_id !== id ? previous.view_id : null;
    yield* recordUserSetting(s, row, "default_set", { is_default: previous?.view_id === id }, { is_default: input.is_default, replaced_view_id: replaced });
    return yield* presentOne(s.tx, row, me);
  });
}
