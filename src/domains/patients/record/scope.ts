import type { Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import type { TenantDb, TxScope } from "@/platform/records/context";
import { withEventContext } from "@/platform/records/events";
import { patientRecords, type PatientRow } from "./service";

// The patient a sub-resource (medical history, relationships, communication
// logs, tags, field values, ledger, chart records, notes) hangs under. The row
// holds the SSN digits: never return it as such.

/** Reads: 404 when missing; an archived patient stays readable (it is a medical record). */
export function* patientForRead(db: TenantDb, id: string): Work<PatientRow> {
  return yield* patientRecords.require(db, id, true);
}

/** Writes: 404 when missing; archived patients are read-only until restored (as PATCH: 422 patient_archived). */
export function* patientForWrite(db: TenantDb, id: string): Work<PatientRow> {
  const row = yield* patientRecords.require(db, id, true);
  if (row.deleted_at) throw invalid(["path", "patient_uuid"], "Patient is archived; restore it first", "value_error", "patient_archived");
  return row;
}

/**
 * Events of `work` belong to the patient's practice (its location), like the
 * patient's own events, so a practice-filtered stream still receives them.
 */
export function inPractice<T>(s: TxScope, practiceId: string | null, work: Work<T>): Work<T> {
  return withEventContext(s, { practiceId }, work);
}
