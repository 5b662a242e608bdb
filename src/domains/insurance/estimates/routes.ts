import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { DeleteEstimateQuery, EstimateDetail, EstimateRun, OverridesBody, PlanEstimates, ProcedureEstimate, ReEstimateBody, Staleness } from "./schemas";
import { deleteEstimate, estimatePlan, getEstimateDetail, listPlanEstimates, planStaleness, reEstimatePlan, updateOverrides } from "./service";

const READ = "clinical.read";
const WRITE = "insurance.estimates.write";
const PLAN_404 = "404 when the patient or the treatment plan is missing, or the plan is not the patient's.";
const STALE =
  "is_stale: the stored inputs_hash differs from the hash the current data give as of the date the estimate was computed for (a day passing alone never makes it stale; always true while the patient has no active insurance).";

// Procedure estimates of a treatment plan (docs/insurance/insurance-estimates.md, "Service"): paths under the clinical chart.
export const estimateRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.insurance.estimates", prefix: "/api/v1/:org_id/clinical", tags: ["Insurance"] })
    .use(guard(rt))
    .post("/patients/:patient_uuid/treatment-plans/:plan_uuid/estimate", ({ ctx, params }) => estimatePlan(ctx, params.patient_uuid, params.plan_uuid), {
      permission: WRITE,
      response: { 200: EstimateRun, ...orgErrors(409) },
      detail: {
        summary: "Estimate a treatment plan",
        description: `Estimates each estimable procedure (treatment_planned, scheduled or in_progress, not do_not_bill_insurance; fee_override else office fee; dated today) against each active insurance plan in coordination-of-benefits order, in plan order (phase, then position), and creates or updates the estimates: an unchanged estimate is not rewritten. Estimates for ordinals no longer covered, or of procedures no longer estimated, are soft-deleted; those of completed work are kept. stale_count counts the plan's estimates that were stale before the run; the totals are the run's. ${PLAN_404} 422 no_active_insurance (nothing written) when the patient has no active insurance plan today.`,
      },
    })
    .post(
      "/patients/:patient_uuid/treatment-plans/:plan_uuid/re-estimate",
      ({ ctx, params, body }) => reEstimatePlan(ctx, params.patient_uuid, params.plan_uuid, body),
      {
        permission: WRITE,
        body: ReEstimateBody,
        response: { 200: EstimateRun, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Re-estimate a treatment plan",
          description: `force false (the default; the body may be left out): only stale estimates are recomputed (and missing ones created, obsolete ones deleted); true: every estimate is recomputed and rewritten where its figures differ. Same answer as estimate. ${PLAN_404} 422 no_active_insurance.`,
        },
      },
    )
    .get("/patients/:patient_uuid/treatment-plans/:plan_uuid/estimates", ({ ctx, params }) => listPlanEstimates(ctx, params.patient_uuid, params.plan_uuid), {
      permission: READ,
      response: { 200: PlanEstimates, ...orgErrors() },
      detail: {
        summary: "List a treatment plan's estimates",
        description: `The live estimates of the plan's procedures, in plan order then ordinal, with effective values and staleness. ${STALE} Estimates of completed work are never stale. ${PLAN_404}`,
      },
    })
    .get("/patients/:patient_uuid/treatment-plans/:plan_uuid/staleness", ({ ctx, params }) => planStaleness(ctx, params.patient_uuid, params.plan_uuid), {
      permission: READ,
      response: { 200: Staleness, ...orgErrors() },
      detail: { summary: "Which of a treatment plan's estimates are stale", description: `${STALE} ${PLAN_404}` },
    })
    .get("/estimates/:estimate_uuid/detail", ({ ctx, params }) => getEstimateDetail(ctx, params.estimate_uuid), {
      permission: READ,
      response: { 200: EstimateDetail, ...orgErrors() },
      detail: {
        summary: "Explain an estimate",
        description:
          "The waterfall (fee billed, allowed fee, write-off, deductible, coverage percent, annual maximum, coordination, patient portion), the benefit match, coverage checks, plan context and warnings, from when it was computed; has_detail false when none was stored. tracker tells whether it is stale now. 404 when missing or deleted.",
      },
    })
    .patch("/estimates/:estimate_uuid/overrides", ({ ctx, params, body }) => updateOverrides(ctx, params.estimate_uuid, body), {
      permission: WRITE,
      body: OverridesBody,
      response: { 200: ProcedureEstimate, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Override an estimate's figures",
        description:
          "Only the fields present change; null clears an override. Amounts in dollars, percentage_override 0-100. The estimate's treatment plan is then re-estimated in the same request, so later procedures see the change; an override outside what the figures allow is clamped (warning override_clamped in the detail). 404; 409 version_conflict on a stale base_version.",
      },
    })
    .delete(
      "/patients/:patient_uuid/procedures/:procedure_uuid/estimates/:estimate_uuid",
      async ({ ctx, params, query, set }) => {
        await deleteEstimate(ctx, params.patient_uuid, params.procedure_uuid, params.estimate_uuid, query.base_version);
        set.status = 204;
      },
      {
        permission: WRITE,
        query: DeleteEstimateQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: {
          summary: "Delete an estimate",
          description:
            "Soft delete. 404 unless the estimate belongs to the patient's procedure; 409 on a stale base_version. The next estimate or re-estimate of its treatment plan computes it again while the procedure is estimable (mark the procedure do_not_bill_insurance to leave it out).",
        },
      },
    );
