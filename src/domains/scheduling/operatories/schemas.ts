import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

const editable = {
  name: z.string().trim().min(1).max(100).describe('e.g. "Op 1" or "Hygiene 2"'),
  abbreviation: z.string().trim().max(20).nullable().describe("Short label for the schedule column"),
  item_order: z.number().int().min(0).max(1_000_000).describe("Column order within the location; lists sort by it first (default 0)"),
};

export const OperatoryCreate = z
  .strictObject({
    location_uuid: Uuid.describe("A non-archived location of this org (404 otherwise); cannot be changed later"),
    name: editable.name,
    abbreviation: editable.abbreviation.optional(),
    item_order: editable.item_order.optional(),
  })
  .meta({ readOnly: ["location"] });
export type OperatoryCreate = z.infer<typeof OperatoryCreate>;

// The location is fixed at creation: sending it on PATCH is 422.
export const OperatoryPatch = z
  .strictObject({ base_version: BaseVersion, ...z.object(editable).partial().shape })
  .meta({ readOnly: ["location_uuid", "location"] });
export type OperatoryPatch = z.infer<typeof OperatoryPatch>;

export const Operatory = z
  .object({
    ...RecordMeta,
    location: Ref.describe("The location (practice) the operatory belongs to"),
    name: z.string(),
    abbreviation: z.string().nullable(),
    item_order: z.number().int(),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "Operatory" });
export type Operatory = z.infer<typeof Operatory>;

export const OperatoryListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  location_uuid: Uuid.optional().describe("Only this location's operatories; an unknown or archived location is 404"),
});
export type OperatoryListQuery = z.infer<typeof OperatoryListQuery>;

export const OperatoryArchiveQuery = z.strictObject({
  base_version: BaseVersionQuery.optional().describe("Optional: when given and stale, 409 version_conflict"),
});
export type OperatoryArchiveQuery = z.infer<typeof OperatoryArchiveQuery>;
