import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * Renders one statement to a PDF, stores it as the guarantor's document and,
 * for mode email, mails it (docs/account/statements.md). Queued by the write
 * that makes the statement (POST {P}/statements, or a batch's selection).
 * Idempotent: the document is the statement's (one per statement however
 * often it runs), and a statement already finished is left as it is.
 */
export const statementsRender = defineJob({
  id: "statements.render",
  description: "Render a statement to PDF, store it as a document and email it when asked",
  payload: z.strictObject({ statement_id: z.uuid() }),
  // a render takes milliseconds: an attempt still running after two minutes died with its worker
  queue: { retryLimit: 3, retryDelay: 10, retryBackoff: true, expireInSeconds: 120 },
  work: { concurrency: 4 },
});
