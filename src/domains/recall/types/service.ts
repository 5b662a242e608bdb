import { and, asc, inArray, isNull } from "drizzle-orm";
import { procedureCodes } from "@db/tenant/codes";
import { recallTypes } from "@db/tenant/recall";
import { appointmentTypes } from "@db/tenant/appointments";
import { all, type Work } from "@/platform/db/work";
import { invalid, NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { queueJob } from "@/platform/queue/enqueue";
import { pageOf } from "@/platform/records/paging";
import { requireAppointmentType } from "@/domains/scheduling/appointment-types/service";
import { recallsRecompute } from "@/domains/recall/patient-recalls/recompute.job";
import type { Interval, RecallType, RecallTypeCreate, RecallTypeListQuery, RecallTypePatch } from "./schemas";

export type RecallTypeRow = typeof recallTypes.$inferSelect;

/** What a recall type's answer names besides its row: its trigger codes and its appointment type. */
type TypeRefs = {
  codes: Map<string, { code: string; short_name: string }>;
  appointmentTypes: Map<string, { name: string; duration_minutes: number }>;
};

const EMPTY: TypeRefs = { codes: new Map(), appointmentTypes: new Map() };

export const intervalOf = (r: Pick<RecallTypeRow, "interval_months" | "interval_weeks" | "interval_days">): Interval => ({
  months: r.interval_months,
  weeks: r.interval_weeks,
  days: r.interval_days,
});

export function serializeRecallType(r: RecallTypeRow, refs: TypeRefs = EMPTY): RecallType {
  const apptType = r.default_appointment_type_id ? refs.appointmentTypes.get(r.default_appointment_type_id) : undefined;
  return {
    id: r.id,
    name: r.name,
    interval: intervalOf(r),
    trigger_procedure_codes: r.trigger_procedure_code_ids.map((id) => {
      const c = refs.codes.get(id);
      return { uuid: id, code: c?.code ?? "", name: c?.short_name ?? null };
    }),
    default_appointment_type: r.default_appointment_type_id ? { uuid: r.default_appointment_type_id, name: apptType?.name ?? null } : null,
    time_pattern: r.time_pattern,
    default_length_minutes: r.time_pattern ? r.time_pattern.length * 10 : (apptType?.duration_minutes ?? null),
    is_perio: r.is_perio,
    seed_key: r.seed_key,
    archived_at: r.archived_at,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

// the audit's snapshots are the row's own fields (the refs are names, read when answering)
export const recallTypeRecords = defineResource<RecallTypeRow, RecallType>({
  table: recallTypes,
  name: "recall_type",
  label: "Recall type",
  serialize: (r) => serializeRecallType(r),
  eventFields: { rename: { interval_months: "interval", interval_weeks: "interval", interval_days: "interval" }, stripIdSuffix: true },
});

/** The names a page of types shows: their codes (with the code) and appointment types. */
function* refsOf(db: TenantDb, rows: RecallTypeRow[]): Work<TypeRefs> {
  const codeIds = [...new Set(rows.flatMap((r) => r.trigger_procedure_code_ids))];
  const typeIds = [...new Set(rows.flatMap((r) => (r.default_appointment_type_id ? [r.default_appointment_type_id] : [])))];
  const codes = codeIds.length
    ? yield* all<{ id: string; code: string; short_name: string }>(
        db
          .select({ id: procedureCodes.id, code: procedureCodes.code, short_name: procedureCodes.short_name })
          .from(procedureCodes)
          .where(inArray(procedureCodes.id, codeIds)),
      )
    : [];
  const types = typeIds.length
    ? yield* all<{ id: string; name: string; duration_minutes: number }>(
        db
          .select({ id: appointmentTypes.id, name: appointmentTypes.name, duration_minutes: appointmentTypes.duration_minutes })
          .from(appointmentTypes)
          .where(inArray(appointmentTypes.id, typeIds)),
      )
    : [];
  return { codes: new Map(codes.map((c) => [c.id, c])), appointmentTypes: new Map(types.map((t) => [t.id, t])) };
}

function* present(db: TenantDb, row: RecallTypeRow): Work<RecallType> {
  return serializeRecallType(row, yield* refsOf(db, [row]));
}

/** 422 invalid_interval unless some part is above zero. */
export function checkInterval(i: Interval, loc: (string | number)[]): void {
  if (i.months + i.weeks + i.days === 0) throw invalid(loc, "At least one of months, weeks and days must be above zero", "value_error", "invalid_interval");
}

/** Every trigger code must be a live procedure code of this org: 404 naming the first one that is not. */
function* checkTriggerCodes(db: TenantDb, ids: string[]): Work<void> {
  const found = yield* all<{ id: string }>(
    db
      .select({ id: procedureCodes.id })
      .from(procedureCodes)
      .where(and(inArray(procedureCodes.id, ids), isNull(procedureCodes.deleted_at))),
  );
  const known = new Set(found.map((c) => c.id));
  const missing = ids.find((id) => !known.has(id));
  if (missing) throw new NotFound(`Procedure code ${missing}`);
}

/** The type a write or a new recall names: 404 when missing; 422 recall_type_archived when archived. */
export function* requireLiveRecallType(db: TenantDb, id: string, loc: (string | number)[]): Work<RecallTypeRow> {
  const row = yield* recallTypeRecords.require(db, id);
  if (row.archived_at) throw invalid(loc, "The recall type is archived", "value_error", "recall_type_archived");
  return row;
}

export async function listRecallTypes(ctx: OrgContext, q: RecallTypeListQuery) {
  return ctx.db.read(function* (db) {
    const page = yield* recallTypeRecords.list(db, q, {
      where: [q.include_archived ? undefined : isNull(recallTypes.archived_at)],
      orderBy: [asc(recallTypes.name), asc(recallTypes.id)],
    });
    const refs = yield* refsOf(db, page.items);
    return pageOf(
      page.items.map((r) => serializeRecallType(r, refs)),
      page.total,
      q,
    );
  });
}

export async function getRecallType(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return yield* present(db, yield* recallTypeRecords.require(db, id));
  });
}

export async function createRecallType(ctx: OrgContext, input: RecallTypeCreate) {
  checkInterval(input.interval, ["body", "interval"]);
  return withTransaction(ctx, function* (s) {
    yield* checkTriggerCodes(s.tx, input.trigger_procedure_code_uuids);
    if (input.default_appointment_type_uuid) yield* requireAppointmentType(s.tx, input.default_appointment_type_uuid);
    const row = yield* recallTypeRecords.create(s, {
      name: input.name,
      interval_months: input.interval.months,
      interval_weeks: input.interval.weeks,
      interval_days: input.interval.days,
      trigger_procedure_code_ids: input.trigger_procedure_code_uuids,
      default_appointment_type_id: input.default_appointment_type_uuid ?? null,
      time_pattern: input.time_pattern ?? null,
      is_perio: input.is_perio ?? false,
      seed_key: null,
      archived_at: null,
    });
    return yield* present(s.tx, row);
  });
}

export async function updateRecallType(ctx: OrgContext, id: string, input: RecallTypePatch) {
  const { base_version, interval, trigger_procedure_code_uuids, default_appointment_type_uuid, ...rest } = input;
  if (interval) checkInterval(interval, ["body", "interval"]);
  return withTransaction(ctx, function* (s) {
    const before = yield* recallTypeRecords.requireCurrent(s.tx, id, base_version);
    if (before.archived_at) throw invalid(["path", "recall_type_uuid"], "The recall type is archived", "value_error", "recall_type_archived");
    const patch: Partial<RecallTypeRow> = { ...rest };
    if (interval) Object.assign(patch, { interval_months: interval.months, interval_weeks: interval.weeks, interval_days: interval.days });
    if (trigger_procedure_code_uuids) {
      yield* checkTriggerCodes(s.tx, trigger_procedure_code_uuids);
      patch.trigger_procedure_code_ids = trigger_procedure_code_uuids;
    }
    if (default_appointment_type_uuid !== undefined) {
      if (default_appointment_type_uuid) yield* requireAppointmentType(s.tx, default_appointment_type_uuid);
      patch.default_appointment_type_id = default_appointment_type_uuid;
    }
    const row = yield* recallTypeRecords.update(s, id, base_version, patch);
    // what every recall of the type is computed from changed: the org's recalls are recomputed after commit
    const recomputes =
      row.interval_months !== before.interval_months ||
      row.interval_weeks !== before.interval_weeks ||
      row.interval_days !== before.interval_days ||
      row.is_perio !== before.is_perio ||
      JSON.stringify(row.trigger_procedure_code_ids) !== JSON.stringify(before.trigger_procedure_code_ids);
    if (recomputes) queueJob(s, recallsRecompute, { all: true });
    return yield* present(s.tx, row);
  });
}

/** Archive: the type leaves lists and takes no new recalls; archiving an archived type answers it unchanged. */
export async function archiveRecallType(ctx: OrgContext, id: string) {
  return withTransaction(ctx, function* (s) {
    const before = yield* recallTypeRecords.require(s.tx, id);
    const row = before.archived_at ? before : yield* recallTypeRecords.update(s, id, before.version, { archived_at: s.now }, { action: "archived" });
    return yield* present(s.tx, row);
  });
}

/** Every recall type of the org (archived too), for the recompute. */
export function* allRecallTypes(db: TenantDb): Work<RecallTypeRow[]> {
  return yield* all<RecallTypeRow>(db.select().from(recallTypes).orderBy(asc(recallTypes.id)));
}

/** Whether a procedure code resets a recall of any type (archived ones too: their recalls stay live). */
export function* isTriggerCode(db: TenantDb, codeIds: (string | null | undefined)[]): Work<boolean> {
  const wanted = new Set(codeIds.filter((c): c is string => !!c));
  if (!wanted.size) return false;
  const types = yield* all<{ ids: string[] }>(db.select({ ids: recallTypes.trigger_procedure_code_ids }).from(recallTypes));
  return types.some((t) => t.ids.some((id) => wanted.has(id)));
}
