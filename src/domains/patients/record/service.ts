import { and, asc, count, desc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { locations, patients, patientTags, providers, tagDefinitions } from "@db/tenant/schema";
import { patientAllergies } from "@db/tenant/medical-history";
import { all, allPrepared, get, type PreparedDef, type Work } from "@/platform/db/work";
import { InvalidTransition, invalid, NotFound, ValidationFailed, VersionConflict } from "@/platform/errors";
import { formatCents } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { offsetOf, pageOf } from "@/platform/records/paging";
import { PATIENT_STATUSES, type Patient, type PatientCreate, type PatientListQuery, type PatientPatch, type PatientStatus, type PatientTransition } from "./schemas";
import { findPatientRow, patientFrom, preparedRows } from "./rows";
import { inline, phoneDigits, searchCondition, type Bind } from "./search";
import { DUPLICATE_INPUTS, duplicatesOf, refreshDuplicates, type PotentialDuplicate } from "./duplicates";
import { idsOf, namesOf, ref, type Names } from "@/platform/records/refs";
import { LOCATION_NAMES, PATIENT_NAMES, PROVIDER_NAMES } from "@/platform/records/names";

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
  table: patients, name: "patient", label: "Patient", serialize: auditSnapshot, practiceId: (r) => r.location_id,
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
export const patientRef = (row: Pick<PatientRow, "id" | "first_name" | "last_name">) => ({ uuid: row.id, first_name: row.first_name, last_name: row.last_name });

// ---- references --------------------------------------------------------------------

type RefNames = { locations: Names; providers: Names; patients: Names; duplicates?: Map<string, PotentialDuplicate[]> };

/** Names of the locations, providers and guarantors the rows point to, and the rows' potential duplicates: one query per kind. */
function* refNames(db: TenantDb, rows: PatientRow[]): Work<RefNames> {
  return {
    locations: yield* namesOf(db, LOCATION_NAMES, idsOf(rows, (r) => r.location_id)),
    providers: yield* namesOf(db, PROVIDER_NAMES, idsOf(rows, (r) => r.primary_provider_id, (r) => r.secondary_provider_id)),
    patients: yield* namesOf(db, PATIENT_NAMES, idsOf(rows, (r) => r.responsible_party_id)),
    duplicates: yield* duplicatesOf(db, rows.map((r) => r.id)),
  };
}

export function serializePatient(r: PatientRow, names: RefNames): Patient {
  const total = balanceTotalCents(r);
  return {
    id: r.id, uuid: r.id, version: r.version, created_at: r.created_at, updated_at: r.updated_at, deleted_at: r.deleted_at,
    first_name: r.first_name, last_name: r.last_name, middle_name: r.middle_name, preferred_name: r.preferred_name,
    title: r.title, salutation: r.salutation, status: r.status as PatientStatus,
    gender: r.gender as Patient["gender"], marital_status: r.marital_status as Patient["marital_status"], pronoun: r.pronoun as Patient["pronoun"],
    date_of_birth: r.date_of_birth, date_first_visit: r.date_first_visit, date_time_deceased: r.date_time_deceased,
    chart_number: r.chart_number, email: r.email, home_phone: r.home_phone, mobile_phone: r.mobile_phone, work_phone: r.work_phone,
    primary_phone: primaryPhone(r),
    address_line1: r.address_line1, address_line2: r.address_line2, address_note: r.address_note, city: r.city, state: r.state,
    postal_code: r.postal_code, country: r.country,
    preferred_confirmation_method: r.preferred_confirmation_method as Patient["preferred_confirmation_method"],
    preferred_contact_method: r.preferred_contact_method as Patient["preferred_contact_method"],
    preferred_language: r.preferred_language, receives_email: r.receives_email, receives_sms: r.receives_sms,
    ask_to_arrive_early_mins: r.ask_to_arrive_early_mins, allergy_review_status: r.allergy_review_status as Patient["allergy_review_status"],
    appointment_module_note: r.appointment_module_note, billing_cycle_day: r.billing_cycle_day, consent_flags: r.consent_flags,
    emergency_contact_name: r.emergency_contact_name, emergency_contact_phone: r.emergency_contact_phone,
    medicaid_id: r.medicaid_id, medical_summary: r.medical_summary, medical_urgent_note: r.medical_urgent_note,
    premedication_required: r.premedication_required, smoking_snomed: r.smoking_snomed,
    social_security_number: maskSsn(r.social_security_number), treatment_notes: r.treatment_notes, latest_vitals_date: r.latest_vitals_date,
    billing_type: ref(r.billing_type_id), employer: ref(r.employer_id), fee_schedule: ref(r.fee_schedule_id),
    location: ref(r.location_id, names.locations),
    primary_provider: ref(r.primary_provider_id, names.providers),
    secondary_provider: ref(r.secondary_provider_id, names.providers),
    responsible_party: ref(r.responsible_party_id, names.patients),
    preferred_provider_uuid: r.primary_provider_id,
    balance_0_30: formatCents(r.balance_0_30_cents)!, balance_31_60: formatCents(r.balance_31_60_cents)!,
    balance_61_90: formatCents(r.balance_61_90_cents)!, balance_over_90: formatCents(r.balance_over_90_cents)!,
    balance_total: formatCents(total)!, estimated_balance: formatCents(r.estimated_balance_cents)!,
    insurance_estimate: formatCents(r.insurance_estimate_cents)!, payment_plan_due: formatCents(r.payment_plan_due_cents)!,
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
  billing_type_uuid: "billing_type_id", employer_uuid: "employer_id", fee_schedule_uuid: "fee_schedule_id",
  location_uuid: "location_id", primary_provider_uuid: "primary_provider_id", secondary_provider_uuid: "secondary_provider_id",
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
    const l = yield* get(db.select({ id: locations.id }).from(locations).where(and(eq(locations.id, input.location_uuid), isNull(locations.deleted_at))));
    if (!l) throw new NotFound("Location");
  }
  for (const pid of [input.primary_provider_uuid, input.secondary_provider_uuid]) {
    if (!pid) continue;
    const p = yield* get(db.select({ id: providers.id }).from(providers).where(and(eq(providers.id, pid), isNull(providers.deleted_at))));
    if (!p) throw new NotFound("Provider");
  }
  const rp = input.responsible_party_uuid;
  if (rp && rp !== selfId) {
    const p = yield* get(db.select({ id: patients.id }).from(patients).where(and(eq(patients.id, rp), isNull(patients.deleted_at))));
    if (!p) throw new NotFound("Responsible party");
  }
}

/** API fields -> columns: refs to `<thing>_id`, SSN to its digits, ISO instants to UTC. */
function toColumns(input: Writable): Partial<PatientRow> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === undefined) continue;
    if (k in REF_COLUMNS) out[REF_COLUMNS[k as keyof typeof REF_COLUMNS]] = v === null ? null : (v as string).toLowerCase();
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
  const active = yield* get<{ id: string }>(s.tx.select({ id: patientAllergies.id }).from(patientAllergies)
    .where(and(eq(patientAllergies.patient_id, patientId), eq(patientAllergies.is_active, true), isNull(patientAllergies.deleted_at))).limit(1));
  if (active) throw invalid(["body", "allergy_review_status"], "The patient has active allergies recorded; NKDA would contradict them", "value_error", "active_allergies_recorded");
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
 * a mistaken deceased mark. Table and reasons: docs/patients.md.
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
    const before = yield* patientRecords.require(s.tx, id, true);
    if (before.version !== input.base_version) throw new VersionConflict(before.version);
    const from = before.status as PatientStatus;
    if (!PATIENT_TRANSITIONS[from]?.includes(input.status)) throw new InvalidTransition(from, input.status);
    const patch: Partial<PatientRow> = { status: input.status };
    if (input.status === "deceased") {
      patch.date_time_deceased = input.date_time_deceased ? new Date(input.date_time_deceased).toISOString() : before.date_time_deceased ?? s.now;
    }
    if (from === "deceased") patch.date_time_deceased = null;
    const row = yield* patientRecords.update(s, id, input.base_version, patch, { action: "status_changed" });
    return yield* present(s.tx, row);
  });
}

