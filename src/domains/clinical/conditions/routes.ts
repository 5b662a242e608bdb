import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Condition, ConditionCreate, ConditionDeleteQuery, ConditionListQuery, ConditionPatch } from "./schemas";
import { createCondition, deleteCondition, getCondition, listConditions, updateCondition } from "./service";

const READ = "clinical.read";
const WRITE = "clinical.write";
const ARCHIVED = "422 patient_archived when the patient is archived.";

// A patient's conditions: caries, fractures, watches, ... (docs/clinical/chart-history.md).
export const conditionRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.conditions", prefix: "/api/v1/:org_id/clinical", tags: ["Clinical: conditions"] })
    .use(guard(rt))
    .get("/patients/:patient_uuid/conditions", ({ ctx, params, query }) => listConditions(ctx, params.patient_uuid, query), {
      permission: READ,
      query: ConditionListQuery,
      response: { 200: PageSchema(Condition), ...orgErrors() },
      detail: { summary: "List a patient's conditions", description: "Ordered by date_identified, then creation. Deleted conditions are left out." },
    })
    .post(
      "/patients/:patient_uuid/conditions",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createCondition(ctx, params.patient_uuid, body);
      },
      {
        permission: WRITE,
        body: ConditionCreate,
        response: { 201: Condition, ...orgErrors(409, 413, 415) },
        detail: { summary: "Record a condition", description: `404 when the patient, provider_uuid or diagnostic_code_uuid is unknown. ${ARCHIVED}` },
      },
    )
    .get("/conditions/:condition_uuid", ({ ctx, params }) => getCondition(ctx, params.condition_uuid), {
      permission: READ,
      response: { 200: Condition, ...orgErrors() },
      detail: {
        summary: "Get a condition",
        description:
          "One condition on the patient's chart: type, tooth and surface, severity, status, the dates it was identified and resolved, provider, diagnosis and note, with the patient as a reference. A deleted condition is 404.",
      },
    })
    .patch("/conditions/:condition_uuid", ({ ctx, params, body }) => updateCondition(ctx, params.condition_uuid, body), {
      permission: WRITE,
      body: ConditionPatch,
      response: { 200: Condition, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update or resolve a condition",
        description: `status resolved sets date_resolved (today unless given); leaving resolved clears it. ${ARCHIVED}`,
      },
    })
    .delete(
      "/conditions/:condition_uuid",
      async ({ ctx, params, query, set }) => {
        await deleteCondition(ctx, params.condition_uuid, query.base_version);
        set.status = 204;
      },
      {
        permission: WRITE,
        query: ConditionDeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: { summary: "Delete a condition (soft delete)", description: ARCHIVED },
      },
    );
