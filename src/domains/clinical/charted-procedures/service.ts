import { and, eq, gte, inArray, isNull, lte, ne, not, type SQL } from "drizzle-orm";
import { chartedProcedures, procedureSpanMembers, procedureSpans } from "@db/tenant/charted-procedures";
import { explosionCodes, procedureCodes } from "@db/tenant/codes";
import { definitions } from "@db/tenant/definitions";
import { appointments } from "@db/tenant/appointments";
import { locations, providers } from "@db/tenant/practice";
import { all, get, type Work } from "@/platform/db/work";
import { InvalidTransition, invalid, NotFound } from "@/platform/errors";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { withEventContext } from "@/platform/records/events";
import {
  APPOINTMENT_NAMES,
  DEFINITION_NAMES,
  EXPLOSION_CODE_NAMES,
  FEE_SCHEDULE_NAMES,
  LOCATION_NAMES,
  PATIENT_NAMES,
  PROVIDER_NAMES,
} from "@/platform/records/names";
import { idsOf, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { startsWithText } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { checkVersion } from "@/platform/records/versions";
import { todayAt } from "@/domains/providers/locations/service";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import type { PatientRow } from "@/domains/patients/record/service";
import type { TreatmentArea } from "@db/tenant/codes";
import { procedureCodeRecords, type ProcedureCodeRow } from "@/domains/codes/procedure-codes/service";
import { resolveOfficeFee } from "@/domains/codes/fee-schedules/resolve";
import { unlinkFromPlans } from "@/domains/clinical/treatment-plans/records";
import type { ProcedureStatus } from "@/domains/codes/dental-vocabulary";
import type { ChartedProcedure, ProcedureCreate, ProcedureListQuery, ProcedurePatch } from "./schemas";
import { checkSite, SITE_FIELDS, type Site } from "./site";
import { announce } from "@/platform/records/moments";
import { procedureCompleted, procedureDeleted, procedureFeeChanged, procedureMoment } from "./moments";

export type ProcedureRow = typeof chartedProcedures.$inferSelect;

// audit snapshots are the stored row: the org's own trail may hold clinical text
export const procedureRecords = defineResource<ProcedureRow, ProcedureRow>({
  table: chartedProcedures,
  name: "charted_procedure",
  label: "Charted procedure",
  serialize: (r) => ({ ...r }),
});

/**
 * Where each status may go (docs/clinical/charting.md). existing_current and
 * existing_other are entry states only and, like complete and
 * complete_referred, final.
 */
export const TRANSITIONS: Record<ProcedureStatus, readonly ProcedureStatus[]> = {
  treatment_planned: ["scheduled", "in_progress", "complete", "referred"],
  scheduled: ["treatment_planned", "in_progress", "complete"],
  in_progress: ["scheduled", "complete"],
  referred: ["treatment_planned", "complete_referred"],
  complete: [],
  complete_referred: [],
  existing_current: [],
  existing_other: [],
};
const DONE: readonly string[] = ["complete", "complete_referred"];
export const isDone = (status: string) => DONE.includes(status);

// ---- events ------------------------------------------------------------------------------

/** Events written by `work` carry whose chart it is and belong to the patient's practice. */
export const onChartOf = <T>(s: TxScope, patient: Pick<PatientRow, "id" | "location_id">, work: Work<T>): Work<T> =>
  withEventContext(s, { practiceId: patient.location_id, data: { patient_id: patient.id } }, work);

// ---- references --------------------------------------------------------------------------

type Refs = Record<"patients" | "providers" | "locations" | "appointments" | "definitions" | "explosions" | "feeSchedules", Names> & {
  codes: Map<string, ProcedureCodeRow>;
};

/** Names of everything the rows refer to, archived targets included (a link stays readable); the codes whole. */
function* refsOf(db: TenantDb, rows: ProcedureRow[]): Work<Refs> {
  const codeIds = idsOf(rows, (r) => r.procedure_code_id);
  const codeRows = codeIds.length ? yield* all(db.select().from(procedureCodes).where(inArray(procedureCodes.id, codeIds))) : [];
  const names = yield* namesOfEach(db, {
    patients: [PATIENT_NAMES, idsOf(rows, (r) => r.patient_id)],
    providers: [PROVIDER_NAMES, idsOf(rows, (r) => r.provider_id)],
    locations: [LOCATION_NAMES, idsOf(rows, (r) => r.location_id)],
    appointments: [APPOINTMENT_NAMES, idsOf(rows, (r) => r.appointment_id)],
    definitions: [
      DEFINITION_NAMES,
      idsOf(
        rows,
        (r) => r.priority_id,
        (r) => r.prognosis_id,
        (r) => r.diagnostic_code_id,
      ),
    ],
    explosions: [EXPLOSION_CODE_NAMES, idsOf(rows, (r) => r.explosion_code_id)],
    feeSchedules: [FEE_SCHEDULE_NAMES, idsOf(rows, (r) => r.fee_schedule_id)],
  });
  return { ...names, codes: new Map(codeRows.map((c) => [c.id, c])) };
}

export function serializeProcedure(r: ProcedureRow, refs: Refs): ChartedProcedure {
  const code = refs.codes.get(r.procedure_code_id);
  const effective = r.fee_override_cents ?? r.office_fee_cents;
  return {
    id: r.id,
    patient: ref(r.patient_id, refs.patients),
    procedure_code_uuid: r.procedure_code_id,
    procedure_code: r.procedure_code,
    procedure_description: code?.short_name ?? null,
    procedure_category: (code?.category ?? null) as ChartedProcedure["procedure_category"],
    treatment_area: r.treatment_area as TreatmentArea,
    tooth_number: r.tooth_number,
    surfaces: r.surfaces,
    quadrant: r.quadrant as ChartedProcedure["quadrant"],
    arch: r.arch as ChartedProcedure["arch"],
    sextant: r.sextant,
    tooth_range: r.tooth_range,
    status: r.status as ProcedureStatus,
    date_service: r.date_service,
    date_treatment_planned: r.date_treatment_planned,
    date_completed: r.date_completed,
    date_original_prosthetic: r.date_original_prosthetic,
    provider: ref(r.provider_id, refs.providers),
    location: ref(r.location_id, refs.locations),
    appointment: ref(r.appointment_id, refs.appointments),
    office_fee: formatCents(r.office_fee_cents)!,
    fee_schedule: ref(r.fee_schedule_id, refs.feeSchedules),
    fee_override: formatCents(r.fee_override_cents),
    effective_fee: formatCents(effective)!,
    fee_source: r.fee_override_cents === null ? "fee_schedule" : "override",
    billing_order_code: r.billing_order_code as ChartedProcedure["billing_order_code"],
    do_not_bill_insurance: r.do_not_bill_insurance,
    is_prosthetic: r.is_prosthetic,
    has_active_claim: r.has_active_claim,
    note: r.note,
    clinical_note: r.clinical_note,
    billing_note: r.billing_note,
    material_type_code: r.material_type_code,
    priority: ref(r.priority_id, refs.definitions),
    prognosis: ref(r.prognosis_id, refs.definitions),
    diagnostic_code: ref(r.diagnostic_code_id, refs.definitions),
    diagnosis_code_1: r.diagnosis_code_1,
    diagnosis_code_2: r.diagnosis_code_2,
    diagnosis_code_3: r.diagnosis_code_3,
    diagnosis_code_4: r.diagnosis_code_4,
    explosion_code: ref(r.explosion_code_id, refs.explosions),
    bundle_group_id: r.bundle_group_id,
    code_sent: r.code_sent,
    item_order: r.item_order,
    visit_phase_hint: r.visit_phase_hint,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  };
}

/** For plans and spans too: the rows as API records, in the given order. */
export function* serializeProcedures(db: TenantDb, rows: ProcedureRow[]): Work<ChartedProcedure[]> {
  const refs = yield* refsOf(db, rows);
  return rows.map((r) => serializeProcedure(r, refs));
}

// ---- lookups for other domains --------------------------------------------------------------

/** This patient's procedure, not deleted: 404 "Charted procedure" otherwise (also another patient's). */
export function* requirePatientProcedure(db: TenantDb, patientId: string, id: string): Work<ProcedureRow> {
  const row = yield* procedureRecords.find(db, id);
  if (!row || row.patient_id !== patientId) throw new NotFound("Charted procedure");
  return row;
}

/** The not-deleted span (if any) each procedure is a member of. */
export function* activeSpanOf(db: TenantDb, procedureIds: string[]): Work<Map<string, string>> {
  if (!procedureIds.length) return new Map();
  const rows = yield* all(
    db
      .select({ procedure: procedureSpanMembers.charted_procedure_id, span: procedureSpans.id })
      .from(procedureSpanMembers)
      .innerJoin(procedureSpans, eq(procedureSpans.id, procedureSpanMembers.span_id))
      .where(and(inArray(procedureSpanMembers.charted_procedure_id, procedureIds), isNull(procedureSpans.deleted_at))),
  );
  return new Map(rows.map((r) => [r.procedure, r.span]));
}

/** Soft-delete one procedure and remove it from its treatment plans (event charted_procedure.deleted). */
export function* softDeleteProcedure(s: TxScope, row: ProcedureRow): Work<void> {
  yield* procedureRecords.update(s, row.id, undefined, { deleted_at: s.now }, { action: "deleted" });
  yield* unlinkFromPlans(s, [row.id]);
  yield* announce(s, procedureDeleted, procedureMoment(row));
}

// ---- write rules ------------------------------------------------------------------------------

type Writable = Omit<ProcedurePatch, "base_version" | "status">;

/** A chartable code: 404 when missing or archived, 422 when inactive. */
function* chartableCode(db: TenantDb, id: string): Work<ProcedureCodeRow> {
  const code = yield* procedureCodeRecords.require(db, id);
  if (code.status !== "active")
    throw invalid(["body", "procedure_code_uuid"], "The procedure code is inactive and cannot be charted", "value_error", "procedure_code_inactive");
  return code;
}

const DEFINITION_REFS = [
  ["priority_id", "priority", "Priority"],
  ["prognosis_id", "prognosis", "Prognosis"],
  ["diagnostic_code_id", "diagnosis_codes", "Diagnostic code"],
] as const;

/** Every reference being set must exist in this org (not archived): 404 naming which. */
function* checkRefs(db: TenantDb, patient: PatientRow, v: Partial<ProcedureRow>): Work<void> {
  const exists = function* (table: any, id: string, extra?: SQL) {
    return !!(yield* get(
      db
        .select({ id: table.id })
        .from(table)
        .where(and(eq(table.id, id), isNull(table.deleted_at), extra)),
    ));
  };
  if (v.provider_id && !(yield* exists(providers, v.provider_id))) throw new NotFound("Provider");
  if (v.location_id && !(yield* exists(locations, v.location_id))) throw new NotFound("Location");
  if (v.appointment_id && !(yield* exists(appointments, v.appointment_id, eq(appointments.patient_id, patient.id)))) throw new NotFound("Appointment");
  for (const [col, category, label] of DEFINITION_REFS) {
    const id = v[col];
    if (id && !(yield* exists(definitions, id, eq(definitions.category, category)))) throw new NotFound(label);
  }
  if (v.explosion_code_id && !(yield* exists(explosionCodes, v.explosion_code_id))) throw new NotFound("Explosion code");
}

/** Work recorded as done cannot be dated after today. */
function checkDoneDate(status: string, dateService: string, today: string) {
  if (isDone(status) && dateService > today)
    throw invalid(["body", "date_service"], "A completed procedure cannot be dated in the future", "value_error", "future_date_service");
}

/** The office fee of a procedure as it will be: its provider's and location's (else the patient's home location's) schedules, by the chain of fee resolution. */
function officeFeeOf(db: TenantDb, patient: PatientRow, v: Pick<Partial<ProcedureRow>, "provider_id" | "location_id"> & { procedure_code_id: string }) {
  return resolveOfficeFee(db, {
    patient_fee_schedule_id: patient.fee_schedule_id,
    provider_id: v.provider_id ?? null,
    location_id: v.location_id ?? patient.location_id,
    procedure_code_id: v.procedure_code_id,
  });
}

/** API fields -> columns; only the fields present. */
function toColumns(input: Writable & { explosion_code_uuid?: string | null }): Partial<ProcedureRow> {
  const {
    procedure_code_uuid: _c,
    provider_uuid,
    location_uuid,
    appointment_uuid,
    priority_uuid,
    prognosis_uuid,
    diagnostic_code_uuid,
    explosion_code_uuid,
    fee_override,
    ...rest
  } = input;
  const out: Partial<ProcedureRow> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  const refs = {
    provider_id: provider_uuid,
    location_id: location_uuid,
    appointment_id: appointment_uuid,
    priority_id: priority_uuid,
    prognosis_id: prognosis_uuid,
    diagnostic_code_id: diagnostic_code_uuid,
    explosion_code_id: explosion_code_uuid,
  };
  for (const [k, v] of Object.entries(refs)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  if (fee_override !== undefined) out.fee_override_cents = fee_override === null ? null : centsFromNumber(fee_override);
  return out;
}

const siteOf = (r: Partial<ProcedureRow>): Site => Object.fromEntries(SITE_FIELDS.map((f) => [f, r[f] ?? null])) as Site;

// ---- verbs ------------------------------------------------------------------------------------

export async function createProcedure(ctx: OrgContext, patientId: string, input: ProcedureCreate): Promise<ChartedProcedure> {
  const { status = "treatment_planned", ...fields } = input;
  const values = toColumns(fields);
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const code = yield* chartableCode(s.tx, input.procedure_code_uuid);
    checkSite(code.treatment_area as TreatmentArea, siteOf(values));
    yield* checkRefs(s.tx, patient, values);
    const today = yield* todayAt(s.tx, values.location_id ?? patient.location_id);
    const dateService = values.date_service ?? today;
    checkDoneDate(status, dateService, today);
    const fee = yield* officeFeeOf(s.tx, patient, { ...values, procedure_code_id: code.id });
    const row = yield* onChartOf(
      s,
      patient,
      procedureRecords.create(
        s,
        {
          ...values,
          patient_id: patient.id,
          procedure_code_id: code.id,
          procedure_code: code.code,
          treatment_area: code.treatment_area,
          status,
          date_service: dateService,
          office_fee_cents: fee.office_fee_cents,
          fee_schedule_id: fee.fee_schedule_id,
          billing_order_code: values.billing_order_code ?? code.default_billing_order,
          date_treatment_planned: status === "treatment_planned" ? today : null,
          date_completed: isDone(status) ? s.now : null,
        },
        { status },
      ),
    );
    if (isDone(status)) yield* announce(s, procedureCompleted, { ...procedureMoment(row), from_status: null });
    return (yield* serializeProcedures(s.tx, [row]))[0]!;
  });
}

