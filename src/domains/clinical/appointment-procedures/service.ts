import { and, asc, eq, isNull } from "drizzle-orm";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import type { appointments } from "@db/tenant/appointments";
import { all, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound } from "@/platform/errors";
import { formatCents } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { announce } from "@/platform/records/moments";
import { withTransaction } from "@/platform/records/transaction";
import { todayAt } from "@/domains/providers/locations/service";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import type { PatientRow } from "@/domains/patients/record/service";
import { appointmentRecords, procedureStep, readOne } from "@/domains/scheduling/appointments/records";
import { SLOT_FREEING_STATUSES, type Appointment, type AppointmentStatus } from "@/domains/scheduling/appointments/schemas";
import type { AppointmentMoment } from "@/domains/scheduling/appointments/moments";
import { changeProcedure, isDone, procedureRecords, serializeProcedures, TRANSITIONS, type ProcedureRow } from "@/domains/clinical/charted-procedures/service";
import { procedureMoment, procedureScheduled } from "@/domains/clinical/charted-procedures/moments";
import { procedureLabel } from "@/domains/codes/dental-vocabulary";
import type { AppointmentProcedureList, ProceduresAttach } from "./schemas";

// Charted procedures on appointments (docs/scheduling/appointments.md, "Procedures
// on appointments"). Clinical owns the procedures, so it puts them on and takes
// them off: through the endpoints here and in its reactions to scheduling's
// moments (reactions.ts: a booking with procedure_uuids, completing, breaking or
// cancelling). Every change goes through changeProcedure, the path of PATCH, and
// announces procedure.scheduled.

type AppointmentRow = typeof appointments.$inferSelect;

/** Cancelled and broken appointments hold nothing: what was on them is free again. */
const isLive = (a: Pick<AppointmentRow, "status" | "deleted_at">) => !a.deleted_at && !SLOT_FREEING_STATUSES.includes(a.status as AppointmentStatus);

/** Procedures are put on or taken off appointments not yet over: scheduled, confirmed or arrived. */
function requireOpen(a: AppointmentRow) {
  if (!isLive(a) || a.status === "completed") {
    throw invalid(["path", "appointment_id"], `A ${a.status} appointment's procedures cannot change`, "invalid_transition", "invalid_transition");
  }
}

/** The not-deleted procedures on an appointment, in charting order. */
function onAppointment(db: TenantDb, appointmentId: string): Work<ProcedureRow[]> {
  return all(
    db
      .select()
      .from(chartedProcedures)
      .where(and(eq(chartedProcedures.appointment_id, appointmentId), isNull(chartedProcedures.deleted_at)))
      .orderBy(asc(chartedProcedures.id)),
  );
}

/** The live appointment a procedure is on, if any (a cancelled or broken one holds it no longer). */
function* liveHolder(db: TenantDb, p: ProcedureRow): Work<AppointmentRow | undefined> {
  if (!p.appointment_id) return undefined;
  const a = yield* appointmentRecords.find(db, p.appointment_id);
  return a && isLive(a) ? a : undefined;
}

/**
 * Put procedures on an appointment: each must be the appointment's patient's
 * (404 when unknown or deleted, 422 procedure_patient_mismatch), on no other live
 * appointment (409 procedure_on_appointment) and treatment_planned or scheduled
 * (422 procedure_not_plannable). It becomes scheduled. Answers the ids moved onto
 * it (one already there is left alone). `loc`: where the ids were given.
 */
function* attach(s: TxScope, appointment: AppointmentRow, ids: readonly string[], loc: (string | number)[]): Work<string[]> {
  const patient = yield* patientForWrite(s.tx, appointment.patient_id);
  const moved: string[] = [];
  for (const [i, id] of ids.entries()) {
    const p = yield* procedureRecords.find(s.tx, id);
    if (!p) throw new NotFound("Charted procedure");
    if (p.patient_id !== appointment.patient_id) {
      throw invalid([...loc, i], "The charted procedure belongs to another patient", "value_error", "procedure_patient_mismatch");
    }
    if (p.appointment_id === appointment.id) continue;
    const holder = yield* liveHolder(s.tx, p);
    if (holder) {
      throw new Conflict(
        `${procedureLabel(p)} (${p.id}) is on appointment ${holder.id} at ${holder.scheduled_start}; take it off that one first`,
        "procedure_on_appointment",
      );
    }
    if (p.status !== "treatment_planned" && p.status !== "scheduled") {
      throw invalid([...loc, i], `A ${p.status} procedure cannot be put on an appointment`, "value_error", "procedure_not_plannable");
    }
    yield* move(s, p, patient, appointment.id);
    moved.push(p.id);
  }
  return moved;
}

/** Take a procedure off its appointment: a scheduled one is treatment_planned again, any other status stays. */
function* free(s: TxScope, p: ProcedureRow, patient: PatientRow): Work<void> {
  yield* move(s, p, patient, null);
}

