import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { AppError } from "@/platform/errors";
import { guard } from "@/platform/http/guard";
import { ErrorBody, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  AdjustmentLog,
  AdjustmentLogCreate,
  AdjustmentLogListQuery,
  AllowedFee,
  AllowedFeeCreate,
  AllowedFeeListQuery,
  ArchiveQuery,
  ClaimPaymentEvidence,
  EstimateBook,
  EstimateBookCreate,
  EstimateBookListQuery,
  EstimateBookPatch,
  EvidenceListQuery,
} from "./schemas";
import { archiveBook, createBook, getBook, listBooks, updateBook } from "./books";
import { createAllowedFee, listAllowedFees } from "./allowed-fees";
import { createAdjustmentLog, getAdjustmentLog, listAdjustmentLogs } from "./adjustment-logs";
import { listEvidence } from "./evidence";

/** Adjustment logs are append-only: any attempt to change or delete one is 405 with Allow. */
const notAllowed = (allow: string) => () => {
  throw new AppError(405, "method_not_allowed", "Adjustment logs are append-only", { Allow: allow });
};
// Still guarded (outsiders 404, members without the write key 403). A fresh
// object per route: Elysia writes the expanded macro hooks into it.
const appendOnly = () => ({
  permission: "insurance.write" as const,
  response: { 405: ErrorBody, ...orgErrors() },
  // Not in the OpenAPI document: a method that can only refuse is no operation to call;
  // the GET/POST descriptions of the records say that these methods answer 405.
  detail: { hide: true, summary: "Not allowed: adjustment logs are append-only" },
});

/** Estimate books with their allowed fees, adjustment logs and claim payment evidence (docs/insurance/estimate-books.md). */
export const estimateBookRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.estimate-books", prefix: "/api/v1/:org_id/insurance/estimate-books", tags: ["Insurance"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listBooks(ctx, query), {
      permission: "insurance.read",
      query: EstimateBookListQuery,
      response: { 200: PageSchema(EstimateBook), ...orgErrors() },
      detail: { summary: "List estimate books", description: "Ordered by name, then id. Books archived by the archive operation are left out." },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createBook(ctx, body);
      },
      {
        permission: "insurance.write",
        body: EstimateBookCreate,
        response: { 201: EstimateBook, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create an estimate book",
          description:
            "scope_type (default tenant) decides the references: carrier needs carrier_uuid, plan needs insurance_plan_uuid, and a reference the scope does not use is 422 invalid_scope. 404 when the carrier or plan is missing. With an Idempotency-Key, a repeat replays the first answer and the same key with another body is 409 idempotency_conflict.",
        },
      },
    )
    .get("/:book_uuid", ({ ctx, params }) => getBook(ctx, params.book_uuid), {
      permission: "insurance.read",
      response: { 200: EstimateBook, ...orgErrors() },
      detail: {
        summary: "Get an estimate book",
        description:
          "The book with its rule type, scope (the whole org, a carrier or a plan) and its carrier and plan as references, status and claim-matching settings. An archived book is 404.",
      },
    })
    .patch("/:book_uuid", ({ ctx, params, body }) => updateBook(ctx, params.book_uuid, body), {
      permission: "insurance.write",
      body: EstimateBookPatch,
      response: { 200: EstimateBook, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update an estimate book",
        description: "The scope rule is judged on the book as it would be after the change: send null to clear a reference the new scope does not use.",
      },
    })
    .post("/:book_uuid/archive", ({ ctx, params, query }) => archiveBook(ctx, params.book_uuid, query), {
      permission: "insurance.write",
      query: ArchiveQuery,
      response: { 200: EstimateBook, ...orgErrors(409) },
      detail: {
        summary: "Archive an estimate book",
        description: "Soft delete: sets deleted_at and status archived and answers the archived book; it then answers 404 and no estimate uses it.",
      },
    })
    .get("/:book_uuid/allowed-fees", ({ ctx, params, query }) => listAllowedFees(ctx, params.book_uuid, query), {
      permission: "insurance.read",
      query: AllowedFeeListQuery,
      response: { 200: PageSchema(AllowedFee), ...orgErrors() },
      detail: { summary: "List a book's allowed fees", description: "Latest computed_at first, expired fees included." },
    })
    .post(
      "/:book_uuid/allowed-fees",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createAllowedFee(ctx, params.book_uuid, body);
      },
      {
        permission: "insurance.write",
        body: AllowedFeeCreate,
        response: { 201: AllowedFee, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Add an allowed fee to a book",
          description:
            "404 when the book, the procedure code or the run (of this book) is missing. 422 invalid_date_range when expires_at is not after computed_at; 422 group_number_required for a group_number fee without group_number.",
        },
      },
    )
    .get("/:book_uuid/adjustment-logs", ({ ctx, params, query }) => listAdjustmentLogs(ctx, params.book_uuid, query), {
      permission: "insurance.read",
      query: AdjustmentLogListQuery,
      response: { 200: PageSchema(AdjustmentLog), ...orgErrors() },
      detail: {
        summary: "List a book's adjustment logs",
        description: "Newest first. The logs are append-only: PUT, PATCH and DELETE here or on one log answer 405 with `Allow`.",
      },
    })
    .post(
      "/:book_uuid/adjustment-logs",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createAdjustmentLog(ctx, params.book_uuid, body);
      },
      {
        permission: "insurance.write",
        body: AdjustmentLogCreate,
        response: { 201: AdjustmentLog, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Record an allowed-fee adjustment",
          description:
            "Append-only. 404 when the book, the procedure code or the run (of this book) is missing. delta_allowed_fee is new - previous: worked out when omitted, 422 delta_mismatch when it disagrees.",
        },
      },
    )
    .get("/:book_uuid/adjustment-logs/:log_uuid", ({ ctx, params }) => getAdjustmentLog(ctx, params.book_uuid, params.log_uuid), {
      permission: "insurance.read",
      response: { 200: AdjustmentLog, ...orgErrors() },
      detail: {
        summary: "Get an adjustment log",
        description: "404 also when it belongs to another book. A log never changes: PUT, PATCH and DELETE answer 405.",
      },
    })
    .put("/:book_uuid/adjustment-logs", notAllowed("GET, POST"), appendOnly())
    .patch("/:book_uuid/adjustment-logs", notAllowed("GET, POST"), appendOnly())
    .delete("/:book_uuid/adjustment-logs", notAllowed("GET, POST"), appendOnly())
    .put("/:book_uuid/adjustment-logs/:log_uuid", notAllowed("GET"), appendOnly())
    .patch("/:book_uuid/adjustment-logs/:log_uuid", notAllowed("GET"), appendOnly())
    .delete("/:book_uuid/adjustment-logs/:log_uuid", notAllowed("GET"), appendOnly())
    .get("/:book_uuid/evidence", ({ ctx, params, query }) => listEvidence(ctx, params.book_uuid, query), {
      permission: "insurance.read",
      query: EvidenceListQuery,
      response: { 200: PageSchema(ClaimPaymentEvidence), ...orgErrors() },
      detail: {
        summary: "List a book's claim payment evidence",
        description: "What carriers paid for each code, newest payment first. Written by claim and EOB processing; empty until claims exist.",
      },
    });