export async function getProcedure(ctx: OrgContext, id: string): Promise<ChartedProcedure> {
  return ctx.db.read(function* (db) {
    return (yield* serializeProcedures(db, [yield* procedureRecords.require(db, id)]))[0]!;
  });
}

export async function listProcedures(ctx: OrgContext, patientId: string, q: ProcedureListQuery) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const t = chartedProcedures;
    const billable = and(eq(t.status, "complete"), eq(t.do_not_bill_insurance, false), ne(t.billing_order_code, "N"))!;
    const page = yield* procedureRecords.list(db, q, {
      includeDeleted: q.include_deleted,
      where: [
        eq(t.patient_id, patient.id),
        q.status ? inArray(t.status, q.status) : undefined,
        q.tooth_number ? eq(t.tooth_number, q.tooth_number) : undefined,
        q.date_from ? gte(t.date_service, q.date_from) : undefined,
        q.date_to ? lte(t.date_service, q.date_to) : undefined,
        q.provider_uuid ? eq(t.provider_id, q.provider_uuid) : undefined,
        q.procedure_code ? startsWithText(t.procedure_code, q.procedure_code) : undefined,
        q.treatment_area ? eq(t.treatment_area, q.treatment_area) : undefined,
        q.billable === undefined ? undefined : q.billable ? billable : not(billable),
        q.do_not_bill_insurance === undefined ? undefined : eq(t.do_not_bill_insurance, q.do_not_bill_insurance),
        q.billing_order_code ? eq(t.billing_order_code, q.billing_order_code) : undefined,
        q.has_active_claim === undefined ? undefined : eq(t.has_active_claim, q.has_active_claim),
      ],
      orderBy: [t.date_service, t.id],
    });
    return { ...page, items: yield* serializeProcedures(db, page.items) };
  });
}

