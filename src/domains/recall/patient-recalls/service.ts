import { and, asc, eq, isNull } from "drizzle-orm";
import { definitions } from "@db/tenant/definitions";
import { patientRecalls, recallTypes } from "@db/tenant/recall";
import { get, type Work } from "@/platform/db/work";
import { Conflict, NotFound } from "@/platform/errors";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { APPOINTMENT_NAMES, DEFINITION_NAMES, PATIENT_NAMES } from "@/platform/records/names";
import { pageOf } from "@/platform/records/paging";
import { nameSource, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import { allRecallTypes, checkInterval, intervalOf, recallTypeRecords, requireLiveRecallType, type RecallTypeRow } from "@/domains/recall/types/service";
import {
  computeRecall,
  factsOf,
  perioActiveIn,
  recallsOfPatient,
  sameComputed,
  startingCodes,
  type PatientFacts,
  type PatientRecallRow,
  type RecallInputs,
} from "./compute";
import type { PatientRecall, PatientRecallCreate, PatientRecallDeleteQuery, PatientRecallListQuery, PatientRecallPatch, RecallStatus } from "./schemas";

export const RECALL_TYPE_NAMES = nameSource(recallTypes.id, { name: recallTypes.name }, (r) => r.name);

type Refs = { patients: Names; types: Names; statuses: Names; appointments: Names; perio: Set<string>; intervals: Map<string, RecallTypeRow> };

export function serializeRecall(r: PatientRecallRow, refs?: Refs): PatientRecall {
  const type = refs?.intervals.get(r.recall_type_id);
  return {
    id: r.id,
    patient: ref(r.patient_id, refs?.patients),
    recall_type: ref(r.recall_type_id, refs?.types),
    is_perio: !!type?.is_perio,
    interval: r.interval_override ?? (type ? intervalOf(type) : { months: 0, weeks: 0, days: 0 }),
    interval_override: r.interval_override,
    date_due_override: r.date_due_override,
    note: r.note,
    is_disabled: r.is_disabled,
    disable_until_date: r.disable_until_date,
    disable_until_balance: formatCents(r.disable_until_balance_cents),
    recall_status: ref(r.recall_status_id, refs?.statuses),
    date_previous: r.date_previous,
    date_due: r.date_due,
    date_scheduled: r.date_scheduled,
    scheduled_appointment: ref(r.scheduled_appointment_id, refs?.appointments),
    status: r.status as RecallStatus,
    computed_at: r.computed_at,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export const recallRecords = defineResource<PatientRecallRow, PatientRecall>({
  table: patientRecalls,
  name: "recall",
  label: "Recall",
  serialize: (r) => serializeRecall(r),
  eventFields: { rename: { disable_until_balance_cents: "disable_until_balance", computed_at: null }, stripIdSuffix: true },
});

function* refsOf(db: TenantDb, rows: PatientRecallRow[]): Work<Refs> {
  const names = yield* namesOfEach(db, {
    patients: [PATIENT_NAMES, rows.map((r) => r.patient_id)],
    types: [RECALL_TYPE_NAMES, rows.map((r) => r.recall_type_id)],
    statuses: [DEFINITION_NAMES, rows.map((r) => r.recall_status_id)],
    appointments: [APPOINTMENT_NAMES, rows.map((r) => r.scheduled_appointment_id)],
  });
  const types = new Map((yield* allRecallTypes(db)).map((t) => [t.id, t]));
  return { ...names, perio: new Set([...types.values()].filter((t) => t.is_perio).map((t) => t.id)), intervals: types };
}

function* present(db: TenantDb, row: PatientRecallRow): Work<PatientRecall> {
  return serializeRecall(row, yield* refsOf(db, [row]));
}

/** The recall under the patient in the path: 404 when missing, deleted or another patient's. */
function* requireRecallOf(db: TenantDb, patientId: string, id: string): Work<PatientRecallRow> {
  const row = yield* recallRecords.require(db, id);
  if (row.patient_id !== patientId) throw new NotFound("Recall");
  return row;
}

/** A definition of category recall_statuses that is not archived: 404 otherwise. */
function* checkRecallStatus(db: TenantDb, id: string | null | undefined): Work<void> {
  if (!id) return;
  const d = yield* get(
    db
      .select({ id: definitions.id })
      .from(definitions)
      .where(and(eq(definitions.id, id), eq(definitions.category, "recall_statuses"), isNull(definitions.deleted_at))),
  );
  if (!d) throw new NotFound("Recall status");
}

/** 409 duplicate while the patient has a live recall of the type. */
function* assertNoLiveRecall(db: TenantDb, patientId: string, typeId: string): Work<void> {
  const live = yield* get(
    db
      .select({ id: patientRecalls.id })
      .from(patientRecalls)
      .where(and(eq(patientRecalls.patient_id, patientId), eq(patientRecalls.recall_type_id, typeId), isNull(patientRecalls.deleted_at))),
  );
  if (live) throw new Conflict("The patient already has a recall of this type", "duplicate");
}

export async function listPatientRecalls(ctx: OrgContext, patientId: string, q: PatientRecallListQuery) {
  return ctx.db.read(function* (db) {
    yield* patientForRead(db, patientId);
    const page = yield* recallRecords.list(db, q, {
      where: [eq(patientRecalls.patient_id, patientId)],
      orderBy: [asc(patientRecalls.date_due), asc(patientRecalls.id)],
    });
    const refs = yield* refsOf(db, page.items);
    return pageOf(
      page.items.map((r) => serializeRecall(r, refs)),
      page.total,
      q,
    );
  });
}

export async function getPatientRecall(ctx: OrgContext, patientId: string, id: string) {
  return ctx.db.read(function* (db) {
    yield* patientForRead(db, patientId);
    return yield* present(db, yield* requireRecallOf(db, patientId, id));
  });
}

/** The computed fields of one recall of the patient, as the rules give them now (with the patient's other recalls). */
function* computeOne(s: TxScope, patientId: string, inputs: RecallInputs, type: RecallTypeRow, selfId: string | null) {
  const facts = (yield* factsOf(s.tx, patientId))!;
  const types = new Map((yield* allRecallTypes(s.tx)).map((t) => [t.id, t]));
  const others = (yield* recallsOfPatient(s.tx, patientId)).filter((r) => r.id !== selfId);
  const self = { recall_type_id: type.id, is_disabled: inputs.is_disabled, deleted_at: null };
  return { computed: computeRecall(inputs, type, facts, perioActiveIn([...others, self], types)), facts, types, others };
}

export async function createPatientRecall(ctx: OrgContext, patientId: string, input: PatientRecallCreate) {
  if (input.interval_override) checkInterval(input.interval_override, ["body", "interval_override"]);
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const type = yield* requireLiveRecallType(s.tx, input.recall_type_uuid, ["body", "recall_type_uuid"]);
    yield* checkRecallStatus(s.tx, input.recall_status_uuid);
    yield* assertNoLiveRecall(s.tx, patientId, type.id);
    const inputs = {
      interval_override: input.interval_override ?? null,
      date_due_override: input.date_due_override ?? null,
      note: input.note ?? "",
      is_disabled: input.is_disabled ?? false,
      disable_until_date: input.disable_until_date ?? null,
      disable_until_balance_cents:
        input.disable_until_balance === undefined || input.disable_until_balance === null ? null : centsFromNumber(input.disable_until_balance),
      recall_status_id: input.recall_status_uuid ?? null,
      created_at: s.now,
    };
    const { computed, facts, types, others } = yield* computeOne(s, patientId, inputs, type, null);
    const { created_at: _created, ...values } = inputs;
    const row = yield* recallRecords.create(
      s,
      { patient_id: patientId, recall_type_id: type.id, ...values, ...computed, computed_at: s.now },
      { patient_id: patientId },
      patient.location_id,
    );
    // a new (or newly enabled) perio recall switches the prophy ones off, and the other way round
    if (type.is_perio) yield* settleOthers(s, facts, types, [...others, row], row.id);
    return yield* present(s.tx, row);
  });
}

export async function updatePatientRecall(ctx: OrgContext, patientId: string, id: string, input: PatientRecallPatch) {
  const { base_version, disable_until_balance, recall_status_uuid, ...rest } = input;
  if (rest.interval_override) checkInterval(rest.interval_override, ["body", "interval_override"]);
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const before = yield* requireRecallOf(s.tx, patientId, id);
    const patch: Partial<PatientRecallRow> = { ...rest };
    if (disable_until_balance !== undefined) patch.disable_until_balance_cents = disable_until_balance === null ? null : centsFromNumber(disable_until_balance);
    if (recall_status_uuid !== undefined) {
      yield* checkRecallStatus(s.tx, recall_status_uuid);
      patch.recall_status_id = recall_status_uuid;
    }
    const type = yield* recallTypeRecords.require(s.tx, before.recall_type_id);
    const { computed, facts, types, others } = yield* computeOne(s, patientId, { ...before, ...patch }, type, before.id);
    const row = yield* recallRecords.update(
      s,
      id,
      base_version,
      { ...patch, ...computed, computed_at: s.now },
      { eventData: { patient_id: patientId }, practiceId: patient.location_id },
    );
    if (type.is_perio && row.is_disabled !== before.is_disabled) yield* settleOthers(s, facts, types, [...others, row], row.id);
    return yield* present(s.tx, row);
  });
}

