import { and, asc, eq, isNull } from "drizzle-orm";
import { definitions } from "@db/tenant/definitions";
import { patientConditions } from "@db/tenant/conditions";
import { get, type Work } from "@/platform/db/work";
import { invalid, NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { DEFINITION_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { idsOf, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { withTransaction } from "@/platform/records/transaction";
import { todayAt } from "@/domains/providers/locations/service";
import { patientChild, patientRef } from "@/domains/patients/medical-history/patient-records";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import type { PatientRow } from "@/domains/patients/record/service";
import { requireProvider } from "@/domains/providers/record/service";
import type { Condition, ConditionCreate, ConditionListQuery, ConditionPatch } from "./schemas";

export type ConditionRow = typeof patientConditions.$inferSelect;
type Writable = Omit<ConditionPatch, "base_version">;

/** Patient-scoped record mechanics (404 across patients, events stamped with patient_id and practice). */
const conditions = patientChild<ConditionRow>({ table: patientConditions, name: "patient_condition", label: "Condition" });

export const DIAGNOSIS_CATEGORY = "diagnosis_codes";

// ---- answers ------------------------------------------------------------------------

type RefNames = { providers: Names; diagnoses: Names };

function serialize(r: ConditionRow, patient: PatientRow, n: RefNames): Condition {
  return {
    id: r.id,
    patient: patientRef(patient),
    condition_type: r.condition_type as Condition["condition_type"],
    date_identified: r.date_identified,
    date_resolved: r.date_resolved,
    tooth_number: r.tooth_number,
    surface: r.surface,
    severity: r.severity as Condition["severity"],
    status: r.status as Condition["status"],
    provider: ref(r.provider_id, n.providers),
    diagnostic_code: ref(r.diagnostic_code_id, n.diagnoses),
    note: r.note,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** Rows of one patient as API answers (one query per kind of reference). */
export function* presentConditions(db: TenantDb, patient: PatientRow, rows: ConditionRow[]): Work<Condition[]> {
  const names = yield* namesOfEach(db, {
    providers: [PROVIDER_NAMES, idsOf(rows, (r) => r.provider_id)],
    diagnoses: [DEFINITION_NAMES, idsOf(rows, (r) => r.diagnostic_code_id)],
  });
  return rows.map((r) => serialize(r, patient, names));
}

// ---- rules --------------------------------------------------------------------------

function notFuture(field: "date_identified" | "date_resolved", value: string | undefined, today: string) {
  if (value !== undefined && value > today) throw invalid(["body", field], "Must not be in the future", "value_error", "date_in_future");
}

/** The diagnosis must be a live definitions item of category diagnosis_codes: 404 otherwise. */
function* checkDiagnosis(db: TenantDb, id: string | null | undefined): Work<void> {
  if (!id) return;
  const d = yield* get(
    db
      .select({ id: definitions.id })
      .from(definitions)
      .where(and(eq(definitions.id, id), eq(definitions.category, DIAGNOSIS_CATEGORY), isNull(definitions.deleted_at))),
  );
  if (!d) throw new NotFound("Diagnostic code");
}

/** API fields -> columns. */
function toColumns(input: Writable): Partial<ConditionRow> {
  const { provider_uuid: prov, diagnostic_code_uuid: diag, ...rest } = input;
  const out: Partial<ConditionRow> = { ...rest };
  if (prov !== undefined) out.provider_id = prov;
  if (diag !== undefined) out.diagnostic_code_id = diag;
  return out;
}

/**
 * The record after the write (`before` undefined on create) with its resolution
 * date settled: resolving sets date_resolved (body value, else today), staying
 * resolved keeps or corrects it, any other status clears it.
 */
function settle(before: ConditionRow | undefined, input: Writable, values: Partial<ConditionRow>, today: string): Partial<ConditionRow> {
  const next = { status: "active", note: "", date_identified: today, ...before, ...values } as ConditionRow;
  notFuture("date_identified", input.date_identified, today);
  if (next.status === "resolved") {
    notFuture("date_resolved", input.date_resolved, today);
    next.date_resolved = input.date_resolved ?? (before?.status === "resolved" ? before.date_resolved : today);
    if (next.date_resolved! < next.date_identified) {
      throw invalid(
        ["body", input.date_resolved !== undefined ? "date_resolved" : "date_identified"],
        "date_resolved must not be before date_identified",
        "value_error",
        "invalid_date_range",
      );
    }
  } else {
    if (input.date_resolved !== undefined)
      throw invalid(["body", "date_resolved"], "Only a resolved condition has date_resolved: send status resolved", "value_error", "condition_not_resolved");
    next.date_resolved = null;
  }
  if (next.surface && !next.tooth_number) throw invalid(["body", "surface"], "A surface needs a tooth_number", "value_error", "surface_without_tooth");
  return next;
}

/** Only the columns that differ from `before` (all of them on create). */
function changes(before: ConditionRow | undefined, next: Partial<ConditionRow>): Partial<ConditionRow> {
  const cols = [
    "condition_type",
    "tooth_number",
    "surface",
    "severity",
    "status",
    "date_identified",
    "date_resolved",
    "provider_id",
    "diagnostic_code_id",
    "note",
  ] as const;
  const out: Partial<ConditionRow> = {};
  for (const c of cols) if (!before || before[c] !== next[c]) (out as Record<string, unknown>)[c] = next[c] ?? null;
  return out;
}

/** A live condition (not deleted) and its patient: 404 when missing. */
function* conditionWithPatient(db: TenantDb, id: string, forWrite: boolean): Work<{ row: ConditionRow; patient: PatientRow }> {
  const row = yield* conditions.records.find(db, id);
  if (!row) throw new NotFound("Condition");
  const patient = yield* forWrite ? patientForWrite(db, row.patient_id) : patientForRead(db, row.patient_id);
  return { row, patient };
}

// ---- verbs --------------------------------------------------------------------------

export async function listConditions(ctx: OrgContext, patientId: string, q: ConditionListQuery) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const page = yield* conditions.records.list(db, q, {
      where: [
        eq(patientConditions.patient_id, patient.id),
        q.status ? eq(patientConditions.status, q.status) : undefined,
        q.condition_type ? eq(patientConditions.condition_type, q.condition_type) : undefined,
        q.tooth_number ? eq(patientConditions.tooth_number, q.tooth_number) : undefined,
      ],
      orderBy: [asc(patientConditions.date_identified), asc(patientConditions.id)],
    });
    return { ...page, items: yield* presentConditions(db, patient, page.items) };
  });
}

export async function getCondition(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    const { row, patient } = yield* conditionWithPatient(db, id, false);
    return (yield* presentConditions(db, patient, [row]))[0]!;
  });
}