export async function updateProcedure(ctx: OrgContext, id: string, input: ProcedurePatch): Promise<ChartedProcedure> {
  const { base_version, status, ...fields } = input;
  const values = toColumns(fields);
  return withTransaction(ctx, function* (s) {
    const before = yield* procedureRecords.require(s.tx, id);
    const patient = yield* patientForWrite(s.tx, before.patient_id);
    // a stale write is refused before any rule is judged against data the client has not seen
    checkVersion(before, base_version);
    // what is on an appointment is decided with the appointment (docs/scheduling/appointments.md, "Procedures on appointments")
    if (values.appointment_id !== undefined && values.appointment_id !== before.appointment_id) {
      yield* checkRefs(s.tx, patient, { appointment_id: values.appointment_id });
      throw invalid(
        ["body", "appointment_uuid"],
        "Put a procedure on an appointment or take it off with POST / DELETE {P}/appointments/{appointment_id}/procedures",
        "value_error",
        "appointment_link_read_only",
      );
    }
    delete values.appointment_id;
    // un-scheduling work an appointment holds is taking it off the appointment, which the appointment's endpoint does
    if (status === "treatment_planned" && before.status !== status && before.appointment_id && !isDone(before.status)) {
      throw invalid(
        ["body", "status"],
        `The procedure is on appointment ${before.appointment_id}: take it off with DELETE {P}/appointments/${before.appointment_id}/procedures/${before.id}`,
        "value_error",
        "appointment_link_read_only",
      );
    }
    if (fields.procedure_code_uuid !== undefined && fields.procedure_code_uuid !== before.procedure_code_id)
      values.procedure_code_id = fields.procedure_code_uuid;
    const row = yield* changeProcedure(s, before, patient, { status, values, baseVersion: base_version });
    return (yield* serializeProcedures(s.tx, [row]))[0]!;
  });
}

