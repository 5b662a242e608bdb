import { and, count, desc, eq, gt, gte, inArray, isNull, lte, ne, notExists, notInArray, or, sql, type SQL } from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import { appointments, appointmentTypes, locations, operatories, patients, providers } from "@db/tenant/schema";
import { all, get, type Work } from "@/platform/db/work";
import { InvalidTransition, NotFound, ValidationFailed, VersionConflict, invalid } from "@/platform/errors";
import { audit } from "@/platform/audit/audit";
import { centsFromNumber, formatCents } from "@/platform/money";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { offsetOf, pageOf, type Paging } from "@/platform/records/paging";
import { toZoned, utcIso } from "@/platform/time/zoned";
import { locationRecords } from "@/domains/providers/locations/service";
import { appointmentTypeRecords, requireAppointmentType } from "@/domains/scheduling/appointment-types/service";
import { patientRecords, patientRef, requirePatient } from "@/domains/patients/record/service";
import { requireProvider } from "@/domains/providers/record/service";
import { requireOperatory } from "@/domains/scheduling/operatories/service";
import { assertSlotFree, checkWindow, windowOf, zonedSecond, type Window } from "./conflicts";
import {
  ASAP_KINDS, EDITABLE_STATUSES, SLOT_FREEING_STATUSES, TRANSITIONS,
  type Appointment, type AppointmentConfirmation, type AppointmentCreate, type AppointmentListQuery, type AppointmentPatch,
  type AppointmentStatus, type AppointmentStatusChange, type AsapListQuery, type PatientAppointmentsQuery,
} from "./schemas";

type AppointmentRow = typeof appointments.$inferSelect;

/** What the audit trail keeps of an appointment: the row with API names. */
const auditView = (r: AppointmentRow) => ({
  id: r.id, status: r.status,
  patient_uuid: r.patient_id, appointment_type_uuid: r.appointment_type_id, location_uuid: r.location_id,
  provider_uuid: r.provider_id, operatory_uuid: r.operatory_id,
  scheduled_start: r.scheduled_start, scheduled_end: r.scheduled_end, start_utc: r.start_utc, end_utc: r.end_utc,
  notes: r.notes, status_reason: r.status_reason,
  confirmed_at: r.confirmed_at, arrived_at: r.arrived_at, completed_at: r.completed_at, cancelled_at: r.cancelled_at,
  ...extras(r),
  version: r.version, created_at: r.created_at, updated_at: r.updated_at,
});

/** The front-desk fields (ASAP flag, confirmation, no-show, chair-side steps), the same in API answers and audit. */
function extras(r: AppointmentRow) {
  return {
    fee: formatCents(r.fee_cents), broken_at: r.broken_at, is_asap: r.is_asap,
    confirmation_status: r.confirmation_status as Appointment["confirmation_status"],
    confirmation_method: r.confirmation_method as Appointment["confirmation_method"],
    confirmation_recorded_at: r.confirmation_recorded_at, seated_at: r.seated_at, dismissed_at: r.dismissed_at,
  };
}

export const appointmentRecords = defineResource<AppointmentRow, ReturnType<typeof auditView>>({
  table: appointments, name: "appointment", label: "Appointment", serialize: auditView, practiceId: (r) => r.location_id,
});

// ---------------------------------------------------------------- reading with references

type Refs = {
  patient: { id: string; first_name: string; last_name: string };
  type: { id: string; name: string; duration_minutes: number; color: string };
  location: { id: string; name: string };
  provider: { id: string; first_name: string; last_name: string; title: string | null };
  operatory: { id: string; name: string } | null;
};

export function serializeAppointment(r: AppointmentRow, refs: Refs): Appointment {
  return {
    id: r.id, uuid: r.id, status: r.status as AppointmentStatus,
    patient: patientRef(refs.patient),
    appointment_type: { uuid: refs.type.id, name: refs.type.name, duration_minutes: refs.type.duration_minutes, color: refs.type.color },
    scheduled_start: r.scheduled_start, scheduled_end: r.scheduled_end,
    location: { uuid: refs.location.id, name: refs.location.name },
    provider: { uuid: refs.provider.id, first_name: refs.provider.first_name, last_name: refs.provider.last_name, title: refs.provider.title },
    operatory: refs.operatory ? { uuid: refs.operatory.id, name: refs.operatory.name } : null,
    notes: r.notes, status_reason: r.status_reason,
    confirmed_at: r.confirmed_at, arrived_at: r.arrived_at, completed_at: r.completed_at, cancelled_at: r.cancelled_at,
    ...extras(r),
    version: r.version, created_at: r.created_at, updated_at: r.updated_at,
  };
}

