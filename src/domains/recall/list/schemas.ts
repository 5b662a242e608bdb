import { z } from "zod";
import { DateOnly, QueryBool, QueryList, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { RECALL_STATUSES } from "@/domains/recall/patient-recalls/schemas";

export const RecallListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  due_from: DateOnly.optional().describe("Recalls due on or after this date"),
  due_to: DateOnly.optional().describe("Recalls due on or before this date (not before due_from: 422 invalid_date_range)"),
  status: QueryList(z.enum(RECALL_STATUSES), 4)
    .optional()
    .describe("Repeatable (or comma separated); default due, overdue and scheduled (disabled recalls only when asked)"),
  recall_type_uuid: Uuid.optional(),
  location_uuid: Uuid.optional().describe("The patient's home location"),
  provider_uuid: Uuid.optional().describe("The patient's primary provider or hygienist (secondary provider)"),
  unscheduled_only: QueryBool.optional().describe("Only recalls with no appointment holding a trigger procedure (status scheduled left out)"),
  include_family: QueryBool.optional().describe(
    "Rows of one family (one guarantor) together, the family with the earliest row first, so one call books them together",
  ),
  sort: z.enum(["date_due", "last_name"]).default("date_due").describe("date_due (default: the earliest first) or the patient's last name"),
});
export type RecallListQuery = z.infer<typeof RecallListQuery>;

const Person = {
  uuid: z.string(),
  first_name: z.string(),
  last_name: z.string(),
};

export const RecallListRow = z
  .object({
    patient: z.object({
      ...Person,
      preferred_name: z.string().nullable(),
      date_of_birth: z.string().nullable(),
      home_phone: z.string().nullable(),
      mobile_phone: z.string().nullable(),
      work_phone: z.string().nullable(),
      email: z.string().nullable(),
      preferred_contact_method: z.string().nullable(),
      preferred_confirmation_method: z.string().nullable(),
      receives_sms: z.boolean(),
      receives_email: z.boolean(),
      location: Ref.nullable().describe("Home location (uuid only)"),
      primary_provider: Ref.nullable().describe("uuid only"),
      secondary_provider: Ref.nullable().describe("The hygienist (uuid only)"),
    }),
    family: z.object({ guarantor_uuid: z.string().describe("The patient's responsible party, else the patient: rows of one family share it") }),
    recall: z.object({
      id: z.string(),
      version: z.number().int(),
      recall_type: Ref,
      is_perio: z.boolean(),
      date_previous: z.string().nullable(),
      date_due: z.string().nullable(),
      date_scheduled: z.string().nullable(),
      scheduled_appointment: Ref.nullable().describe("uuid only"),
      status: z.enum(RECALL_STATUSES),
      recall_status: Ref.nullable(),
      note: z.string(),
    }),
    last_contact: z
      .object({ communicated_at: z.string(), mode: z.string(), direction: z.string() })
      .nullable()
      .describe("The patient's latest communication log entry"),
    family_due: z
      .array(
        z.object({
          patient: z.object(Person),
          recall_uuid: z.string(),
          recall_type: Ref,
          date_due: z.string().nullable(),
          status: z.enum(RECALL_STATUSES),
        }),
      )
      .describe("The other members of the family (same guarantor) with a recall that is not disabled, due in the same window (due_from..due_to)"),
  })
  .meta({ id: "RecallListRow" });
export type RecallListRow = z.infer<typeof RecallListRow>;

export const RecallSummaryQuery = z.strictObject({
  month: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, "Must be YYYY-MM")
    .describe("The month whose due dates are counted, YYYY-MM"),
  recall_type_uuid: Uuid.optional(),
  location_uuid: Uuid.optional().describe("The patient's home location"),
  provider_uuid: Uuid.optional().describe("The patient's primary provider or hygienist"),
});
export type RecallSummaryQuery = z.infer<typeof RecallSummaryQuery>;

const Counts = { due: z.number().int(), scheduled: z.number().int(), overdue: z.number().int(), total: z.number().int() };

export const RecallSummary = z
  .object({
    month: z.string(),
    weeks: z
      .array(z.object({ week: z.number().int().describe("1-5"), date_from: z.string(), date_to: z.string(), ...Counts }))
      .describe("Week 1 is days 1-7 of the month, week 2 days 8-14, week 3 15-21, week 4 22-28, week 5 the 29th to the end (none in a February of 28 days)"),
    totals: z.object(Counts),
  })
  .meta({ id: "RecallSummary" });
export type RecallSummary = z.infer<typeof RecallSummary>;