/**
 * One procedure's change inside a write, by every rule of PATCH: the status along
 * the transition table, a new code (`values.procedure_code_id`) or provider priced
 * again, the site, the references, the done dates, audit and event, and the
 * moments (completed, fee changed). PATCH and the appointment's reactions
 * (completing, freeing, attaching: appointment-procedures/service.ts) all come
 * through here. `values.date_service` is the date of service a completion keeps
 * (default today).
 */
export function* changeProcedure(
  s: TxScope,
  before: ProcedureRow,
  patient: PatientRow,
  change: { status?: ProcedureStatus; values: Partial<ProcedureRow>; baseVersion?: number },
): Work<ProcedureRow> {
  const { status, baseVersion } = change;
  const values = { ...change.values };
  const id = before.id;
  const moving = status !== undefined && status !== before.status;
  if (moving && !TRANSITIONS[before.status as ProcedureStatus].includes(status)) throw new InvalidTransition(before.status, status);
  if (values.procedure_code_id !== undefined) {
    // a new code is a re-charting: its code, area and base fee replace the old ones; fee_override stays
    const code = yield* chartableCode(s.tx, values.procedure_code_id);
    Object.assign(values, {
      procedure_code_id: code.id,
      procedure_code: code.code,
      treatment_area: code.treatment_area,
    });
  }
  const next = { ...before, ...values };
  checkSite(next.treatment_area as TreatmentArea, siteOf(next));
  yield* checkRefs(s.tx, patient, values);
  // a new code or provider prices the procedure again (docs/codes/fee-schedules.md, "Fee resolution");
  // a new provider with no schedule involved, before or after, keeps the fee charted
  const newCode = values.procedure_code_id !== undefined;
  if (newCode || (values.provider_id !== undefined && values.provider_id !== before.provider_id)) {
    const fee = yield* officeFeeOf(s.tx, patient, next);
    if (newCode || fee.fee_schedule_id !== null || before.fee_schedule_id !== null) {
      Object.assign(values, { office_fee_cents: fee.office_fee_cents, fee_schedule_id: fee.fee_schedule_id });
    }
  }
  const today = yield* todayAt(s.tx, next.location_id ?? patient.location_id);
  if (moving) {
    values.status = status;
    if (isDone(status)) {
      values.date_completed = s.now;
      values.date_service ??= today;
    }
    if (status === "treatment_planned") values.date_treatment_planned ??= before.date_treatment_planned ?? today;
  }
  checkDoneDate(values.status ?? before.status, values.date_service ?? before.date_service, today);
  const row = yield* onChartOf(
    s,
    patient,
    procedureRecords.update(s, id, baseVersion, values, moving ? { action: "status_changed", eventData: { from_status: before.status, status } } : {}),
  );
  // other domains react to these (auto-notes, estimates: docs/architecture.md, "Moments")
  if (moving && isDone(status)) yield* announce(s, procedureCompleted, { ...procedureMoment(row), from_status: before.status as ProcedureStatus });
  const feeChanged =
    values.procedure_code_id !== undefined ||
    (values.fee_override_cents !== undefined && values.fee_override_cents !== before.fee_override_cents) ||
    (values.office_fee_cents !== undefined && values.office_fee_cents !== before.office_fee_cents);
  if (feeChanged) {
    const previous = { previous_fee_cents: before.fee_override_cents ?? before.office_fee_cents, previous_procedure_code_id: before.procedure_code_id };
    yield* announce(s, procedureFeeChanged, { ...procedureMoment(row), ...previous });
  }
  return row;
}

export async function deleteProcedure(ctx: OrgContext, id: string, baseVersion: number): Promise<void> {
  await withTransaction(ctx, function* (s) {
    const before = yield* procedureRecords.require(s.tx, id);
    const patient = yield* patientForWrite(s.tx, before.patient_id);
    checkVersion(before, baseVersion);
    if (isDone(before.status)) throw invalid(["path", "procedure_uuid"], "A completed procedure cannot be deleted", "value_error", "procedure_completed");
    if ((yield* activeSpanOf(s.tx, [id])).size) {
      throw invalid(
        ["path", "procedure_uuid"],
        "The procedure is a member of a span: delete the span (or cascade-delete it) first",
        "value_error",
        "procedure_in_span",
      );
    }
    yield* onChartOf(s, patient, softDeleteProcedure(s, before));
  });
}
