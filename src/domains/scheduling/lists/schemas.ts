import { z } from "zod";
import { hasAtMostTwoDecimals } from "@/platform/money";
import { DateOnly, DateTime, QueryList, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { CONTACT_METHODS } from "@/domains/patients/record/schemas";
import { APPOINTMENT_STATUSES, CONFIRMATION_METHODS, CONFIRMATION_STATUSES } from "@/domains/scheduling/appointments/schemas";

// The front desk's working lists (docs/scheduling/front-desk-lists.md).

/** A range of a list spans at most this many days, both ends counted (422 invalid_date_range). */
export const MAX_LIST_DAYS = 366;
/** The broken list without dates: the last 30 days up to today. */
export const BROKEN_DEFAULT_DAYS = 30;

/** Treatment plan statuses (db/tenant/charted-procedures.ts), and `none`: planned work in no treatment plan. */
export const PLAN_STATUSES = ["draft", "proposed", "accepted", "rejected", "completed", "none"] as const;
export const UNSCHEDULED_SORTS = ["amount", "date"] as const;

const Amount = z.coerce
  .number()
  .min(0)
  .max(10_000_000)
  .refine(hasAtMostTwoDecimals, "Must have at most two decimals")
  .describe("Dollars, at most two decimals");

export const UnscheduledTreatmentQuery = z.strictObject({
  ...pagingQuery(50, 200),
  provider_uuid: Uuid.optional().describe(
    "Only procedures this provider is to do: the procedure's provider, or the patient's primary provider when the procedure names none. Totals count the matching procedures only",
  ),
  location_uuid: Uuid.optional().describe("Only patients whose home location (the patient's location) is this one"),
  plan_status: QueryList(z.enum(PLAN_STATUSES))
    .optional()
    .describe(
      "Only procedures in a live treatment plan of one of these statuses (repeated or comma separated); `none`: procedures in no treatment plan. Totals count the matching procedures only",
    ),
  min_amount: Amount.optional().describe("Only patients whose total (of the matching procedures) is at least this many dollars"),
  max_amount: Amount.optional().describe("Only patients whose total is at most this many dollars; below min_amount is 422 invalid_range"),
  sort: z
    .enum(UNSCHEDULED_SORTS)
    .default("amount")
    .describe("amount (default): the largest total first; date: the oldest date_treatment_planned first. Ties: patient id"),
});
export type UnscheduledTreatmentQuery = z.infer<typeof UnscheduledTreatmentQuery>;

const rangeDescription = (what: string) => `${what}; date_to before date_from, or more than ${MAX_LIST_DAYS} days (both counted), is 422 invalid_date_range`;

export const BrokenListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  date_from: DateOnly.optional().describe(
    rangeDescription(`First day (the appointment's scheduled date, its location's wall clock). Default: ${BROKEN_DEFAULT_DAYS} days before date_to`),
  ),
  date_to: DateOnly.optional().describe("Last day, inclusive. Default: today in location_uuid's time zone (UTC without location_uuid)"),
  location_uuid: Uuid.optional().describe("Only this location's appointments (an unknown id gives an empty page)"),
  provider_uuid: Uuid.optional().describe("Only this provider's appointments"),
});
export type BrokenListQuery = z.infer<typeof BrokenListQuery>;

export const ConfirmationListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  date_from: DateOnly.optional().describe(
    rangeDescription(
      "First day (the appointment's scheduled date, its location's wall clock). Default: tomorrow in location_uuid's time zone (UTC without location_uuid); with only date_to, the same day",
    ),
  ),
  date_to: DateOnly.optional().describe("Last day, inclusive. Default: date_from"),
  location_uuid: Uuid.optional().describe("Only this location's appointments; optional (the list then spans every location)"),
  provider_uuid: Uuid.optional().describe("Only this provider's appointments"),
  confirmation_status: QueryList(z.enum(CONFIRMATION_STATUSES))
    .optional()
    .describe("Only these confirmation outcomes (repeated or comma separated), e.g. unconfirmed,left_message,no_answer; omitted: all"),
});
export type ConfirmationListQuery = z.infer<typeof ConfirmationListQuery>;

