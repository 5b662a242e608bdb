import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  PlanCreate,
  PlanDeleteQuery,
  PlanItemAdd,
  PlanItemPatch,
  PlanListQuery,
  PlanPatch,
  PlanReorder,
  PlanStatusChange,
  PlanVersionQuery,
  TreatmentPlan,
} from "./schemas";
import {
  addPlanProcedure,
  changePlanStatus,
  createPlan,
  deletePlan,
  getPlan,
  listPlans,
  removePlanProcedure,
  reorderPlan,
  updatePlan,
  updatePlanProcedure,
} from "./service";

const READ = "clinical.read";
const WRITE = "clinical.write";
const LOCKED = "422 plan_locked while the plan is rejected or completed.";

// A patient's treatment plans: charted procedures grouped into phases (docs/clinical/charting.md).
export const treatmentPlanRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.treatment-plans", prefix: "/api/v1/:org_id/clinical/patients/:patient_uuid/treatment-plans", tags: ["Clinical charting"] })
    .use(guard(rt))
    .get("", ({ ctx, params, query }) => listPlans(ctx, params.patient_uuid, query), {
      permission: READ,
      query: PlanListQuery,
      response: { 200: PageSchema(TreatmentPlan), ...orgErrors() },
      detail: { summary: "List a patient's treatment plans" },
    })
    .post(
      "",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createPlan(ctx, params.patient_uuid, body);
      },
      {
        permission: WRITE,
        body: PlanCreate,
        response: { 201: TreatmentPlan, ...orgErrors(413, 415) },
        detail: {
          summary: "Create a treatment plan",
          description:
            "Starts `draft` unless `status` is `proposed` or `accepted` (a plan the patient already agreed to); later changes go through POST .../status. 422 patient_archived when the patient is archived.",
        },
      },
    )
    .get("/:plan_uuid", ({ ctx, params }) => getPlan(ctx, params.patient_uuid, params.plan_uuid), {
      permission: READ,
      response: { 200: TreatmentPlan, ...orgErrors() },
      detail: { summary: "Get a treatment plan", description: "With its procedures in order, each with its phase, and fee totals." },
    })
    .patch("/:plan_uuid", ({ ctx, params, body }) => updatePlan(ctx, params.patient_uuid, params.plan_uuid, body), {
      permission: WRITE,
      body: PlanPatch,
      response: { 200: TreatmentPlan, ...orgErrors(409, 413, 415) },
      detail: { summary: "Rename a plan, change its note or phase names" },
    })
    .delete(
      "/:plan_uuid",
      async ({ ctx, params, query, set }) => {
        await deletePlan(ctx, params.patient_uuid, params.plan_uuid, query.base_version);
        set.status = 204;
      },
      {
        permission: WRITE,
        query: PlanDeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: { summary: "Delete a treatment plan", description: "Soft delete; its procedures stay charted." },
      },
    )
    .post("/:plan_uuid/status", ({ ctx, params, body }) => changePlanStatus(ctx, params.patient_uuid, params.plan_uuid, body), {
      permission: WRITE,
      body: PlanStatusChange,
      response: { 200: TreatmentPlan, ...orgErrors(409, 413, 415) },
      detail: { summary: "Change a plan's status", description: "Along the transition table; 422 invalid_transition otherwise." },
    })
    .post(
      "/:plan_uuid/procedures",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return addPlanProcedure(ctx, params.patient_uuid, params.plan_uuid, body);
      },
      {
        permission: WRITE,
        body: PlanItemAdd,
        response: { 201: TreatmentPlan, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Add a procedure to a plan",
          description: `Appended at the end. 404 unless the procedure is the patient's and not deleted; 409 duplicate when already in the plan; 422 procedure_not_plannable for completed or existing work. ${LOCKED}`,
        },
      },
    )
    .patch(
      "/:plan_uuid/procedures/:procedure_uuid",
      ({ ctx, params, body }) => updatePlanProcedure(ctx, params.patient_uuid, params.plan_uuid, params.procedure_uuid, body),
      {
        permission: WRITE,
        body: PlanItemPatch,
        response: { 200: TreatmentPlan, ...orgErrors(409, 413, 415) },
        detail: { summary: "Move a planned procedure to another phase", description: LOCKED },
      },
    )
    .delete(
      "/:plan_uuid/procedures/:procedure_uuid",
      ({ ctx, params, query }) => removePlanProcedure(ctx, params.patient_uuid, params.plan_uuid, params.procedure_uuid, query.base_version),
      {
        permission: WRITE,
        query: PlanVersionQuery,
        response: { 200: TreatmentPlan, ...orgErrors(409) },
        detail: { summary: "Remove a procedure from a plan", description: `The procedure stays charted. Answers the plan. ${LOCKED}` },
      },
    )
    .post("/:plan_uuid/reorder", ({ ctx, params, body }) => reorderPlan(ctx, params.patient_uuid, params.plan_uuid, body), {
      permission: WRITE,
      body: PlanReorder,
      response: { 200: TreatmentPlan, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Reorder a plan's procedures",
        description: `procedure_uuids lists every procedure of the plan once (422 reorder_mismatch otherwise). ${LOCKED}`,
      },
    });
