import { and, eq, isNull } from "drizzle-orm";
import { patientAllergies } from "@db/tenant/medical-history";
import { all, type Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { patientRecords, type PatientRow } from "@/domains/patients/record/service";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import { patientChild, patientRef } from "./patient-records";
import type { Allergy, AllergyCreate, AllergyListQuery, AllergyPatch } from "./schemas";

export type AllergyRow = typeof patientAllergies.$inferSelect;

const allergies = patientChild<AllergyRow>({ table: patientAllergies, name: "patient_allergy", label: "Allergy" });

function serializeAllergy(r: AllergyRow, patient: PatientRow): Allergy {
  return {
    id: r.id,
    patient: patientRef(patient),
    allergen: r.allergen,
    allergen_category: r.allergen_category as Allergy["allergen_category"],
    reaction: r.reaction,
    severity: r.severity as Allergy["severity"],
    is_active: r.is_active,
    onset_date: r.onset_date,
    note: r.note,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  };
}

/** An onset may be at most one day ahead of UTC today (time zones east of UTC). */
function checkOnset(onset: string | null | undefined) {
  if (onset && onset > new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)) {
    throw invalid(["body", "onset_date"], "Onset date cannot be in the future", "value_error", "future_date");
  }
}

/**
 * A patient with an active allergy on file has had allergies reviewed: nkda
 * and not_reviewed become reviewed (a patient write: version, audit, event).
 */
function* markReviewed(s: TxScope, patient: PatientRow): Work<void> {
  if (patient.allergy_review_status !== "reviewed") {
    yield* patientRecords.update(s, patient.id, undefined, { allergy_review_status: "reviewed" });
  }
}

export async function listAllergies(ctx: OrgContext, patientId: string, q: AllergyListQuery) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const active = q.is_active === undefined ? undefined : eq(patientAllergies.is_active, q.is_active);
    const page = yield* allergies.list(db, patient, q, [active]);
    return { ...page, items: page.items.map((r) => serializeAllergy(r, patient)) };
  });
}

export async function getAllergy(ctx: OrgContext, patientId: string, id: string) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    return serializeAllergy(yield* allergies.require(db, patient, id), patient);
  });
}

export async function createAllergy(ctx: OrgContext, patientId: string, input: AllergyCreate) {
  checkOnset(input.onset_date);
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const row = yield* allergies.create(s, patient, input);
    if (row.is_active) yield* markReviewed(s, patient);
    return serializeAllergy(row, patient);
  });
}

export async function updateAllergy(ctx: OrgContext, patientId: string, id: string, input: AllergyPatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const before = yield* allergies.require(s.tx, patient, id);
    allergies.checkVersion(before, base_version);
    checkOnset(patch.onset_date);
    const row = yield* allergies.update(s, patient, before, base_version, patch);
    if (row.is_active) yield* markReviewed(s, patient);
    return serializeAllergy(row, patient);
  });
}

/** Archiving (or deactivating) the last allergy leaves the review status alone: nkda is a clinician's statement. */
export async function archiveAllergy(ctx: OrgContext, patientId: string, id: string) {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const before = yield* allergies.require(s.tx, patient, id);
    const row = yield* allergies.update(s, patient, before, undefined, { deleted_at: s.now }, "archived");
    return serializeAllergy(row, patient);
  });
}

/** The patient's active allergies, for the interaction check. */
export function* activeAllergies(db: TenantDb, patientId: string): Work<AllergyRow[]> {
  const t = patientAllergies;
  return yield* all(
    db
      .select()
      .from(t)
      .where(and(eq(t.patient_id, patientId), eq(t.is_active, true), isNull(t.deleted_at))),
  );
}