// ---- reads --------------------------------------------------------------------------

/** Archived patients stay readable by id (medical record). */
export async function getPatient(ctx: OrgContext, id: string): Promise<Patient> {
  return ctx.db.read(function* (db) {
    // patientRecords.require(db, id, true), decoded faster (rows.ts)
    const row = yield* findPatientRow(db, id);
    if (!row) throw new NotFound(patientRecords.label);
    return yield* present(db, row);
  });
}

/** Sort keys (then id) and the index that yields them in order (db/tenant/schema.ts). */
const SORTS: Record<PatientListQuery["sort_by"], { columns: SQLiteColumn[]; index: string }> = {
  last_name: { columns: [patients.last_name, patients.first_name], index: "patients_name_idx" },
  first_name: { columns: [patients.first_name, patients.last_name], index: "patients_first_name_idx" },
  chart_number: { columns: [patients.chart_number], index: "patients_chart_idx" },
  created_at: { columns: [patients.created_at], index: "patients_created_idx" },
  date_of_birth: { columns: [patients.date_of_birth], index: "patients_dob_idx" },
  status: { columns: [patients.status, patients.last_name, patients.first_name], index: "patients_status_name_idx" },
};

/** Filters referring to records that do not exist answer 404 (archived ones still filter). */
function* checkFilterRefs(db: TenantDb, q: PatientListQuery): Work<void> {
  if (q.primary_provider_uuid && !(yield* get(db.select({ id: providers.id }).from(providers).where(eq(providers.id, q.primary_provider_uuid.toLowerCase()))))) {
    throw new NotFound("Provider");
  }
  if (q.location_uuid && !(yield* get(db.select({ id: locations.id }).from(locations).where(eq(locations.id, q.location_uuid.toLowerCase()))))) {
    throw new NotFound("Location");
  }
  if (q.tag_definition_uuid && !(yield* get(db.select({ id: tagDefinitions.id }).from(tagDefinitions).where(eq(tagDefinitions.id, q.tag_definition_uuid.toLowerCase()))))) {
    throw new NotFound("Tag definition");
  }
}

