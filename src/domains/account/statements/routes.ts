import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { Statement, StatementBatch, StatementBatchCreate, StatementCreate, StatementListQuery, StatementPage } from "./schemas";
import { createBatch, createStatement, getBatch, getStatement, listStatements } from "./service";

export const statementRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.statements", prefix: "/api/v1/:org_id", tags: ["Statements"] })
    .use(guard(rt))
    .post(
      "/statements",
      async ({ ctx, body, set }) => {
        set.status = 202;
        return createStatement(ctx, body);
      },
      {
        permission: "billing.ledger.write",
        body: StatementCreate,
        response: { 202: Statement, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Make a statement",
          description:
            "Answers 202 with the statement pending; the statements.render job then renders its PDF (the practice, the guarantor's address, each family member's entries of the period, the aging, the amount due and due date, a remittance stub), stores it as a document of the guarantor (document_type statement) and marks it ready, or, with mode email and a guarantor who accepts email, mails it and marks it sent. 404 for a missing patient; 422 patient_archived, not_a_guarantor (the patient has a responsible party), invalid_date_range; 409 statement_pending while the guarantor's last statement is still being rendered.",
        },
      },
    )
    .post(
      "/statements/batch",
      async ({ ctx, body, set }) => {
        set.status = 202;
        return createBatch(ctx, body);
      },
      {
        permission: "billing.ledger.write",
        body: StatementBatchCreate,
        response: { 202: StatementBatch, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Make a batch of statements",
          description:
            "Answers 202 with the batch running; the statements.batch job selects every guarantor whose family balance is at least min_balance, of the billing types given, not given a statement in skip_if_sent_within_days days and without one pending, and makes one statement each (rendered as POST /statements does). Read the progress (total, done, failed) with GET /statement-batches/{batch_uuid}. 404 for an unknown billing type.",
        },
      },
    )
    .get("/statements", ({ ctx, query }) => listStatements(ctx, query), {
      permission: "billing.ledger.read",
      query: StatementListQuery,
      response: { 200: StatementPage, ...orgErrors() },
      detail: {
        summary: "List statements",
        description: "Statements newest first, filtered by guarantor, batch, status or mode.",
      },
    })
    .get("/statements/:statement_uuid", ({ ctx, params }) => getStatement(ctx, params.statement_uuid), {
      permission: "billing.ledger.read",
      response: { 200: Statement, ...orgErrors() },
      detail: {
        summary: "Get a statement",
        description: "The statement with its status, and once rendered its document (the PDF), amount due and due date; 404 when missing.",
      },
    })
    .get("/statement-batches/:batch_uuid", ({ ctx, params }) => getBatch(ctx, params.batch_uuid), {
      permission: "billing.ledger.read",
      response: { 200: StatementBatch, ...orgErrors() },
      detail: {
        summary: "Get a statement batch",
        description:
          "The batch's selection and its progress while it runs: total selected, done (ready or sent) and failed; status done once every statement has finished. 404 when missing.",
      },
    });
