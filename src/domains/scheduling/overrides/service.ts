import { and, eq, isNull } from "drizzle-orm";
import { scheduleOverrides } from "@db/tenant/scheduling";
import { get } from "@/platform/db/work";
import { checkDateRange, withinDates } from "@/platform/records/search";
import { Conflict, ValidationFailed } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { checkHoursInOrder, operatoryChange, providerAndLocation } from "@/domains/scheduling/provider-schedules/common";
import { hoursRecords, requireHoursPlace } from "@/domains/scheduling/provider-schedules/hours-records";
import type { Override, OverrideCreate, OverrideListQuery, OverridePatch } from "./schemas";

type Row = typeof scheduleOverrides.$inferSelect;

const overrides = hoursRecords({
  table: scheduleOverrides,
  name: "schedule_override",
  label: "Schedule override",
  fields: (r: Row) => ({
    override_date: r.override_date,
    start_time: r.start_time,
    end_time: r.end_time,
    is_unavailable: r.is_unavailable,
    override_reason: r.override_reason as Override["override_reason"],
    note: r.note,
  }),
});
const records = overrides.records;

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
  checkHoursInOrder({ start_time: v.start_time!, end_time: v.end_time! });
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
    return yield* overrides.list(db, q, {
      where: [...(yield* providerAndLocation(db, q, t)), ...withinDates(t.override_date, q)],
      orderBy: [t.override_date, t.id],
    });
  });
}

/** Typed as the schema's answer, so the shared serializer is checked against it. */
export const getOverride: (ctx: OrgContext, id: string) => Promise<Override> = overrides.get;

export async function createOverride(ctx: OrgContext, input: OverrideCreate) {
  return withTransaction(ctx, function* (s) {
    const place = yield* requireHoursPlace(s.tx, input);
    const unavailable = input.is_unavailable ?? false;
    const values = {
      ...place,
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
      provider_id: place.provider_id,
      location_id: place.location_id,
      override_date: values.override_date,
      is_unavailable: unavailable,
      override_reason: values.override_reason,
    });
    return yield* overrides.one(s.tx, row);
  });
}

export async function updateOverride(ctx: OrgContext, id: string, input: OverridePatch) {
  const { base_version, operatory_uuid, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const current = yield* records.requireCurrent(s.tx, id, base_version);
    const changes: Partial<Row> = { ...patch };
    // becoming unavailable clears the hours
    if (patch.is_unavailable === true) Object.assign(changes, { start_time: null, end_time: null });
    if (operatory_uuid !== undefined) changes.operatory_id = yield* operatoryChange(s.tx, operatory_uuid, current.location_id);
    checkHours({ ...current, ...changes }, patch);
    const row = yield* records.update(s, id, current.version, changes);
    return yield* overrides.one(s.tx, row);
  });
}

export const deleteOverride = overrides.remove;
