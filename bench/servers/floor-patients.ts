// The floor's patient reads (bench/servers/floor.ts): the statements Cusp runs
// for `GET {P}/patients/{id}` (src/domains/patients/record/rows.ts,
// findPatientWithRefs, and duplicates.ts when the patient has pairs) and for a
// name search page (list.ts, searchPageQuery with search.ts's readings, then
// service.ts's refNames), character for character, and the same JSON
// (service.ts, serializePatient), built by hand.

import { sqliteWork } from "@bench/runner/sqlite-work";
import { NameIndex } from "@/domains/patients/record/name-index";
import type { FloorDb } from "./floor-db";

/** The patients table's columns in table order (db/tenant/patients.ts): every statement selects them so. */
const COLUMNS = [
  "id",
  "first_name",
  "last_name",
  "middle_name",
  "preferred_name",
  "title",
  "salutation",
  "status",
  "gender",
  "marital_status",
  "pronoun",
  "date_of_birth",
  "date_first_visit",
  "date_time_deceased",
  "chart_number",
  "email",
  "home_phone",
  "mobile_phone",
  "work_phone",
  "phone_digits",
  "address_line1",
  "address_line2",
  "address_note",
  "city",
  "state",
  "postal_code",
  "country",
  "preferred_confirmation_method",
  "preferred_contact_method",
  "preferred_language",
  "receives_email",
  "receives_sms",
  "ask_to_arrive_early_mins",
  "allergy_review_status",
  "appointment_module_note",
  "billing_cycle_day",
  "billing_type_id",
  "consent_flags",
  "emergency_contact_name",
  "emergency_contact_phone",
  "employer_id",
  "fee_schedule_id",
  "location_id",
  "primary_provider_id",
  "secondary_provider_id",
  "responsible_party_id",
  "medicaid_id",
  "medical_summary",
  "medical_urgent_note",
  "premedication_required",
  "smoking_snomed",
  "social_security_number",
  "treatment_notes",
  "latest_vitals_date",
  "balance_0_30_cents",
  "balance_31_60_cents",
  "balance_61_90_cents",
  "balance_over_90_cents",
  "estimated_balance_cents",
  "insurance_estimate_cents",
  "payment_plan_due_cents",
  "created_at",
  "updated_at",
  "version",
  "deleted_at",
] as const;
const BOOLEANS = new Set(["receives_email", "receives_sms", "premedication_required"]);

type PatientRow = Record<(typeof COLUMNS)[number], any>;

/** The patient columns of `values` from `at` on (integers stored for booleans read as booleans). */
function patientFrom(values: unknown[], at: number): PatientRow {
  const row: Record<string, unknown> = {};
  for (let i = 0; i < COLUMNS.length; i++) {
    const key = COLUMNS[i]!;
    const v = values[at + i];
    row[key] = v !== null && BOOLEANS.has(key) ? v === 1 : v;
  }
  return row as PatientRow;
}

const nameOf = (table: string, column: string, id: string) => `(SELECT "r"."${column}" FROM "${table}" AS "r" WHERE "r"."id" = "patients"."${id}")`;
const BARE_COLUMNS = COLUMNS.map((c) => `"${c}"`).join(", ");
const QUALIFIED_COLUMNS = COLUMNS.map((c) => `"patients"."${c}"`).join(", ");

const BY_ID_WITH_REFS = `select ${[
  nameOf("locations", "name", "location_id"),
  nameOf("providers", "first_name", "primary_provider_id"),
  nameOf("providers", "last_name", "primary_provider_id"),
  nameOf("providers", "first_name", "secondary_provider_id"),
  nameOf("providers", "last_name", "secondary_provider_id"),
  nameOf("patients", "first_name", "responsible_party_id"),
  nameOf("patients", "last_name", "responsible_party_id"),
  nameOf("fee_schedules", "name", "fee_schedule_id"),
].join(", ")}, EXISTS (SELECT 1 FROM "patient_duplicates" WHERE "patient_id" = "patients"."id"), ${BARE_COLUMNS} from "patients" where "patients"."id" = ?`;

