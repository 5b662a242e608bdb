import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { listPlace } from "@/platform/tenancy/placement";
import { listAsap } from "@/domains/scheduling/appointments/reads";
import { Appointment, AsapListQuery } from "@/domains/scheduling/appointments/schemas";
import { AppointmentListRow, BrokenListQuery, ConfirmationListQuery, UnscheduledTreatmentQuery, UnscheduledTreatmentRow } from "./schemas";
import { listBroken, listConfirmations, listUnscheduledTreatment } from "./service";

// The front desk's working lists, side by side (docs/scheduling/front-desk-lists.md).

const read = "schedule.appointments.read" as const;
const paging = "Paged by page (1-based) and page_size (default 50, at most 200; out of range 422); unknown query parameters are 422.";

export const frontDeskListRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.front-desk-lists", prefix: "/api/v1/:org_id/schedule/lists", tags: ["Front desk lists"] })
    .use(guard(rt))
    .get("/unscheduled-treatment", ({ ctx, query }) => listUnscheduledTreatment(ctx, query), {
      permission: { key: read, where: listPlace },
      query: UnscheduledTreatmentQuery,
      response: { 200: PageSchema(UnscheduledTreatmentRow), ...orgErrors() },
      detail: {
        summary: "Unscheduled treatment: planned procedures on no live appointment, per patient",
        description:
          "One row per patient with planned work not booked: procedures not deleted, treatment_planned (or scheduled whose appointment was cancelled, broken or archived) and on no live appointment, with code, short name, fee, tooth and the treatment plan holding them; the row's total fee and the oldest date_treatment_planned. Archived and deceased patients are left out. Filters: provider_uuid (the procedure's provider, else the patient's primary provider), location_uuid (the patient's home location), plan_status (repeatable; `none`: in no plan), min_amount / max_amount (the patient's total; max below min is 422 `invalid_range`). sort=amount (default, largest total first) or date (oldest planned first). " +
          paging,
      },
    })
    .get("/broken", ({ ctx, query }) => listBroken(ctx, query), {
      permission: { key: read, where: listPlace },
      query: BrokenListQuery,
      response: { 200: PageSchema(AppointmentListRow), ...orgErrors() },
      detail: {
        summary: "Broken appointments (no-shows) not yet rescheduled",
        description:
          "Appointments with status broken scheduled on the days date_from..date_to (default: the last 30 days to today in location_uuid's zone, UTC without it) whose patient has not been booked again since: no appointment of the patient that is not archived, cancelled or broken was created at or after broken_at. Each row: the appointment (version included) and the patient's phones, email and preferred contact method. Newest first. date_to before date_from, or more than 366 days, is 422 `invalid_date_range`. " +
          paging,
      },
    })
    .get("/confirmations", ({ ctx, query }) => listConfirmations(ctx, query), {
      permission: { key: read, where: listPlace },
      query: ConfirmationListQuery,
      response: { 200: PageSchema(AppointmentListRow), ...orgErrors() },
      detail: {
        summary: "Appointments to confirm",
        description:
          "Scheduled and confirmed appointments on the days date_from..date_to (default: tomorrow in location_uuid's zone, UTC without it) with their confirmation_status, method and version, and the patient's phones, email, opt-ins, preferred contact and confirmation methods; POST {P}/appointments/{appointment_id}/confirmation records the outcome. Filters: location_uuid, provider_uuid, confirmation_status (repeatable). By start. date_to before date_from, or more than 366 days, is 422 `invalid_date_range`. " +
          paging,
      },
    })
    // the ASAP list of the appointments module, answered here too (the same verb)
    .get("/asap", ({ ctx, query }) => listAsap(ctx, query), {
      permission: { key: read, where: listPlace },
      query: AsapListQuery,
      response: { 200: PageSchema(Appointment), ...orgErrors() },
      detail: {
        summary: "The ASAP / unscheduled list (same as GET {P}/appointments/asap-list)",
        description:
          "Appointments flagged is_asap (scheduled or confirmed, still ahead) plus cancelled and broken ones whose patient has not been booked again since; ordered by start. " +
          paging,
      },
    });
