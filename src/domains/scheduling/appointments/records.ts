import { and, eq, isNull } from "drizzle-orm";
import { appointments, appointmentTypes } from "@db/tenant/appointments";
import { locations, operatories, providers } from "@db/tenant/practice";
import { flowStatuses } from "@db/tenant/schedule-config";
import { patients } from "@db/tenant/patients";
import { get, type Work } from "@/platform/db/work";
import { NotFound } from "@/platform/errors";
import { formatCents } from "@/platform/money";
import { defineResource } from "@/platform/records/resource";
import type { TenantDb, TxScope } from "@/platform/records/context";
import { patientRef } from "@/domains/patients/record/service";
import type { Appointment, AppointmentStatus } from "./schemas";
import { audit } from "@/platform/audit/audit";
import { updateRowById } from "@/platform/db/prepared-writes";
import { emit } from "@/platform/records/events";
import { updatedOrConflict } from "@/platform/records/versions";
import { proceduresOn, shownProcedures, type OnAppointment } from "./procedures";

// The appointment record every verb shares: its definition, its API form read
// with references, and the write of one step.

type AppointmentRow = typeof appointments.$inferSelect;

/** What the audit trail keeps of an appointment: the row with API names. */
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

/**
 * What API answers and the audit trail show alike, after the place and times:
 * notes, the status steps, the front-desk fields (fee, ASAP flag, confirmation,
 * no-show, chair-side steps) and the version.
 */