const DUPLICATES = (where: string) =>
  `select "patient_duplicates"."patient_id", "patients"."id", "patients"."first_name", "patients"."last_name", "patients"."date_of_birth", "patient_duplicates"."reasons", "patient_duplicates"."score" from "patient_duplicates" inner join "patients" on "patients"."id" = "patient_duplicates"."duplicate_id" where (${where} and "patients"."deleted_at" is null) order by "patient_duplicates"."score" desc, "patients"."last_name" asc, "patients"."first_name" asc, "patients"."id" asc`;
const DUPLICATES_OF_ONE = DUPLICATES(`"patient_duplicates"."patient_id" = ?`);
const DUPLICATES_OF_MANY = DUPLICATES(`"patient_duplicates"."patient_id" IN (SELECT value FROM json_each(?))`);

const NAMES = {
  locations: `select "id", "name" from "locations" where "locations"."id" IN (SELECT value FROM json_each(?))`,
  providers: `select "id", "first_name", "last_name" from "providers" where "providers"."id" IN (SELECT value FROM json_each(?))`,
  patients: `select "id", "first_name", "last_name" from "patients" where "patients"."id" IN (SELECT value FROM json_each(?))`,
  feeSchedules: `select "id", "name" from "fee_schedules" where "fee_schedules"."id" IN (SELECT value FROM json_each(?))`,
};

type Duplicate = { uuid: string; first_name: string; last_name: string; date_of_birth: string | null; reasons: string[]; score: number };
type Names = { locations: Map<string, string>; providers: Map<string, string>; patients: Map<string, string>; feeSchedules: Map<string, string> };

function duplicatesOf(db: FloorDb, ids: string[]): Map<string, Duplicate[]> {
  const out = new Map<string, Duplicate[]>();
  if (!ids.length) return out;
  const rows = (ids.length === 1 ? db.q(DUPLICATES_OF_ONE).values(ids[0]!) : db.q(DUPLICATES_OF_MANY).values(JSON.stringify(ids))) as unknown[][];
  for (const v of rows) {
    const d = { uuid: v[1], first_name: v[2], last_name: v[3], date_of_birth: v[4], reasons: JSON.parse(v[5] as string), score: v[6] } as Duplicate;
    const list = out.get(v[0] as string);
    if (list) list.push(d);
    else out.set(v[0] as string, [d]);
  }
  return out;
}

const person = (first: string | null, last: string | null) => (first === null ? null : `${first} ${last}`);
const ref = (id: string | null, names: Map<string, string>) => (id ? { uuid: id, name: names.get(id) ?? null } : null);
const cents = (c: number | null) => (c === null ? null : `${c < 0 ? "-" : ""}${Math.trunc(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, "0")}`);

/** serializePatient (src/domains/patients/record/service.ts), key for key. */
function patientJson(r: PatientRow, names: Names, duplicates: Map<string, Duplicate[]>) {
  const total = r.balance_0_30_cents + r.balance_31_60_cents + r.balance_61_90_cents + r.balance_over_90_cents;
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
    status: r.status,
    gender: r.gender,
    marital_status: r.marital_status,
    pronoun: r.pronoun,
    date_of_birth: r.date_of_birth,
    date_first_visit: r.date_first_visit,
    date_time_deceased: r.date_time_deceased,
    chart_number: r.chart_number,
    email: r.email,
    home_phone: r.home_phone,
    mobile_phone: r.mobile_phone,
    work_phone: r.work_phone,
    primary_phone: r.mobile_phone || r.home_phone || r.work_phone || null,
    address_line1: r.address_line1,
    address_line2: r.address_line2,
    address_note: r.address_note,
    city: r.city,
    state: r.state,
    postal_code: r.postal_code,
    country: r.country,
    preferred_confirmation_method: r.preferred_confirmation_method,
    preferred_contact_method: r.preferred_contact_method,
    preferred_language: r.preferred_language,
    receives_email: r.receives_email,
    receives_sms: r.receives_sms,
    ask_to_arrive_early_mins: r.ask_to_arrive_early_mins,
    allergy_review_status: r.allergy_review_status,
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
    social_security_number: r.social_security_number ? `***-**-${r.social_security_number.slice(-4)}` : null,
    treatment_notes: r.treatment_notes,
    latest_vitals_date: r.latest_vitals_date,
    billing_type: r.billing_type_id ? { uuid: r.billing_type_id, name: null } : null,
    employer: r.employer_id ? { uuid: r.employer_id, name: null } : null,
    fee_schedule: ref(r.fee_schedule_id, names.feeSchedules),
    location: ref(r.location_id, names.locations),
    primary_provider: ref(r.primary_provider_id, names.providers),
    secondary_provider: ref(r.secondary_provider_id, names.providers),
    responsible_party: ref(r.responsible_party_id, names.patients),
    preferred_provider_uuid: r.primary_provider_id,
    balance_0_30: cents(r.balance_0_30_cents),
    balance_31_60: cents(r.balance_31_60_cents),
    balance_61_90: cents(r.balance_61_90_cents),
    balance_over_90: cents(r.balance_over_90_cents),
    balance_total: cents(total),
    estimated_balance: cents(r.estimated_balance_cents),
    insurance_estimate: cents(r.insurance_estimate_cents),
    payment_plan_due: cents(r.payment_plan_due_cents),
    scheduling_restricted: r.status === "inactive" || total > 50_000,
    potential_duplicates: duplicates.get(r.id) ?? [],
  };
}

