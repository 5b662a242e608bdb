import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/** Whose recalls to work out again: patients, or every patient of the org; `{}` (the nightly schedule, no org) is every org. */
export const RecallsRecomputePayload = z.strictObject({
  patient_ids: z.array(z.string()).min(1).max(10_000).optional().describe("The patients whose recalls a write touched"),
  all: z.boolean().optional().describe("Every patient of the org with a recall or a completed procedure that starts one"),
});
export type RecallsRecomputePayload = z.infer<typeof RecallsRecomputePayload>;

/**
 * Keeps patients' recalls current (docs/recall/recall.md, "The job"): works
 * out each live recall's dates and status again from completed and scheduled
 * work, gives a patient the recalls that start by themselves (prophy, child
 * prophy, perio), and writes only what changed, announcing `recall.updated`.
 * Queued after a write that completes, deletes or schedules a trigger
 * procedure, or books, moves, breaks or cancels an appointment holding one;
 * nightly at 10:40 UTC (every practice from Hawaii to New Zealand is on the
 * same calendar day) over every org, for what depends on the date alone
 * (overdue, disable_until_date) or was missed.
 */
export const recallsRecompute = defineJob({
  id: "recalls.recompute",
  description: "Work out patients' recalls again from their completed and scheduled procedures",
  payload: RecallsRecomputePayload,
  cron: "40 10 * * *",
  missed: "once",
  queue: { retryLimit: 6, retryDelay: 1, retryBackoff: true, expireInSeconds: 1800 },
});
