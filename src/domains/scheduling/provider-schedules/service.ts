import { and, eq, gt, gte, isNull, lt, lte, ne, or } from "drizzle-orm";
import { providerSchedules } from "@db/tenant/scheduling";
import { get, type Work } from "@/platform/db/work";
import { Conflict, invalid } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { LOCATION_NAMES, OPERATORY_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { namesOfEach, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";
import { requireProvider } from "@/domains/providers/record/service";
import { providerAndLocation, requireOperatoryAt } from "./common";
import type { ProviderSchedule, ProviderScheduleCreate, ProviderScheduleListQuery, ProviderSchedulePatch } from "./schemas";

type Row = typeof providerSchedules.$inferSelect;

const serialize = (r: Row, n: Record<"providers" | "locations" | "operatories", Names>): ProviderSchedule => ({
  id: r.id,
  provider: ref(r.provider_id, n.providers),
  location: ref(r.location_id, n.locations),
  operatory: ref(r.operatory_id, n.operatories),
  weekday: r.weekday,
  start_time: r.start_time,
  end_time: r.end_time,
  effective_from: r.effective_from,
  effective_to: r.effective_to,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

// The audit trail keeps ids (names change).
const auditForm = (r: Row) => ({
  id: r.id,
  provider_uuid: r.provider_id,
  location_uuid: r.location_id,
  operatory_uuid: r.operatory_id,
  weekday: r.weekday,
  start_time: r.start_time,
  end_time: r.end_time,
  effective_from: r.effective_from,
  effective_to: r.effective_to,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

const records = defineResource<Row, ReturnType<typeof auditForm>>({
  table: providerSchedules,
  name: "provider_schedule",
  label: "Provider schedule",
  serialize: auditForm,
  practiceId: (r) => r.location_id,
  eventFields: { stripIdSuffix: true },
});

function* present(db: TenantDb, rows: Row[]): Work<ProviderSchedule[]> {
  const n = yield* namesOfEach(db, {
    providers: [PROVIDER_NAMES, rows.map((r) => r.provider_id)],
    locations: [LOCATION_NAMES, rows.map((r) => r.location_id)],
    operatories: [OPERATORY_NAMES, rows.map((r) => r.operatory_id)],
  });
  return rows.map((r) => serialize(r, n));
}

/** 422 unless start < end and the effective dates are in order. */
function checkRules(v: Pick<Row, "start_time" | "end_time" | "effective_from" | "effective_to">) {
  if (v.end_time <= v.start_time) throw invalid(["body", "end_time"], "Must be after start_time", "value_error", "invalid_hours");
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
    const page = yield* records.list(db, q, {
      where: [
        ...(yield* providerAndLocation(db, q, t)),
        q.weekday !== undefined ? eq(t.weekday, q.weekday) : undefined,
        q.active_on ? or(isNull(t.effective_from), lte(t.effective_from, q.active_on)) : undefined,
        q.active_on ? or(isNull(t.effective_to), gte(t.effective_to, q.active_on)) : undefined,
      ],
      orderBy: [t.weekday, t.start_time, t.id],
    });
    return { ...page, items: yield* present(db, page.items) };
  });
}

export async function getProviderSchedule(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return (yield* present(db, [yield* records.require(db, id)]))[0]!;
  });
}

export async function createProviderSchedule(ctx: OrgContext, input: ProviderScheduleCreate) {
  return withTransaction(ctx, function* (s) {
    const provider = yield* requireProvider(s.tx, input.provider_uuid);
    const location = yield* locationRecords.require(s.tx, input.location_uuid);
    const operatory = input.operatory_uuid ? yield* requireOperatoryAt(s.tx, input.operatory_uuid, location.id) : null;
    const values = {
      provider_id: provider.id,
      location_id: location.id,
      operatory_id: operatory?.id ?? null,
      weekday: input.weekday,
      start_time: input.start_time,
      end_time: input.end_time,
      effective_from: input.effective_from ?? null,
      effective_to: input.effective_to ?? null,
    };
    checkRules(values);
    yield* assertNoOverlap(s.tx, values);
    const row = yield* records.create(s, values, {
      provider_id: provider.id,
      location_id: location.id,
      operatory_id: values.operatory_id,
      weekday: values.weekday,
    });
    return (yield* present(s.tx, [row]))[0]!;
  });
}

export async function updateProviderSchedule(ctx: OrgContext, id: string, input: ProviderSchedulePatch) {
  const { base_version, operatory_uuid, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const current = yield* records.requireCurrent(s.tx, id, base_version);
    const changes: Partial<Row> = { ...patch };
    if (operatory_uuid !== undefined)
      changes.operatory_id = operatory_uuid === null ? null : (yield* requireOperatoryAt(s.tx, operatory_uuid, current.location_id)).id;
    const next = { ...current, ...changes };
    checkRules(next);
    yield* assertNoOverlap(s.tx, next, id);
    const row = yield* records.update(s, id, base_version, changes);
    return (yield* present(s.tx, [row]))[0]!;
  });
}

export async function deleteProviderSchedule(ctx: OrgContext, id: string, baseVersion: number) {
  await withTransaction(ctx, (s) => records.archive(s, id, baseVersion, "deleted"));
}
