import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Override, OverrideCreate, OverrideDeleteQuery, OverrideListQuery, OverridePatch } from "./schemas";
import { createOverride, deleteOverride, getOverride, listOverrides, updateOverride } from "./service";

/** Per-date changes to a provider's working hours (spec.md: /schedule/overrides). */
export const scheduleOverrideRoutes = (rt: Runtime) =>
  new Elysia({ name: "schedule-overrides", prefix: "/api/v1/:org_id/schedule/overrides", tags: ["Scheduling"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listOverrides(ctx, query), {
      permission: "schedule.read",
      query: OverrideListQuery,
      response: { 200: PageSchema(Override), ...orgErrors() },
      detail: { summary: "List provider schedule overrides", description: "Ordered by override_date; 404 when provider_uuid or location_uuid does not exist" },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createOverride(ctx, body);
      },
      {
        permission: "schedule.write",
        body: OverrideCreate,
        response: { 201: Override, ...orgErrors(409, 413, 415) },
        detail: { summary: "Create a provider schedule override", description: "One per provider, location and date (409 duplicate)" },
      },
    )
    .get("/:override_uuid", ({ ctx, params }) => getOverride(ctx, params.override_uuid), {
      permission: "schedule.read",
      response: { 200: Override, ...orgErrors() },
      detail: {
        summary: "Get a provider schedule override",
        description:
          "A change to one provider's hours on one date at a location: other hours (or `is_unavailable` for the day off), the reason and a note. It replaces the provider's templates for that day. A deleted override is 404.",
      },
    })
    .patch("/:override_uuid", ({ ctx, params, body }) => updateOverride(ctx, params.override_uuid, body), {
      permission: "schedule.write",
      body: OverridePatch,
      response: { 200: Override, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a provider schedule override",
        description: "base_version is optional; 404 when the override or operatory is missing; 422 invalid override_reason",
      },
    })
    .delete(
      "/:override_uuid",
      async ({ ctx, params, query, set }) => {
        await deleteOverride(ctx, params.override_uuid, query.base_version);
        set.status = 204;
      },
      {
        permission: "schedule.write",
        query: OverrideDeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: { summary: "Delete a provider schedule override" },
      },
    );
