import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { ClaimPayment, ClaimPaymentCreate, ClaimPaymentListQuery, ClaimPaymentPage, ClaimPaymentVoid } from "./schemas";
import { createClaimPayment, getClaimPayment, listClaimPayments, voidClaimPayment } from "./service";

export const claimPaymentRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.claim-payments", prefix: "/api/v1/:org_id/insurance", tags: ["Claim payments"] })
    .use(guard(rt))
    .get("/claim-payments", ({ ctx, query }) => listClaimPayments(ctx, query), {
      permission: "insurance.claims.read",
      query: ClaimPaymentListQuery,
      response: { 200: ClaimPaymentPage, ...orgErrors() },
      detail: {
        summary: "List claim payments",
        description:
          "Carriers' payments (ERAs posted and paper EOBs entered), newest payment date first, filtered by carrier, claim, payment date range and status, each with its splits.",
      },
    })
    .post(
      "/claim-payments",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createClaimPayment(ctx, body);
      },
      {
        permission: "insurance.payments.post",
        body: ClaimPaymentCreate,
        response: { 201: ClaimPayment, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Post a claim payment (a paper EOB)",
          description:
            "Records a carrier's check or EFT and posts each split to its claim procedure as an ERA's posting does: paid, allowed, write-off and deductible; the claim is received; the patient's ledger gets the insurance payment and the write-off. The splits' paid amounts must add up to the amount. 404 for a missing carrier or claim; 422 naming each split whose claim is another carrier's, a pre-authorization or not sent, whose procedure is not on the claim, or whose paid and write-off exceed what is open on the procedure.",
        },
      },
    )
    .get("/claim-payments/:claim_payment_uuid", ({ ctx, params }) => getClaimPayment(ctx, params.claim_payment_uuid), {
      permission: "insurance.claims.read",
      response: { 200: ClaimPayment, ...orgErrors() },
      detail: { summary: "Get a claim payment", description: "The payment with its splits (a void's reversing splits included); 404 when missing." },
    })
    .post("/claim-payments/:claim_payment_uuid/void", ({ ctx, params, body }) => voidClaimPayment(ctx, params.claim_payment_uuid, body), {
      permission: "insurance.payments.post",
      body: ClaimPaymentVoid,
      response: { 200: ClaimPayment, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Void a claim payment",
        description:
          "Adds a reversing split for each split and reversing ledger entries dated today; a claim left with no answer goes back to sent. Nothing is deleted. 409 on a stale base_version; 422 payment_voided when it is voided already.",
      },
    });
