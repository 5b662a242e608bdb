import { and, eq, isNull } from "drizzle-orm";
import { locations, providers } from "@db/tenant/practice";
import { patients } from "@db/tenant/patients";
import { patientAllergies } from "@db/tenant/medical-history";
import { get, type Work } from "@/platform/db/work";
import { InvalidTransition, invalid, NotFound, ValidationFailed } from "@/platform/errors";
import { formatCents } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import type { Patient, PatientCreate, PatientPatch, PatientStatus, PatientTransition } from "./schemas";
import { findPatientWithRefs, type PatientRefColumns } from "./rows";
import { phoneDigits } from "./search";
import { DUPLICATE_INPUTS, duplicatesOf, refreshDuplicates, type PotentialDuplicate } from "./duplicates";
import { idsOf, namesOf, personName, ref, type Names } from "@/platform/records/refs";
import { FEE_SCHEDULE_NAMES, LOCATION_NAMES, PATIENT_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { requireFeeSchedule } from "@/domains/codes/fee-schedules/records";

export type PatientRow = typeof patients.$inferSelect;

/** Above this balance (cents) a patient may not be booked without an override. */
const SCHEDULING_HOLD_CENTS = 50_000;

const balanceTotalCents = (r: PatientRow) => r.balance_0_30_cents + r.balance_31_60_cents + r.balance_61_90_cents + r.balance_over_90_cents;

/** Derived: inactive patients and balances above 500.00 need an override to be booked. */
export const isSchedulingRestricted = (r: PatientRow) => r.status === "inactive" || balanceTotalCents(r) > SCHEDULING_HOLD_CENTS;

export const maskSsn = (ssn: string | null) => (ssn ? `***-**-${ssn.slice(-4)}` : null);

const primaryPhone = (r: PatientRow) => r.mobile_phone || r.home_phone || r.work_phone || null;

/**
 * The audit snapshot of a row: the stored columns, with the SSN reduced to
 * whether one is on file (its digits never reach the audit trail).
 */
function auditSnapshot(r: PatientRow): Record<string, unknown> {
  const { social_security_number, phone_digits: _digits, ...rest } = r;
  return { ...rest, social_security_number: social_security_number ? "[redacted]" : null };
}

export const patientRecords = defineResource<PatientRow, Record<string, unknown>>({
  table: patients,
  name: "patient",
  label: "Patient",
  serialize: auditSnapshot,
  practiceId: (r) => r.location_id,
});

// ---- for other domains (appointments) -----------------------------------------------

/**
 * A bookable patient: 404 "Patient" when missing or archived; with the derived
 * scheduling hold. The row holds the SSN digits: never return it as such.
 */
export function* requirePatient(db: TenantDb, id: string): Work<PatientRow & { scheduling_restricted: boolean }> {
  const row = yield* patientRecords.require(db, id);
  return { ...row, scheduling_restricted: isSchedulingRestricted(row) };
}

/** The nested patient object of appointments. */
export const patientRef = (row: Pick<PatientRow, "id" | "first_name" | "last_name">) => ({
  uuid: row.id,
  first_name: row.first_name,
  last_name: row.last_name,
});

// ---- references --------------------------------------------------------------------

type RefNames = { locations: Names; providers: Names; patients: Names; feeSchedules: Names; duplicates?: Map<string, PotentialDuplicate[]> };

/** Names of the locations, providers and guarantors the rows point to, and the rows' potential duplicates: one query per kind. */
export function* refNames(db: TenantDb, rows: PatientRow[]): Work<RefNames> {
  return {
    locations: yield* namesOf(
      db,
      LOCATION_NAMES,
      idsOf(rows, (r) => r.location_id),
    ),
    providers: yield* namesOf(
      db,
      PROVIDER_NAMES,
      idsOf(
        rows,
        (r) => r.primary_provider_id,
        (r) => r.secondary_provider_id,
      ),
    ),
    patients: yield* namesOf(
      db,
      PATIENT_NAMES,
      idsOf(rows, (r) => r.responsible_party_id),
    ),
    feeSchedules: yield* namesOf(
      db,
      FEE_SCHEDULE_NAMES,
      idsOf(rows, (r) => r.fee_schedule_id),
    ),
    duplicates: yield* duplicatesOf(
      db,
      rows.map((r) => r.id),
    ),
  };
}

export function serializePatient(r: PatientRow, names: RefNames): Patient {
  const total = balanceTotalCents(r);
  return {
    id: r.id,
    uuid: r.id,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
    first_name: r.first_name,
    last_name: r.last_name,
    middle_name: r.middle_name,
    preferred_name: r.preferred_name,
    title: r.title,
    salutation: r.salutation,
    status: r.status as PatientStatus,
    gender: r.gender as Patient["gender"],
    marital_status: r.marital_status as Patient["marital_status"],
    pronoun: r.pronoun as Patient["pronoun"],
    date_of_birth: r.date_of_birth,
    date_first_visit: r.date_first_visit,
    date_time_deceased: r.date_time_deceased,
    chart_number: r.chart_number,
    email: r.email,
    home_phone: r.home_phone,
    mobile_phone: r.mobile_phone,
    work_phone: r.work_phone,
    primary_phone: primaryPhone(r),
    address_line1: r.address_line1,
    address_line2: r.address_line2,
    address_note: r.address_note,
    city: r.city,
    state: r.state,
    postal_code: r.postal_code,
    country: r.country,
    preferred_confirmation_method: r.preferred_confirmation_method as Patient["preferred_confirmation_method"],
    preferred_contact_method: r.preferred_contact_method as Patient["preferred_contact_method"],
    preferred_language: r.preferred_language,
    receives_email: r.receives_email,
    receives_sms: r.receives_sms,
    ask_to_arrive_early_mins: r.ask_to_arrive_early_mins,
    allergy_review_status: r.allergy_review_status as Patient["allergy_review_status"],
    appointment_module_note: r.appointment_module_note,
    billing_cycle_day: r.billing_cycle_day,
    consent_flags: r.consent_flags,
    emergency_contact_name: r.emergency_contact_name,
    emergency_contact_phone: r.emergency_contact_phone,
    medicaid_id: r.medicaid_id,
    medical_summary: r.medical_summary,
    medical_urgent_note: r.medical_urgent_note,
    premedication_required: r.premedication_required,
    smoking_snomed: r.smoking_snomed,
    social_security_number: maskSsn(r.social_security_number),
    treatment_notes: r.treatment_notes,
    latest_vitals_date: r.latest_vitals_date,
    billing_type: ref(r.billing_type_id),
    employer: ref(r.employer_id),
    fee_schedule: ref(r.fee_schedule_id, names.feeSchedules),
    location: ref(r.location_id, names.locations),
    primary_provider: ref(r.primary_provider_id, names.providers),
    secondary_provider: ref(r.secondary_provider_id, names.providers),
    responsible_party: ref(r.responsible_party_id, names.patients),
    preferred_provider_uuid: r.primary_provider_id,
    balance_0_30: formatCents(r.balance_0_30_cents)!,
    balance_31_60: formatCents(r.balance_31_60_cents)!,
    balance_61_90: formatCents(r.balance_61_90_cents)!,
    balance_over_90: formatCents(r.balance_over_90_cents)!,
    balance_total: formatCents(total)!,
    estimated_balance: formatCents(r.estimated_balance_cents)!,
    insurance_estimate: formatCents(r.insurance_estimate_cents)!,
    payment_plan_due: formatCents(r.payment_plan_due_cents)!,
    scheduling_restricted: isSchedulingRestricted(r),
    potential_duplicates: names.duplicates?.get(r.id) ?? [],
  };
}

function* present(db: TenantDb, row: PatientRow): Work<Patient> {
  return serializePatient(row, yield* refNames(db, [row]));
}

// ---- writes -------------------------------------------------------------------------

type Writable = Omit<PatientPatch, "base_version">;

const REF_COLUMNS = {
  billing_type_uuid: "billing_type_id",
  employer_uuid: "employer_id",
  fee_schedule_uuid: "fee_schedule_id",
  location_uuid: "location_id",
  primary_provider_uuid: "primary_provider_id",
  secondary_provider_uuid: "secondary_provider_id",
  responsible_party_uuid: "responsible_party_id",
} as const;

/** A date of birth may be at most one day ahead of UTC today (time zones east of UTC). */
function checkDateOfBirth(dob: string | null | undefined) {
  if (!dob) return;
  const latest = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  if (dob > latest) throw invalid(["body", "date_of_birth"], "Date of birth cannot be in the future", "value_error");
}

/** Referenced records must exist (and not be archived): 404 otherwise. */
function* checkRefs(db: TenantDb, input: Writable, selfId?: string): Work<void> {
  if (input.location_uuid) {
    const l = yield* get(
      db
        .select({ id: locations.id })
        .from(locations)
        .where(and(eq(locations.id, input.location_uuid), isNull(locations.deleted_at))),
    );
    if (!l) throw new NotFound("Location");
  }
  for (const pid of [input.primary_provider_uuid, input.secondary_provider_uuid]) {
    if (!pid) continue;
    const p = yield* get(
      db
        .select({ id: providers.id })
        .from(providers)
        .where(and(eq(providers.id, pid), isNull(providers.deleted_at))),
    );
    if (!p) throw new NotFound("Provider");
  }
  const rp = input.responsible_party_uuid;
  if (rp && rp !== selfId) {
    const p = yield* get(
      db
        .select({ id: patients.id })
        .from(patients)
        .where(and(eq(patients.id, rp), isNull(patients.deleted_at))),
    );
    if (!p) throw new NotFound("Responsible party");
  }
  if (input.fee_schedule_uuid) yield* requireFeeSchedule(db, input.fee_schedule_uuid);
}

/** API fields -> columns: refs to `<thing>_id`, SSN to its digits, ISO instants to UTC. */
function toColumns(input: Writable): Partial<PatientRow> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === undefined) continue;
    if (k in REF_COLUMNS) out[REF_COLUMNS[k as keyof typeof REF_COLUMNS]] = v;
    else if (k === "social_security_number") out[k] = v === null ? null : (v as string).replace(/-/g, "");
    else if (k === "date_time_deceased") out[k] = v === null ? null : new Date(v as string).toISOString();
    else out[k] = v;
  }
  return out as Partial<PatientRow>;
}