// References are shown even when the referenced record was archived later.
const withRefs = (db: TenantDb) =>
  db.select({
    a: appointments,
    patient: { id: patients.id, first_name: patients.first_name, last_name: patients.last_name },
    type: { id: appointmentTypes.id, name: appointmentTypes.name, duration_minutes: appointmentTypes.duration_minutes, color: appointmentTypes.color },
    location: { id: locations.id, name: locations.name },
    provider: { id: providers.id, first_name: providers.first_name, last_name: providers.last_name, title: providers.title },
    operatory: { id: operatories.id, name: operatories.name },
  })
    .from(appointments)
    .innerJoin(patients, eq(patients.id, appointments.patient_id))
    .innerJoin(appointmentTypes, eq(appointmentTypes.id, appointments.appointment_type_id))
    .innerJoin(locations, eq(locations.id, appointments.location_id))
    .innerJoin(providers, eq(providers.id, appointments.provider_id))
    .leftJoin(operatories, eq(operatories.id, appointments.operatory_id));

type Joined = { a: AppointmentRow } & Refs;
const serializeJoined = (j: Joined) => serializeAppointment(j.a, j);

function* readOne(db: TenantDb, id: string): Work<Appointment> {
  const j = (yield* get(withRefs(db).where(and(eq(appointments.id, id), isNull(appointments.deleted_at))))) as Joined | undefined;
  if (!j) throw new NotFound("Appointment");
  return serializeJoined(j);
}

export async function getAppointment(ctx: OrgContext, id: string): Promise<Appointment> {
  return ctx.db.read((db) => readOne(db, id));
}

/**
 * Range bounds. A date or a local date-time compares with the stored wall clock
 * (so a date means that day in each appointment's own location zone); a value
 * with an offset compares with the UTC start. The coarse UTC bound on local
 * values (zones lie within ±14 h of UTC) lets the start_utc indexes narrow the scan.
 */
const DAY_MS = 24 * 60 * 60 * 1000;
const isDate = (v: string) => v.length === 10;
const hasOffset = (v: string) => /(Z|[+-]\d{2}:\d{2})$/i.test(v);
const shiftIso = (wall: string, ms: number) => new Date(Date.parse(`${wall}Z`) + ms).toISOString();

function rangeConditions(q: AppointmentListQuery): SQL[] {
  const conds: SQL[] = [];
  if (q.date_from) {
    if (hasOffset(q.date_from)) conds.push(gte(appointments.start_utc, utcIso(toZoned(q.date_from, "UTC", ["query", "date_from"]))));
    else {
      const wall = isDate(q.date_from) ? `${q.date_from}T00:00:00` : Temporal.PlainDateTime.from(q.date_from).toString();
      conds.push(gte(appointments.scheduled_start, wall), gte(appointments.start_utc, shiftIso(wall.slice(0, 19), -DAY_MS)));
    }
  }
  if (q.date_to) {
    if (hasOffset(q.date_to)) conds.push(lte(appointments.start_utc, utcIso(toZoned(q.date_to, "UTC", ["query", "date_to"]))));
    else {
      // a date is inclusive: everything before the next day's midnight
      const wall = isDate(q.date_to) ? `${q.date_to}T23:59:59.999999999` : Temporal.PlainDateTime.from(q.date_to).toString();
      conds.push(lte(appointments.scheduled_start, wall), lte(appointments.start_utc, shiftIso(wall.slice(0, 19), DAY_MS)));
    }
  }
  if (q.date_from && q.date_to && isDate(q.date_from) && isDate(q.date_to) && q.date_to < q.date_from) {
    throw new ValidationFailed([{ loc: ["query", "date_to"], msg: "Must not be before date_from", type: "value_error" }]);
  }
  return conds;
}

