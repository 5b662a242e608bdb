import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Blockout, BlockoutCreate, BlockoutDeleteQuery, BlockoutListQuery, BlockoutPatch } from "./schemas";
import { createBlockout, deleteBlockout, getBlockout, listBlockouts, updateBlockout } from "./service";

/** Time taken out of the schedule: a location, an operatory or a provider (docs/scheduling/scheduling.md). */
export const blockoutRoutes = (rt: Runtime) =>
  new Elysia({ name: "blockouts", prefix: "/api/v1/:org_id/schedule/blockouts", tags: ["Scheduling"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listBlockouts(ctx, query), {
      permission: "schedule.read",
      query: BlockoutListQuery,
      response: { 200: PageSchema(Blockout), ...orgErrors() },
      detail: { summary: "List blockouts", description: "Ordered by start" },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createBlockout(ctx, body);
      },
      {
        permission: "schedule.write",
        body: BlockoutCreate,
        response: { 201: Blockout, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a blockout",
          description:
            "Blocks `operatory_uuid`, or `provider_uuid` at this location, or both; with neither, the whole location. `start`/`end` are the location's wall clock (with an offset: converted); `end` after `start`, at most 31 days (422 `invalid_window`). `blockout_type_uuid` must be a live definition of category blockout_types (404; 422 `blockout_type_invalid` for another category).",
        },
      },
    )
    .get("/:blockout_uuid", ({ ctx, params }) => getBlockout(ctx, params.blockout_uuid), {
      permission: "schedule.read",
      response: { 200: Blockout, ...orgErrors() },
      detail: {
        summary: "Get a blockout",
        description:
          "Time blocked on a location's schedule (for one operatory or provider, or the whole location) with its blockout type, start and end as wall-clock times of the location and a note. A deleted blockout is 404.",
      },
    })
    .patch("/:blockout_uuid", ({ ctx, params, body }) => updateBlockout(ctx, params.blockout_uuid, body), {
      permission: "schedule.write",
      body: BlockoutPatch,
      response: { 200: Blockout, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a blockout" },
    })
    .delete(
      "/:blockout_uuid",
      async ({ ctx, params, query, set }) => {
        await deleteBlockout(ctx, params.blockout_uuid, query.base_version);
        set.status = 204;
      },
      {
        permission: "schedule.write",
        query: BlockoutDeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: { summary: "Delete a blockout" },
      },
    );