const PHONE_FIELDS = ["home_phone", "mobile_phone", "work_phone"] as const;

/** date_time_deceased belongs to deceased patients only. */
function checkDeceasedDate(status: string, value: string | null | undefined) {
  if (value && status !== "deceased") throw invalid(["body", "date_time_deceased"], "Only a deceased patient has a date of death", "value_error");
}

export async function createPatient(ctx: OrgContext, input: PatientCreate): Promise<Patient> {
  checkDateOfBirth(input.date_of_birth);
  checkDeceasedDate(input.status ?? "active", input.date_time_deceased);
  const values = toColumns(input);
  if (values.status === "deceased" && !values.date_time_deceased) values.date_time_deceased = new Date().toISOString();
  values.phone_digits = phoneDigits(input.home_phone, input.mobile_phone, input.work_phone);
  return withTransaction(ctx, function* (s) {
    yield* checkRefs(s.tx, input);
    const row = yield* patientRecords.create(s, values);
    yield* refreshDuplicates(s.tx, row);
    return yield* present(s.tx, row);
  });
}

/** 422 invalid_transition for archive/restore of a patient in the wrong state (no body field to point at). */
const stateRule = (msg: string) => new ValidationFailed([{ loc: ["path", "patient_uuid"], msg, type: "invalid_transition" }], "invalid_transition");

