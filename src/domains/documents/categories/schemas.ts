import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, RecordMeta, Uuid } from "@/platform/records/fields";

/** Which owners a category is for (spec.md "Documents"): fixed when the category is created. */
export const CATEGORY_SCOPES = ["location", "organization", "patient", "provider"] as const;
export type CategoryScope = (typeof CATEGORY_SCOPES)[number];

/** "/" joins the names of a path; control characters are refused too (the tree's order puts the separator before every allowed character). */
const isCategoryName = (v: string) => ![...v].some((c) => c === "/" || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

const categoryFields = {
  name: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .refine(isCategoryName, 'Must not contain "/" (the path separator) or control characters')
    .describe('1-100 characters without "/"; unique (any case) among the live categories with the same parent'),
  sort_order: z.number().int().min(0).max(1_000_000).describe("Default 0; the list's order after path (a tie-breaker: live paths are unique)"),
  description: z.string().trim().max(2000).nullable(),
  parent_uuid: Uuid.nullable().describe("A live category of the same scope; null or absent: a root category"),
};

/** Derived or fixed fields: named in a request body they are 422 read_only. */
const DERIVED = ["path", "depth"];

export const DocumentCategoryCreate = z
  .strictObject({
    name: categoryFields.name,
    scope: z.enum(CATEGORY_SCOPES).describe("location | organization | patient | provider; cannot be changed later"),
    parent_uuid: categoryFields.parent_uuid.optional(),
    sort_order: categoryFields.sort_order.optional(),
    description: categoryFields.description.optional(),
  })
  .meta({ readOnly: DERIVED });
export type DocumentCategoryCreate = z.infer<typeof DocumentCategoryCreate>;

export const DocumentCategoryPatch = z
  .strictObject({
    base_version: BaseVersion,
    name: categoryFields.name.optional(),
    parent_uuid: categoryFields.parent_uuid
      .optional()
      .describe("Moves the category (with its descendants) under this live category of the same scope, not under itself or a descendant; null: to the root"),
    sort_order: categoryFields.sort_order.optional(),
    description: categoryFields.description.optional(),
  })
  .meta({ readOnly: [...DERIVED, "scope"] });
export type DocumentCategoryPatch = z.infer<typeof DocumentCategoryPatch>;

export const DocumentCategory = z
  .object({
    ...RecordMeta,
    scope: z.enum(CATEGORY_SCOPES),
    parent_uuid: z.string().nullable().describe("The parent category; null at the root"),
    name: z.string(),
    path: z.string().describe('The names from the root down, "/"-joined, e.g. Clinical/Radiographs'),
    depth: z.number().int().describe("0 at the root"),
    sort_order: z.number().int(),
    description: z.string().nullable(),
    deleted_at: DateTime.nullable().describe("Set only on the answer of archive: archived categories are 404 afterwards"),
  })
  .meta({ id: "DocumentCategory" });
export type DocumentCategory = z.infer<typeof DocumentCategory>;

export const DocumentCategoryTree = z
  .object({ items: z.array(DocumentCategory).describe("The live categories of the scope, parents directly before their descendants") })
  .meta({ id: "DocumentCategoryTree" });
export type DocumentCategoryTree = z.infer<typeof DocumentCategoryTree>;

export const DocumentCategoryListQuery = z.strictObject({
  scope: z.enum(CATEGORY_SCOPES).describe("Required: location | organization | patient | provider"),
});
export type DocumentCategoryListQuery = z.infer<typeof DocumentCategoryListQuery>;

export const DocumentCategoryArchiveQuery = z.strictObject({ base_version: BaseVersionQuery });
export type DocumentCategoryArchiveQuery = z.infer<typeof DocumentCategoryArchiveQuery>;
