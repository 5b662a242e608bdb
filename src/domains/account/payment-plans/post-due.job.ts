import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * Posts every payment-plan installment that has come due, in every org
 * (docs/account/payment-plans.md, "The nightly posting"): each a charge on its
 * due date, once (the unique index on plan and date stands behind it). Daily at
 * 10:20 UTC, when every practice from Hawaii (UTC-10) to New Zealand (UTC+13)
 * is on the same calendar day: the night in the Americas, so an installment is
 * posted on its due date before the front desk opens. "Due" is the practice's
 * own today. A missed day is made up once on the next start, and a late run
 * posts everything due since (missed nights are caught up).
 */
export const paymentPlansPostDue = defineJob({
  id: "payment-plans.post-due",
  description: "Post the payment-plan installments that have come due",
  payload: z.object({}).strict(),
  cron: "20 10 * * *",
  missed: "once",
  queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true, expireInSeconds: 3600 },
});
