import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * Deletes audit trail rows older than AUDIT_RETENTION_DAYS: the platform index
 * (control database, audit_index) and each org's own audit_entries; also purges
 * expired idempotency records. Daily at 03:17 UTC (a missed day runs once when the
 * service is back), and enqueueable on demand.
 */
export const auditRetention = defineJob({
  id: "audit.retention",
  description: "Delete audit entries older than the retention period and expired idempotency records",
  payload: z.object({}).strict(),
  cron: "17 3 * * *",
  // An embedded install may never be running at 03:17: catch up once on the next start.
  missed: "once",
  queue: { retryLimit: 3, retryDelay: 60, retryBackoff: true, expireInSeconds: 3600 },
});