/** Load a patient for a write: 404 when missing; archived patients are read-only (422). */
function* writable(s: TxScope, id: string): Work<PatientRow> {
  const row = yield* patientRecords.require(s.tx, id, true);
  if (row.deleted_at) throw invalid(["path", "patient_uuid"], "Patient is archived; restore it first", "value_error", "patient_archived");
  return row;
}

function* assertNoActiveAllergies(s: TxScope, patientId: string): Work<void> {
  const active = yield* get<{ id: string }>(
    s.tx
      .select({ id: patientAllergies.id })
      .from(patientAllergies)
      .where(and(eq(patientAllergies.patient_id, patientId), eq(patientAllergies.is_active, true), isNull(patientAllergies.deleted_at)))
      .limit(1),
  );
  if (active)
    throw invalid(
      ["body", "allergy_review_status"],
      "The patient has active allergies recorded; NKDA would contradict them",
      "value_error",
      "active_allergies_recorded",
    );
}

export async function updatePatient(ctx: OrgContext, id: string, input: PatientPatch): Promise<Patient> {
  const { base_version, ...patch } = input;
  checkDateOfBirth(patch.date_of_birth);
  return withTransaction(ctx, function* (s) {
    const before = yield* writable(s, id);
    checkDeceasedDate(before.status, patch.date_time_deceased);
    yield* checkRefs(s.tx, patch, before.id);
    const values = toColumns(patch);
    if (PHONE_FIELDS.some((f) => patch[f] !== undefined)) {
      const next = { ...before, ...values };
      values.phone_digits = phoneDigits(next.home_phone, next.mobile_phone, next.work_phone);
    }
    // NKDA is a clinician's statement that no allergy is known: it cannot stand beside a recorded one
    // (checked after the version, so a stale request still gets its 409 first)
    if (patch.allergy_review_status === "nkda" && before.version === base_version) yield* assertNoActiveAllergies(s, id);
    const row = yield* patientRecords.update(s, id, base_version, values);
    if (DUPLICATE_INPUTS.some((f) => before[f] !== row[f])) yield* refreshDuplicates(s.tx, row);
    return yield* present(s.tx, row);
  });
}

