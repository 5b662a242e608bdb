import { eq } from "drizzle-orm";
import { patientSchedulingPreferences } from "@db/tenant/schedule-config";
import { get, type Work } from "@/platform/db/work";
import { Conflict, invalid } from "@/platform/errors";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { OPERATORY_NAMES, PATIENT_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { namesOfEach, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { requireOperatory } from "@/domains/scheduling/operatories/service";
import { patientRecords } from "@/domains/patients/record/service";
import { requireProvider } from "@/domains/providers/record/service";
import type { PreferenceListQuery, PreferencePatch, PreferenceUpsert, SchedulingPreference } from "./schemas";

type PreferenceRow = typeof patientSchedulingPreferences.$inferSelect;
type RefNames = Record<"patients" | "providers" | "operatories", Names>;
type Fields = Omit<PreferencePatch, "base_version">;

/** Without names (the audit form) every reference has name null. */
function serialize(r: PreferenceRow, names?: RefNames): SchedulingPreference {
  return {
    id: r.id,
    patient: ref(r.patient_id, names?.patients),
    preferred_provider: ref(r.preferred_provider_id, names?.providers),
    preferred_operatory: ref(r.preferred_operatory_id, names?.operatories),
    preferred_days: r.preferred_days,
    preferred_time_start: r.preferred_time_start,
    preferred_time_end: r.preferred_time_end,
    preferred_contact_method: r.preferred_contact_method as SchedulingPreference["preferred_contact_method"],
    notes: r.notes,
    learned_from_history: r.learned_from_history,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

const records = defineResource<PreferenceRow, SchedulingPreference>({
  table: patientSchedulingPreferences,
  name: "patient_scheduling_preference",
  label: "Scheduling preference",
  serialize: (r) => serialize(r),
});

function* refNames(db: TenantDb, rows: PreferenceRow[]): Work<RefNames> {
  return yield* namesOfEach(db, {
    patients: [PATIENT_NAMES, rows.map((r) => r.patient_id)],
    providers: [PROVIDER_NAMES, rows.map((r) => r.preferred_provider_id)],
    operatories: [OPERATORY_NAMES, rows.map((r) => r.preferred_operatory_id)],
  });
}

function* present(db: TenantDb, row: PreferenceRow): Work<SchedulingPreference> {
  return serialize(row, yield* refNames(db, [row]));
}

/** The patient a write is for: 404 when missing; archived patients are read-only (422 patient_archived). */
function* writablePatient(db: TenantDb, id: string, loc: (string | number)[]) {
  const row = yield* patientRecords.require(db, id, true);
  if (row.deleted_at) throw invalid(loc, "Patient is archived; restore it first", "value_error", "patient_archived");
  return row;
}

/** Request fields -> columns, with the references checked (404) and the time window ordered (422). */
function* toColumns(db: TenantDb, input: Fields, current: Partial<PreferenceRow>): Work<Partial<PreferenceRow>> {
  const out: Partial<PreferenceRow> = {};
  const { preferred_provider_uuid: provider, preferred_operatory_uuid: operatory, ...plain } = input;
  if (provider !== undefined) out.preferred_provider_id = provider === null ? null : (yield* requireProvider(db, provider)).id;
  if (operatory !== undefined) out.preferred_operatory_id = operatory === null ? null : (yield* requireOperatory(db, operatory)).id;
  for (const [k, v] of Object.entries(plain)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  const start = out.preferred_time_start !== undefined ? out.preferred_time_start : current.preferred_time_start;
  const end = out.preferred_time_end !== undefined ? out.preferred_time_end : current.preferred_time_end;
  if (start && end && start >= end) {
    const field = input.preferred_time_end !== undefined ? "preferred_time_end" : "preferred_time_start";
    throw invalid(["body", field], "preferred_time_start must be before preferred_time_end", "value_error", "invalid_time_range");
  }
  return out;
}

function* update(s: TxScope, row: PreferenceRow, baseVersion: number, input: Fields): Work<SchedulingPreference> {
  const cols = yield* toColumns(s.tx, input, row);
  return yield* present(s.tx, yield* records.update(s, row.id, baseVersion, cols));
}

export async function listPreferences(ctx: OrgContext, q: PreferenceListQuery) {
  return ctx.db.read(function* (db) {
    const patientId = q.patient_uuid;
    if (patientId) yield* patientRecords.require(db, patientId, true);
    const page = yield* records.list(db, q, {
      where: [patientId ? eq(patientSchedulingPreferences.patient_id, patientId) : undefined],
      orderBy: [patientSchedulingPreferences.id],
    });
    const names = yield* refNames(db, page.items);
    return { ...page, items: page.items.map((r) => serialize(r, names)) };
  });
}

export async function getPreference(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return yield* present(db, yield* records.require(db, id));
  });
}

/**
 * PUT by patient: creates the preference when the patient has none (base_version
 * must then be omitted), else changes the sent fields (base_version required).
 */
export async function upsertPreference(ctx: OrgContext, patientId: string, input: PreferenceUpsert) {
  const { base_version, ...fields } = input;
  return withTransaction(ctx, function* (s) {
    const patient = yield* writablePatient(s.tx, patientId, ["path", "patient_uuid"]);
    const existing = yield* get(s.tx.select().from(patientSchedulingPreferences).where(eq(patientSchedulingPreferences.patient_id, patient.id)));
    if (existing) {
      if (base_version === undefined) throw invalid(["body", "base_version"], "Field required: the patient already has a preference", "missing");
      return yield* update(s, existing, base_version, fields);
    }
    if (base_version !== undefined) throw new Conflict("The patient has no scheduling preference yet; omit base_version to create one", "version_conflict");
    const cols = yield* toColumns(s.tx, fields, {});
    const row = yield* records.create(
      s,
      { preferred_days: [], notes: "", learned_from_history: false, ...cols, patient_id: patient.id },
      { patient_id: patient.id },
    );
    return yield* present(s.tx, row);
  });
}

export async function updatePreference(ctx: OrgContext, id: string, input: PreferencePatch) {
  const { base_version, ...fields } = input;
  return withTransaction(ctx, function* (s) {
    const row = yield* records.require(s.tx, id);
    yield* writablePatient(s.tx, row.patient_id, ["path", "preference_uuid"]);
    return yield* update(s, row, base_version, fields);
  });
}
