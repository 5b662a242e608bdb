import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { Payment, PaymentCreate, PaymentListQuery, PaymentPage, PaymentRefund, PaymentVoid } from "./schemas";
import { createPayment, getPayment, listPayments, refundPayment, voidPayment } from "./service";

export const paymentRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.payments", prefix: "/api/v1/:org_id", tags: ["Payments"] })
    .use(guard(rt))
    .post(
      "/patients/:patient_uuid/payments",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createPayment(ctx, params.patient_uuid, body);
      },
      {
        permission: "billing.ledger.write",
        body: PaymentCreate,
        response: { 201: Payment, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Take a payment",
          description:
            "Records the payment and posts one ledger entry per split: to the providers (and procedures) given, which must add up to the amount (422 otherwise), or, without splits, to the patient's oldest open procedure charges by their providers, the rest an unallocated prepayment. 404 for a missing payment type, provider or procedure (a procedure must be the patient's); 422 patient_archived for an archived patient.",
        },
      },
    )
    .get("/payments", ({ ctx, query }) => listPayments(ctx, query), {
      permission: "billing.ledger.read",
      query: PaymentListQuery,
      response: { 200: PaymentPage, ...orgErrors() },
      detail: {
        summary: "List payments (the deposit list)",
        description:
          "Every patient's payments, newest first, filtered by payment date range, type, location, patient, status or the provider a split credits; totals (count, amount, refunded, net) over every match that is not voided, and by payment type.",
      },
    })
    .get("/payments/:payment_uuid", ({ ctx, params }) => getPayment(ctx, params.payment_uuid), {
      permission: "billing.ledger.read",
      response: { 200: Payment, ...orgErrors() },
      detail: { summary: "Get a payment", description: "The payment with its splits and what is left of each after refunds and voids; 404 when missing." },
    })
    .post("/payments/:payment_uuid/void", ({ ctx, params, body }) => voidPayment(ctx, params.payment_uuid, body), {
      permission: "billing.ledger.write",
      body: PaymentVoid,
      response: { 200: Payment, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Void a payment",
        description:
          "Reverses what is left of every split with entries dated today (the charges they paid are open again at their own dates) and marks the payment voided. 409 on a stale base_version; 422 payment_voided when it is voided already.",
      },
    })
    .post("/payments/:payment_uuid/refund", ({ ctx, params, body }) => refundPayment(ctx, params.payment_uuid, body), {
      permission: "billing.ledger.write",
      body: PaymentRefund,
      response: { 200: Payment, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Refund part or all of a payment",
        description:
          "Gives `amount` back from the payment's splits (unallocated ones first, then the latest) with refund entries dated today. 422 refund_exceeds_payment past what is left, 422 payment_voided for a voided payment, 409 on a stale base_version.",
      },
    });