const one = (id: string | null, name: string | null) => (id && name !== null ? new Map([[id, name]]) : new Map<string, string>());

/** `GET {P}/patients/{id}`: the patient with its references' names in one statement (and its pairs when it has any); null when missing. */
export function getPatient(db: FloorDb, id: string) {
  return db.read(() => {
    const v = db.q(BY_ID_WITH_REFS).values(id)[0] as unknown[] | undefined;
    if (!v) return null;
    const row = patientFrom(v, 9);
    const providers = new Map<string, string>();
    const primary = person(v[1] as string | null, v[2] as string | null);
    const secondary = person(v[3] as string | null, v[4] as string | null);
    if (row.primary_provider_id && primary !== null) providers.set(row.primary_provider_id, primary);
    if (row.secondary_provider_id && secondary !== null) providers.set(row.secondary_provider_id, secondary);
    const names: Names = {
      locations: one(row.location_id, v[0] as string | null),
      providers,
      patients: one(row.responsible_party_id, person(v[5] as string | null, v[6] as string | null)),
      feeSchedules: one(row.fee_schedule_id, v[7] as string | null),
    };
    return patientJson(row, names, v[8] ? duplicatesOf(db, [row.id]) : new Map());
  });
}

// ---- search ----------------------------------------------------------------------

/** Up to this many candidates Cusp sorts the page in its one statement (list.ts SORT_IN_MEMORY_MAX). */
const SORT_IN_MEMORY_MAX = 5_000;
const NOT_ARCHIVED = ["active", "inactive", "prospective", "deceased"];
const PHONE_LIKE = /^[\d\s().+\-]+$/;
const DATE_LIKE = /^(\d{4}-\d{2}-\d{2}|\d{1,2}\/\d{1,2}\/\d{4})$/;

/** The search page statement of list.ts for these index lookups, sorted by last name (the default), `pageSize` written in. */
function searchPageSql(sets: string[], pageSize: number): string {
  return `with "m" as (${sets.join(" UNION ")}), "c" as (SELECT count(*) AS n FROM "m"), "k" as (SELECT "patients".rowid AS rid, count(*) OVER () AS total FROM "m" CROSS JOIN "patients" ON "patients".rowid = "m".rowid WHERE (SELECT n FROM "c") <= ${SORT_IN_MEMORY_MAX} AND +"patients"."status" IN (?, ?, ?, ?) ORDER BY +"patients"."last_name" ASC, +"patients"."first_name" ASC, +"patients"."id" ASC LIMIT ${pageSize} OFFSET ?) select "n", "total", ${QUALIFIED_COLUMNS} from "c" left join "k" on 1 left join "patients" on "patients".rowid = "rid" order by "patients"."last_name" ASC, "patients"."first_name" ASC, "patients"."id" ASC`;
}

/** A search the floor does not answer as Cusp does (a phone or date reading, or more candidates than Cusp sorts in one statement). */
export class Unsupported extends Error {}

