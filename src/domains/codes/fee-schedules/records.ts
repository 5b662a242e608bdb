import { feeSchedules, fees } from "@db/tenant/fee-schedules";
import { declareUniqueConflict } from "@/platform/db/constraints";
import type { Work } from "@/platform/db/work";
import { formatCents } from "@/platform/money";
import type { TenantDb } from "@/platform/records/context";
import { FEE_SCHEDULE_NAMES, LOCATION_NAMES } from "@/platform/records/names";
import { idsOf, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { procedureCodesById, type ProcedureCodeRow } from "@/domains/codes/procedure-codes/service";
import type { Fee, FeeSchedule } from "./schemas";

// The two records of the feature and how they are answered. Other domains
// import requireFeeSchedule from here (the 404 of a fee_schedule_uuid they are
// given) and nothing else.

export type FeeScheduleRow = typeof feeSchedules.$inferSelect;
export type FeeRow = typeof fees.$inferSelect;

export const NAME_TAKEN = "Another fee schedule already uses this name";
// two writes racing for one name: the partial unique index decides
declareUniqueConflict("fee_schedules.name", NAME_TAKEN);

export const serializeFeeSchedule = (r: FeeScheduleRow): FeeSchedule => ({
  id: r.id,
  name: r.name,
  schedule_type: r.schedule_type as FeeSchedule["schedule_type"],
  is_hidden: r.is_hidden,
  is_default: r.is_default,
  copy_status: r.copy_status as FeeSchedule["copy_status"],
  copy_total: r.copy_total,
  copy_done: r.copy_done,
  copy_error: r.copy_error,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

export const feeScheduleRecords = defineResource<FeeScheduleRow, FeeSchedule>({
  table: feeSchedules,
  name: "fee_schedule",
  label: "Fee schedule",
  serialize: serializeFeeSchedule,
});

// The audit trail keeps the stored row (the org's own database); events name fields, never amounts.
export const feeRecords = defineResource<FeeRow, FeeRow>({
  table: fees,
  name: "fee",
  label: "Fee",
  serialize: (r) => ({ ...r }),
  // a location's own fee belongs to that practice
  practiceId: (r) => r.location_id,
  eventFields: { rename: { amount_cents: "amount" }, stripIdSuffix: true },
});

/**
 * For other domains (patients, providers, locations, insurance plans, estimate
 * books): the fee schedule a `fee_schedule_uuid` names, live (not archived),
 * else 404 "Fee schedule not found". Another org's id is not in this database.
 */
export function* requireFeeSchedule(db: TenantDb, id: string): Work<FeeScheduleRow> {
  return yield* feeScheduleRecords.require(db, id);
}

export type FeeRefs = { schedules: Names; locations: Names; codes: Map<string, ProcedureCodeRow> };

/** What fees point at: schedule and location names, the codes whole (archived ones too: a fee keeps its code). */
export function* feeRefsOf(db: TenantDb, rows: FeeRow[]): Work<FeeRefs> {
  const names = yield* namesOfEach(db, {
    schedules: [FEE_SCHEDULE_NAMES, idsOf(rows, (r) => r.fee_schedule_id)],
    locations: [LOCATION_NAMES, idsOf(rows, (r) => r.location_id)],
  });
  return {
    ...names,
    codes: yield* procedureCodesById(
      db,
      idsOf(rows, (r) => r.procedure_code_id),
    ),
  };
}

export function serializeFee(r: FeeRow, refs: FeeRefs): Fee {
  const code = refs.codes.get(r.procedure_code_id);
  return {
    id: r.id,
    fee_schedule: ref(r.fee_schedule_id, refs.schedules),
    procedure_code: { uuid: r.procedure_code_id, name: code?.code ?? null },
    procedure_description: code?.short_name ?? null,
    location: ref(r.location_id, refs.locations),
    amount: formatCents(r.amount_cents)!,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  };
}

export function* serializeFees(db: TenantDb, rows: FeeRow[]): Work<Fee[]> {
  const refs = yield* feeRefsOf(db, rows);
  return rows.map((r) => serializeFee(r, refs));
}

/** Event data of a fee: what it is a fee of (ids), never its amount. */
export const feeEventData = (r: Pick<FeeRow, "fee_schedule_id" | "procedure_code_id" | "location_id">) => ({
  fee_schedule_id: r.fee_schedule_id,
  procedure_code_id: r.procedure_code_id,
  location_id: r.location_id,
});