/**
 * One filter written three ways: `indexed` lets SQLite drive the query from an
 * index; `plain` (unary +) is only checked row by row; `candidates` counts the
 * rows the filter alone lets through, from its index only. The filter with the
 * fewest candidates drives and the others are checked row by row, so the plan
 * never depends on table statistics (org databases have none: nobody runs
 * ANALYZE on them) and stays fast at 100,000 patients.
 */
type Filter = { indexed: SQL; plain: SQL; candidates: (db: TenantDb) => Work<number>; notArchived?: true; search?: { key: string; sets: SQL[] } };

function* countWhere(db: TenantDb, where: SQL | undefined): Work<number> {
  return (yield* get(db.select({ n: count() }).from(patients).where(where)))?.n ?? 0;
}

const NOT_ARCHIVED = PATIENT_STATUSES.filter((st) => st !== "archived").map((st) => sql`${st}`);

/** The list's filters (values through `bind`); the status filter (always present) comes last. */
function listFilters(q: PatientListQuery, bind: Bind = inline): Filter[] {
  const out: Filter[] = [];
  const add = (indexed: SQL, plain: SQL) => out.push({ indexed, plain, candidates: (db) => countWhere(db, indexed) });
  const term = q.search || q.query;
  if (term) {
    const { key, sets, rows, distinct } = searchCondition(term, bind);
    out.push({ search: { key, sets }, indexed: sql`${patients}.rowid IN ${rows}`, plain: sql`+${patients}.rowid IN ${rows}`, candidates: function* (db) {
      // counted in the search indexes alone
      return (yield* get(db.select({ n: count() }).from(sql`${distinct} AS matches`)))?.n ?? 0;
    } });
  }
  if (q.tag_definition_uuid) {
    const tagged = sql`(SELECT ${patientTags.patient_id} FROM ${patientTags} WHERE ${patientTags.tag_definition_id} = ${bind(q.tag_definition_uuid.toLowerCase())})`;
    add(sql`${patients.id} IN ${tagged}`, sql`+${patients.id} IN ${tagged}`);
  }
  const equal = (col: SQLiteColumn, v: string) => {
    const value = bind(v);
    add(sql`${col} = ${value}`, sql`+${col} = ${value}`);
  };
  if (q.primary_provider_uuid) equal(patients.primary_provider_id, q.primary_provider_uuid.toLowerCase());
  if (q.location_uuid) equal(patients.location_id, q.location_uuid.toLowerCase());
  if (q.dob_from || q.dob_to) {
    const from = q.dob_from ? bind(q.dob_from) : undefined;
    const to = q.dob_to ? bind(q.dob_to) : undefined;
    const range = (plus: boolean) => {
      const col = plus ? sql`+${patients.date_of_birth}` : sql`${patients.date_of_birth}`;
      const parts = [from ? sql`${col} >= ${from}` : undefined, to ? sql`${col} <= ${to}` : undefined];
      return sql.join(parts.filter((x): x is SQL => !!x), sql` AND `);
    };
    add(range(false), range(true));
  }
  // archived <=> status archived (and deleted_at set): archived patients appear only when asked for
  if (q.status) equal(patients.status, q.status);
  else {
    out.push({
      indexed: sql`${patients.status} IN (${sql.join(NOT_ARCHIVED, sql`, `)})`,
      plain: sql`+${patients.status} IN (${sql.join(NOT_ARCHIVED, sql`, `)})`,
      // every row minus the (few) archived ones: two cheap covering-index counts
      candidates: function* (db) {
        return (yield* countWhere(db, undefined)) - (yield* countWhere(db, eq(patients.status, "archived")));
      },
      notArchived: true,
    });
  }
  return out;
}

