import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { PaymentPlan, PaymentPlanClose, PaymentPlanCreate, PaymentPlanDetail, PaymentPlanListQuery } from "./schemas";
import { closePaymentPlan, createPaymentPlan, getPaymentPlan, listPaymentPlans } from "./service";

export const paymentPlanRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.payment-plans", prefix: "/api/v1/:org_id", tags: ["Payment plans"] })
    .use(guard(rt))
    .get("/payment-plans", ({ ctx, query }) => listPaymentPlans(ctx, query), {
      permission: "billing.ledger.read",
      query: PaymentPlanListQuery,
      response: { 200: PageSchema(PaymentPlan), ...orgErrors() },
      detail: {
        summary: "List payment plans",
        description:
          "Newest first, filtered by guarantor, patient or status (open, closed); each plan with what is posted, what is unpaid and the next due date, without its schedule.",
      },
    })
    .post(
      "/payment-plans",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createPaymentPlan(ctx, body);
      },
      {
        permission: "billing.ledger.write",
        body: PaymentPlanCreate,
        response: { 201: PaymentPlanDetail, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a payment plan",
          description:
            "Moves the amount financed (principal less down payment) off the patient's account into the plan with one adjustment, amortizes it with the APR into installments (give installment_amount or installment_count, not both), and posts at once an installment due today. 404 for a missing patient or guarantor; 422 guarantor_mismatch when the guarantor is not the patient's, patient_archived, principal_exceeds_balance when the principal is more than the patient owes outside their plans, installment_too_small when the installments would not pay the plan off.",
        },
      },
    )
    .get("/payment-plans/:plan_uuid", ({ ctx, params }) => getPaymentPlan(ctx, params.plan_uuid), {
      permission: "billing.ledger.read",
      response: { 200: PaymentPlanDetail, ...orgErrors() },
      detail: {
        summary: "Get a payment plan with its amortization schedule",
        description: "The plan and one row per installment: due date, amount, principal, interest, balance after, and whether it is posted. 404 when missing.",
      },
    })
    .post("/payment-plans/:plan_uuid/close", ({ ctx, params, body }) => closePaymentPlan(ctx, params.plan_uuid, body), {
      permission: "billing.ledger.write",
      body: PaymentPlanClose,
      response: { 200: PaymentPlanDetail, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Close a payment plan",
        description:
          "No installment is posted after this: the principal the plan still held comes back to the patient's account at once as one adjustment dated today, without the interest it would have carried; installments already posted stay owed. 409 on a stale base_version; 422 invalid_transition when the plan is closed already, patient_archived when its patient is archived.",
      },
    });