export async function listAppointments(ctx: OrgContext, q: AppointmentListQuery) {
  const conds: (SQL | undefined)[] = [
    isNull(appointments.deleted_at),
    ...rangeConditions(q),
    q.location_uuid ? eq(appointments.location_id, q.location_uuid.toLowerCase()) : undefined,
    q.provider_uuid ? eq(appointments.provider_id, q.provider_uuid.toLowerCase()) : undefined,
    q.operatory_uuid ? eq(appointments.operatory_id, q.operatory_uuid.toLowerCase()) : undefined,
    q.patient_uuid ? eq(appointments.patient_id, q.patient_uuid.toLowerCase()) : undefined,
    q.status ? inArray(appointments.status, q.status) : undefined,
  ];
  return ctx.db.read((db) => pageWhere(db, and(...conds), [appointments.start_utc, appointments.id], q));
}

/** One page of appointments matching `where`, with their references. */
function* pageWhere(db: TenantDb, where: SQL | undefined, orderBy: (SQL | SQLiteColumn)[], q: Paging) {
  const total = (yield* get<{ n: number }>(db.select({ n: count() }).from(appointments).where(where)))?.n ?? 0;
  const rows = (yield* all(withRefs(db).where(where).orderBy(...orderBy).limit(q.page_size).offset(offsetOf(q)))) as Joined[];
  return pageOf(rows.map(serializeJoined), total, q);
}

/** A patient's appointments, newest first; archived patients keep their history (404 only when unknown). */
export async function listPatientAppointments(ctx: OrgContext, patientId: string, q: PatientAppointmentsQuery) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientRecords.require(db, patientId.toLowerCase(), true);
    const where = and(isNull(appointments.deleted_at), eq(appointments.patient_id, patient.id), q.status ? inArray(appointments.status, q.status) : undefined);
    return yield* pageWhere(db, where, [desc(appointments.start_utc), desc(appointments.id)], q);
  });
}

/**
 * The ASAP / unscheduled list (docs/appointments.md): appointments flagged is_asap
 * that are scheduled or confirmed and still ahead, plus cancelled and broken ones
 * whose patient has not been booked again since (no appointment that is not
 * cancelled or broken created at or after the cancellation). Archived and
 * deceased patients are left out: nobody should call them. Ordered by start.
 */
export async function listAsap(ctx: OrgContext, q: AsapListQuery) {
  const kinds = new Set(q.kind ?? ASAP_KINDS);
  const freed = (["cancelled", "broken"] as const).filter((k) => kinds.has(k));
  return ctx.db.read(function* (db) {
    const later = alias(appointments, "later");
    const rebooked = db.select({ one: sql`1` }).from(later).where(and(
      eq(later.patient_id, appointments.patient_id), ne(later.id, appointments.id), isNull(later.deleted_at),
      notInArray(later.status, [...SLOT_FREEING_STATUSES]),
      gte(later.created_at, sql`coalesce(${appointments.cancelled_at}, ${appointments.broken_at})`),
    ));
    const reachable = db.select({ id: patients.id }).from(patients).where(and(isNull(patients.deleted_at), ne(patients.status, "deceased")));
    const where = and(
      isNull(appointments.deleted_at),
      or(
        kinds.has("asap") ? and(eq(appointments.is_asap, true), inArray(appointments.status, [...EDITABLE_STATUSES]), gt(appointments.start_utc, new Date().toISOString())) : undefined,
        freed.length ? and(inArray(appointments.status, freed), notExists(rebooked)) : undefined,
      ),
      inArray(appointments.patient_id, reachable),
      q.location_uuid ? eq(appointments.location_id, q.location_uuid.toLowerCase()) : undefined,
      q.provider_uuid ? eq(appointments.provider_id, q.provider_uuid.toLowerCase()) : undefined,
    );
    return yield* pageWhere(db, where, [appointments.start_utc, appointments.id], q);
  });
}

// ---------------------------------------------------------------- booking

