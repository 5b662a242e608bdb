import { and, eq, gt, gte, isNull, lt, lte, ne, or } from "drizzle-orm";
import { providerSchedules } from "@db/tenant/scheduling";
import { get } from "@/platform/db/work";
import { Conflict, invalid } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { checkHoursInOrder, operatoryChange, providerAndLocation } from "./common";
import { hoursRecords, requireHoursPlace } from "./hours-records";
import type { ProviderSchedule, ProviderScheduleCreate, ProviderScheduleListQuery, ProviderSchedulePatch } from "./schemas";

type Row = typeof providerSchedules.$inferSelect;

const templates = hoursRecords({
  table: providerSchedules,
  name: "provider_schedule",
  label: "Provider schedule",
  fields: (r: Row) => ({
    weekday: r.weekday,
    start_time: r.start_time,
    end_time: r.end_time,
    effective_from: r.effective_from,
    effective_to: r.effective_to,
  }),
});
const records = templates.records;

/** 422 unless start < end and the effective dates are in order. */
function checkRules(v: Pick<Row, "start_time" | "end_time" | "effective_from" | "effective_to">) {
  checkHoursInOrder(v);
  if (v.effective_from && v.effective_to && v.effective_to < v.effective_from) {
    throw invalid(["body", "effective_to"], "Must not be before effective_from", "value_error", "invalid_effective_dates");
  }
}

/**
 * 409 schedule_overlap when another live template of the same provider (at any
 * location: one person, one place) covers an overlapping time on the same
 * weekday during overlapping effective dates.
 */
function* assertNoOverlap(
  db: TenantDb,
  v: Pick<Row, "provider_id" | "weekday" | "start_time" | "end_time" | "effective_from" | "effective_to">,
  exceptId?: string,
) {
  const clash = yield* get(
    db
      .select({ id: providerSchedules.id })
      .from(providerSchedules)
      .where(
        and(
          eq(providerSchedules.provider_id, v.provider_id),
          eq(providerSchedules.weekday, v.weekday),
          isNull(providerSchedules.deleted_at),
          exceptId ? ne(providerSchedules.id, exceptId) : undefined,
          // touching shifts (08:00-12:00, 12:00-17:00) do not overlap
          gt(providerSchedules.end_time, v.start_time),
          lt(providerSchedules.start_time, v.end_time),
          v.effective_to ? or(isNull(providerSchedules.effective_from), lte(providerSchedules.effective_from, v.effective_to)) : undefined,
          v.effective_from ? or(isNull(providerSchedules.effective_to), gte(providerSchedules.effective_to, v.effective_from)) : undefined,
        ),
      )
      .limit(1),
  );
  if (clash) throw new Conflict("The provider already has a template covering part of these hours on this weekday", "schedule_overlap");
}

export async function listProviderSchedules(ctx: OrgContext, q: ProviderScheduleListQuery) {
  return ctx.db.read(function* (db) {
    const t = providerSchedules;
    return yield* templates.list(db, q, {
      where: [
        ...(yield* providerAndLocation(db, q, t)),
        q.weekday !== undefined ? eq(t.weekday, q.weekday) : undefined,
        q.active_on ? or(isNull(t.effective_from), lte(t.effective_from, q.active_on)) : undefined,
        q.active_on ? or(isNull(t.effective_to), gte(t.effective_to, q.active_on)) : undefined,
      ],
      orderBy: [t.weekday, t.start_time, t.id],
    });
  });
}

/** Typed as the schema's answer, so the shared serializer is checked against it. */
export const getProviderSchedule: (ctx: OrgContext, id: string) => Promise<ProviderSchedule> = templates.get;

export async function createProviderSchedule(ctx: OrgContext, input: ProviderScheduleCreate) {
  return withTransaction(ctx, function* (s) {
    const place = yield* requireHoursPlace(s.tx, input);
    const values = {
      ...place,
      weekday: input.weekday,
      start_time: input.start_time,
      end_time: input.end_time,
      effective_from: input.effective_from ?? null,
      effective_to: input.effective_to ?? null,
    };
    checkRules(values);
    yield* assertNoOverlap(s.tx, values);
    const row = yield* records.create(s, values, {
      provider_id: place.provider_id,
      location_id: place.location_id,
      operatory_id: place.operatory_id,
      weekday: values.weekday,
    });
    return yield* templates.one(s.tx, row);
  });
}

export async function updateProviderSchedule(ctx: OrgContext, id: string, input: ProviderSchedulePatch) {
  const { base_version, operatory_uuid, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const current = yield* records.requireCurrent(s.tx, id, base_version);
    const changes: Partial<Row> = { ...patch };
    if (operatory_uuid !== undefined) changes.operatory_id = yield* operatoryChange(s.tx, operatory_uuid, current.location_id);
    const next = { ...current, ...changes };
    checkRules(next);
    yield* assertNoOverlap(s.tx, next, id);
    const row = yield* records.update(s, id, base_version, changes);
    return yield* templates.one(s.tx, row);
  });
}

export const deleteProviderSchedule = templates.remove;

/** Schedule templates write provider schedules through the same record mechanics (scheduling/schedule-templates/apply.ts). */
export const providerScheduleRecords = records;
