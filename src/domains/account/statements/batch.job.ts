import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * Selects a statement batch's guarantors and makes their statements, in
 * chunks of one write each, every statement queueing its statements.render
 * (docs/account/statements.md, "Batches"). Idempotent: a guarantor already in
 * the batch is not selected again, so a retry makes only what is missing.
 */
export const statementsBatch = defineJob({
  id: "statements.batch",
  description: "Select a statement batch's guarantors and queue their statements",
  payload: z.strictObject({ batch_id: z.uuid() }),
  queue: { retryLimit: 3, retryDelay: 30, retryBackoff: true, expireInSeconds: 900 },
});