export async function deletePatientRecall(ctx: OrgContext, patientId: string, id: string, q: PatientRecallDeleteQuery) {
  await withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const before = yield* requireRecallOf(s.tx, patientId, id);
    const row = yield* recallRecords.update(
      s,
      id,
      q.base_version,
      { deleted_at: s.now },
      { action: "deleted", eventData: { patient_id: patientId }, practiceId: patient.location_id },
    );
    const types = new Map((yield* allRecallTypes(s.tx)).map((t) => [t.id, t]));
    if (types.get(before.recall_type_id)?.is_perio) {
      const facts = (yield* factsOf(s.tx, patientId))!;
      yield* settleOthers(s, facts, types, [...(yield* recallsOfPatient(s.tx, patientId)).filter((r) => r.id !== row.id), row], row.id);
    }
  });
}

/** The patient's other live recalls worked out again after a perio recall changed (what disables a prophy one). */
function* settleOthers(s: TxScope, facts: PatientFacts, types: Map<string, RecallTypeRow>, recalls: PatientRecallRow[], changedId: string): Work<void> {
  const perioActive = perioActiveIn(recalls, types);
  for (const r of recalls) {
    if (r.id === changedId || r.deleted_at) continue;
    yield* writeComputed(s, r, types.get(r.recall_type_id)!, facts, perioActive);
  }
}

