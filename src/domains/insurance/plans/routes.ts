import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { ArchiveQuery, Plan, PlanCreate, PlanListQuery, PlanPatch } from "./schemas";
import { archivePlan, createPlan, getPlan, listPlans, updatePlan } from "./service";

const RULES =
  "Category references (coverage, waiting_periods, deductible_category_uuids) must name coverage categories that are not archived (404). " +
  "CDT codes are D and four digits; ranges Dnnnn-Dnnnn are inclusive. A rule list that is sent replaces the stored list. " +
  "Money fields are numbers in requests (at most two decimals) and two-decimal strings in answers.";

/** Insurance plans: the benefit rules every estimate is computed from (docs/insurance/insurance.md). */
export const planRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/insurance/plans", tags: ["Insurance"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listPlans(ctx, query), {
      permission: "insurance.read",
      query: PlanListQuery,
      response: { 200: PageSchema(Plan), ...orgErrors() },
      detail: { summary: "List insurance plans", description: "Archived plans are left out, hidden ones unless include_hidden=true; creation order." },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createPlan(ctx, body);
      },
      {
        permission: "insurance.write",
        body: PlanCreate,
        response: { 201: Plan, ...orgErrors(413, 415) },
        detail: {
          summary: "Create an insurance plan",
          description: `carrier_uuid is required (404 when missing or archived); estimate_book_uuid 404 likewise. ${RULES} Rules left out default to empty lists: the plan covers nothing until coverage is given, and the deductible applies to no category.`,
        },
      },
    )
    .get("/:plan_uuid", ({ ctx, params }) => getPlan(ctx, params.plan_uuid), {
      permission: "insurance.read",
      response: { 200: Plan, ...orgErrors() },
      detail: { summary: "Get an insurance plan", description: "Rules name their categories as {uuid, name}." },
    })
    .patch("/:plan_uuid", ({ ctx, params, body }) => updatePlan(ctx, params.plan_uuid, body), {
      permission: "insurance.write",
      body: PlanPatch,
      response: { 200: Plan, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update an insurance plan",
        description: `Only fields present change. ${RULES} Estimates of the plan's patients are marked for recomputation (event insurance.coverage_changed).`,
      },
    })
    .post("/:plan_uuid/archive", ({ ctx, params, query }) => archivePlan(ctx, params.plan_uuid, query), {
      permission: "insurance.write",
      query: ArchiveQuery,
      response: { 200: Plan, ...orgErrors(409) },
      detail: {
        summary: "Archive an insurance plan",
        description: "Soft delete; answers the archived record. 409 in_use while a subscription that is not archived names the plan.",
      },
    });