export async function createCondition(ctx: OrgContext, patientId: string, input: ConditionCreate) {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const values = toColumns(input);
    const next = settle(undefined, input, values, yield* todayAt(s.tx, patient.location_id));
    if (values.provider_id) yield* requireProvider(s.tx, values.provider_id);
    yield* checkDiagnosis(s.tx, values.diagnostic_code_id);
    const row = yield* conditions.create(s, patient, changes(undefined, next));
    return (yield* presentConditions(s.tx, patient, [row]))[0]!;
  });
}

export async function updateCondition(ctx: OrgContext, id: string, input: ConditionPatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const { row: before, patient } = yield* conditionWithPatient(s.tx, id, true);
    conditions.checkVersion(before, base_version);
    const values = toColumns(patch);
    const next = settle(before, patch, values, yield* todayAt(s.tx, patient.location_id));
    if (values.provider_id) yield* requireProvider(s.tx, values.provider_id);
    yield* checkDiagnosis(s.tx, values.diagnostic_code_id);
    const action = next.status === "resolved" && before.status !== "resolved" ? "resolved" : "updated";
    const row = yield* conditions.update(s, patient, before, base_version, changes(before, next), action);
    return (yield* presentConditions(s.tx, patient, [row]))[0]!;
  });
}

/** Soft delete; a deleted condition leaves lists, GET and the chart history. */
export async function deleteCondition(ctx: OrgContext, id: string, baseVersion: number) {
  await withTransaction(ctx, function* (s) {
    const { row: before, patient } = yield* conditionWithPatient(s.tx, id, true);
    conditions.checkVersion(before, baseVersion);
    yield* conditions.update(s, patient, before, baseVersion, { deleted_at: s.now }, "deleted");
  });
}