/** Writes a recall's computed fields when they changed (event recall.updated); answers whether it wrote. */
export function* writeComputed(s: TxScope, r: PatientRecallRow, type: RecallTypeRow, facts: PatientFacts, perioActive: boolean): Work<boolean> {
  const computed = computeRecall(r, type, facts, perioActive);
  if (sameComputed(computed, r)) return false;
  yield* recallRecords.update(
    s,
    r.id,
    r.version,
    { ...computed, computed_at: s.now },
    { action: "recomputed", event: "updated", eventData: { patient_id: r.patient_id }, practiceId: facts.locationId },
  );
  return true;
}

/**
 * One patient's recalls worked out again (the job's unit, in the caller's
 * transaction): the recalls that start by themselves are made (a type the
 * patient never had a recall of, a starting code completed), then every live
 * recall is written where its computed fields changed.
 */
export function* recomputePatient(
  s: TxScope,
  patientId: string,
  types: Map<string, RecallTypeRow>,
  starting: Map<string, Set<string>>,
): Work<{ created: number; updated: number }> {
  const facts = yield* factsOf(s.tx, patientId);
  if (!facts) return { created: 0, updated: 0 };
  const recalls = yield* recallsOfPatient(s.tx, patientId);
  const had = new Set(recalls.map((r) => r.recall_type_id));
  const toStart = facts.archived
    ? []
    : [...starting.entries()]
        .filter(([typeId, codes]) => !had.has(typeId) && [...codes].some((c) => facts.lastDone.has(c)))
        .map(([typeId]) => types.get(typeId)!);
  const pending = toStart.map((t) => ({ recall_type_id: t.id, is_disabled: false, deleted_at: null }));
  const perioActive = perioActiveIn([...recalls, ...pending], types);
  let created = 0;
  let updated = 0;
  for (const type of toStart) {
    const inputs = {
      interval_override: null,
      date_due_override: null,
      note: "",
      is_disabled: false,
      disable_until_date: null,
      disable_until_balance_cents: null,
      recall_status_id: null,
    };
    const computed = computeRecall({ ...inputs, created_at: s.now }, type, facts, perioActive);
    yield* recallRecords.create(
      s,
      { patient_id: patientId, recall_type_id: type.id, ...inputs, ...computed, computed_at: s.now },
      { patient_id: patientId, started_by: "completed_procedure" },
      facts.locationId,
    );
    created++;
  }
  for (const r of recalls) {
    if (r.deleted_at) continue;
    if (yield* writeComputed(s, r, types.get(r.recall_type_id)!, facts, perioActive)) updated++;
  }
  return { created, updated };
}

/** The org's recall types and the codes that start the automatic ones: read once per job run. */
export function* recallSetting(db: TenantDb) {
  const list = yield* allRecallTypes(db);
  return { types: new Map(list.map((t) => [t.id, t])), starting: yield* startingCodes(db, list) };
}
