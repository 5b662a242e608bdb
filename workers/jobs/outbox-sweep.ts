import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * The job outbox's backstop (platform/queue/outbox.ts): every five minutes,
 * the jobs recorded in any org's outbox (or the control database's) that no
 * process handed to the queue, because the process that wrote them died before
 * it could and no process has opened that org since, are handed over.
 */
export const outboxSweep = defineJob({
  id: "queue.outbox-sweep",
  description: "Hand recorded jobs left in any org's job outbox to the queue",
  payload: z.object({}).strict(),
  cron: "*/5 * * * *",
  queue: { retryLimit: 2, retryDelay: 30, expireInSeconds: 600 },
});
