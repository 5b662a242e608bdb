import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, QueryBool, RecordMeta, HexColor } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

/**
 * The slug of a name: accents dropped, lower case, every run of other characters
 * one underscore, none at either end ("Ready for Dr." -> "ready_for_dr").
 */
export const slugOf = (name: string) =>
  name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");

const fields = {
  name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .refine((n) => slugOf(n).length > 0, "Must contain at least one letter or digit")
    .describe('Shown on the schedule, e.g. "In Chair"; its slug must be unique among statuses that are not archived (409 duplicate)'),
  color: HexColor.transform((c) => c.toUpperCase()).describe("#RRGGBB or #RGB; stored and returned upper-case"),
  is_active: z.boolean().describe("Inactive statuses stay readable; include_inactive=false hides them"),
  item_order: z.number().int().min(0).max(1_000_000).describe("Position in lists (ascending)"),
};

export const FlowStatusCreate = z
  .strictObject({
    name: fields.name,
    color: fields.color,
    is_active: fields.is_active.optional().describe("Default true"),
    item_order: fields.item_order.optional().describe("Default: after the last status"),
  })
  .meta({ readOnly: ["slug"] });
export type FlowStatusCreate = z.infer<typeof FlowStatusCreate>;

export const FlowStatusPatch = z.strictObject({ base_version: BaseVersion, ...z.object(fields).partial().shape }).meta({ readOnly: ["slug"] });
export type FlowStatusPatch = z.infer<typeof FlowStatusPatch>;

export const FlowStatus = z
  .object({
    ...RecordMeta,
    name: z.string(),
    slug: z.string().describe("Derived from name: lower case, other characters as _ (re-derived on rename)"),
    color: z.string(),
    is_active: z.boolean(),
    item_order: z.number().int(),
    deleted_at: DateTime.nullable().describe("Set when archived (archived statuses answer 404)"),
  })
  .meta({ id: "FlowStatus" });
export type FlowStatus = z.infer<typeof FlowStatus>;

export const FlowStatusListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  include_inactive: QueryBool.optional().describe("Default true; false leaves out statuses with is_active false"),
});
export type FlowStatusListQuery = z.infer<typeof FlowStatusListQuery>;

export const FlowStatusArchiveQuery = z.strictObject({
  base_version: BaseVersionQuery.optional().describe("Optional: when given and stale, 409 version_conflict"),
});
export type FlowStatusArchiveQuery = z.infer<typeof FlowStatusArchiveQuery>;
