import { Elysia } from "elysia";
import type { Runtime } from "../../platform/runtime";
import { guard } from "../../platform/http/guard";
import { orgErrors } from "../../platform/http/openapi";
import { PageSchema } from "../../platform/records/paging";
import { Appointment, AppointmentCreate, AppointmentListQuery, AppointmentPatch, AppointmentStatusChange } from "./schemas";
import { changeAppointmentStatus, createAppointment, getAppointment, listAppointments, updateAppointment } from "./service";

export const appointmentRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/appointments", tags: ["Appointments"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listAppointments(ctx, query), {
      permission: "schedule.appointments.read", query: AppointmentListQuery,
      response: { 200: PageSchema(Appointment), ...orgErrors() }, detail: { summary: "List appointments, ordered by start" },
    })
    .post("", async ({ ctx, body, set }) => {
      set.status = 201;
      return createAppointment(ctx, body);
    }, {
      permission: "schedule.appointments.write", body: AppointmentCreate,
      response: { 201: Appointment, ...orgErrors(409, 413, 415) },
      detail: { summary: "Book an appointment", description: "409 booking_conflict when the provider or the operatory is already booked in the window" },
    })
    .get("/:appointment_id", ({ ctx, params }) => getAppointment(ctx, params.appointment_id), {
      permission: "schedule.appointments.read", response: { 200: Appointment, ...orgErrors() }, detail: { summary: "Get an appointment" },
    })
    .patch("/:appointment_id", ({ ctx, params, body }) => updateAppointment(ctx, params.appointment_id, body), {
      permission: "schedule.appointments.write", body: AppointmentPatch,
      response: { 200: Appointment, ...orgErrors(409, 413, 415) },
      detail: { summary: "Reschedule or edit an appointment", description: "Only while scheduled or confirmed (else 422 invalid_transition); same conflict rules as booking" },
    })
    .post("/:appointment_id/status", ({ ctx, params, body }) => changeAppointmentStatus(ctx, params.appointment_id, body), {
      permission: "schedule.appointments.write", body: AppointmentStatusChange,
      response: { 200: Appointment, ...orgErrors(409, 413, 415) }, detail: { summary: "Change an appointment's status" },
    });
