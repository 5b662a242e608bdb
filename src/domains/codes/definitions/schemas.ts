import { z } from "zod";
import { BaseVersion, DateTime, QueryBool, RecordMeta, Uuid, HexColor } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { DEFINITION_CATEGORIES } from "@db/tenant/definitions";

const MAX_METADATA_JSON = 10_000;

export const Category = z.enum(DEFINITION_CATEGORIES).describe("The list this item belongs to (fixed set; see docs/codes/definitions.md)");

const editable = {
  item_name: z.string().trim().min(1).max(200).describe("Display name"),
  item_value: z.string().trim().max(500).describe("Free value; for holidays the closed date, YYYY-MM-DD (required)"),
  item_order: z.number().int().min(0).max(100_000).describe("Display order within the category, ascending"),
  item_color: HexColor.transform((c) => c.toUpperCase())
    .nullable()
    .describe("Display colour, #RRGGBB or #RGB (stored upper case)"),
  is_hidden: z.boolean().describe("Hidden items stay valid for existing references but are not offered for new ones"),
  metadata: z
    .record(z.string(), z.unknown())
    .refine((m) => JSON.stringify(m).length <= MAX_METADATA_JSON, `Must be at most ${MAX_METADATA_JSON} characters as JSON`)
    .nullable()
    .describe("Free-form object for client settings"),
};

export const DefinitionCreate = z.strictObject({
  category: Category,
  item_name: editable.item_name,
  item_value: editable.item_value.optional().describe("Default empty; required for holidays (YYYY-MM-DD)"),
  item_order: editable.item_order.optional().describe("Default: after the last active item of the category"),
  item_color: editable.item_color.optional(),
  is_hidden: editable.is_hidden.optional().describe("Default false"),
  metadata: editable.metadata.optional(),
});
export type DefinitionCreate = z.infer<typeof DefinitionCreate>;

export const DefinitionPatch = z.strictObject({ base_version: BaseVersion, ...z.object(editable).partial().shape }).meta({ readOnly: ["category"] });
export type DefinitionPatch = z.infer<typeof DefinitionPatch>;

export const Definition = z
  .object({
    ...RecordMeta,
    category: Category,
    item_name: z.string(),
    item_value: z.string(),
    item_order: z.number().int(),
    item_color: z.string().nullable(),
    is_hidden: z.boolean(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "Definition" });
export type Definition = z.infer<typeof Definition>;

export const DefinitionListQuery = z.strictObject({
  category: Category,
  ...pagingQuery(200, 200),
  is_hidden: QueryBool.optional().describe("Only hidden (true) or only visible (false) items; default both"),
  search: z.string().trim().max(200).optional().describe("Case-insensitive substring of item_name or item_value"),
});
export type DefinitionListQuery = z.infer<typeof DefinitionListQuery>;

export const DefinitionReorder = z.strictObject({
  category: Category,
  definition_uuids: z
    .array(Uuid)
    .min(1)
    .max(1000)
    .refine((ids) => new Set(ids).size === ids.length, "Must not repeat an id")
    .describe("Every active item of the category (hidden ones too), exactly once, in the new order"),
});
export type DefinitionReorder = z.infer<typeof DefinitionReorder>;

export const DefinitionOrder = z.object({ category: Category, items: z.array(Definition) }).meta({ id: "DefinitionOrder" });
