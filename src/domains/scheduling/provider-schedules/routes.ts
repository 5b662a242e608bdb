import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { DeleteQuery, ProviderSchedule, ProviderScheduleCreate, ProviderScheduleListQuery, ProviderSchedulePatch } from "./schemas";
import { bodyPlace, listPlace } from "@/platform/tenancy/placement";
import { providerSchedulePlace } from "./where";
import { createProviderSchedule, deleteProviderSchedule, getProviderSchedule, listProviderSchedules, updateProviderSchedule } from "./service";

/** Weekly working-hour templates of providers (docs/scheduling/scheduling.md). */
export const providerScheduleRoutes = (rt: Runtime) =>
  new Elysia({ name: "provider-schedules", prefix: "/api/v1/:org_id/schedule/provider-schedules", tags: ["Scheduling"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listProviderSchedules(ctx, query), {
      permission: { key: "schedule.read", where: listPlace },
      query: ProviderScheduleListQuery,
      response: { 200: PageSchema(ProviderSchedule), ...orgErrors() },
      detail: { summary: "List provider working-hour templates" },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createProviderSchedule(ctx, body);
      },
      {
        permission: { key: "schedule.write", where: bodyPlace },
        body: ProviderScheduleCreate,
        response: { 201: ProviderSchedule, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a provider working-hour template",
          description: "409 schedule_overlap when the provider already works part of these hours on that weekday",
        },
      },
    )
    .get("/:schedule_uuid", ({ ctx, params }) => getProviderSchedule(ctx, params.schedule_uuid), {
      permission: { key: "schedule.read", where: providerSchedulePlace },
      response: { 200: ProviderSchedule, ...orgErrors() },
      detail: {
        summary: "Get a provider working-hour template",
        description:
          "One weekly block of a provider's hours at a location: weekday, start and end time (wall clock), the operatory if it is fixed, and the dates it is in effect. A deleted template is 404.",
      },
    })
    .patch("/:schedule_uuid", ({ ctx, params, body }) => updateProviderSchedule(ctx, params.schedule_uuid, body), {
      permission: { key: "schedule.write", where: providerSchedulePlace },
      body: ProviderSchedulePatch,
      response: { 200: ProviderSchedule, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a provider working-hour template" },
    })
    .delete(
      "/:schedule_uuid",
      async ({ ctx, params, query, set }) => {
        await deleteProviderSchedule(ctx, params.schedule_uuid, query.base_version);
        set.status = 204;
      },
      {
        permission: { key: "schedule.write", where: providerSchedulePlace },
        query: DeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: { summary: "Delete a provider working-hour template" },
      },
    );
