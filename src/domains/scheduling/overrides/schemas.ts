import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateOnly, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { TimeOfDay } from "@/domains/scheduling/provider-schedules/common";

export const OVERRIDE_REASONS = [
  "vacation",
  "sick",
  "training",
  "conference",
  "personal",
  "holiday",
  "extended_hours",
  "reduced_hours",
  "schedule_change",
  "other",
] as const;

const editable = {
  operatory_uuid: Uuid.nullable().describe(
    "The chair for that day's hours; null = any free operatory. Must belong to the location (422 operatory_location_mismatch)",
  ),
  start_time: TimeOfDay.nullable().describe(
    "HH:MM wall clock; with end_time replaces the template hours that day. Required unless is_unavailable; must be null when is_unavailable",
  ),
  end_time: TimeOfDay.nullable().describe("HH:MM wall clock, after start_time"),
  is_unavailable: z.boolean().describe("true: the provider does not work at this location that day (no availability); hours are then cleared"),
  override_reason: z.enum(OVERRIDE_REASONS).describe(OVERRIDE_REASONS.join(" | ")),
  note: z.string().max(2000).describe("Free text; never sent on the event stream"),
};

export const OverrideCreate = z
  .strictObject({
    provider_uuid: Uuid.describe("A live provider (404 otherwise); fixed after creation"),
    location_uuid: Uuid.describe("A live location (404 otherwise); fixed after creation"),
    override_date: DateOnly.describe("The local date of the location the override replaces; fixed after creation"),
    operatory_uuid: editable.operatory_uuid.optional(),
    start_time: editable.start_time.optional(),
    end_time: editable.end_time.optional(),
    is_unavailable: editable.is_unavailable.optional().describe("Default false"),
    override_reason: editable.override_reason,
    note: editable.note.optional().describe("Default empty"),
  })
  .meta({ readOnly: ["provider", "location", "operatory"] });
export type OverrideCreate = z.infer<typeof OverrideCreate>;

export const OverridePatch = z
  .strictObject({
    base_version: BaseVersion.optional().describe("Optional (spec.md lists none); when given and stale, 409 version_conflict"),
    ...z.object(editable).partial().shape,
  })
  .meta({ readOnly: ["provider", "location", "operatory", "provider_uuid", "location_uuid", "override_date"] });
export type OverridePatch = z.infer<typeof OverridePatch>;

export const Override = z
  .object({
    ...RecordMeta,
    provider: Ref,
    location: Ref,
    operatory: Ref.nullable(),
    override_date: z.string(),
    start_time: z.string().nullable(),
    end_time: z.string().nullable(),
    is_unavailable: z.boolean(),
    override_reason: z.enum(OVERRIDE_REASONS),
    note: z.string(),
  })
  .meta({ id: "ScheduleOverride" });
export type Override = z.infer<typeof Override>;

export const OverrideListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  provider_uuid: Uuid.optional().describe("Unknown is 404"),
  location_uuid: Uuid.optional().describe("Unknown is 404"),
  date_from: DateOnly.optional().describe("override_date on or after (inclusive)"),
  date_to: DateOnly.optional().describe("override_date on or before (inclusive); not before date_from"),
});
export type OverrideListQuery = z.infer<typeof OverrideListQuery>;

export const OverrideDeleteQuery = z.strictObject({ base_version: BaseVersionQuery.optional().describe("Optional; when given and stale, 409") });
export type OverrideDeleteQuery = z.infer<typeof OverrideDeleteQuery>;
