import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { CountRequest, CountResult, ExecuteRequest, ExecuteResult, FieldRegistry } from "./query/schemas";
import { countFilter, executeFilter, fieldRegistry } from "./query/service";

/** Revenue: smart patient lists over the filter-field registry (docs/revenue/revenue.md). */
export const revenueQueryRoutes = (rt: Runtime) =>
  new Elysia({ name: "revenue-query", prefix: "/api/v1/:org_id/revenue-module", tags: ["Revenue"] })
    .use(guard(rt))
    .get("/fields", () => fieldRegistry(), {
      permission: "revenue.read",
      response: { 200: FieldRegistry, ...orgErrors() },
      detail: {
        summary: "The filter-field registry: fields by category with their types and operators, its snapshot hash and version",
        description:
          "What a smart-list filter may name: every field by category with its type and the operators it takes, the scopes, a `snapshot_hash` that changes only when a field does, and `source_version`, which count and execute expect back as `expected_source_snapshot_version` (409 `snapshot_mismatch` when it moved).",
      },
    })
    .post("/count", ({ ctx, body }) => countFilter(ctx, body), {
      permission: "revenue.read",
      body: CountRequest,
      response: { 200: CountResult, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Count the live patients a filter matches",
        description:
          "409 snapshot_mismatch when expected_source_snapshot_version is not the registry's source_version (checked before anything runs); 422 names the offending condition (unknown field, operator not allowed, value of the wrong type)",
      },
    })
    .post("/execute", ({ ctx, body }) => executeFilter(ctx, body), {
      permission: "revenue.read",
      body: ExecuteRequest,
      response: { 200: ExecuteResult, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Run a filter: a page of matching patients with contact details, next appointment and the filtered fields' values; nothing is saved",
        description:
          "total_count equals POST /count for the same filter. 409 snapshot_mismatch as for count; 422 for a bad condition or a sort_by that is not a sortable field",
      },
    });
