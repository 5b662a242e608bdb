import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * A no-op round trip through the queue: proves that workers are running and can
 * reach the control database. Enqueue it and wait for `completed`.
 */
export const healthProbe = defineJob({
  id: "system.health-probe",
  description: "Round trip through the job queue and the control database",
  payload: z.object({ note: z.string().max(200).optional() }).strict(),
  queue: { retryLimit: 0, expireInSeconds: 60, deleteAfterSeconds: 3600 },
});
