import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * Reads an ERA (835) the practice uploaded, matches its claims and posts them
 * as the carrier's automation says; with `post`, posts a reviewed ERA's
 * matched claims (docs/insurance/claims.md, "ERAs"). Idempotent: the parse is
 * kept once, the ERA's claim payment is made once, and each CLP is posted in
 * the same write that marks it posted, so a worker killed mid-posting leaves
 * no payment, write-off or ledger entry twice.
 */
export const claimsEraImport = defineJob({
  id: "claims.era-import",
  description: "Parse an ERA (835), match its claims and post the carrier's payments",
  payload: z.strictObject({ era_id: z.uuid(), post: z.boolean() }),
  // a 1,000-claim ERA posts in seconds: an attempt still running after ten minutes died with its worker
  queue: { retryLimit: 3, retryDelay: 10, retryBackoff: true, expireInSeconds: 600 },
});
