import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  CoverageCategoriesReordered,
  CoverageCategory,
  CoverageCategoryArchiveQuery,
  CoverageCategoryCreate,
  CoverageCategoryGetQuery,
  CoverageCategoryListQuery,
  CoverageCategoryPatch,
  CoverageCategoryReorder,
  Span,
  SpanCreate,
  SpanCreated,
  SpanListQuery,
} from "./schemas";
import { archiveCategory, createCategory, getCategory, listCategories, reorderCategories, updateCategory } from "./service";
import { addSpan, listSpans } from "./spans";

const CDT = "Codes are CDT codes, D and four digits; a range is inclusive and from_code defaults to to_code (422 invalid_range when it comes after it).";

/** Coverage categories: the CDT code ranges a plan's coverage percentages are written against. */
export const coverageCategoryRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.insurance.coverage-categories", prefix: "/api/v1/:org_id/insurance/coverage-categories", tags: ["Insurance"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listCategories(ctx, query), {
      permission: "insurance.read",
      query: CoverageCategoryListQuery,
      response: { 200: PageSchema(CoverageCategory), ...orgErrors() },
      detail: {
        summary: "List coverage categories",
        description: "Ordered by item_order, then name. Archived categories are left out; hidden ones only with include_hidden=true.",
      },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createCategory(ctx, body);
      },
      {
        permission: "insurance.write",
        body: CoverageCategoryCreate,
        response: { 201: CoverageCategory, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a coverage category",
          description: `409 duplicate when a live category has the name (any case). Optional initial spans: ${CDT}`,
        },
      },
    )
    // declared before /:category_uuid
    .post("/reorder", ({ ctx, body }) => reorderCategories(ctx, body), {
      permission: "insurance.write",
      body: CoverageCategoryReorder,
      response: { 200: CoverageCategoriesReordered, ...orgErrors(413, 415) },
      detail: {
        summary: "Reorder coverage categories",
        description:
          "Sets each named category's item_order; the others keep theirs. Every named category must exist and be live: otherwise 404 naming the missing ones, and nothing changes. Answers detail reordered and the named categories.",
      },
    })
    .get("/:category_uuid", ({ ctx, params, query }) => getCategory(ctx, params.category_uuid, query), {
      permission: "insurance.read",
      query: CoverageCategoryGetQuery,
      response: { 200: CoverageCategory, ...orgErrors() },
      detail: { summary: "Get a coverage category", description: "With its spans unless include_spans=false." },
    })
    .patch("/:category_uuid", ({ ctx, params, body }) => updateCategory(ctx, params.category_uuid, body), {
      permission: "insurance.write",
      body: CoverageCategoryPatch,
      response: { 200: CoverageCategory, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a coverage category",
        description: "System categories may be renamed, hidden and reordered too. Spans are added through .../spans (spans here: 422 read_only).",
      },
    })
    .post("/:category_uuid/archive", ({ ctx, params, query }) => archiveCategory(ctx, params.category_uuid, query), {
      permission: "insurance.write",
      query: CoverageCategoryArchiveQuery,
      response: { 200: CoverageCategory, ...orgErrors(409) },
      detail: {
        summary: "Archive a coverage category",
        description:
          "Soft delete with ?base_version=: the category leaves lists, answers 404 and no longer matches codes. 422 system_category for a system category (hide it instead); 422 category_in_use while a live plan names it in its coverage, deductible categories or waiting periods.",
      },
    })
    .get("/:category_uuid/spans", ({ ctx, params, query }) => listSpans(ctx, params.category_uuid, query), {
      permission: "insurance.read",
      query: SpanListQuery,
      response: { 200: PageSchema(Span), ...orgErrors() },
      detail: { summary: "List a coverage category's spans", description: "Ordered by item_order, then from_code." },
    })
    .post(
      "/:category_uuid/spans",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return addSpan(ctx, params.category_uuid, body);
      },
      {
        permission: "insurance.write",
        body: SpanCreate,
        response: { 201: SpanCreated, ...orgErrors(413, 415) },
        detail: {
          summary: "Add a span to a coverage category",
          description: `${CDT} overlapping_spans lists the spans of live categories (this one included) that share a code with the new one: a warning, the span is added anyway. The category gets a new version.`,
        },
      },
    );
