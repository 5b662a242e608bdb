import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  Appointment,
  AppointmentConfirmation,
  AppointmentCreate,
  AppointmentFlowStatusChange,
  AppointmentHistoryEntry,
  AppointmentHistoryQuery,
  AppointmentListQuery,
  AppointmentPatch,
  AppointmentStatusChange,
  AppointmentStep,
  AsapListQuery,
  PatientAppointmentsQuery,
} from "./schemas";
import { createAppointment, updateAppointment } from "./booking";
import { checkInAppointment, dismissAppointment, recordConfirmation, seatAppointment } from "./front-desk";
import { getAppointment, listAppointments, listAsap, listPatientAppointments } from "./reads";
import { changeAppointmentStatus } from "./status";
import { setFlowStatus } from "./flow-status";
import { appointmentHistory } from "./history";
import { appointmentPlace } from "./where";
import { bodyPlace, listPlace } from "@/platform/tenancy/placement";

const read = "schedule.appointments.read" as const;
const write = "schedule.appointments.write" as const;
const writeErrors = orgErrors(409, 413, 415);

const appointments = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/appointments", tags: ["Appointments"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listAppointments(ctx, query), {
      permission: { key: read, where: listPlace },
      query: AppointmentListQuery,
      response: { 200: PageSchema(Appointment), ...orgErrors() },
      detail: { summary: "List appointments, ordered by start" },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createAppointment(ctx, body);
      },
      {
        permission: { key: write, where: bodyPlace },
        body: AppointmentCreate,
        response: { 201: Appointment, ...writeErrors },
        detail: {
          summary: "Book an appointment",
          description:
            "Times are the location's wall clock (no offset), or instants with Z or ±HH:MM converted into its zone. Checks, in order: 404 for the patient, type, location, provider, operatory; 422 `operatory_location_mismatch`, `patient_not_schedulable` (deceased), `appointment_type_inactive`, `invalid_window` / `shorter_than_type_duration` (end after start, at least the type's duration, at most 24 hours), `scheduling_restricted` unless `override_scheduling_restriction` is true; then 409 `booking_conflict` when the provider or the operatory has a non-cancelled, non-broken appointment overlapping the window (touching ends do not overlap; an appointment rule with allow_overlap for the two types permits it, except for the same provider at another location). Of concurrent bookings of one slot exactly one wins. Without `fee` the type's default_fee is copied. Answers the appointment, status scheduled.",
        },
      },
    )
    // a static segment: declared before /:appointment_id, and the router prefers it anyway (tested)
    .get("/asap-list", ({ ctx, query }) => listAsap(ctx, query), {
      permission: { key: read, where: listPlace },
      query: AsapListQuery,
      response: { 200: PageSchema(Appointment), ...orgErrors() },
      detail: {
        summary: "The ASAP / unscheduled list",
        description:
          "Appointments flagged is_asap (scheduled or confirmed, still ahead) plus cancelled and broken ones whose patient has not been booked again since; ordered by start",
      },
    })
    .get("/:appointment_id", ({ ctx, params }) => getAppointment(ctx, params.appointment_id), {
      permission: { key: read, where: appointmentPlace },
      response: { 200: Appointment, ...orgErrors() },
      detail: {
        summary: "Get an appointment",
        description:
          "The appointment as the booking pipeline answers it: status and its time stamps, patient, type, provider, location and operatory with their names, fee, and `scheduled_start`/`scheduled_end` as wall-clock times of the location's time zone. Unknown id: 404.",
      },
    })
    .patch("/:appointment_id", ({ ctx, params, body }) => updateAppointment(ctx, params.appointment_id, body), {
      permission: { key: write, where: appointmentPlace },
      body: AppointmentPatch,
      response: { 200: Appointment, ...writeErrors },
      detail: {
        summary: "Reschedule or edit an appointment",
        description:
          "Changes times, provider, operatory (null removes it), notes, is_asap and fee; the patient, type and location are fixed (422). Sending one end of the window keeps the other. Checks, in order: 404; 409 `version_conflict`; 422 `invalid_transition` unless scheduled or confirmed; 404 for a new provider or operatory; the booking's time rules; 409 `booking_conflict` when a new window, provider or operatory overlaps another appointment (this one ignored). A notes-only change checks no slot.",
      },
    })
    .post("/:appointment_id/status", ({ ctx, params, body }) => changeAppointmentStatus(ctx, params.appointment_id, body), {
      permission: { key: write, where: appointmentPlace },
      body: AppointmentStatusChange,
      response: { 200: Appointment, ...writeErrors },
      detail: {
        summary: "Change an appointment's status",
        description:
          "scheduled -> confirmed, arrived, cancelled, broken; confirmed -> arrived, cancelled, broken; arrived -> completed, cancelled; completed, cancelled and broken are final. Anything else, the same status included, is 422 `invalid_transition`; broken (a no-show) needs a `reason` (422 `reason_required`). Each step sets its timestamp; cancelled and broken free the slot. Checks: 404, 409 `version_conflict`, then 422.",
      },
    })
    .post("/:appointment_id/confirmation", ({ ctx, params, body }) => recordConfirmation(ctx, params.appointment_id, body), {
      permission: { key: write, where: appointmentPlace },
      body: AppointmentConfirmation,
      response: { 200: Appointment, ...writeErrors },
      detail: {
        summary: "Record a confirmation attempt",
        description:
          "Sets confirmation_status, confirmation_method and confirmation_recorded_at (confirmed also sets confirmed_at); status is unchanged (declined does not cancel). `method` is required except with unconfirmed, where it must be absent or null (422 `method_required` / `method_not_allowed`). Only while scheduled or confirmed, else 422 `invalid_transition`.",
      },
    })
    .post("/:appointment_id/check-in", ({ ctx, params, body }) => checkInAppointment(ctx, params.appointment_id, body.base_version), {
      permission: { key: write, where: appointmentPlace },
      body: AppointmentStep,
      response: { 200: Appointment, ...writeErrors },
      detail: { summary: "Check the patient in", description: "scheduled or confirmed -> arrived, sets arrived_at; otherwise 422 invalid_transition" },
    })
    .post("/:appointment_id/seat", ({ ctx, params, body }) => seatAppointment(ctx, params.appointment_id, body.base_version), {
      permission: { key: write, where: appointmentPlace },
      body: AppointmentStep,
      response: { 200: Appointment, ...writeErrors },
      detail: { summary: "Seat the patient", description: "Only when arrived and not yet seated; sets seated_at" },
    })
    .post("/:appointment_id/dismiss", ({ ctx, params, body }) => dismissAppointment(ctx, params.appointment_id, body.base_version), {
      permission: { key: write, where: appointmentPlace },
      body: AppointmentStep,
      response: { 200: Appointment, ...writeErrors },
      detail: { summary: "Dismiss the patient", description: "After seating, while arrived or completed, once; sets dismissed_at; status unchanged" },
    })
    .post("/:appointment_id/flow-status", ({ ctx, params, body }) => setFlowStatus(ctx, params.appointment_id, body), {
      permission: { key: write, where: appointmentPlace },
      body: AppointmentFlowStatusChange,
      response: { 200: Appointment, ...writeErrors },
      detail: {
        summary: "Set or clear the appointment's flow status",
        description:
          "Where the patient is in the office (waiting, in chair, checking out): sets flow_status and flow_status_set_at, or clears both with null; event appointment.flow_status_changed. Checks, in order: 404 for the appointment; 409 `version_conflict`; 404 for a flow status unknown, archived or of another org; 422 `flow_status_inactive`; 422 `invalid_transition` when setting one on a cancelled or broken appointment (clearing is allowed in every status).",
      },
    })
    .get("/:appointment_id/history", ({ ctx, params, query }) => appointmentHistory(ctx, params.appointment_id, query), {
      permission: { key: read, where: appointmentPlace },
      query: AppointmentHistoryQuery,
      response: { 200: PageSchema(AppointmentHistoryEntry), ...orgErrors() },
      detail: {
        summary: "The appointment's history, newest first",
        description:
          "Every change recorded on the appointment, read from the audit trail: created, rescheduled (from/to), status changes, confirmation, check-in, seat, dismiss, flow status, procedures attached or detached; who (actor id, type, display name) and when, with each changed field's before and after value (and names for references). Paged (50, at most 200); 404 for an unknown, archived or other org's appointment.",
      },
    });

// Under /patients, whose path parameter is :patient_uuid (one name per router position).
const patientHistory = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/patients", tags: ["Appointments"] })
    .use(guard(rt))
    .get("/:patient_uuid/appointments", ({ ctx, params, query }) => listPatientAppointments(ctx, params.patient_uuid, query), {
      permission: read,
      query: PatientAppointmentsQuery,
      response: { 200: PageSchema(Appointment), ...orgErrors() },
      detail: {
        summary: "A patient's appointment history, newest first",
        description: "Archived patients keep their history; 404 when the patient is unknown",
      },
    });

export const appointmentRoutes = (rt: Runtime) => new Elysia({ name: "cusp.appointments" }).use(appointments(rt)).use(patientHistory(rt));
