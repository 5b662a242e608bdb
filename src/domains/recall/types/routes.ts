import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { RecallType, RecallTypeCreate, RecallTypeListQuery, RecallTypePatch } from "./schemas";
import { archiveRecallType, createRecallType, getRecallType, listRecallTypes, updateRecallType } from "./service";

export const recallTypeRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.recall-types", prefix: "/api/v1/:org_id/recall-types", tags: ["Recall"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listRecallTypes(ctx, query), {
      permission: "recall.read",
      query: RecallTypeListQuery,
      response: { 200: PageSchema(RecallType), ...orgErrors() },
      detail: {
        summary: "List recall types",
        description: "By name; archived types only with include_archived=true. Paged: page_size 50 by default, at most 200 (422 beyond).",
      },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createRecallType(ctx, body);
      },
      {
        permission: "recall.write",
        body: RecallTypeCreate,
        response: { 201: RecallType, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a recall type",
          description:
            "A kind of continuing care: its interval and the procedure codes whose completion resets it. 404 naming a trigger procedure code that is not a live code of this org, 404 for an unknown default_appointment_type_uuid; 422 invalid_interval when months, weeks and days are all zero; 422 for unknown fields, a time_pattern of other characters than X and /, an empty or repeating list of trigger codes.",
        },
      },
    )
    .get("/:recall_type_uuid", ({ ctx, params }) => getRecallType(ctx, params.recall_type_uuid), {
      permission: "recall.read",
      response: { 200: RecallType, ...orgErrors() },
      detail: {
        summary: "Get a recall type",
        description:
          "The type with its trigger codes (each with its code) and default length. An archived type is still answered, with archived_at. 404 when missing.",
      },
    })
    .patch("/:recall_type_uuid", ({ ctx, params, body }) => updateRecallType(ctx, params.recall_type_uuid, body), {
      permission: "recall.write",
      body: RecallTypePatch,
      response: { 200: RecallType, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a recall type",
        description:
          "A new interval, trigger codes or is_perio works out every recall of the org again (the job recalls.recompute, after the answer). 404 when missing (or naming an unknown trigger code or appointment type); 409 version_conflict on a stale base_version; 422 invalid_interval, 422 recall_type_archived for an archived type.",
      },
    })
    .post("/:recall_type_uuid/archive", ({ ctx, params }) => archiveRecallType(ctx, params.recall_type_uuid), {
      permission: "recall.write",
      response: { 200: RecallType, ...orgErrors(409) },
      detail: {
        summary: "Archive a recall type",
        description:
          "Sets archived_at: the type leaves lists (include_archived shows it), takes no new recalls (422 recall_type_archived) and its recalls leave the recall list; recalls of it stay on the patient. Archiving an archived type answers it unchanged. 404 when missing.",
      },
    });
