// The floor's location create (e3) and booking pipeline calls besides the
// search (d): the statements Cusp runs for them (src/domains/providers/locations/service.ts,
// src/domains/scheduling/appointment-types/service.ts, src/domains/scheduling/appointments/booking.ts
// and conflicts.ts, the resource's insert with its audit row), character for
// character, and the same JSON. Nothing is validated: the body is trusted.

import type { AuditEntry, FloorDb, OrgWrites } from "./floor-db";

/** Who the audit rows name: the bench's administrator (the runner passes the one Cusp's own rows name). */
export type Caller = { actor_id: string; actor_type: string; actor_display_name: string | null; ip: string | null };

const cents = (c: number | null) => (c === null ? null : `${c < 0 ? "-" : ""}${Math.trunc(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, "0")}`);
const bool = (v: unknown) => (v === null ? null : v === 1);

function entry(caller: Caller, action: string, resource: string, id: string, now: string): AuditEntry {
  return {
    id: Bun.randomUUIDv7(),
    actor_id: caller.actor_id,
    actor_type: caller.actor_type,
    actor_display_name: caller.actor_display_name,
    action,
    resource_type: resource,
    resource_id: id,
    request_id: Bun.randomUUIDv7(),
    ip_address: caller.ip,
    created_at: now,
  };
}

// ---- POST {P}/locations ---------------------------------------------------------

/** The locations table's columns in table order (db/tenant/practice.ts). */
const LOCATION_COLUMNS = [
  "id",
  "name",
  "timezone",
  "address_line1",
  "address_line2",
  "city",
  "state",
  "postal_code",
  "country",
  "phone",
  "email",
  "fee_schedule_id",
  "created_at",
  "updated_at",
  "version",
  "deleted_at",
] as const;
const LOCATION_LIST = LOCATION_COLUMNS.map((c) => `"${c}"`).join(", ");

/** The insert drizzle builds for these given columns: a placeholder for each, `null` for the others. */
const locationInsert = (given: Set<string>) =>
  `insert into "locations" (${LOCATION_LIST}) values (${LOCATION_COLUMNS.map((c) => (given.has(c) ? "?" : "null")).join(", ")}) returning ${LOCATION_LIST}`;

type LocationRow = Record<(typeof LOCATION_COLUMNS)[number], any>;