const whereOf = (filters: Filter[], driver: number | null) => and(...filters.map((f, i) => (i === driver ? f.indexed : f.plain)));

/**
 * The exact number of matches; `counts` are the filters' candidates and the
 * first filter drives. The usual shape, one filter plus "not archived", is its
 * candidates minus its archived rows, which the status index finds at once.
 */
function* countMatches(db: TenantDb, filters: Filter[], counts: number[]): Work<number> {
  if (filters.length === 1) return counts[0]!;
  if (filters.length === 2) {
    const other = filters[0]!.notArchived ? 1 : filters[1]!.notArchived ? 0 : -1;
    if (other >= 0) return counts[other]! - (yield* countWhere(db, and(filters[other]!.plain, eq(patients.status, "archived"))));
  }
  return yield* countWhere(db, whereOf(filters, 0));
}

/**
 * The shape of a search list: the SQL text of its statement depends on these
 * only, never on the values. The page size is written into the statement
 * (SQLite sorts a literal LIMIT ~40 µs faster than a bound one).
 */
function searchShapeKey(q: PatientListQuery, searchKey: string): string {
  return [searchKey, q.page_size, q.tag_definition_uuid ? "t" : "", q.primary_provider_uuid ? "p" : "", q.location_uuid ? "l" : "", q.dob_from ? "f" : "", q.dob_to ? "u" : "", q.status ? "s" : "", q.sort_by, q.sort_dir].join("|");
}

