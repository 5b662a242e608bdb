import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { ProcedureSpan, SpanCascadeResult, SpanCreate, SpanDeleteQuery, SpanListQuery, SpanMembers, SpanPatch } from "./schemas";
import { cascadeDeleteSpan, createSpan, deleteSpan, getSpan, listSpanMembers, listSpans, updateSpan } from "./service";

const READ = "clinical.read";
const WRITE = "clinical.write";

// Spans: bridges and other work that ties several charted procedures together (docs/clinical/charting.md).
export const spanRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.spans", prefix: "/api/v1/:org_id/clinical/patients/:patient_uuid/spans", tags: ["Clinical charting"] })
    .use(guard(rt))
    .get("", ({ ctx, params, query }) => listSpans(ctx, params.patient_uuid, query), {
      permission: READ,
      query: SpanListQuery,
      response: { 200: PageSchema(ProcedureSpan), ...orgErrors() },
      detail: { summary: "List a patient's spans" },
    })
    .post(
      "",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createSpan(ctx, params.patient_uuid, body);
      },
      {
        permission: WRITE,
        body: SpanCreate,
        response: { 201: ProcedureSpan, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a span",
          description: "Members must be the patient's procedures (404), not deleted, and in no other span (409 procedure_in_span).",
        },
      },
    )
    .get("/:span_uuid", ({ ctx, params }) => getSpan(ctx, params.patient_uuid, params.span_uuid), {
      permission: READ,
      response: { 200: ProcedureSpan, ...orgErrors() },
      detail: { summary: "Get a span", description: "404 also when it belongs to another patient." },
    })
    .get("/:span_uuid/members", ({ ctx, params }) => listSpanMembers(ctx, params.patient_uuid, params.span_uuid), {
      permission: READ,
      response: { 200: SpanMembers, ...orgErrors() },
      detail: {
        summary: "List a span's members",
        description: "The span's member procedures, ordered by position, as `{items, total}` (not paged). 404 when the span belongs to another patient.",
      },
    })
    .patch("/:span_uuid", ({ ctx, params, body }) => updateSpan(ctx, params.patient_uuid, params.span_uuid, body), {
      permission: WRITE,
      body: SpanPatch,
      response: { 200: ProcedureSpan, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a span's note or status" },
    })
    .delete(
      "/:span_uuid",
      async ({ ctx, params, query, set }) => {
        await deleteSpan(ctx, params.patient_uuid, params.span_uuid, query.base_version);
        set.status = 204;
      },
      {
        permission: WRITE,
        query: SpanDeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: { summary: "Delete a span", description: "Soft delete; the member procedures stay charted and may join another span." },
      },
    )
    .delete("/:span_uuid/cascade", ({ ctx, params, query }) => cascadeDeleteSpan(ctx, params.patient_uuid, params.span_uuid, query.base_version), {
      permission: WRITE,
      query: SpanDeleteQuery,
      response: { 200: SpanCascadeResult, ...orgErrors(409) },
      detail: {
        summary: "Delete a span with its unfinished procedures",
        description:
          "One transaction: the span soft-deleted, its member rows removed, member procedures not complete or complete_referred soft-deleted (and removed from plans), completed ones kept as standalone records.",
      },
    });