/** serializeLocation without the fee schedule's name (the audit snapshot's form; the answer adds the name). */
const locationJson = (r: LocationRow, feeScheduleName: string | null = null) => ({
  id: r.id,
  name: r.name,
  timezone: r.timezone,
  address_line1: r.address_line1,
  address_line2: r.address_line2,
  city: r.city,
  state: r.state,
  postal_code: r.postal_code,
  country: r.country,
  phone: r.phone,
  email: r.email,
  fee_schedule: r.fee_schedule_id ? { uuid: r.fee_schedule_id, name: feeScheduleName } : null,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

/** `POST {P}/locations`: the row, its audit row; the answer with the fee schedule's name (looked up only when it has one). */
export function createLocation(writes: OrgWrites, caller: Caller, body: Record<string, unknown>) {
  const now = new Date().toISOString();
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (v !== undefined) values[k === "fee_schedule_uuid" ? "fee_schedule_id" : k] = v;
  Object.assign(values, { id: Bun.randomUUIDv7(), version: 1, created_at: now, updated_at: now });
  const given = new Set(LOCATION_COLUMNS.filter((c) => c in values));
  const db = writes.org;
  return writes.write((audit) => {
    const row = db.q(locationInsert(given)).get(...(LOCATION_COLUMNS.filter((c) => given.has(c)).map((c) => values[c]) as string[])) as LocationRow;
    audit(entry(caller, "location.created", "location", row.id, now), null, locationJson(row));
    const fee = row.fee_schedule_id
      ? ((db
          .q(`select "id", "name" from "fee_schedules" where "fee_schedules"."id" IN (SELECT value FROM json_each(?))`)
          .get(JSON.stringify([row.fee_schedule_id])) as {
          name: string;
        } | null) ?? null)
      : null;
    return locationJson(row, fee?.name ?? null);
  });
}

// ---- GET {P}/appointment-types ------------------------------------------------------

const TYPE_COLUMNS = `"id", "code", "name", "duration_minutes", "color", "requires_exam", "is_active", "default_fee_cents", "created_at", "updated_at", "version", "deleted_at"`;
const TYPES_ALL = `select ${TYPE_COLUMNS} from "appointment_types" where "appointment_types"."deleted_at" is null order by "appointment_types"."name" COLLATE NOCASE, "appointment_types"."id"`;
const TYPES_BY_ACTIVE = `select ${TYPE_COLUMNS} from "appointment_types" where ("appointment_types"."deleted_at" is null and "appointment_types"."is_active" = ?) order by "appointment_types"."name" COLLATE NOCASE, "appointment_types"."id"`;

type TypeRow = { id: string; code: string; name: string; duration_minutes: number; color: string; requires_exam: number; is_active: number } & Record<
  string,
  any
>;

const typeJson = (r: TypeRow) => ({
  id: r.id,
  uuid: r.id,
  code: r.code,
  name: r.name,
  duration_minutes: r.duration_minutes,
  color: r.color,
  requires_exam: bool(r.requires_exam),
  is_active: bool(r.is_active),
  default_fee: cents(r.default_fee_cents),
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

/** `GET {P}/appointment-types[?is_active=]`: not paged (items, total). */
export function listAppointmentTypes(db: FloorDb, isActive: string | null) {
  return db.read(() => {
    const rows = (isActive === null ? db.q(TYPES_ALL).all() : db.q(TYPES_BY_ACTIVE).all(isActive === "true" ? 1 : 0)) as TypeRow[];
    return { items: rows.map(typeJson), total: rows.length };
  });
}

// ---- POST {P}/appointments ---------------------------------------------------------

const live = (table: string, columns: string) => `select ${columns} from "${table}" where ("${table}"."id" = ? and "${table}"."deleted_at" is null)`;
const PATIENT = live(
  "patients",
  `"id", "first_name", "last_name", "middle_name", "preferred_name", "title", "salutation", "status", "gender", "marital_status", "pronoun", "date_of_birth", "date_first_visit", "date_time_deceased", "chart_number", "email", "home_phone", "mobile_phone", "work_phone", "phone_digits", "address_line1", "address_line2", "address_note", "city", "state", "postal_code", "country", "preferred_confirmation_method", "preferred_contact_method", "preferred_language", "receives_email", "receives_sms", "ask_to_arrive_early_mins", "allergy_review_status", "appointment_module_note", "billing_cycle_day", "billing_type_id", "consent_flags", "emergency_contact_name", "emergency_contact_phone", "employer_id", "fee_schedule_id", "location_id", "primary_provider_id", "secondary_provider_id", "responsible_party_id", "medicaid_id", "medical_summary", "medical_urgent_note", "premedication_required", "smoking_snomed", "social_security_number", "treatment_notes", "latest_vitals_date", "balance_0_30_cents", "balance_31_60_cents", "balance_61_90_cents", "balance_over_90_cents", "estimated_balance_cents", "insurance_estimate_cents", "payment_plan_due_cents", "created_at", "updated_at", "version", "deleted_at"`,
);
const TYPE = live("appointment_types", TYPE_COLUMNS);
const LOCATION = live("locations", LOCATION_LIST);
const PROVIDER = live(
  "providers",
  `"id", "abbreviation", "first_name", "last_name", "middle_name", "preferred_name", "suffix", "title", "billing_override_provider_id", "birthdate", "custom_id", "date_term", "erx_enabled", "hourly_production_goal_cents", "is_hidden", "is_hidden_report", "is_instructor", "is_not_person", "is_secondary", "item_order", "medicaid_id", "national_provider_id", "outline_color", "provider_color", "provider_type_id", "provider_type_name", "schedule_note", "sig_on_file", "specialty_id", "specialty_name", "ssn_tin", "status", "taxonomy_code_override", "using_tin", "fee_schedule_id", "created_at", "updated_at", "version", "deleted_at"`,
);
const OPERATORY = live("operatories", `"id", "location_id", "name", "abbreviation", "item_order", "created_at", "updated_at", "version", "deleted_at"`);
const overlaps = (column: string) =>
  `select "id", "appointment_type_id", "location_id" from "appointments" where ("appointments"."${column}" = ? and "appointments"."start_utc" > ? and "appointments"."start_utc" < ? and "appointments"."end_utc" > ? and "appointments"."status" not in (?, ?) and "appointments"."deleted_at" is null and "appointments"."id" <> ?)`;
const BY_PROVIDER = overlaps("provider_id");
const BY_OPERATORY = overlaps("operatory_id");
const APPOINTMENT_COLUMNS = `"id", "patient_id", "appointment_type_id", "location_id", "provider_id", "operatory_id", "status", "scheduled_start", "scheduled_end", "start_utc", "end_utc", "notes", "status_reason", "confirmed_at", "arrived_at", "completed_at", "cancelled_at", "broken_at", "is_asap", "confirmation_status", "confirmation_method", "confirmation_recorded_at", "seated_at", "dismissed_at", "fee_cents", "flow_status_id", "flow_status_set_at", "created_at", "updated_at", "version", "deleted_at"`;
const INSERT_APPOINTMENT = `insert into "appointments" (${APPOINTMENT_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, null, null, null, null, null, ?, ?, null, null, null, null, ?, null, null, ?, ?, ?, null) returning ${APPOINTMENT_COLUMNS}`;
/** The booking moment's reaction (clinical): the procedures already on the appointment. */
const PROCEDURES_ON = `select "procedure_code_id" from "charted_procedures" where ("charted_procedures"."appointment_id" = ? and "charted_procedures"."deleted_at" is null)`;
/** Longest appointment: the lower bound of the overlap queries' index range (conflicts.ts). */
const MAX_APPOINTMENT_MS = 24 * 60 * 60 * 1000;

/** A request date-time in the location's zone, to whole seconds (conflicts.ts zonedSecond, without its 422s). */
function zoned(value: string, timeZone: string): Temporal.ZonedDateTime {
  const at = /(Z|[+-]\d{2}:?\d{2})$/i.test(value)
    ? Temporal.Instant.from(value).toZonedDateTimeISO(timeZone)
    : Temporal.PlainDateTime.from(value).toZonedDateTime(timeZone, { disambiguation: "earlier" });
  return at.round({ smallestUnit: "second", roundingMode: "trunc" });
}

const windowOf = (start: Temporal.ZonedDateTime, end: Temporal.ZonedDateTime) => ({
  scheduled_start: start.toPlainDateTime().toString({ smallestUnit: "second" }),
  scheduled_end: end.toPlainDateTime().toString({ smallestUnit: "second" }),
  start_utc: new Date(start.epochMilliseconds).toISOString(),
  end_utc: new Date(end.epochMilliseconds).toISOString(),
});

type AppointmentRow = Record<string, any>;

/** What the answer and the audit trail show alike (records.ts shown). */
const shown = (r: AppointmentRow) => ({
  notes: r.notes,
  status_reason: r.status_reason,
  confirmed_at: r.confirmed_at,
  arrived_at: r.arrived_at,
  completed_at: r.completed_at,
  cancelled_at: r.cancelled_at,
  fee: cents(r.fee_cents),
  broken_at: r.broken_at,
  is_asap: bool(r.is_asap),
  confirmation_status: r.confirmation_status,
  confirmation_method: r.confirmation_method,
  confirmation_recorded_at: r.confirmation_recorded_at,
  seated_at: r.seated_at,
  dismissed_at: r.dismissed_at,
  flow_status_set_at: r.flow_status_set_at,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const auditView = (r: AppointmentRow) => ({
  id: r.id,
  status: r.status,
  patient_uuid: r.patient_id,
  appointment_type_uuid: r.appointment_type_id,
  location_uuid: r.location_id,
  provider_uuid: r.provider_id,
  operatory_uuid: r.operatory_id,
  scheduled_start: r.scheduled_start,
  scheduled_end: r.scheduled_end,
  start_utc: r.start_utc,
  end_utc: r.end_utc,
  flow_status_uuid: r.flow_status_id,
  ...shown(r),
});

export type Booking = { status: number; body: unknown };

/** A booking refused inside its transaction: rolled back, answered with `status`. */
class Refused extends Error {
  constructor(readonly status: number) {
    super(status === 409 ? "booking_conflict" : "Not found");
  }
}

/**
 * `POST {P}/appointments`: the referenced rows read, the provider's and the
 * operatory's overlap queries, the insert with its audit row, the booking
 * moment's procedure read, in one write transaction. An overlap is a 409
 * (Cusp would first ask the appointment rules whether the two types may
 * overlap: the bench books free slots only, so it never gets there).
 */
export async function createAppointment(writes: OrgWrites, caller: Caller, input: Record<string, any>): Promise<Booking> {
  try {
    return { status: 201, body: await book(writes, caller, input) };
  } catch (err) {
    if (err instanceof Refused) return { status: err.status, body: { detail: err.message } };
    throw err;
  }
}

function book(writes: OrgWrites, caller: Caller, input: Record<string, any>) {
  const db = writes.org;
  return writes.write((audit) => {
    const patient = db.q(PATIENT).get(input.patient_uuid) as AppointmentRow | null;
    const type = db.q(TYPE).get(String(input.appointment_type_uuid).toLowerCase()) as TypeRow | null;
    const location = db.q(LOCATION).get(input.location_uuid) as LocationRow | null;
    const provider = db.q(PROVIDER).get(input.provider_uuid) as AppointmentRow | null;
    const operatory = input.operatory_uuid ? (db.q(OPERATORY).get(input.operatory_uuid) as AppointmentRow | null) : null;
    if (!patient || !type || !location || !provider || (input.operatory_uuid && !operatory)) throw new Refused(404);
    const window = windowOf(zoned(input.scheduled_start, location.timezone), zoned(input.scheduled_end, location.timezone));
    const range = { earliest: new Date(Date.parse(window.start_utc) - MAX_APPOINTMENT_MS).toISOString(), start: window.start_utc, end: window.end_utc };
    for (const [query, who] of [
      [BY_PROVIDER, provider.id],
      [BY_OPERATORY, operatory?.id ?? null],
    ] as const) {
      if (who && db.q(query).all(who, range.earliest, range.end, range.start, "cancelled", "broken", "").length) throw new Refused(409);
    }
    const now = new Date().toISOString();
    const fee = input.fee === undefined ? type.default_fee_cents : input.fee === null ? null : Math.round(input.fee * 100);
    const row = db
      .q(INSERT_APPOINTMENT)
      .get(
        Bun.randomUUIDv7(),
        patient.id,
        type.id,
        location.id,
        provider.id,
        operatory?.id ?? null,
        "scheduled",
        window.scheduled_start,
        window.scheduled_end,
        window.start_utc,
        window.end_utc,
        input.notes ?? null,
        input.is_asap ? 1 : 0,
        "unconfirmed",
        fee,
        now,
        now,
        1,
      ) as AppointmentRow;
    audit(entry(caller, "appointment.created", "appointment", row.id, now), null, auditView(row));
    db.q(PROCEDURES_ON).values(row.id);
    return {
      id: row.id,
      uuid: row.id,
      status: row.status,
      patient: { uuid: patient.id, first_name: patient.first_name, last_name: patient.last_name },
      appointment_type: { uuid: type.id, name: type.name, duration_minutes: type.duration_minutes, color: type.color },
      scheduled_start: row.scheduled_start,
      scheduled_end: row.scheduled_end,
      location: { uuid: location.id, name: location.name },
      provider: { uuid: provider.id, first_name: provider.first_name, last_name: provider.last_name, title: provider.title },
      operatory: operatory ? { uuid: operatory.id, name: operatory.name } : null,
      flow_status: null,
      ...shown(row),
      procedures: [],
      production: "0.00",
    };
  });
}
