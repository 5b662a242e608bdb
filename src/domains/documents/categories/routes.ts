import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import {
  DocumentCategory,
  DocumentCategoryArchiveQuery,
  DocumentCategoryCreate,
  DocumentCategoryListQuery,
  DocumentCategoryPatch,
  DocumentCategoryTree,
} from "./schemas";
import { archiveCategory, createCategory, getCategory, listCategoryTree, updateCategory } from "./service";

const NAME_RULES =
  'A name is 1-100 characters without "/" (422) and unique, ignoring case, among the live categories with the same parent (409 duplicate). The parent must be a live category of the same scope (422 at parent_uuid).';

/**
 * The document category tree, one per scope. Its own prefix, listed first in
 * documents/index.ts, so /documents/categories is never read as a document id.
 */
export const documentCategoryRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.documents.categories", prefix: "/api/v1/:org_id/documents/categories", tags: ["Documents"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listCategoryTree(ctx, query), {
      permission: "documents.read",
      query: DocumentCategoryListQuery,
      response: { 200: DocumentCategoryTree, ...orgErrors() },
      detail: {
        summary: "List the document category tree of a scope",
        description:
          'All live categories of the scope as one flat list (not paged), ordered by path then sort_order, then id. Paths are compared name by name ignoring case, "/" first, so each category comes directly before its descendants. depth is 0 at the root.',
      },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createCategory(ctx, body);
      },
      {
        permission: "documents.manage",
        body: DocumentCategoryCreate,
        response: { 201: DocumentCategory, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a document category",
          description: `name and scope are required; without parent_uuid the category is a root. sort_order defaults to 0. ${NAME_RULES}`,
        },
      },
    )
    .get("/:category_uuid", ({ ctx, params }) => getCategory(ctx, params.category_uuid), {
      permission: "documents.read",
      response: { 200: DocumentCategory, ...orgErrors() },
      detail: { summary: "Get a document category", description: "404 when the category is missing, archived or another org's." },
    })
    .patch("/:category_uuid", ({ ctx, params, body }) => updateCategory(ctx, params.category_uuid, body), {
      permission: "documents.manage",
      body: DocumentCategoryPatch,
      response: { 200: DocumentCategory, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Rename, move or reorder a document category",
        description: `Only the fields sent change; scope cannot. parent_uuid moves the category with all its descendants (null: to the root), never under itself or a descendant (422); a rename or move rewrites the path of the category and of every descendant in the same transaction. ${NAME_RULES}`,
      },
    })
    .post("/:category_uuid/archive", ({ ctx, params, query }) => archiveCategory(ctx, params.category_uuid, query), {
      permission: "documents.manage",
      query: DocumentCategoryArchiveQuery,
      response: { 200: DocumentCategory, ...orgErrors(409) },
      detail: {
        summary: "Archive a document category",
        description:
          "Soft delete with ?base_version=: the category leaves the tree and answers 404 afterwards. 422 category_has_children while it has live child categories (archive or move them first). Documents filed under it keep their category_id, so their link stays readable.",
      },
    });