type SearchPageRow = { candidates: number; total: number | null; row: PatientRow | null };

/**
 * Prepared search statements by shape key (readings x filters x sort x page
 * size). Each connection keeps the statements it ran for good, so past this
 * many shapes a new one is compiled for the request only.
 */
const searchPages = new Map<string, PreparedDef<SearchPageRow>>();
const MAX_SEARCH_SHAPES = 500;

/**
 * A search's page in one statement, running the name (and other) index
 * lookups once: `m` holds the matching rowids, `c` counts them (the search's
 * candidates), and when they are few (<= SORT_IN_MEMORY_MAX) `k` checks the
 * other filters on each, counts and sorts them and keeps the page, whose rows
 * are joined in. One row with a null total when the page is empty or the
 * candidates are too many to sort.
 */
function searchPageQuery(db: TenantDb, q: PatientListQuery, filters: Filter[], sets: SQL[]) {
  const columns = [...SORTS[q.sort_by].columns, patients.id];
  const dir = q.sort_dir === "desc" ? sql` DESC` : sql` ASC`;
  const inner = sql.join(columns.map((c) => sql`+${c}${dir}`), sql`, `);
  const outer = sql.join(columns.map((c) => sql`${c}${dir}`), sql`, `);
  const others = filters.slice(1).map((f) => sql` AND ${f.plain}`);
  const m = db.$with("m", { rowid: sql<number>`rowid`.as("rowid") }).as(sql.join(sets, sql` UNION `));
  const c = db.$with("c", { n: sql<number>`n`.as("n") }).as(sql`SELECT count(*) AS n FROM "m"`);
  const k = db.$with("k", { rid: sql<number>`rid`.as("rid"), total: sql<number>`total`.as("total") }).as(sql`SELECT ${patients}.rowid AS rid, count(*) OVER () AS total FROM ${patients} WHERE (SELECT n FROM "c") <= ${sql.raw(String(SORT_IN_MEMORY_MAX))} AND ${patients}.rowid IN "m"${sql.join(others)} ORDER BY ${inner} LIMIT ${sql.raw(String(q.page_size))} OFFSET ${sql.placeholder("offset")}`);
  return db.with(m, c, k)
    .select({ candidates: c.n, total: k.total, row: patients })
    .from(c).leftJoin(k, sql`1`).leftJoin(patients, sql`${patients}.rowid = ${k.rid}`)
    .orderBy(outer);
}

/** Up to this many candidates the page is sorted from the driving filter's rows; above, read in index order. */
const SORT_IN_MEMORY_MAX = 5_000;

