import { and, eq, isNull } from "drizzle-orm";
import { providers } from "@db/tenant/practice";
import { patientMedications } from "@db/tenant/medical-history";
import { get, type Work } from "@/platform/db/work";
import { invalid, NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import type { PatientRow } from "@/domains/patients/record/service";
import { activeAllergies } from "./allergies";
import { interactionWarnings, type InteractionWarning } from "./interactions";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import { checkDateOrder, patientChild, patientRef } from "./patient-records";
import type { Medication, MedicationCreate, MedicationListQuery, MedicationPatch } from "./schemas";
import { idsOf, namesOf, ref, type Names } from "@/platform/records/refs";
import { PROVIDER_NAMES } from "@/platform/records/names";

type MedicationRow = typeof patientMedications.$inferSelect;
type Writable = Omit<MedicationPatch, "base_version">;

const medications = patientChild<MedicationRow>({ table: patientMedications, name: "patient_medication", label: "Medication" });

function serializeMedication(r: MedicationRow, patient: PatientRow, providerNames: Names, warnings: InteractionWarning[] = []): Medication {
  return {
    id: r.id,
    patient: patientRef(patient),
    medication_definition: ref(r.medication_definition_id),
    med_descript: r.med_descript,
    provider: ref(r.provider_id, providerNames),
    dosage: r.dosage,
    frequency: r.frequency,
    route: r.route,
    rx_cui: r.rx_cui,
    date_start: r.date_start,
    date_stop: r.date_stop,
    discontinuation_reason: r.discontinuation_reason,
    patient_note: r.patient_note,
    is_cpoe: r.is_cpoe,
    status: r.status as Medication["status"],
    interaction_warnings: warnings,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  };
}

/** One medication as answered, with its prescriber's name. */
function* present(db: TenantDb, row: MedicationRow, patient: PatientRow, warnings?: InteractionWarning[]): Work<Medication> {
  return serializeMedication(row, patient, yield* namesOf(db, PROVIDER_NAMES, [row.provider_id]), warnings);
}

/** API fields -> columns. */
function toColumns(input: Writable): Partial<MedicationRow> {
  const { medication_definition_uuid: def, provider_uuid: prov, ...rest } = input;
  const out: Partial<MedicationRow> = { ...rest };
  if (def !== undefined) out.medication_definition_id = def;
  if (prov !== undefined) out.provider_id = prov;
  return out;
}

/**
 * The record must say which drug it is (a description, a definition or an
 * RxNorm id), and its dates must be in order. `next` is the record after the write.
 */
function checkMedication(next: Partial<MedicationRow>) {
  if (!next.med_descript && !next.medication_definition_id && !next.rx_cui) {
    throw invalid(["body", "med_descript"], "A medication needs med_descript, medication_definition_uuid or rx_cui", "missing", "medication_not_identified");
  }
  checkDateOrder(next.date_start, next.date_stop);
}

/** The prescriber must be a current provider of this org: 404 otherwise. */
function* checkProvider(db: TenantDb, id: string | null | undefined): Work<void> {
  if (!id) return;
  const p = yield* get(
    db
      .select({ id: providers.id })
      .from(providers)
      .where(and(eq(providers.id, id), isNull(providers.deleted_at))),
  );
  if (!p) throw new NotFound("Provider");
}

export async function listMedications(ctx: OrgContext, patientId: string, q: MedicationListQuery) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const page = yield* medications.list(db, patient, q, [q.status ? eq(patientMedications.status, q.status) : undefined]);
    const names = yield* namesOf(
      db,
      PROVIDER_NAMES,
      idsOf(page.items, (r) => r.provider_id),
    );
    return { ...page, items: page.items.map((r) => serializeMedication(r, patient, names)) };
  });
}

export async function getMedication(ctx: OrgContext, patientId: string, id: string) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const row = yield* medications.require(db, patient, id);
    return yield* present(db, row, patient);
  });
}

/** The only answer that carries interaction_warnings: the medication against the patient's active allergies. */
export async function createMedication(ctx: OrgContext, patientId: string, input: MedicationCreate) {
  const values = toColumns(input);
  checkMedication(values);
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    yield* checkProvider(s.tx, values.provider_id);
    const row = yield* medications.create(s, patient, values);
    const warnings = interactionWarnings(yield* activeAllergies(s.tx, patient.id), row);
    return yield* present(s.tx, row, patient, warnings);
  });
}

export async function updateMedication(ctx: OrgContext, patientId: string, id: string, input: MedicationPatch) {
  const { base_version, ...patch } = input;
  const values = toColumns(patch);
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const before = yield* medications.require(s.tx, patient, id);
    medications.checkVersion(before, base_version);
    checkMedication({ ...before, ...values });
    yield* checkProvider(s.tx, values.provider_id);
    const row = yield* medications.update(s, patient, before, base_version, values);
    return yield* present(s.tx, row, patient);
  });
}

export async function archiveMedication(ctx: OrgContext, patientId: string, id: string) {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const before = yield* medications.require(s.tx, patient, id);
    const row = yield* medications.update(s, patient, before, undefined, { deleted_at: s.now }, "archived");
    return yield* present(s.tx, row, patient);
  });
}
