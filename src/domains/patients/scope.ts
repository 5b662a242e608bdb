import type { Work } from "../../platform/db/work";
import { invalid } from "../../platform/errors";
import type { TenantDb, TxScope } from "../../platform/records/context";
import { patientRecords, type PatientRow } from "./service";

// The patient a sub-resource (tags, custom field values, ledger entries) hangs
// under. The row holds the SSN digits: never return it as such.

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

/** Events written by `work` belong to the patient's practice (its location), like the patient's own. */
export function* inPractice<T>(s: TxScope, patient: Pick<PatientRow, "location_id">, work: Work<T>): Work<T> {
  const first = s.after.events.length;
  const out = yield* work;
  for (const e of s.after.events.slice(first)) e.practice_id ??= patient.location_id;
  return out;
}
