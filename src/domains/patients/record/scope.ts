import { inArray } from "drizzle-orm";
import { patients } from "@db/tenant/schema";
import { all, type Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import type { TenantDb, TxScope } from "@/platform/records/context";
import { patientRecords, type PatientRow } from "./service";
import { personName } from "@/platform/records/refs";

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


/** "First Last" of each patient id (archived ones too): one query. */
export function* patientNames(db: TenantDb, ids: Iterable<string>): Work<Map<string, string>> {
  const unique = [...new Set(ids)];
  const out = new Map<string, string>();
  if (!unique.length) return out;
  const rows = yield* all(db.select({ id: patients.id, first_name: patients.first_name, last_name: patients.last_name }).from(patients).where(inArray(patients.id, unique)));
  for (const r of rows) out.set(r.id, personName(r));
  return out;
}

/**
 * Events of `work` belong to the patient's practice (its location), like the
 * patient's own events, so a practice-filtered stream still receives them.
 */
export function* inPractice<T>(s: TxScope, practiceId: string | null, work: Work<T>): Work<T> {
  const first = s.after.events.length;
  const out = yield* work;
  for (const e of s.after.events.slice(first)) e.practice_id ??= practiceId;
  return out;
}
