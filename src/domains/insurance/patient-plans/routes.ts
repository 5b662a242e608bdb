import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { ArchiveQuery } from "@/domains/insurance/plans/schemas";
import {
  BenefitAdjustment,
  BenefitAdjustmentCreate,
  BenefitAdjustmentListQuery,
  Benefits,
  BenefitsQuery,
  PatientPlan,
  PatientPlanCreate,
  PatientPlanListQuery,
  PatientPlanPatch,
} from "./schemas";
import {
  archiveAdjustment,
  archivePatientPlan,
  createAdjustment,
  createPatientPlan,
  getBenefits,
  getPatientPlan,
  listAdjustments,
  listPatientPlans,
  updatePatientPlan,
} from "./service";

/** Patient plans (who a subscription covers, in coordination-of-benefits order), their benefits and benefit adjustments. */
export const patientPlanRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/insurance/patient-plans", tags: ["Insurance"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listPatientPlans(ctx, query), {
      permission: "insurance.read",
      query: PatientPlanListQuery,
      response: { 200: PageSchema(PatientPlan), ...orgErrors() },
      detail: {
        summary: "List patient plans",
        description:
          "Filter by patient_uuid (404 when the patient does not exist) or subscription_uuid. Archived plans are left out; per patient, active plans first, by ordinal.",
      },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createPatientPlan(ctx, body);
      },
      {
        permission: "insurance.write",
        body: PatientPlanCreate,
        response: { 201: PatientPlan, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Cover a patient by a subscription",
          description:
            "404 when the patient or subscription is missing (422 patient_archived for an archived patient). relationship self if and only if the patient is the subscriber (422 relationship_mismatch). 409 ordinal_taken when another active plan of the patient has the ordinal; 409 duplicate when the patient already has a plan for the subscription.",
        },
      },
    )
    .get("/:patient_plan_uuid", ({ ctx, params }) => getPatientPlan(ctx, params.patient_plan_uuid), {
      permission: "insurance.read",
      response: { 200: PatientPlan, ...orgErrors() },
      detail: {
        summary: "Get a patient plan",
        description:
          "A patient's coverage through a subscription: the subscription, plan, carrier and subscriber as references, the patient's relationship to the subscriber, its ordinal among the patient's plans (1 to 4) and whether it is active. An archived patient plan is 404.",
      },
    })
    .patch("/:patient_plan_uuid", ({ ctx, params, body }) => updatePatientPlan(ctx, params.patient_plan_uuid, body), {
      permission: "insurance.write",
      body: PatientPlanPatch,
      response: { 200: PatientPlan, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a patient plan",
        description:
          "ordinal, relationship and is_active change. Moving an active plan onto another active plan's ordinal swaps the two (the other takes the ordinal this one leaves); activating a plan at a held ordinal is 409 ordinal_taken.",
      },
    })
    .post("/:patient_plan_uuid/archive", ({ ctx, params, query }) => archivePatientPlan(ctx, params.patient_plan_uuid, query), {
      permission: "insurance.write",
      query: ArchiveQuery,
      response: { 200: PatientPlan, ...orgErrors(409) },
      detail: { summary: "Archive a patient plan", description: "Soft delete; answers the archived record. The other plans keep their ordinals." },
    })
    .get("/:patient_plan_uuid/benefits", ({ ctx, params, query }) => getBenefits(ctx, params.patient_plan_uuid, query), {
      permission: "insurance.read",
      query: BenefitsQuery,
      response: { 200: Benefits, ...orgErrors() },
      detail: {
        summary: "Benefits used in a benefit year",
        description:
          "The benefit year holding as_of (from the plan's benefit_year_start_month), the annual maximum and deductibles, what was used (estimates of completed procedures dated in the year, plus benefit adjustments) and what remains.",
      },
    })
    .get("/:patient_plan_uuid/benefit-adjustments", ({ ctx, params, query }) => listAdjustments(ctx, params.patient_plan_uuid, query), {
      permission: "insurance.read",
      query: BenefitAdjustmentListQuery,
      response: { 200: PageSchema(BenefitAdjustment), ...orgErrors() },
      detail: { summary: "List benefit adjustments", description: "Archived adjustments are left out; latest benefit year first." },
    })
    .post(
      "/:patient_plan_uuid/benefit-adjustments",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createAdjustment(ctx, params.patient_plan_uuid, body);
      },
      {
        permission: "insurance.write",
        body: BenefitAdjustmentCreate,
        response: { 201: BenefitAdjustment, ...orgErrors(413, 415) },
        detail: {
          summary: "Record benefits used elsewhere",
          description:
            "Annual maximum used and deductible met outside this system (another office, before go-live), added to the benefit year holding as_of. At least one amount above 0.",
        },
      },
    )
    .post(
      "/:patient_plan_uuid/benefit-adjustments/:adjustment_uuid/archive",
      ({ ctx, params, query }) => archiveAdjustment(ctx, params.patient_plan_uuid, params.adjustment_uuid, query),
      {
        permission: "insurance.write",
        query: ArchiveQuery,
        response: { 200: BenefitAdjustment, ...orgErrors(409) },
        detail: { summary: "Archive a benefit adjustment", description: "Soft delete (a mistaken entry); answers the archived record." },
      },
    );
