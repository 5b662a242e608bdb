import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { ChartedProcedure, DeleteQuery, ProcedureCreate, ProcedureListQuery, ProcedurePatch } from "./schemas";
import { createProcedure, deleteProcedure, getProcedure, listProcedures, updateProcedure } from "./service";

const READ = "clinical.read";
const WRITE = "clinical.write";

// Procedures charted on a patient's teeth (docs/clinical/charting.md).
export const chartedProcedureRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.charted-procedures", prefix: "/api/v1/:org_id/clinical", tags: ["Clinical charting"] })
    .use(guard(rt))
    .get("/patients/:patient_uuid/procedures", ({ ctx, params, query }) => listProcedures(ctx, params.patient_uuid, query), {
      permission: READ,
      query: ProcedureListQuery,
      response: { 200: PageSchema(ChartedProcedure), ...orgErrors() },
      detail: {
        summary: "List a patient's charted procedures",
        description: "Ordered by date_service, then charting order. Deleted ones only with include_deleted=true.",
      },
    })
    .post(
      "/patients/:patient_uuid/procedures",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createProcedure(ctx, params.patient_uuid, body);
      },
      {
        permission: WRITE,
        body: ProcedureCreate,
        response: { 201: ChartedProcedure, ...orgErrors(413, 415) },
        detail: {
          summary: "Chart a procedure",
          description:
            "The site must fit the code's treatment_area (422 invalid_site). office_fee is the code's default fee now. 404 for an unknown code, provider, location, appointment (of this patient) or definition.",
        },
      },
    )
    .get("/procedures/:procedure_uuid", ({ ctx, params }) => getProcedure(ctx, params.procedure_uuid), {
      permission: READ,
      response: { 200: ChartedProcedure, ...orgErrors() },
      detail: {
        summary: "Get a charted procedure",
        description:
          "The procedure as charted: code and its description and category, tooth, surfaces or area, status, service and completion dates, provider and appointment, and fees as two-decimal strings (`effective_fee` is the override when set, else the office fee). A deleted procedure is 404.",
      },
    })
    .patch("/procedures/:procedure_uuid", ({ ctx, params, body }) => updateProcedure(ctx, params.procedure_uuid, body), {
      permission: WRITE,
      body: ProcedurePatch,
      response: { 200: ChartedProcedure, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a charted procedure",
        description: "status moves along the transition table (422 invalid_transition); completing sets date_completed.",
      },
    })
    .delete(
      "/procedures/:procedure_uuid",
      async ({ ctx, params, query, set }) => {
        await deleteProcedure(ctx, params.procedure_uuid, query.base_version);
        set.status = 204;
      },
      {
        permission: WRITE,
        query: DeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: {
          summary: "Delete a charted procedure",
          description:
            "Soft delete; removes it from treatment plans. 422 procedure_completed for complete and complete_referred, 422 procedure_in_span while it is a member of a span.",
        },
      },
    );
