import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { FlowStatus, FlowStatusArchiveQuery, FlowStatusCreate, FlowStatusListQuery, FlowStatusPatch } from "./schemas";
import { archiveFlowStatus, createFlowStatus, getFlowStatus, listFlowStatuses, updateFlowStatus } from "./service";

export const flowStatusRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.flow-statuses", prefix: "/api/v1/:org_id/schedule/flow-statuses", tags: ["Scheduling"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listFlowStatuses(ctx, query), {
      permission: "schedule.read",
      query: FlowStatusListQuery,
      response: { 200: PageSchema(FlowStatus), ...orgErrors() },
      detail: { summary: "List flow statuses (ordered by item_order)" },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createFlowStatus(ctx, body);
      },
      {
        permission: "schedule.write",
        body: FlowStatusCreate,
        response: { 201: FlowStatus, ...orgErrors(409, 413, 415) },
        detail: { summary: "Create a flow status", description: "The slug is derived from the name; 409 duplicate when a live status has it." },
      },
    )
    .get("/:flow_status_uuid", ({ ctx, params }) => getFlowStatus(ctx, params.flow_status_uuid), {
      permission: "schedule.read",
      response: { 200: FlowStatus, ...orgErrors() },
      detail: {
        summary: "Get a flow status",
        description:
          "One of the org's flow statuses: name, the slug derived from it, colour, whether it is active and its order. An archived flow status is 404.",
      },
    })
    .patch("/:flow_status_uuid", ({ ctx, params, body }) => updateFlowStatus(ctx, params.flow_status_uuid, body), {
      permission: "schedule.write",
      body: FlowStatusPatch,
      response: { 200: FlowStatus, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a flow status", description: "A new name re-derives the slug." },
    })
    .post("/:flow_status_uuid/archive", ({ ctx, params, query }) => archiveFlowStatus(ctx, params.flow_status_uuid, query), {
      permission: "schedule.write",
      query: FlowStatusArchiveQuery,
      response: { 200: FlowStatus, ...orgErrors(409) },
      detail: { summary: "Archive a flow status", description: "Sets deleted_at; the status then answers 404 and frees its slug." },
    });
