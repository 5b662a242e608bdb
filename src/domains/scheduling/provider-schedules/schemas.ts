import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateOnly, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { TimeOfDay } from "./common";

const Weekday = z.number().int().min(0).max(6).describe("0 = Sunday, 1 = Monday ... 6 = Saturday");

const editable = {
  operatory_uuid: Uuid.nullable().describe(
    "The chair the provider works in; null = any free operatory of the location. Must belong to the location (422 operatory_location_mismatch)",
  ),
  weekday: Weekday,
  start_time: TimeOfDay.describe("HH:MM, wall clock of the location's zone"),
  end_time: TimeOfDay.describe("HH:MM, after start_time (a shift ends on the day it starts)"),
  effective_from: DateOnly.nullable().describe("First date the template applies (inclusive); null = always"),
  effective_to: DateOnly.nullable().describe("Last date the template applies (inclusive); null = open-ended; not before effective_from"),
};

export const ProviderScheduleCreate = z
  .strictObject({
    provider_uuid: Uuid.describe("A live provider of this org (404 otherwise); fixed after creation"),
    location_uuid: Uuid.describe("A live location of this org (404 otherwise); fixed after creation"),
    ...editable,
    operatory_uuid: editable.operatory_uuid.optional(),
    effective_from: editable.effective_from.optional(),
    effective_to: editable.effective_to.optional(),
  })
  .meta({ readOnly: ["provider", "location", "operatory"] });
export type ProviderScheduleCreate = z.infer<typeof ProviderScheduleCreate>;

export const ProviderSchedulePatch = z
  .strictObject({ base_version: BaseVersion, ...z.object(editable).partial().shape })
  .meta({ readOnly: ["provider", "location", "operatory", "provider_uuid", "location_uuid"] });
export type ProviderSchedulePatch = z.infer<typeof ProviderSchedulePatch>;

export const ProviderSchedule = z
  .object({
    ...RecordMeta,
    provider: Ref,
    location: Ref,
    operatory: Ref.nullable(),
    weekday: z.number().int(),
    start_time: z.string(),
    end_time: z.string(),
    effective_from: z.string().nullable(),
    effective_to: z.string().nullable(),
  })
  .meta({ id: "ProviderSchedule" });
export type ProviderSchedule = z.infer<typeof ProviderSchedule>;

export const ProviderScheduleListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  provider_uuid: Uuid.optional().describe("Only this provider's templates; unknown is 404"),
  location_uuid: Uuid.optional().describe("Only this location's templates; unknown is 404"),
  weekday: z.coerce.number().int().min(0).max(6).optional().describe("0 = Sunday ... 6 = Saturday"),
  active_on: DateOnly.optional().describe("Only templates in effect on this date"),
});
export type ProviderScheduleListQuery = z.infer<typeof ProviderScheduleListQuery>;

export const DeleteQuery = z.strictObject({ base_version: BaseVersionQuery });
export type DeleteQuery = z.infer<typeof DeleteQuery>;
