import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Operatory, OperatoryArchiveQuery, OperatoryCreate, OperatoryListQuery, OperatoryPatch } from "./schemas";
import { archiveOperatory, createOperatory, getOperatory, listOperatories, updateOperatory } from "./service";

export const operatoryRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/schedule/operatories", tags: ["Scheduling"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listOperatories(ctx, query), {
      permission: "schedule.read",
      query: OperatoryListQuery,
      response: { 200: PageSchema(Operatory), ...orgErrors() },
      detail: { summary: "List operatories" },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createOperatory(ctx, body);
      },
      {
        permission: "schedule.write",
        body: OperatoryCreate,
        response: { 201: Operatory, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create an operatory",
          description:
            "`location_uuid` must be a non-archived location (404) and is fixed: to move a chair, archive it and create one at the other location. Names need not be unique.",
        },
      },
    )
    .get("/:operatory_uuid", ({ ctx, params }) => getOperatory(ctx, params.operatory_uuid), {
      permission: "schedule.read",
      response: { 200: Operatory, ...orgErrors() },
      detail: {
        summary: "Get an operatory",
        description: "The chair or room with its location (a reference), name, abbreviation and display order. An archived operatory is 404.",
      },
    })
    .patch("/:operatory_uuid", ({ ctx, params, body }) => updateOperatory(ctx, params.operatory_uuid, body), {
      permission: "schedule.write",
      body: OperatoryPatch,
      response: { 200: Operatory, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update an operatory" },
    })
    .post("/:operatory_uuid/archive", ({ ctx, params, query }) => archiveOperatory(ctx, params.operatory_uuid, query), {
      permission: "schedule.write",
      query: OperatoryArchiveQuery,
      response: { 200: Operatory, ...orgErrors(409) },
      detail: { summary: "Archive an operatory" },
    });