/** The patient as a list row shows them: who to call and how. */
export const ListPatient = z
  .object({
    uuid: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    preferred_name: z.string().nullable(),
    home_phone: z.string().nullable(),
    mobile_phone: z.string().nullable(),
    work_phone: z.string().nullable(),
    email: z.string().nullable(),
    receives_sms: z.boolean().describe("Opted in to text messages"),
    receives_email: z.boolean().describe("Opted in to email"),
    preferred_contact_method: z
      .enum(CONTACT_METHODS)
      .nullable()
      .describe("The patient's scheduling preference's contact method when set, else the patient record's preferred_contact_method"),
    preferred_confirmation_method: z.enum(CONTACT_METHODS).nullable().describe("The patient record's preferred_confirmation_method"),
  })
  .meta({ id: "FrontDeskListPatient" });
export type ListPatient = z.infer<typeof ListPatient>;

const PlanRef = z
  .object({ uuid: z.string(), name: z.string(), status: z.string() })
  .nullable()
  .describe("The newest live treatment plan holding the procedure (with plan_status: the newest of those statuses); null: in no plan");

export const UnscheduledProcedure = z.object({
  uuid: z.string(),
  code: z.string().describe("The procedure code as charted, e.g. D2740"),
  label: z.string().nullable().describe("The code's short name"),
  tooth_number: z.string().nullable(),
  surfaces: z.string().nullable(),
  status: z.enum(["treatment_planned", "scheduled"]).describe("scheduled only when its appointment was cancelled, broken or archived"),
  fee: z.string().describe("The effective fee (fee_override, else office_fee), dollars"),
  date_treatment_planned: DateOnly.nullable(),
  provider_uuid: z.string().nullable().describe("The procedure's own provider (null: none named)"),
  treatment_plan: PlanRef,
});

export const UnscheduledTreatmentRow = z
  .object({
    patient: ListPatient,
    location_uuid: z.string().nullable().describe("The patient's home location"),
    primary_provider_uuid: z.string().nullable(),
    procedures: z.array(UnscheduledProcedure).describe("The patient's matching planned procedures, oldest planned first"),
    procedure_count: z.number().int(),
    total_fee: z.string().describe("The sum of the procedures' fees, dollars"),
    oldest_date_treatment_planned: DateOnly.nullable().describe("The earliest date_treatment_planned (date_service where none) of the procedures"),
  })
  .meta({ id: "UnscheduledTreatmentRow" });
export type UnscheduledTreatmentRow = z.infer<typeof UnscheduledTreatmentRow>;

/** An appointment as the broken and confirmation lists show it; version for the confirmation POST's base_version. */
export const ListAppointment = z.object({
  uuid: z.string(),
  status: z.enum(APPOINTMENT_STATUSES),
  scheduled_start: z.string().describe("Wall clock of the location's time zone"),
  scheduled_end: z.string(),
  appointment_type: z.object({ uuid: z.string(), name: z.string(), color: z.string() }),
  provider: z.object({ uuid: z.string(), first_name: z.string(), last_name: z.string(), title: z.string().nullable() }),
  location: z.object({ uuid: z.string(), name: z.string() }),
  operatory: z.object({ uuid: z.string(), name: z.string() }).nullable(),
  fee: z.string().nullable(),
  status_reason: z.string().nullable(),
  broken_at: DateTime.nullable(),
  is_asap: z.boolean(),
  confirmation_status: z.enum(CONFIRMATION_STATUSES),
  confirmation_method: z.enum(CONFIRMATION_METHODS).nullable(),
  confirmation_recorded_at: DateTime.nullable(),
  version: z.number().int(),
});
export type ListAppointment = z.infer<typeof ListAppointment>;

export const AppointmentListRow = z.object({ appointment: ListAppointment, patient: ListPatient }).meta({ id: "FrontDeskAppointmentRow" });
export type AppointmentListRow = z.infer<typeof AppointmentListRow>;
