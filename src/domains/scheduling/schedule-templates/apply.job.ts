import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * Applies a schedule template to a range longer than a week
 * (docs/scheduling/schedule-templates.md, "Applying"): queued by POST
 * .../templates/{id}/apply, which answers 202 with the application queued.
 * The handler writes a week of dates per write, the application's days_done
 * moved forward in the same write, so a retry after a killed worker starts at
 * the first date no committed write covered and writes nothing twice.
 */
export const scheduleTemplatesApply = defineJob({
  id: "schedule-templates.apply",
  description: "Write a schedule template's provider schedules and blockouts over a date range, a week per write",
  payload: z.strictObject({ application_id: z.uuid() }),
  // a year of a busy template is written in seconds: an attempt still running after ten minutes died with its worker
  queue: { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 600 },
});
