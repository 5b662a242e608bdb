import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * Removes the databases of deleted orgs whose grace period (ORG_PURGE_GRACE_DAYS
 * after DELETE /api/v1/admin/orgs/{id}) has passed (docs/admin/admin.md). Daily at
 * 04:23 UTC; a missed day is made up once on the next start.
 */
export const orgsPurge = defineJob({
  id: "orgs.purge",
  description: "Remove the databases of deleted orgs past their grace period",
  payload: z.object({}).strict(),
  cron: "23 4 * * *",
  missed: "once",
  queue: { retryLimit: 3, retryDelay: 300, retryBackoff: true, expireInSeconds: 3600 },
});
