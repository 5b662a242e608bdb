import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * Matches the drafts of one import (docs/insurance/insurance-drafts.md, "The matching job"): enqueued after
 * the import commits, carrying the importing user and request id. It re-reads the import's drafts
 * not yet attempted, in batches of 500 each matched and marked in one write: a retry, a duplicate
 * or a run after a killed worker finds only what is left.
 */
export const draftsMatch = defineJob({
  id: "insurance.drafts-match",
  description: "Match imported insurance drafts to carriers, plans and subscribers",
  payload: z
    .object({
      import_id: z.uuid(),
      /** The import's patient: every draft of an import is about one patient (its rows are found through the patient's index). */
      patient_id: z.uuid(),
    })
    .strict(),
  queue: { retryLimit: 5, retryDelay: 10, retryBackoff: true, expireInSeconds: 1800 },
  work: { concurrency: 2 },
});
