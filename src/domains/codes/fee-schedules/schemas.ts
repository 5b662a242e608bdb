import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, DollarsInput, QueryBool, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { hasAtMostTwoDecimals } from "@/platform/money";
import { FEE_SCHEDULE_TYPES } from "@db/tenant/fee-schedules";

// Fee schedules and their fees (docs/codes/fee-schedules.md explains each rule).

export const COPY_STATUSES = ["running", "done", "failed"] as const;
/** The most fees one PUT may name. */
export const MAX_FEES_PER_PUT = 1000;

export const ScheduleType = z
  .enum(FEE_SCHEDULE_TYPES)
  .describe("office: what the office charges; ucr: usual, customary and reasonable fees; ppo: a PPO's contracted fees; allowed: what a plan allows");

const editable = {
  name: z.string().trim().min(1).max(100).describe("Unique (case-insensitive) among the org's fee schedules that are not archived (409 duplicate)"),
  schedule_type: ScheduleType,
  is_hidden: z.boolean().describe("Hidden schedules stay valid for the records that name them and keep resolving fees; they are not offered for new ones"),
  is_default: z
    .boolean()
    .describe(
      "The org's default office schedule, used when neither the patient, the provider nor the location names one. Office schedules only (422 default_not_office); setting it takes it from the previous default in the same write",
    ),
};

export const FeeScheduleCreate = z.strictObject({
  name: editable.name,
  schedule_type: editable.schedule_type,
  is_hidden: editable.is_hidden.optional().describe("Default false"),
  is_default: editable.is_default.optional().describe("Default false"),
});
export type FeeScheduleCreate = z.infer<typeof FeeScheduleCreate>;

const COPY_FIELDS = ["copy_status", "copy_total", "copy_done", "copy_error"];

export const FeeSchedulePatch = z.strictObject({ base_version: BaseVersion, ...z.object(editable).partial().shape }).meta({ readOnly: COPY_FIELDS });
export type FeeSchedulePatch = z.infer<typeof FeeSchedulePatch>;

export const FeeSchedule = z
  .object({
    ...RecordMeta,
    name: z.string(),
    schedule_type: ScheduleType,
    is_hidden: z.boolean(),
    is_default: z.boolean(),
    copy_status: z
      .enum(COPY_STATUSES)
      .nullable()
      .describe("The last copy into this schedule (POST .../copy): running while its job works, then done or failed; null: never copied into"),
    copy_total: z.number().int().nullable().describe("Fees the copy reads from its source"),
    copy_done: z.number().int().nullable().describe("Fees copied so far"),
    copy_error: z.string().nullable().describe("Why the copy failed"),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "FeeSchedule" });
export type FeeSchedule = z.infer<typeof FeeSchedule>;

export const FeeScheduleListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  search: z.string().trim().min(1).max(100).optional().describe("Case-insensitive substring of the name"),
  schedule_type: ScheduleType.optional(),
  is_hidden: QueryBool.optional().describe("Only hidden (true) or only visible (false) schedules; default both"),
});
export type FeeScheduleListQuery = z.infer<typeof FeeScheduleListQuery>;

export const FeeScheduleArchiveQuery = z.strictObject({
  base_version: BaseVersionQuery.optional().describe("Optional: when given and stale, 409 version_conflict"),
});
export type FeeScheduleArchiveQuery = z.infer<typeof FeeScheduleArchiveQuery>;

// ---- fees --------------------------------------------------------------------------------

export const Fee = z
  .object({
    ...RecordMeta,
    fee_schedule: Ref,
    procedure_code: Ref.describe("name is the code, e.g. D2740"),
    procedure_description: z.string().nullable().describe("The code's short name"),
    location: Ref.nullable().describe("null: the schedule-wide fee; else this location's own fee, which beats the schedule-wide one there"),
    amount: z.string().describe('Dollars, two decimals, e.g. "125.00"'),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "Fee" });
export type Fee = z.infer<typeof Fee>;

export const FeeListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  search: z.string().trim().min(1).max(15).optional().describe("Case-insensitive prefix of the procedure code, e.g. D27"),
  location_uuid: Uuid.optional().describe("Only this location's own fees (404 when the location does not exist); omitted: every fee"),
});
export type FeeListQuery = z.infer<typeof FeeListQuery>;

export const FeeInput = z.strictObject({
  procedure_code_uuid: Uuid.describe("A procedure code of this org, not archived"),
  amount: DollarsInput().describe("Dollars (number, at most two decimals, 0 to 1,000,000)"),
  location_uuid: Uuid.nullable().optional().describe("A location of this org, not archived: the fee applies there only; omitted or null: schedule-wide"),
});
export type FeeInput = z.infer<typeof FeeInput>;

export const FeesPut = z.strictObject({
  fees: z
    .array(FeeInput)
    .min(1)
    .max(MAX_FEES_PER_PUT)
    .describe(`1 to ${MAX_FEES_PER_PUT} fees, each a procedure code with its amount (and location); a code and location may appear once`),
});
export type FeesPut = z.infer<typeof FeesPut>;

export const FeesPutResult = z
  .object({
    fee_schedule_uuid: z.string(),
    created: z.number().int().describe("Fees that did not exist"),
    updated: z.number().int().describe("Fees whose amount changed (a new version)"),
    unchanged: z.number().int().describe("Fees that already had the amount (not written)"),
    items: z.array(Fee).describe("Each fee of the request as stored, in the request's order"),
  })
  .meta({ id: "FeesPutResult" });
export type FeesPutResult = z.infer<typeof FeesPutResult>;

export const FeeDeleteQuery = z.strictObject({ base_version: BaseVersionQuery });
export type FeeDeleteQuery = z.infer<typeof FeeDeleteQuery>;

// ---- copy --------------------------------------------------------------------------------

/** Rounding units of a copy, in dollars: a cent, a dollar, five dollars. */
export const ROUND_TO = [0.01, 1, 5] as const;

export const FeeScheduleCopy = z
  .strictObject({
    to_fee_schedule_uuid: Uuid.optional().describe("An existing schedule to copy into (not the source; 404 when missing). Give this or name"),
    name: editable.name.optional().describe("The name of a new schedule to copy into. Give this or to_fee_schedule_uuid"),
    schedule_type: ScheduleType.optional().describe("The new schedule's type (with name only); default the source's"),
    percent_change: z
      .number()
      .min(-100)
      .max(1000)
      .refine(hasAtMostTwoDecimals, "Must have at most two decimals")
      .optional()
      .describe("Applied to every fee before rounding, e.g. 5 raises fees by 5 %, -10 lowers them by 10 %; default 0"),
    round_to: z
      .literal(ROUND_TO)
      .optional()
      .describe("Round each new fee half up to the nearest 0.01, 1 or 5 dollars (default 0.01): 5 turns 102.50 into 105.00 and 102.49 into 100.00"),
  })
  .superRefine((b, c) => {
    if ((b.to_fee_schedule_uuid === undefined) === (b.name === undefined)) {
      c.addIssue({ code: "custom", path: ["to_fee_schedule_uuid"], message: "Give exactly one of to_fee_schedule_uuid and name" });
    }
    if (b.schedule_type !== undefined && b.to_fee_schedule_uuid !== undefined) {
      c.addIssue({ code: "custom", path: ["schedule_type"], message: "Only with name: an existing schedule keeps its type" });
    }
  });
export type FeeScheduleCopy = z.infer<typeof FeeScheduleCopy>;
