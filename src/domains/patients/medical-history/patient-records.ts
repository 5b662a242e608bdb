import { eq, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Work } from "@/platform/db/work";
import { invalid, NotFound } from "@/platform/errors";
import type { TenantDb, TxScope } from "@/platform/records/context";
import type { Paging } from "@/platform/records/paging";
import { defineResource, type ResourceTable } from "@/platform/records/resource";
import { checkVersion } from "@/platform/records/versions";
import type { PatientRow } from "@/domains/patients/record/service";
import { personRef } from "@/platform/records/refs";

// The mechanics shared by a patient's alerts, allergies, diseases and
// medications: the patient in the path is loaded first (patients/scope.ts:
// 404; an archived patient's history stays readable, writes to it are 422
// patient_archived), a record of another patient is 404 through this
// patient's path, and events carry the patient and its practice.

export type ChildRow = { id: string; patient_id: string; version: number; created_at: string; updated_at: string; deleted_at: string | null } & Record<
  string,
  unknown
>;

/** Kept under this name for the medical-history and chart modules. */
export const patientRef = personRef;

/** date_stop may not come before date_start (either may be absent). */
export function checkDateOrder(start: string | null | undefined, stop: string | null | undefined) {
  if (start && stop && stop < start) throw invalid(["body", "date_stop"], "Must not be before date_start", "value_error", "invalid_date_range");
}

export function patientChild<R extends ChildRow>(opts: { table: ResourceTable & { patient_id: SQLiteColumn }; name: string; label: string }) {
  // audit snapshots are the stored row: the org's own trail may hold clinical text
  const records = defineResource<R, Record<string, unknown>>({ table: opts.table, name: opts.name, label: opts.label, serialize: (r) => ({ ...r }) });
  const t = opts.table as ResourceTable & { patient_id: SQLiteColumn; id: SQLiteColumn };

  /** This patient's record: 404 when missing, archived (unless asked) or another patient's. */
  function* require(db: TenantDb, patient: PatientRow, id: string, includeDeleted = false): Work<R> {
    const row = yield* records.find(db, id, includeDeleted);
    if (!row || row.patient_id !== patient.id) throw new NotFound(opts.label);
    return row;
  }

  /** This patient's records, not archived, in creation order. */
  function* list(db: TenantDb, patient: PatientRow, paging: Paging, where: (SQL | undefined)[] = []) {
    return yield* records.list(db, paging, { where: [eq(t.patient_id, patient.id), ...where], orderBy: [t.id] });
  }

  function* create(s: TxScope, patient: PatientRow, values: Partial<R>): Work<R> {
    // events carry whose chart it is and belong to the patient's practice
    return yield* records.create(s, { ...values, patient_id: patient.id } as Partial<R>, { patient_id: patient.id }, patient.location_id);
  }

  function* update(s: TxScope, patient: PatientRow, before: R, baseVersion: number | undefined, patch: Partial<R>, action?: string): Work<R> {
    return yield* records.update(s, before.id, baseVersion, patch, { action, eventData: { patient_id: patient.id }, practiceId: patient.location_id });
  }

  // checkVersion (the shared one): callers run it before their own rules, so a stale write is 409 first
  return { records, require, list, create, update, checkVersion };
}
