import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Definition, DefinitionCreate, DefinitionListQuery, DefinitionOrder, DefinitionPatch, DefinitionReorder } from "./schemas";
import { archiveDefinition, createDefinition, getDefinition, listDefinitions, reorderDefinitions, updateDefinition } from "./service";

export const definitionRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.definitions", prefix: "/api/v1/:org_id/definitions", tags: ["Definitions"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listDefinitions(ctx, query), {
      permission: "definitions.read",
      query: DefinitionListQuery,
      response: { 200: PageSchema(Definition), ...orgErrors() },
      detail: {
        summary: "List the definitions of a category",
        description: "category is required. Ordered by item_order, then id. Archived items are not listed.",
      },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createDefinition(ctx, body);
      },
      {
        permission: "definitions.write",
        body: DefinitionCreate,
        response: { 201: Definition, ...orgErrors(413, 415) },
        detail: {
          summary: "Create a definition",
          description:
            "item_order defaults to after the last active item of the category. Holidays need item_value as YYYY-MM-DD (422 holiday_date_required / holiday_date_invalid).",
        },
      },
    )
    .post("/reorder", ({ ctx, body }) => reorderDefinitions(ctx, body), {
      permission: "definitions.write",
      body: DefinitionReorder,
      response: { 200: DefinitionOrder, ...orgErrors(413, 415) },
      detail: {
        summary: "Reorder a category",
        description:
          "Sets item_order 0..n-1 in the listed order; items whose order changes get a new version. 422 reorder_mismatch unless the list names every active item of the category (hidden ones too) exactly once.",
      },
    })
    .get("/:definition_uuid", ({ ctx, params }) => getDefinition(ctx, params.definition_uuid), {
      permission: "definitions.read",
      response: { 200: Definition, ...orgErrors() },
      detail: {
        summary: "Get a definition",
        description:
          "One entry of the org's configurable short lists: its category, name, value, order, colour, whether it is hidden and its metadata. An archived definition is 404.",
      },
    })
    .patch("/:definition_uuid", ({ ctx, params, body }) => updateDefinition(ctx, params.definition_uuid, body), {
      permission: "definitions.write",
      body: DefinitionPatch,
      response: { 200: Definition, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a definition", description: "category is immutable (422 read_only). 409 version_conflict on a stale base_version." },
    })
    .post("/:definition_uuid/archive", ({ ctx, params }) => archiveDefinition(ctx, params.definition_uuid), {
      permission: "definitions.write",
      response: { 200: Definition, ...orgErrors() },
      detail: {
        summary: "Archive a definition",
        description: "Soft delete: it leaves lists and GET answers 404; records that already reference it keep the reference.",
      },
    });
