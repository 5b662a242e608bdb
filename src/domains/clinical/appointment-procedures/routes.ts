import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { Appointment } from "@/domains/scheduling/appointments/schemas";
import { appointmentPlace } from "@/domains/scheduling/appointments/where";
import { AppointmentProcedureList, ProcedureDetachQuery, ProceduresAttach } from "./schemas";
import { attachProcedures, detachProcedure, listAppointmentProcedures } from "./service";

const read = "schedule.appointments.read" as const;
const write = "schedule.appointments.write" as const;

const RULES =
  "Each procedure must be the appointment's patient's (unknown, deleted or another org's: 404; another patient's: 422 `procedure_patient_mismatch`), " +
  "on no other live appointment (one not cancelled or broken: 409 `procedure_on_appointment`, naming it) and treatment_planned, or scheduled on no live appointment (422 `procedure_not_plannable`)";

// Charted procedures on an appointment (docs/scheduling/appointments.md, "Procedures on appointments").
// Clinical's: they change charted procedures; the paths are the appointment's, and so are the permissions.
export const appointmentProcedureRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.appointment-procedures", prefix: "/api/v1/:org_id/appointments", tags: ["Appointments"] })
    .use(guard(rt))
    .get("/:appointment_id/procedures", ({ ctx, params }) => listAppointmentProcedures(ctx, params.appointment_id), {
      permission: { key: read, where: appointmentPlace },
      response: { 200: AppointmentProcedureList, ...orgErrors() },
      detail: {
        summary: "The procedures on an appointment",
        description:
          "The charted procedures on the appointment as full records, in charting order, with `production` (their effective fees summed). Not paged: an appointment holds few. A completed appointment keeps the work done at it; a cancelled or broken one holds none. Unknown appointment: 404.",
      },
    })
    .post("/:appointment_id/procedures", ({ ctx, params, body }) => attachProcedures(ctx, params.appointment_id, body), {
      permission: { key: write, where: appointmentPlace },
      body: ProceduresAttach,
      response: { 200: Appointment, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Put procedures on an appointment",
        description: `Each becomes scheduled on this appointment (a charting status change, audited on the procedure; moment procedure.scheduled). The appointment's version goes up by one, with the audit entry and event \`appointment.procedures_attached\` naming the procedures; one already on this appointment is left as it is (none moved: no new version). Checks, in order: 404 appointment; 409 \`version_conflict\` on a stale base_version; 422 \`invalid_transition\` unless the appointment is scheduled, confirmed or arrived; then per procedure, in the order given: ${RULES}. A refusal changes nothing. Answers the appointment with its procedures and production.`,
      },
    })
    .delete(
      "/:appointment_id/procedures/:procedure_uuid",
      ({ ctx, params, query }) => detachProcedure(ctx, params.appointment_id, params.procedure_uuid, query.base_version),
      {
        permission: { key: write, where: appointmentPlace },
        query: ProcedureDetachQuery,
        response: { 200: Appointment, ...orgErrors(409) },
        detail: {
          summary: "Take a procedure off an appointment",
          description:
            "A scheduled procedure becomes treatment_planned again (any other status stays); the appointment's version goes up by one, with the audit entry and event `appointment.procedures_detached`. Checks, in order: 404 appointment; 409 `version_conflict` on a stale `?base_version=`; 422 `invalid_transition` unless the appointment is scheduled, confirmed or arrived; 404 when the procedure is not on this appointment; 422 `procedure_completed` for work done. Answers the appointment (200, not 204: its new version is needed for the next change).",
        },
      },
    );
