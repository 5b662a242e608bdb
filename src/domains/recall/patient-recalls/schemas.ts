import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateOnly, DateTime, DollarsInput, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { Interval, IntervalOut } from "@/domains/recall/types/schemas";

export const RECALL_STATUSES = ["due", "overdue", "scheduled", "disabled"] as const;
export type RecallStatus = (typeof RECALL_STATUSES)[number];

const READ_ONLY = ["date_previous", "date_due", "date_scheduled", "status", "scheduled_appointment", "recall_type", "recall_status", "patient", "computed_at"];

const editable = {
  interval_override: Interval.nullable().describe("Replaces the type's interval for this patient; null: the type's"),
  date_due_override: DateOnly.nullable().describe("The due date whatever the history says; null: computed"),
  note: z.string().max(2000),
  is_disabled: z.boolean().describe("Takes the recall off the list (status disabled) until cleared"),
  disable_until_date: DateOnly.nullable().describe("Disabled before this date (the patient's location's today)"),
  disable_until_balance: DollarsInput().nullable().describe("Disabled while the patient's balance (the four aging buckets) is above this amount (dollars)"),
  recall_status_uuid: Uuid.nullable().describe('A definition of category recall_statuses (e.g. "Left message"); 404 otherwise'),
};

export const PatientRecallCreate = z
  .strictObject({
    recall_type_uuid: Uuid.describe("A recall type of this org that is not archived (404 unknown, 422 recall_type_archived)"),
    interval_override: editable.interval_override.optional(),
    date_due_override: editable.date_due_override.optional(),
    note: editable.note.optional(),
    is_disabled: editable.is_disabled.optional(),
    disable_until_date: editable.disable_until_date.optional(),
    disable_until_balance: editable.disable_until_balance.optional(),
    recall_status_uuid: editable.recall_status_uuid.optional(),
  })
  .meta({ readOnly: READ_ONLY });
export type PatientRecallCreate = z.infer<typeof PatientRecallCreate>;

export const PatientRecallPatch = z
  .strictObject({ base_version: BaseVersion, ...z.object(editable).partial().shape })
  .meta({ readOnly: [...READ_ONLY, "recall_type_uuid"] });
export type PatientRecallPatch = z.infer<typeof PatientRecallPatch>;

export const PatientRecall = z
  .object({
    ...RecordMeta,
    patient: Ref,
    recall_type: Ref,
    is_perio: z.boolean().describe("The type's is_perio"),
    interval: IntervalOut.describe("The interval in force: interval_override, else the type's"),
    interval_override: IntervalOut.nullable(),
    date_due_override: z.string().nullable(),
    note: z.string(),
    is_disabled: z.boolean(),
    disable_until_date: z.string().nullable(),
    disable_until_balance: z.string().nullable().describe("Dollars"),
    recall_status: Ref.nullable().describe("What the front desk last did about it (a recall_statuses definition)"),
    date_previous: z.string().nullable().describe("The latest date of service of a completed trigger procedure; null: never done"),
    date_due: z
      .string()
      .nullable()
      .describe("date_due_override, else date_previous plus the interval, else (never done) the day the recall was created: due now"),
    date_scheduled: z.string().nullable().describe("The date of the next live appointment holding a trigger procedure"),
    scheduled_appointment: Ref.nullable().describe("That appointment (name: its scheduled_start)"),
    status: z.enum(RECALL_STATUSES).describe("disabled, else scheduled, else overdue (date_due before today at the patient's location), else due"),
    computed_at: DateTime.nullable().describe("When the computed fields were last worked out"),
  })
  .meta({ id: "PatientRecall" });
export type PatientRecall = z.infer<typeof PatientRecall>;

export const PatientRecallListQuery = z.strictObject({
  ...pagingQuery(50, 200),
});
export type PatientRecallListQuery = z.infer<typeof PatientRecallListQuery>;

export const PatientRecallDeleteQuery = z.strictObject({ base_version: BaseVersionQuery });
export type PatientRecallDeleteQuery = z.infer<typeof PatientRecallDeleteQuery>;