export async function listPatients(ctx: OrgContext, q: PatientListQuery) {
  if (q.dob_from && q.dob_to && q.dob_from > q.dob_to) {
    throw new ValidationFailed([{ loc: ["query", "dob_to"], msg: "Must not be before dob_from", type: "value_error" }]);
  }
  // the filters with their values inline, for every list but a search answered by its one statement
  let inlineFilters: Filter[] | undefined;
  const filtersInline = () => (inlineFilters ??= listFilters(q));
  const sort = SORTS[q.sort_by];
  const columns = [...sort.columns, patients.id];
  const offset = offsetOf(q);
  const rowid = sql<number>`${patients}.rowid`;
  const term = q.search || q.query;
  // a search: its filters again, with placeholders, for the prepared one-statement page
  let search: { def?: PreparedDef<SearchPageRow>; query: (db: TenantDb) => ReturnType<typeof searchPageQuery>; params: Record<string, unknown> } | undefined;
  if (term) {
    const params: Record<string, unknown> = { offset };
    let n = 0;
    const bind: Bind = (value) => {
      const name = `v${n++}`;
      params[name] = value;
      return sql`${sql.placeholder(name)}`;
    };
    const bound = listFilters(q, bind);
    const { key, sets } = bound[0]!.search!;
    const shape = searchShapeKey(q, key);
    let def = searchPages.get(shape);
    if (!def && searchPages.size < MAX_SEARCH_SHAPES) {
      def = preparedRows<SearchPageRow>((db) => searchPageQuery(db, q, bound, sets).prepare(), (v) => ({
        candidates: v[0] as number, total: v[1] as number | null, row: v[2] === null ? null : patientFrom(v, 2),
      }));
      searchPages.set(shape, def);
    }
    search = { def, query: (db) => searchPageQuery(db, q, bound, sets), params };
  }
  return ctx.db.read(function* (db) {
    yield* checkFilterRefs(db, q);
    const counts: number[] = [];
    if (search) {
      // the search filter comes first; when its candidates are few it drives and this is the whole list
      const { def, query, params } = search;
      const found = def ? yield* allPrepared(db, def, params) : ((yield* all({ all: () => query(db).prepare().all(params) })) as SearchPageRow[]);
      const candidates = found[0]!.candidates;
      if (candidates <= SORT_IN_MEMORY_MAX) {
        let total: number;
        let rows: PatientRow[] = [];
        if (found[0]!.total !== null) {
          total = found[0]!.total;
          rows = found.map((f) => f.row!);
        } else {
          const filters = filtersInline();
          total = offset === 0 ? 0 : yield* countMatches(db, filters, [candidates, ...filters.slice(1).map(() => Infinity)]);
        }
        const names = yield* refNames(db, rows);
        return pageOf(rows.map((r) => serializePatient(r, names)), total, q);
      }
      counts.push(candidates);
    }
    const filters = filtersInline();
    for (const [i, f] of filters.entries()) {
      if (i < counts.length) continue;
      // the status filter (last) is not worth counting once another filter is small
      const skip = i === filters.length - 1 && i > 0 && Math.min(...counts) <= SORT_IN_MEMORY_MAX;
      counts.push(skip ? Infinity : yield* f.candidates(db));
    }
    // the filter letting the fewest rows through drives: moved to the front
    const best = counts.indexOf(Math.min(...counts));
    filters.unshift(...filters.splice(best, 1));
    counts.unshift(...counts.splice(best, 1));
    let total: number;
    let page: number[] = [];
    if (counts[0]! <= SORT_IN_MEMORY_MAX) {
      // Few: through the driving filter, count and sort them in one query on
      // the sort keys only (unary + keeps SQLite off the sort index).
      const orderBy = columns.map((c) => (q.sort_dir === "desc" ? sql`+${c} DESC` : sql`+${c} ASC`));
      const keys = yield* all(db.select({ rowid, total: sql<number>`count(*) OVER ()` }).from(patients).where(whereOf(filters, 0)).orderBy(...orderBy).limit(q.page_size).offset(offset));
      total = keys.length ? keys[0]!.total : offset === 0 ? 0 : yield* countMatches(db, filters, counts);
      page = keys.map((k) => k.rowid);
    } else {
      // Many: count, then walk the sort index, checking each row, until the page is full.
      total = yield* countMatches(db, filters, counts);
      if (offset < total) {
        const dir = q.sort_dir === "desc" ? desc : asc;
        const inOrder = sql`${patients} INDEXED BY ${sql.identifier(sort.index)}`;
        const keys = yield* all(db.select({ rowid }).from(inOrder).where(whereOf(filters, null)).orderBy(...columns.map((c) => dir(c))).limit(q.page_size).offset(offset));
        page = keys.map((k) => k.rowid);
      }
    }
    let rows: PatientRow[] = [];
    if (page.length) {
      const found = yield* all(db.select({ rowid, row: patients }).from(patients).where(inArray(rowid, page)));
      const byRowid = new Map(found.map((f) => [f.rowid, f.row]));
      rows = page.map((r) => byRowid.get(r)!);
    }
    const names = yield* refNames(db, rows);
    return pageOf(rows.map((r) => serializePatient(r, names)), total, q);
  });
}
