import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

export const CopyPayload = z.strictObject({
  source_id: z.uuid(),
  target_id: z.uuid(),
  /** Percent, at most two decimals (-100 to 1000). */
  percent_change: z.number().min(-100).max(1000),
  /** Dollars: 0.01, 1 or 5. */
  round_to: z.union([z.literal(0.01), z.literal(1), z.literal(5)]),
});
export type CopyPayload = z.infer<typeof CopyPayload>;

/**
 * A large copy of one fee schedule's fees into another (docs/codes/fee-schedules.md,
 * "Copy"): queued by POST .../copy, which answers 202 with the target marked
 * copy_status running. The handler re-reads the source in batches of 500, each
 * upserted into the target with its progress in one write; a retry starts over
 * and finds the fees already copied unchanged, so a killed worker loses nothing
 * and writes nothing twice. The last attempt's failure is recorded on the target.
 */
export const feeSchedulesCopy = defineJob({
  id: "fee-schedules.copy",
  description: "Copy a fee schedule's fees into another, with a percent change and rounding",
  payload: CopyPayload,
  queue: { retryLimit: 5, retryDelay: 1, retryBackoff: true, expireInSeconds: 1800 },
  work: { concurrency: 2 },
});
