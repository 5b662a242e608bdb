import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";
import { queueJob, type PendingJob } from "@/platform/queue/enqueue";

/** Whose estimates to look at: patients, holders of insurance plans, or everyone (a book or allowed fee changed). */
export const RecomputePayload = z.strictObject({
  patient_ids: z.array(z.string()).max(10_000).optional(),
  plan_ids: z.array(z.string()).max(1_000).optional().describe("Insurance plan ids: their holders' estimates"),
  all: z.boolean().optional().describe("Every patient with live estimates"),
});
export type RecomputePayload = z.infer<typeof RecomputePayload>;

/**
 * Re-estimates, after anything an estimate is computed from changed (a plan,
 * subscription, patient plan, benefit adjustment, estimate book, allowed fee
 * or a procedure's fee), the stale estimates of the affected treatment plans
 * (docs/insurance/insurance-estimates.md, "Service"): one transaction per treatment
 * plan, fresh estimates untouched, so a retry after a crash finds only what is
 * left and nothing is written twice.
 */
export const estimatesRecompute = defineJob({
  id: "estimates.recompute",
  description: "Re-estimate the stale estimates of the treatment plans whose inputs changed",
  payload: RecomputePayload,
  queue: { retryLimit: 6, retryDelay: 1, retryBackoff: true, expireInSeconds: 900 },
});

/** Enqueue the recomputation after the write commits (call inside the write, `s` its scope). */
export function queueRecompute(s: { after: { jobs: PendingJob[] } }, payload: RecomputePayload): void {
  queueJob(s, estimatesRecompute, payload);
}
