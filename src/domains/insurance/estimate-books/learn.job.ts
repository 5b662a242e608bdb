import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * Learns allowed fees from what carriers paid: a run of each named
 * `allowed_from_claims` book over its claim payment evidence
 * (docs/insurance/estimate-books.md, "Learning from claims"). Queued by a
 * claim payment posted or voided. Idempotent: a run that finds the fees it
 * would write already current writes nothing.
 */
export const estimateBooksLearn = defineJob({
  id: "estimate-books.learn",
  description: "Learn an estimate book's allowed fees from posted claim payments",
  payload: z.strictObject({ book_ids: z.array(z.uuid()).min(1).max(100) }),
  queue: { retryLimit: 3, retryDelay: 10, retryBackoff: true, expireInSeconds: 300 },
});
