import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateOnly, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

const When = z.iso
  .datetime({ local: true, offset: true })
  .describe(
    "ISO 8601. Without an offset it is the wall clock of the location's zone; with Z or ±HH:MM it is converted into that zone. " +
      "A time skipped by a DST change is 422; a repeated one means its first occurrence",
  );

const editable = {
  operatory_uuid: Uuid.nullable().describe("Blocks this operatory; null = not tied to one. Must belong to the location"),
  provider_uuid: Uuid.nullable().describe(
    "Blocks this provider at the location; null = not tied to one. With neither operatory nor provider the whole location is blocked",
  ),
  blockout_type_uuid: Uuid.describe("A definitions item of category blockout_types (404 unknown, 422 blockout_type_invalid for another category)"),
  start: When,
  end: When.describe("After start (real elapsed time), at most 31 days later"),
  note: z.string().max(2000).describe("Free text; never sent on the event stream"),
};

export const BlockoutCreate = z
  .strictObject({
    location_uuid: Uuid.describe("A live location (404 otherwise); fixed after creation"),
    ...editable,
    operatory_uuid: editable.operatory_uuid.optional(),
    provider_uuid: editable.provider_uuid.optional(),
    note: editable.note.optional().describe("Default empty"),
  })
  .meta({ readOnly: ["location", "operatory", "provider", "blockout_type"] });
export type BlockoutCreate = z.infer<typeof BlockoutCreate>;

export const BlockoutPatch = z
  .strictObject({ base_version: BaseVersion, ...z.object(editable).partial().shape })
  .meta({ readOnly: ["location", "operatory", "provider", "blockout_type", "location_uuid"] });
export type BlockoutPatch = z.infer<typeof BlockoutPatch>;

const Wall = z.string().describe("Wall clock of the location's zone, no offset: 2026-03-09T12:00:00");

export const Blockout = z
  .object({
    ...RecordMeta,
    location: Ref,
    operatory: Ref.nullable(),
    provider: Ref.nullable(),
    blockout_type: Ref,
    start: Wall,
    end: Wall,
    note: z.string(),
  })
  .meta({ id: "Blockout" });
export type Blockout = z.infer<typeof Blockout>;

export const BlockoutListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  location_uuid: Uuid.optional().describe("Unknown is 404"),
  operatory_uuid: Uuid.optional().describe("Blockouts of this operatory (not the location-wide ones); unknown is 404"),
  provider_uuid: Uuid.optional().describe("Blockouts of this provider; unknown is 404"),
  date_from: DateOnly.optional().describe("Blockouts that reach into this local date or later"),
  date_to: DateOnly.optional().describe("Blockouts that start on or before this local date (inclusive)"),
});
export type BlockoutListQuery = z.infer<typeof BlockoutListQuery>;

export const BlockoutDeleteQuery = z.strictObject({ base_version: BaseVersionQuery });
export type BlockoutDeleteQuery = z.infer<typeof BlockoutDeleteQuery>;
