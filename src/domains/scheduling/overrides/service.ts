import { and, eq, isNull } from "drizzle-orm";
import { scheduleOverrides } from "@db/tenant/scheduling";
import { get, type Work } from "@/platform/db/work";
import { checkDateRange, withinDates } from "@/platform/records/search";
import { Conflict, invalid, ValidationFailed } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { LOCATION_NAMES, OPERATORY_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { namesOfEach, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";
import { requireProvider } from "@/domains/providers/record/service";
import { providerAndLocation, requireOperatoryAt } from "@/domains/scheduling/provider-schedules/common";
import type { Override, OverrideCreate, OverrideListQuery, OverridePatch } from "./schemas";

type Row = typeof scheduleOverrides.$inferSelect;

const serialize = (r: Row, n: Record<"providers" | "locations" | "operatories", Names>): Override => ({
  id: r.id,
  provider: ref(r.provider_id, n.providers),
  location: ref(r.location_id, n.locations),
  operatory: ref(r.operatory_id, n.operatories),
  override_date: r.override_date,
  start_time: r.start_time,
  end_time: r.end_time,
  is_unavailable: r.is_unavailable,
  override_reason: r.override_reason as Override["override_reason"],
  note: r.note,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const auditForm = (r: Row) => ({
  id: r.id,
  provider_uuid: r.provider_id,
  location_uuid: r.location_id,
  operatory_uuid: r.operatory_id,
  override_date: r.override_date,
  start_time: r.start_time,
  end_time: r.end_time,
  is_unavailable: r.is_unavailable,
  override_reason: r.override_reason,
  note: r.note,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

const records = defineResource<Row, ReturnType<typeof auditForm>>({
  table: scheduleOverrides,
  name: "schedule_override",
  label: "Schedule override",
  serialize: auditForm,
  practiceId: (r) => r.location_id,
  eventFields: { stripIdSuffix: true },
});

function* present(db: TenantDb, rows: Row[]): Work<Override[]> {
  const n = yield* namesOfEach(db, {
    providers: [PROVIDER_NAMES, rows.map((r) => r.provider_id)],
    locations: [LOCATION_NAMES, rows.map((r) => r.location_id)],
    operatories: [OPERATORY_NAMES, rows.map((r) => r.operatory_id)],
  });
  return rows.map((r) => serialize(r, n));
}

/**
 * An unavailable day has no hours; an available one needs both, in order.
 * `sent` names the fields the request carried (for the 422's loc).
 */
function checkHours(v: Pick<Row, "is_unavailable" | "start_time" | "end_time">, sent: { start_time?: unknown; end_time?: unknown }) {
  if (v.is_unavailable) {
    const bad = (["start_time", "end_time"] as const).filter((f) => sent[f] !== undefined && sent[f] !== null);
    if (bad.length)
      throw new ValidationFailed(
        bad.map((f) => ({ loc: ["body", f], msg: "Must be null when is_unavailable is true", type: "value_error" })),
        "hours_on_unavailable_day",
      );
    return;
  }
  const missing = (["start_time", "end_time"] as const).filter((f) => !v[f]);
  if (missing.length)
    throw new ValidationFailed(
      missing.map((f) => ({ loc: ["body", f], msg: "Required unless is_unavailable is true", type: "missing" })),
      "hours_required",
    );
  if (v.end_time! <= v.start_time!) throw invalid(["body", "end_time"], "Must be after start_time", "value_error", "invalid_hours");
}

function* assertDayFree(db: TenantDb, v: Pick<Row, "provider_id" | "location_id" | "override_date">) {
  const taken = yield* get(
    db
      .select({ id: scheduleOverrides.id })
      .from(scheduleOverrides)
      .where(
        and(
          eq(scheduleOverrides.provider_id, v.provider_id),
          eq(scheduleOverrides.location_id, v.location_id),
          eq(scheduleOverrides.override_date, v.override_date),
          isNull(scheduleOverrides.deleted_at),
        ),
      ),
  );
  if (taken) throw new Conflict("The provider already has an override at this location on this date; change that one", "duplicate");
}

export async function listOverrides(ctx: OrgContext, q: OverrideListQuery) {
  checkDateRange(q);
  return ctx.db.read(function* (db) {
    const t = scheduleOverrides;
    const page = yield* records.list(db, q, {
      where: [...(yield* providerAndLocation(db, q, t)), ...withinDates(t.override_date, q)],
      orderBy: [t.override_date, t.id],
    });
    return { ...page, items: yield* present(db, page.items) };
  });
}

export async function getOverride(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return (yield* present(db, [yield* records.require(db, id)]))[0]!;
  });
}

export async function createOverride(ctx: OrgContext, input: OverrideCreate) {
  return withTransaction(ctx, function* (s) {
    const provider = yield* requireProvider(s.tx, input.provider_uuid);
    const location = yield* locationRecords.require(s.tx, input.location_uuid);
    const operatory = input.operatory_uuid ? yield* requireOperatoryAt(s.tx, input.operatory_uuid, location.id) : null;
    const unavailable = input.is_unavailable ?? false;
    const values = {
      provider_id: provider.id,
      location_id: location.id,
      operatory_id: operatory?.id ?? null,
      override_date: input.override_date,
      start_time: input.start_time ?? null,
      end_time: input.end_time ?? null,
      is_unavailable: unavailable,
      override_reason: input.override_reason,
      note: input.note ?? "",
    };
    checkHours(values, input);
    yield* assertDayFree(s.tx, values);
    const row = yield* records.create(s, values, {
      provider_id: provider.id,
      location_id: location.id,
      override_date: values.override_date,
      is_unavailable: unavailable,
      override_reason: values.override_reason,
    });
    return (yield* present(s.tx, [row]))[0]!;
  });
}

export async function updateOverride(ctx: OrgContext, id: string, input: OverridePatch) {
  const { base_version, operatory_uuid, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const current = yield* records.requireCurrent(s.tx, id, base_version);
    const changes: Partial<Row> = { ...patch };
    // becoming unavailable clears the hours
    if (patch.is_unavailable === true) Object.assign(changes, { start_time: null, end_time: null });
    if (operatory_uuid !== undefined)
      changes.operatory_id = operatory_uuid === null ? null : (yield* requireOperatoryAt(s.tx, operatory_uuid, current.location_id)).id;
    checkHours({ ...current, ...changes }, patch);
    const row = yield* records.update(s, id, current.version, changes);
    return (yield* present(s.tx, [row]))[0]!;
  });
}

export async function deleteOverride(ctx: OrgContext, id: string, baseVersion?: number) {
  await withTransaction(ctx, (s) => records.archive(s, id, baseVersion, "deleted"));
}