/** Events name fields as the API does; the UTC copies travel with scheduled_start/end. */
const API_FIELD: Record<string, string | null> = { provider_id: "provider", operatory_id: "operatory", fee_cents: "fee", start_utc: null, end_utc: null };
const feeCents = (fee: number | null) => (fee === null ? null : centsFromNumber(fee));
function renameChangedFields(s: TxScope) {
  const data = s.after.events.at(-1)?.data as { changed_fields?: string[] } | undefined;
  if (!data?.changed_fields) return;
  data.changed_fields = [...new Set(data.changed_fields.map((f) => (f in API_FIELD ? API_FIELD[f]! : f)).filter(Boolean))];
}

function* requireBookableOperatory(db: TenantDb, id: string, locationId: string) {
  const operatory = yield* requireOperatory(db, id.toLowerCase());
  if (operatory.location_id !== locationId) {
    throw invalid(["body", "operatory_uuid"], "The operatory belongs to another location", "value_error", "operatory_location_mismatch");
  }
  return operatory;
}

/**
 * Book an appointment. Every check and the insert run in one write transaction
 * (BEGIN IMMEDIATE on local files, with no await inside): of N simultaneous
 * requests for one slot exactly one commits, the others see its row and get 409.
 */
export async function createAppointment(ctx: OrgContext, input: AppointmentCreate): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    // 404s first, then the 422 rules, then 409
    // ids are stored lower-case; a client may send them in either case
    const patient = yield* requirePatient(s.tx, input.patient_uuid.toLowerCase());
    const type = yield* requireAppointmentType(s.tx, input.appointment_type_uuid.toLowerCase());
    const location = yield* locationRecords.require(s.tx, input.location_uuid.toLowerCase());
    const provider = yield* requireProvider(s.tx, input.provider_uuid.toLowerCase());
    const operatory = input.operatory_uuid ? yield* requireBookableOperatory(s.tx, input.operatory_uuid, location.id) : null;

    // archived patients are 404 (requirePatient); a deceased one is never booked, override or not
    if (patient.status === "deceased" || patient.status === "archived") {
      throw invalid(["body", "patient_uuid"], "This patient cannot be booked (deceased or archived)", "value_error", "patient_not_schedulable");
    }
    if (!type.is_active) throw invalid(["body", "appointment_type_uuid"], "This appointment type is inactive", "value_error", "appointment_type_inactive");
    const window = windowOf(
      zonedSecond(input.scheduled_start, location.timezone, "scheduled_start"),
      zonedSecond(input.scheduled_end, location.timezone, "scheduled_end"),
    );
    checkWindow(window, type.duration_minutes);
    const overriding = patient.scheduling_restricted;
    if (overriding && input.override_scheduling_restriction !== true) {
      throw invalid(["body", "patient_uuid"], "The patient's scheduling is restricted (inactive, or balance over 500.00); set override_scheduling_restriction to book anyway",
        "value_error", "scheduling_restricted");
    }

    yield* assertSlotFree(s.tx, { window, providerId: provider.id, operatoryId: operatory?.id ?? null, typeId: type.id, locationId: location.id });

    const row = yield* appointmentRecords.create(s, {
      patient_id: patient.id, appointment_type_id: type.id, location_id: location.id, provider_id: provider.id,
      operatory_id: operatory?.id ?? null, status: "scheduled", ...window, notes: input.notes ?? null, is_asap: input.is_asap ?? false,
      // the type's default is copied, not referenced: editing the type later does not re-price this booking
      fee_cents: input.fee === undefined ? type.default_fee_cents : feeCents(input.fee),
    }, { patient_id: patient.id, provider_id: provider.id, operatory_id: operatory?.id ?? null, appointment_type_id: type.id, status: "scheduled" });
    if (overriding) {
      yield* audit(s, {
        action: "appointment.scheduling_restriction_overridden", resource_type: "appointment", resource_id: row.id,
        before: null, after: { patient_uuid: patient.id },
      });
    }
    return serializeAppointment(row, { patient, type, location, provider, operatory });
  });
}