export async function archivePatient(ctx: OrgContext, id: string): Promise<Patient> {
  return withTransaction(ctx, function* (s) {
    const before = yield* patientRecords.require(s.tx, id, true);
    if (before.deleted_at) throw stateRule("Patient is already archived");
    const row = yield* patientRecords.update(s, id, undefined, { status: "archived", deleted_at: s.now }, { action: "archived" });
    return yield* present(s.tx, row);
  });
}

/** Restore: archived -> inactive, deleted_at cleared (spec); anything else is 422. */
export async function restorePatient(ctx: OrgContext, id: string): Promise<Patient> {
  return withTransaction(ctx, function* (s) {
    const before = yield* patientRecords.require(s.tx, id, true);
    if (!before.deleted_at) throw stateRule("Only an archived patient can be restored");
    const row = yield* patientRecords.update(s, id, undefined, { status: "inactive", deleted_at: null }, { action: "restored", includeDeleted: true });
    return yield* present(s.tx, row);
  });
}

/**
 * Status moves outside archive/restore. `deceased -> inactive` exists to undo
 * a mistaken deceased mark. Table and reasons: docs/patients/patients.md.
 */
export const PATIENT_TRANSITIONS: Record<PatientStatus, readonly PatientStatus[]> = {
  active: ["inactive", "deceased"],
  inactive: ["active", "deceased"],
  prospective: ["active", "inactive"],
  deceased: ["inactive"],
  archived: [],
};

export async function transitionPatientStatus(ctx: OrgContext, id: string, input: PatientTransition): Promise<Patient> {
  if (input.date_time_deceased !== undefined && input.status !== "deceased") {
    throw invalid(["body", "date_time_deceased"], "Only allowed when status is deceased", "value_error");
  }
  return withTransaction(ctx, function* (s) {
    const before = yield* patientRecords.requireCurrent(s.tx, id, input.base_version, true);
    const from = before.status as PatientStatus;
    if (!PATIENT_TRANSITIONS[from]?.includes(input.status)) throw new InvalidTransition(from, input.status);
    const patch: Partial<PatientRow> = { status: input.status };
    if (input.status === "deceased") {
      patch.date_time_deceased = input.date_time_deceased ? new Date(input.date_time_deceased).toISOString() : (before.date_time_deceased ?? s.now);
    }
    if (from === "deceased") patch.date_time_deceased = null;
    const row = yield* patientRecords.update(s, id, input.base_version, patch, { action: "status_changed" });
    return yield* present(s.tx, row);
  });
}

// ---- reads --------------------------------------------------------------------------

const personOrNull = (first: string | null, last: string | null) => (first === null ? null : personName({ first_name: first, last_name: last! }));
const oneName = (id: string | null, name: string | null): Names => (id && name !== null ? new Map([[id, name]]) : new Map());

/** refNames of one row from the names its GET statement read with it (rows.ts findPatientWithRefs); duplicates apart. */
function refNamesOfRow(found: PatientRefColumns & { row: PatientRow }): RefNames {
  const { row } = found;
  const providers = new Map<string, string>();
  for (const [id, name] of [
    [row.primary_provider_id, personOrNull(found.primary_first, found.primary_last)],
    [row.secondary_provider_id, personOrNull(found.secondary_first, found.secondary_last)],
  ] as const)
    if (id && name !== null) providers.set(id, name);
  return {
    locations: oneName(row.location_id, found.location_name),
    providers,
    patients: oneName(row.responsible_party_id, personOrNull(found.party_first, found.party_last)),
    feeSchedules: oneName(row.fee_schedule_id, found.fee_schedule_name),
  };
}

/** Archived patients stay readable by id (medical record). */
export async function getPatient(ctx: OrgContext, id: string): Promise<Patient> {
  return ctx.db.read(function* (db) {
    // patientRecords.require(db, id, true) and refNames, in one statement (rows.ts)
    const found = yield* findPatientWithRefs(db, id);
    if (!found) throw new NotFound(patientRecords.label);
    const { row } = found;
    const names = refNamesOfRow(found);
    if (found.paired) names.duplicates = yield* duplicatesOf(db, [row.id]);
    return serializePatient(row, names);
  });
}