/**
 * `GET {P}/patients?search=&page=&page_size=`: the readings search.ts makes of
 * a term that is neither a date nor a phone (chart number, email without
 * spaces, name prefixes), the one-statement page, then the references' names
 * and the page's pairs, one statement per kind.
 */
export function searchPatients(db: FloorDb, raw: string, page: number, pageSize: number) {
  const term = raw.trim();
  if (DATE_LIKE.test(term) || PHONE_LIKE.test(term)) throw new Unsupported("the floor answers name, chart number and email searches only");
  const sets = [`SELECT rowid FROM "patients" WHERE "patients"."chart_number" IN (?, ?, ?)`];
  const args: unknown[] = [term, term.toUpperCase(), term.toLowerCase()];
  if (term.length >= 3 && !/\s/.test(term)) {
    sets.push("SELECT rowid FROM patients_contact_fts WHERE patients_contact_fts MATCH ?");
    args.push(`email : "${term.replace(/"/g, '""')}"`);
  }
  const offset = (page - 1) * pageSize;
  return db.read(() => {
    // the name reading as Cusp answers it: the org's in-memory name index (src/domains/patients/record/name-index.ts), caught up first
    const rowids = namesIn(db).lookup(term);
    if (rowids) {
      sets.push("SELECT value AS rowid FROM json_each(?)");
      args.push(JSON.stringify(rowids));
    }
    const found = db.q(searchPageSql(sets, pageSize)).values(...(args as string[]), ...NOT_ARCHIVED, offset) as unknown[][];
    const first = found[0]!;
    if ((first[0] as number) > SORT_IN_MEMORY_MAX) throw new Unsupported("more candidates than one statement sorts");
    if (first[1] === null && offset > 0) throw new Unsupported("a page past the end (Cusp counts it apart)");
    const rows = first[1] === null ? [] : found.map((v) => patientFrom(v, 2));
    const total = first[1] === null ? 0 : (first[1] as number);
    const refs = refNames(db, rows);
    const duplicates = duplicatesOf(
      db,
      rows.map((r) => r.id),
    );
    return { items: rows.map((r) => patientJson(r, refs, duplicates)), page, page_size: pageSize, total };
  });
}

/** The distinct non-null ids the rows name, in first-seen order. */
function idsOf(rows: PatientRow[], ...columns: (keyof PatientRow)[]): string[] {
  const out: string[] = [];
  for (const r of rows) for (const c of columns) if (r[c] && !out.includes(r[c])) out.push(r[c]);
  return out;
}

/** service.ts refNames: one statement per kind of reference the page has. */
function refNames(db: FloorDb, rows: PatientRow[]): Names {
  const lookup = (sql: string, ids: string[], name: (r: any) => string) => {
    const out = new Map<string, string>();
    if (!ids.length) return out;
    for (const r of db.q(sql).all(JSON.stringify(ids)) as { id: string }[]) out.set(r.id, name(r));
    return out;
  };
  const personName = (r: { first_name: string; last_name: string }) => `${r.first_name} ${r.last_name}`;
  return {
    locations: lookup(NAMES.locations, idsOf(rows, "location_id"), (r) => r.name),
    providers: lookup(NAMES.providers, idsOf(rows, "primary_provider_id", "secondary_provider_id"), personName),
    patients: lookup(NAMES.patients, idsOf(rows, "responsible_party_id"), personName),
    feeSchedules: lookup(NAMES.feeSchedules, idsOf(rows, "fee_schedule_id"), (r) => r.name),
  };
}

/** The org's name index, as Cusp keeps one per open org database, over the floor's own connection. */
function namesIn(db: FloorDb): { lookup(term: string): number[] | null } {
  let held = NAME_INDEXES.get(db);
  if (!held) {
    const work = sqliteWork(db.sqlite);
    const index = new NameIndex();
    held = {
      lookup(term: string) {
        work.run((d) => index.catchUp(d));
        return index.match(term);
      },
    };
    NAME_INDEXES.set(db, held);
  }
  return held;
}
const NAME_INDEXES = new WeakMap<FloorDb, { lookup(term: string): number[] | null }>();
