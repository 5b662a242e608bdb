import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * Writes a claim batch's 837D file (docs/insurance/claims.md, "Batches"): the
 * batch's claims still queued are mapped and built, the text is checked by
 * reading it back, stored, and one write makes the batch ready and the
 * written claims sent. Queued by POST {P}/insurance/claim-batches in the write
 * that makes the batch. Idempotent: a batch no longer building is left as it
 * is, so a retry after a commit writes nothing more, and a retry after a
 * failed or killed attempt builds the file again from the claims as they are.
 */
export const claimsExport837d = defineJob({
  id: "claims.export-837d",
  description: "Write a claim batch's 837D file, store it, and mark the batch ready and its claims sent",
  payload: z.strictObject({ batch_id: z.uuid() }),
  // 500 claims build in well under a second: an attempt still running after five minutes died with its worker
  queue: { retryLimit: 3, retryDelay: 15, retryBackoff: true, expireInSeconds: 300 },
});
