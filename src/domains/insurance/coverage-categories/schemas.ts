import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, QueryBool, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

/** A CDT procedure code: D and four digits (any case in, upper case stored). */
export const CdtCode = z
  .string()
  .trim()
  .regex(/^[Dd][0-9]{4}$/, "Must be a CDT code: D and four digits, e.g. D0120")
  .transform((c) => c.toUpperCase());

const ItemOrder = z.number().int().min(0).max(1_000_000);

export const SpanCreate = z.strictObject({
  from_code: CdtCode.optional().describe("First code of the range (inclusive); default to_code (a single code)"),
  to_code: CdtCode.describe("Last code of the range (inclusive); from_code must not come after it (422 invalid_range)"),
  is_exclusion: z.boolean().optional().describe("Default false; true carves the range out of the category (e.g. implants out of prosthodontics)"),
  item_order: ItemOrder.optional().describe("Default: after the category's last span"),
});
export type SpanCreate = z.infer<typeof SpanCreate>;

export const Span = z
  .object({
    id: z.string(),
    from_code: z.string(),
    to_code: z.string(),
    is_exclusion: z.boolean(),
    item_order: z.number().int(),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: "CoverageSpan" });
export type Span = z.infer<typeof Span>;

export const OverlappingSpan = z
  .object({ ...Span.shape, category: Ref.describe("The category the span belongs to (this one or another)") })
  .meta({ id: "OverlappingCoverageSpan" });
export type OverlappingSpan = z.infer<typeof OverlappingSpan>;

export const SpanCreated = z
  .object({
    overlapping_spans: z
      .array(OverlappingSpan)
      .describe("A warning, not an error: spans of live categories (this one included) whose range shares a code with the new span"),
    span: Span,
  })
  .meta({ id: "CoverageSpanCreated" });
export type SpanCreated = z.infer<typeof SpanCreated>;

const categoryFields = {
  category_name: z.string().trim().min(1).max(100).describe("Unique (any case) among live categories"),
  description: z.string().trim().max(2000).nullable(),
  is_hidden: z.boolean().describe("Hidden categories still cover their codes but are not offered for new plan rules"),
  item_order: ItemOrder.describe("Display and matching order, ascending (then name)"),
};

const DERIVED = ["is_system", "system_key"];

export const CoverageCategoryCreate = z
  .strictObject({
    category_name: categoryFields.category_name,
    description: categoryFields.description.optional(),
    is_hidden: categoryFields.is_hidden.optional().describe("Default false"),
    item_order: categoryFields.item_order.optional().describe("Default: 10 after the last live category"),
    spans: z.array(SpanCreate).max(100).optional().describe("Initial spans, created in order (overlaps are not reported here)"),
  })
  .meta({ readOnly: DERIVED });
export type CoverageCategoryCreate = z.infer<typeof CoverageCategoryCreate>;

export const CoverageCategoryPatch = z
  .strictObject({ base_version: BaseVersion, ...z.object(categoryFields).partial().shape })
  .meta({ readOnly: [...DERIVED, "spans"] });
export type CoverageCategoryPatch = z.infer<typeof CoverageCategoryPatch>;

export const CoverageCategory = z
  .object({
    ...RecordMeta,
    category_name: z.string(),
    description: z.string().nullable(),
    is_hidden: z.boolean(),
    is_system: z.boolean().describe("Seeded for every org; cannot be archived"),
    system_key: z.string().nullable().describe("A system category's fixed key (diagnostic, preventive, ...); null for the office's own"),
    item_order: z.number().int(),
    spans: z.array(Span).optional().describe("Ordered by item_order, then from_code; present when include_spans is true"),
    deleted_at: DateTime.nullable().describe("Set only on the answer of archive"),
  })
  .meta({ id: "CoverageCategory" });
export type CoverageCategory = z.infer<typeof CoverageCategory>;

export const CoverageCategoryListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  search: z.string().trim().max(200).optional().describe("Case-insensitive substring of category_name or description"),
  include_hidden: QueryBool.default(false).describe("Also list hidden categories (default false)"),
  include_spans: QueryBool.default(false).describe("Add each category's spans (default false)"),
});
export type CoverageCategoryListQuery = z.infer<typeof CoverageCategoryListQuery>;

export const CoverageCategoryGetQuery = z.strictObject({
  include_spans: QueryBool.default(true).describe("Add the category's spans (default true)"),
});
export type CoverageCategoryGetQuery = z.infer<typeof CoverageCategoryGetQuery>;

export const SpanListQuery = z.strictObject({ ...pagingQuery(100, 200) });
export type SpanListQuery = z.infer<typeof SpanListQuery>;

export const CoverageCategoryArchiveQuery = z.strictObject({ base_version: BaseVersionQuery });
export type CoverageCategoryArchiveQuery = z.infer<typeof CoverageCategoryArchiveQuery>;

export const CoverageCategoryReorder = z.strictObject({
  items: z
    .array(z.strictObject({ category_uuid: Uuid, item_order: ItemOrder }))
    .min(1)
    .max(1000)
    .refine((items) => new Set(items.map((i) => i.category_uuid)).size === items.length, "Must not name a category twice")
    .describe("The categories to move and their new item_order; categories not named keep theirs"),
});
export type CoverageCategoryReorder = z.infer<typeof CoverageCategoryReorder>;

export const CoverageCategoriesReordered = z
  .object({
    detail: z.literal("reordered"),
    items: z.array(CoverageCategory).describe("The named categories as they are now (without spans), in the order they were named"),
  })
  .meta({ id: "CoverageCategoriesReordered" });
export type CoverageCategoriesReordered = z.infer<typeof CoverageCategoriesReordered>;