/** Reschedule or edit: only while scheduled or confirmed; the same conflict rules, ignoring itself. */
export async function updateAppointment(ctx: OrgContext, id: string, input: AppointmentPatch): Promise<Appointment> {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const current = yield* appointmentRecords.require(s.tx, id);
    if (current.version !== base_version) throw new VersionConflict(current.version);
    if (!EDITABLE_STATUSES.includes(current.status as AppointmentStatus)) {
      throw invalid(["body"], `A ${current.status} appointment cannot be changed`, "invalid_transition", "invalid_transition");
    }
    const providerId = patch.provider_uuid !== undefined ? (yield* requireProvider(s.tx, patch.provider_uuid.toLowerCase())).id : current.provider_id;
    const operatoryId = patch.operatory_uuid === undefined ? current.operatory_id
      : patch.operatory_uuid === null ? null
      : (yield* requireBookableOperatory(s.tx, patch.operatory_uuid, current.location_id)).id;

    let window: Window = { scheduled_start: current.scheduled_start, scheduled_end: current.scheduled_end, start_utc: current.start_utc, end_utc: current.end_utc };
    if (patch.scheduled_start !== undefined || patch.scheduled_end !== undefined) {
      // the location's zone as it is now; the type's duration even if it was archived since
      const location = yield* locationRecords.require(s.tx, current.location_id, true);
      const type = yield* appointmentTypeRecords.require(s.tx, current.appointment_type_id, true);
      const zoned = (value: string | undefined, utc: string, field: string) =>
        value !== undefined ? zonedSecond(value, location.timezone, field) : Temporal.Instant.from(utc).toZonedDateTimeISO(location.timezone);
      window = windowOf(zoned(patch.scheduled_start, current.start_utc, "scheduled_start"), zoned(patch.scheduled_end, current.end_utc, "scheduled_end"));
      // an unchanged side keeps its stored wall clock (the zone may have been edited since)
      if (patch.scheduled_start === undefined) window.scheduled_start = current.scheduled_start;
      if (patch.scheduled_end === undefined) window.scheduled_end = current.scheduled_end;
      checkWindow(window, type.duration_minutes);
    }
    const slotChanged = patch.scheduled_start !== undefined || patch.scheduled_end !== undefined
      || patch.provider_uuid !== undefined || patch.operatory_uuid !== undefined;
    if (slotChanged) {
      yield* assertSlotFree(s.tx, { window, providerId, operatoryId, typeId: current.appointment_type_id, locationId: current.location_id, exceptId: current.id });
    }
    yield* appointmentRecords.update(s, id, base_version, {
      ...window, provider_id: providerId, operatory_id: operatoryId,
      ...(patch.notes !== undefined ? { notes: patch.notes } : {}), ...(patch.is_asap !== undefined ? { is_asap: patch.is_asap } : {}),
      ...(patch.fee !== undefined ? { fee_cents: feeCents(patch.fee) } : {}),
    });
    renameChangedFields(s);
    return yield* readOne(s.tx, id);
  });
}

const STAMP: Partial<Record<AppointmentStatus, "confirmed_at" | "arrived_at" | "completed_at" | "cancelled_at" | "broken_at">> = {
  confirmed: "confirmed_at", arrived: "arrived_at", completed: "completed_at", cancelled: "cancelled_at", broken: "broken_at",
};

/** Move along the state machine (schemas.ts TRANSITIONS); a cancelled or broken appointment frees its slot. */
export async function changeAppointmentStatus(ctx: OrgContext, id: string, input: AppointmentStatusChange): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    const current = yield* currentAt(s, id, input.base_version);
    const from = current.status as AppointmentStatus;
    if (!TRANSITIONS[from]?.includes(input.status)) throw new InvalidTransition(from, input.status);
    // a no-show is followed up (ASAP list, broken-appointment fees): the front desk must say why
    if (input.status === "broken" && !input.reason) {
      throw invalid(["body", "reason"], "A reason is required to mark an appointment broken", "missing", "reason_required");
    }
    const stamp = STAMP[input.status];
    return yield* applyStep(s, current, {
      status: input.status, status_reason: input.reason ?? null, ...(stamp ? { [stamp]: s.now } : {}),
    }, "status_changed", { from, to: input.status });
  });
}