function shown(r: AppointmentRow) {
  return {
    notes: r.notes,
    status_reason: r.status_reason,
    confirmed_at: r.confirmed_at,
    arrived_at: r.arrived_at,
    completed_at: r.completed_at,
    cancelled_at: r.cancelled_at,
    fee: formatCents(r.fee_cents),
    broken_at: r.broken_at,
    is_asap: r.is_asap,
    confirmation_status: r.confirmation_status as Appointment["confirmation_status"],
    confirmation_method: r.confirmation_method as Appointment["confirmation_method"],
    confirmation_recorded_at: r.confirmation_recorded_at,
    seated_at: r.seated_at,
    dismissed_at: r.dismissed_at,
    flow_status_set_at: r.flow_status_set_at,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export const appointmentRecords = defineResource<AppointmentRow, ReturnType<typeof auditView>>({
  table: appointments,
  name: "appointment",
  label: "Appointment",
  serialize: auditView,
  practiceId: (r) => r.location_id,
  // events name fields as the API does; the UTC copies travel with scheduled_start/end
  eventFields: { rename: { provider_id: "provider", operatory_id: "operatory", fee_cents: "fee", start_utc: null, end_utc: null } },
  // calendars follow status_changed: a check-in is one too
  eventAliases: { checked_in: ["status_changed"] },
});

type Refs = {
  patient: { id: string; first_name: string; last_name: string };
  type: { id: string; name: string; duration_minutes: number; color: string };
  location: { id: string; name: string };
  provider: { id: string; first_name: string; last_name: string; title: string | null };
  operatory: { id: string; name: string } | null;
  /** The flow status (flow-status.ts); absent when the caller knows there is none (a new booking). */
  flow?: { id: string; name: string; color: string } | null;
  /** The procedures on it (procedures.ts); absent: none. */
  procedures?: readonly OnAppointment[];
};

export function serializeAppointment(r: AppointmentRow, refs: Refs): Appointment {
  return {
    id: r.id,
    uuid: r.id,
    status: r.status as AppointmentStatus,
    patient: patientRef(refs.patient),
    appointment_type: { uuid: refs.type.id, name: refs.type.name, duration_minutes: refs.type.duration_minutes, color: refs.type.color },
    scheduled_start: r.scheduled_start,
    scheduled_end: r.scheduled_end,
    location: { uuid: refs.location.id, name: refs.location.name },
    provider: { uuid: refs.provider.id, first_name: refs.provider.first_name, last_name: refs.provider.last_name, title: refs.provider.title },
    operatory: refs.operatory ? { uuid: refs.operatory.id, name: refs.operatory.name } : null,
    flow_status: refs.flow ? { uuid: refs.flow.id, name: refs.flow.name, color: refs.flow.color } : null,
    ...shown(r),
    ...shownProcedures(refs.procedures),
  };
}

// References are shown even when the referenced record was archived later.
export const withRefs = (db: TenantDb) =>
  db
    .select({
      a: appointments,
      patient: { id: patients.id, first_name: patients.first_name, last_name: patients.last_name },
      type: { id: appointmentTypes.id, name: appointmentTypes.name, duration_minutes: appointmentTypes.duration_minutes, color: appointmentTypes.color },
      location: { id: locations.id, name: locations.name },
      provider: { id: providers.id, first_name: providers.first_name, last_name: providers.last_name, title: providers.title },
      operatory: { id: operatories.id, name: operatories.name },
      flow: { id: flowStatuses.id, name: flowStatuses.name, color: flowStatuses.color },
    })
    .from(appointments)
    .innerJoin(patients, eq(patients.id, appointments.patient_id))
    .innerJoin(appointmentTypes, eq(appointmentTypes.id, appointments.appointment_type_id))
    .innerJoin(locations, eq(locations.id, appointments.location_id))
    .innerJoin(providers, eq(providers.id, appointments.provider_id))
    .leftJoin(operatories, eq(operatories.id, appointments.operatory_id))
    .leftJoin(flowStatuses, eq(flowStatuses.id, appointments.flow_status_id));

type Joined = { a: AppointmentRow } & Refs;
export const serializeJoined = (j: Joined) => serializeAppointment(j.a, j);

/** Joined rows with their procedures: one query more, whatever the number of rows. */
export function* serializeAll(db: TenantDb, rows: readonly Joined[]): Work<Appointment[]> {
  const procedures = yield* proceduresOn(
    db,
    rows.map((j) => j.a.id),
  );
  return rows.map((j) => serializeAppointment(j.a, { ...j, procedures: procedures.get(j.a.id) }));
}

export function* readOne(db: TenantDb, id: string): Work<Appointment> {
  const j = (yield* get(withRefs(db).where(and(eq(appointments.id, id), isNull(appointments.deleted_at))))) as Joined | undefined;
  if (!j) throw new NotFound("Appointment");
  return (yield* serializeAll(db, [j]))[0]!;
}

/**
 * Write a step: version +1, audit and event `appointment.<action>` whose data is the id plus `data` (ids and enum strings only).
 * `then` runs after the write, before the answer is read back (a moment's announcement: its reactions see the step).
 */
export function* applyStep(
  s: TxScope,
  row: AppointmentRow,
  patch: Partial<AppointmentRow>,
  action: string,
  data: Record<string, unknown>,
  then?: (updated: AppointmentRow) => Work<void>,
): Work<Appointment> {
  const updated = yield* appointmentRecords.update(s, row.id, row.version, patch, { action, eventData: data, changedFields: false });
  if (then) yield* then(updated);
  return yield* readOne(s.tx, row.id);
}

/**
 * The procedures on an appointment changed (clinical's appointment-procedures):
 * one audit row `appointment.<action>` whose snapshots are the appointment's with
 * the procedure ids on it before and after (the history shows which), and, when
 * `bump`, version +1 and the event `appointment.<action>` naming the procedures
 * moved. A booking that takes procedures is version 1 still: its row is audited
 * without a bump or event (appointment.created says it). Written here rather than
 * by appointmentRecords.update, whose snapshots can only be the row.
 */
export function* procedureStep(
  s: TxScope,
  row: AppointmentRow,
  action: "procedures_attached" | "procedures_detached",
  ids: { before: readonly string[]; after: readonly string[]; moved: readonly string[] },
  bump = true,
): Work<AppointmentRow> {
  const updated = bump
    ? updatedOrConflict(yield* updateRowById<AppointmentRow>(s.tx, appointments, row.id, { version: row.version + 1, updated_at: s.now }, row.version))
    : row;
  yield* audit(s, {
    action: `appointment.${action}`,
    resource_type: "appointment",
    resource_id: row.id,
    before: { ...auditView(row), procedure_uuids: [...ids.before] },
    after: { ...auditView(updated), procedure_uuids: [...ids.after] },
  });
  if (bump) {
    emit(s, {
      type: `appointment.${action}`,
      resource_type: "appointment",
      resource_id: row.id,
      practice_id: row.location_id,
      data: { id: row.id, procedure_ids: [...ids.moved] },
    });
  }
  return updated;
}
