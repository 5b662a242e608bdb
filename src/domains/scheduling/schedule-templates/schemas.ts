import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateOnly, DateTime, QueryBool, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { TimeOfDay } from "@/domains/scheduling/provider-schedules/common";

// Schedule templates and their applications (docs/scheduling/schedule-templates.md).

/** Most blocks a template holds (a week of 70 providers in 7 operatories is well under). */
export const MAX_BLOCKS = 500;
/** Most days one application covers (inclusive). */
export const MAX_APPLY_DAYS = 366;

export const TemplateBlockInput = z.strictObject({
  weekday: z.number().int().min(0).max(6).describe("0 = Sunday, 1 = Monday ... 6 = Saturday (as provider schedules)"),
  start_time: TimeOfDay.describe("HH:MM, wall clock of the location's zone"),
  end_time: TimeOfDay.describe("HH:MM, after start_time (422 invalid_hours)"),
  provider_uuid: Uuid.describe("A live provider (404 naming the block otherwise)"),
  location_uuid: Uuid.describe("A live location (404 naming the block otherwise)"),
  operatory_uuid: Uuid.nullable()
    .optional()
    .describe("The operatory; null or absent = any free one of the location. Must belong to location_uuid (422 operatory_location_mismatch)"),
  blockout_type_uuid: Uuid.nullable()
    .optional()
    .describe(
      "Set: reserved time (a definition of category blockout_types), written as a blockout on each date rather than as working hours. " +
        "Null or absent: working hours, written as a provider schedule",
    ),
});
export type TemplateBlockInput = z.infer<typeof TemplateBlockInput>;

const Blocks = z
  .array(TemplateBlockInput)
  .min(1)
  .max(MAX_BLOCKS)
  .describe(
    `The week's blocks (1 to ${MAX_BLOCKS}). Working blocks of one provider may not overlap on a weekday (422 block_overlap naming both); touching ones may`,
  );

const readOnly = ["id", "version", "created_at", "updated_at", "archived_at"];

export const ScheduleTemplateCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    note: z.string().max(2000).optional().describe("Default empty"),
    blocks: Blocks,
  })
  .meta({ readOnly });
export type ScheduleTemplateCreate = z.infer<typeof ScheduleTemplateCreate>;

export const ScheduleTemplatePatch = z
  .strictObject({
    base_version: BaseVersion,
    name: z.string().trim().min(1).max(200).optional(),
    note: z.string().max(2000).optional(),
    blocks: Blocks.optional().describe("Replaces every block"),
  })
  .meta({ readOnly });
export type ScheduleTemplatePatch = z.infer<typeof ScheduleTemplatePatch>;

export const TemplateBlock = z
  .object({
    weekday: z.number().int(),
    start_time: z.string(),
    end_time: z.string(),
    provider: Ref,
    location: Ref,
    operatory: Ref.nullable(),
    blockout_type: Ref.nullable().describe("Null: working hours; set: reserved time written as blockouts"),
  })
  .meta({ id: "ScheduleTemplateBlock" });

export const ScheduleTemplate = z
  .object({
    ...RecordMeta,
    name: z.string(),
    note: z.string(),
    blocks: z.array(TemplateBlock),
    archived_at: DateTime.nullable().describe("Set once archived: the template leaves the list and cannot be applied or changed"),
  })
  .meta({ id: "ScheduleTemplate" });
export type ScheduleTemplate = z.infer<typeof ScheduleTemplate>;

export const ScheduleTemplateListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  include_archived: QueryBool.optional().describe("true: archived templates too (default false)"),
});
export type ScheduleTemplateListQuery = z.infer<typeof ScheduleTemplateListQuery>;

export const ScheduleTemplateArchiveQuery = z.strictObject({
  base_version: BaseVersionQuery.optional().describe("Optional: when given and stale, 409 version_conflict"),
});
export type ScheduleTemplateArchiveQuery = z.infer<typeof ScheduleTemplateArchiveQuery>;

export const TemplateApply = z.strictObject({
  date_from: DateOnly.describe("First date (inclusive)"),
  date_to: DateOnly.describe(`Last date (inclusive): not before date_from, at most ${MAX_APPLY_DAYS} days in all (422 invalid_date_range)`),
  replace_existing: z
    .boolean()
    .optional()
    .describe(
      "Default false. true: the provider schedules of the template's working providers at their blocks' locations are cleared from the range " +
        "(ended the day before, resumed the day after), and blockouts earlier template applications wrote there are deleted. " +
        "false: a working block overlapping an existing schedule is 409 schedule_overlap",
    ),
  include_override_days: z
    .boolean()
    .optional()
    .describe(
      "Default false: a date holding a schedule override of a block's provider at its location gets none of that provider's blockouts (listed in days_skipped)",
    ),
});
export type TemplateApply = z.infer<typeof TemplateApply>;

export const ApplicationStatus = z.enum(["queued", "running", "completed", "failed"]).meta({ id: "ScheduleTemplateApplicationStatus" });

export const SkippedDay = z.object({
  date: z.string(),
  provider: Ref,
  reason: z
    .enum(["override", "time_not_on_clock"])
    .describe("override: the provider has a schedule override there that date; time_not_on_clock: the block's time is skipped by a DST change that date"),
});

export const TemplateApplication = z
  .object({
    ...RecordMeta,
    template: Ref,
    template_version: z.number().int().describe("The template's version applied"),
    date_from: z.string(),
    date_to: z.string(),
    replace_existing: z.boolean(),
    include_override_days: z.boolean(),
    status: ApplicationStatus,
    days_total: z.number().int(),
    days_done: z.number().int().describe("Dates written so far (the job commits a week at a time)"),
    schedules_written: z.number().int().describe("Provider schedules written from working blocks"),
    blockouts_written: z.number().int(),
    days_skipped: z.array(SkippedDay).describe("Blockout days left out, per provider"),
    error: z.string().nullable().describe("Why a failed application failed"),
    completed_at: DateTime.nullable(),
  })
  .meta({ id: "ScheduleTemplateApplication" });
export type TemplateApplication = z.infer<typeof TemplateApplication>;

export const ApplicationListQuery = z.strictObject({ ...pagingQuery(50, 200) });
export type ApplicationListQuery = z.infer<typeof ApplicationListQuery>;