// ---------------------------------------------------------------- front desk: confirmation, check-in, seat, dismiss

/** The appointment a step applies to: 404, then 409 on a stale base_version (before any rule is judged). */
function* currentAt(s: TxScope, id: string, baseVersion: number): Work<AppointmentRow> {
  const row = yield* appointmentRecords.require(s.tx, id);
  if (row.version !== baseVersion) throw new VersionConflict(row.version);
  return row;
}

/** Write a step: version +1, audit and event `appointment.<action>` whose data is the id plus `data` (ids and enum strings only). */
function* applyStep(s: TxScope, row: AppointmentRow, patch: Partial<AppointmentRow>, action: string, data: Record<string, unknown>): Work<Appointment> {
  yield* appointmentRecords.update(s, row.id, row.version, patch, { action });
  const event = s.after.events.at(-1);
  if (event) event.data = { id: row.id, ...data };
  return yield* readOne(s.tx, row.id);
}

const outOfOrder = (msg: string) => invalid(["body"], msg, "invalid_transition", "invalid_transition");

/** Record a confirmation attempt; status is left alone. A confirmed outcome stamps confirmed_at. */
export async function recordConfirmation(ctx: OrgContext, id: string, input: AppointmentConfirmation): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    const row = yield* currentAt(s, id, input.base_version);
    if (!EDITABLE_STATUSES.includes(row.status as AppointmentStatus)) throw outOfOrder(`Cannot record a confirmation: the appointment is ${row.status}`);
    const reset = input.confirmation_status === "unconfirmed";
    if (reset && input.method) throw invalid(["body", "method"], "A reset to unconfirmed takes no method", "value_error", "method_not_allowed");
    if (!reset && !input.method) throw invalid(["body", "method"], "Say how the patient was reached", "missing", "method_required");
    return yield* applyStep(s, row, {
      confirmation_status: input.confirmation_status, confirmation_method: input.method ?? null, confirmation_recorded_at: s.now,
      ...(input.confirmation_status === "confirmed" ? { confirmed_at: s.now } : {}),
    }, "confirmation_recorded", { confirmation_status: input.confirmation_status, method: input.method ?? null });
  });
}

/** Check-in: scheduled or confirmed -> arrived (arrived_at), like the status change, plus its own event. */
export async function checkInAppointment(ctx: OrgContext, id: string, baseVersion: number): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    const row = yield* currentAt(s, id, baseVersion);
    const from = row.status as AppointmentStatus;
    if (!TRANSITIONS[from].includes("arrived")) throw outOfOrder(`Cannot check in: the appointment is ${from}`);
    const out = yield* applyStep(s, row, { status: "arrived", status_reason: null, arrived_at: s.now }, "checked_in", { from, to: "arrived" });
    // calendars follow status_changed: a check-in is one too
    const checkedIn = s.after.events.at(-1)!;
    s.after.events.push({ ...checkedIn, type: "appointment.status_changed" });
    return out;
  });
}

/** Seat: only an arrived appointment, once. */
export async function seatAppointment(ctx: OrgContext, id: string, baseVersion: number): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    const row = yield* currentAt(s, id, baseVersion);
    if (row.status !== "arrived") throw outOfOrder(`Cannot seat: the appointment is ${row.status} (only a checked-in patient is seated)`);
    if (row.seated_at) throw outOfOrder("The patient is already seated");
    return yield* applyStep(s, row, { seated_at: s.now }, "seated", {});
  });
}

/** Dismiss: after seating, while arrived or completed, once. Status is left alone (completion is a status change). */
export async function dismissAppointment(ctx: OrgContext, id: string, baseVersion: number): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    const row = yield* currentAt(s, id, baseVersion);
    if (row.status !== "arrived" && row.status !== "completed") throw outOfOrder(`Cannot dismiss: the appointment is ${row.status}`);
    if (!row.seated_at) throw outOfOrder("The patient must be seated before being dismissed");
    if (row.dismissed_at) throw outOfOrder("The patient was already dismissed");
    return yield* applyStep(s, row, { dismissed_at: s.now }, "dismissed", {});
  });
}
