import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * Marks pending approvals past their expiry as expired, in every org that has
 * one, and drops the grants they held (docs/iam/iam.md). Hourly; GET /iam/approvals
 * does the same for its org before it lists.
 */
export const approvalsExpire = defineJob({
  id: "iam.approvals.expire",
  description: "Expire pending IAM approvals past their expiry",
  payload: z.object({}).strict(),
  cron: "17 * * * *",
  missed: "once",
  queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true, expireInSeconds: 900 },
});
