import { z } from "zod";
import { DateOnly, DateTime, DollarsInput, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { PageSchema, pagingQuery } from "@/platform/records/paging";

// Statements (docs/account/statements.md): one guarantor's statement, rendered
// to a PDF by the statements.render job, and batches that select guarantors
// and make one statement each.

export const STATEMENT_MODES = ["mail", "email", "in_person"] as const;
export type StatementMode = (typeof STATEMENT_MODES)[number];
export const STATEMENT_STATUSES = ["pending", "ready", "sent", "failed"] as const;
export type StatementStatus = (typeof STATEMENT_STATUSES)[number];
export const BATCH_STATUSES = ["running", "done"] as const;

/** The period a statement covers when none is given: the last 45 days. */
export const DEFAULT_PERIOD_DAYS = 45;
/** A statement is due this many days after the day it is rendered. */
export const DUE_AFTER_DAYS = 30;
/** A period longer than this is refused (a statement of several years is a ledger report). */
export const MAX_PERIOD_DAYS = 366;

const Mode = z
  .enum(STATEMENT_MODES)
  .describe("How it reaches the guarantor: mail (printed and posted by the practice), email (sent with the PDF attached), in_person (handed over)");

export const StatementCreate = z.strictObject({
  guarantor_uuid: Uuid.describe("The family's guarantor: a patient without a responsible party"),
  date_from: DateOnly.optional().describe(`First day of the period whose entries are listed; default ${DEFAULT_PERIOD_DAYS} days before date_to`),
  date_to: DateOnly.optional().describe("Last day of the period; default today in the guarantor's practice time zone; at most one day ahead of UTC today"),
  mode: Mode.default("mail"),
  note: z.string().trim().max(500).nullable().optional().describe("Printed on the statement (a message to the guarantor)"),
});
export type StatementCreate = z.infer<typeof StatementCreate>;

export const Statement = z
  .object({
    ...RecordMeta,
    guarantor: Ref,
    date_from: z.string().describe("YYYY-MM-DD"),
    date_to: z.string().describe("YYYY-MM-DD"),
    mode: z.enum(STATEMENT_MODES),
    note: z.string().nullable(),
    status: z
      .enum(STATEMENT_STATUSES)
      .describe(
        "pending: being rendered; ready: the PDF is stored (to print, or emailing was not possible: see status_reason); sent: emailed; failed: not produced or not delivered (status_reason)",
      ),
    status_reason: z
      .string()
      .nullable()
      .describe("Why a statement is failed, or why a statement to email is ready but was not emailed (the guarantor does not accept email or has no address)"),
    batch_uuid: z.string().nullable().describe("The batch that made it"),
    document_uuid: z.string().nullable().describe("The rendered PDF: a document (document_type statement) owned by the guarantor, once ready"),
    amount_due: z.string().nullable().describe("Dollars, two decimals, once rendered: the family's balance, 0.00 when in credit"),
    due_date: z.string().nullable().describe("YYYY-MM-DD, once rendered"),
    sent_at: DateTime.nullable(),
  })
  .meta({ id: "Statement" });
export type Statement = z.infer<typeof Statement>;

export const StatementPage = PageSchema(Statement);

export const StatementListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  guarantor_uuid: Uuid.optional(),
  batch_uuid: Uuid.optional(),
  status: z.enum(STATEMENT_STATUSES).optional(),
  mode: z.enum(STATEMENT_MODES).optional(),
});
export type StatementListQuery = z.infer<typeof StatementListQuery>;

export const StatementBatchCreate = z.strictObject({
  min_balance: DollarsInput(0)
    .default(0.01)
    .describe("Dollars: only families whose balance (every member's total) is at least this; default 0.01, families that owe something"),
  billing_type_uuids: z
    .array(Uuid)
    .max(50)
    .optional()
    .describe("Only guarantors of these billing types (definitions of category billing_types); default every guarantor, whatever their billing type (or none)"),
  skip_if_sent_within_days: z
    .number()
    .int()
    .min(0)
    .max(365)
    .default(25)
    .describe("Skip guarantors given a statement (not failed) in this many days; 0 skips none. A guarantor with a statement still pending is always skipped"),
  mode: Mode.default("mail"),
});
export type StatementBatchCreate = z.infer<typeof StatementBatchCreate>;

export const StatementBatch = z
  .object({
    ...RecordMeta,
    min_balance: z.string().describe("Dollars, two decimals"),
    billing_types: z.array(Ref).describe("The billing types selected (empty: every one)"),
    skip_if_sent_within_days: z.number().int(),
    mode: z.enum(STATEMENT_MODES),
    status: z.enum(BATCH_STATUSES).describe("running until every selected statement is finished (ready, sent or failed), then done"),
    total: z.number().int().describe("Guarantors selected (known once selection has run; 0 before)"),
    done: z.number().int().describe("Statements finished: ready or sent"),
    failed: z.number().int().describe("Statements that failed"),
  })
  .meta({ id: "StatementBatch" });
export type StatementBatch = z.infer<typeof StatementBatch>;