/** The one change of an appointment link, by the rules of PATCH, announced as procedure.scheduled. */
function* move(s: TxScope, p: ProcedureRow, patient: PatientRow, appointmentId: string | null): Work<void> {
  const status = appointmentId ? "scheduled" : p.status === "scheduled" ? "treatment_planned" : undefined;
  const row = yield* changeProcedure(s, p, patient, { status, values: { appointment_id: appointmentId } });
  yield* announce(s, procedureScheduled, { ...procedureMoment(row), previous_appointment_id: p.appointment_id });
}

// ---- verbs ------------------------------------------------------------------------------------

export async function listAppointmentProcedures(ctx: OrgContext, appointmentId: string): Promise<AppointmentProcedureList> {
  return ctx.db.read(function* (db) {
    const appointment = yield* appointmentRecords.require(db, appointmentId);
    const rows = yield* onAppointment(db, appointment.id);
    return {
      items: yield* serializeProcedures(db, rows),
      total: rows.length,
      production: formatCents(rows.reduce((sum, r) => sum + (r.fee_override_cents ?? r.office_fee_cents), 0))!,
    };
  });
}

export async function attachProcedures(ctx: OrgContext, appointmentId: string, input: ProceduresAttach): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    const appointment = yield* appointmentRecords.requireCurrent(s.tx, appointmentId, input.base_version);
    requireOpen(appointment);
    const before = (yield* onAppointment(s.tx, appointment.id)).map((r) => r.id);
    const moved = yield* attach(s, appointment, [...new Set(input.procedure_uuids)], ["body", "procedure_uuids"]);
    if (moved.length) {
      const after = (yield* onAppointment(s.tx, appointment.id)).map((r) => r.id);
      yield* procedureStep(s, appointment, "procedures_attached", { before, after, moved });
    }
    return yield* readOne(s.tx, appointment.id);
  });
}

export async function detachProcedure(ctx: OrgContext, appointmentId: string, procedureId: string, baseVersion: number): Promise<Appointment> {
  return withTransaction(ctx, function* (s) {
    const appointment = yield* appointmentRecords.requireCurrent(s.tx, appointmentId, baseVersion);
    requireOpen(appointment);
    const before = yield* onAppointment(s.tx, appointment.id);
    const p = before.find((r) => r.id === procedureId);
    if (!p) throw new NotFound("Charted procedure");
    if (isDone(p.status)) {
      throw invalid(["path", "procedure_uuid"], "Work done stays on the appointment it was done at", "value_error", "procedure_completed");
    }
    yield* free(s, p, yield* patientForWrite(s.tx, appointment.patient_id));
    const ids = before.map((r) => r.id);
    yield* procedureStep(s, appointment, "procedures_detached", { before: ids, after: ids.filter((id) => id !== p.id), moved: [p.id] });
    return yield* readOne(s.tx, appointment.id);
  });
}

// ---- reactions to scheduling's moments (reactions.ts) ---------------------------------------

/** appointment.booked with procedure_ids: put them on it by the rules above, or refuse the booking. */
export function* attachBooked(s: TxScope, m: AppointmentMoment & { procedure_ids: string[] }): Work<void> {
  if (!m.procedure_ids.length) return;
  const appointment = yield* appointmentRecords.require(s.tx, m.appointment_id);
  const moved = yield* attach(s, appointment, m.procedure_ids, ["body", "procedure_uuids"]);
  // version 1 still: the booking's history names them without a second version
  yield* procedureStep(s, appointment, "procedures_attached", { before: [], after: moved, moved }, false);
}

/** appointment.broken / cancelled: what was planned for it is free to book again (work done stays). */
export function* freeFromAppointment(s: TxScope, m: AppointmentMoment): Work<void> {
  const rows = (yield* onAppointment(s.tx, m.appointment_id)).filter((r) => !isDone(r.status));
  if (!rows.length) return;
  const patient = yield* patientForRead(s.tx, m.patient_id);
  for (const p of rows) yield* free(s, p, patient);
}

/**
 * appointment.completed: its procedures not yet done are complete, dated the
 * appointment's day (never after the procedure's today), by the status change of
 * PATCH, so procedure.completed follows (the charge, the auto-note, estimates).
 * A referred or existing procedure, which cannot become complete, is left alone.
 */
export function* completeWithAppointment(s: TxScope, m: AppointmentMoment): Work<void> {
  const rows = (yield* onAppointment(s.tx, m.appointment_id)).filter((r) => TRANSITIONS[r.status as keyof typeof TRANSITIONS].includes("complete"));
  if (!rows.length) return;
  const appointment = yield* appointmentRecords.require(s.tx, m.appointment_id);
  const patient = yield* patientForRead(s.tx, m.patient_id);
  const day = appointment.scheduled_start.slice(0, 10);
  for (const p of rows) {
    const today = yield* todayAt(s.tx, p.location_id ?? patient.location_id);
    yield* changeProcedure(s, p, patient, { status: "complete", values: { date_service: day < today ? day : today } });
  }
}
