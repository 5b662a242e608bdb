import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * The field-registry drift check (docs/revenue/revenue-lists.md): in every org, flags
 * saved smart lists whose filter no longer compiles against the registry (a
 * retired field, an operator no longer allowed) with needs_review, and clears
 * the flag when it compiles again; filters are never changed. Daily at 05:41
 * UTC (after a deploy has had time to land); a missed day is made up once.
 */
export const revenueListsDrift = defineJob({
  id: "revenue.lists.drift",
  description: "Flag smart lists whose filter no longer fits the field registry",
  payload: z.object({}).strict(),
  cron: "41 5 * * *",
  missed: "once",
  queue: { retryLimit: 3, retryDelay: 300, retryBackoff: true, expireInSeconds: 3600 },
});
