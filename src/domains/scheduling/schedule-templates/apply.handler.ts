import type { JobContext } from "@/platform/queue/handlers";
import { scheduleTemplatesApply } from "./apply.job";
import { markApplicationFailed, runApplication } from "./apply";

/**
 * One application written a week per write, as the job's system actor
 * carrying the causing request's id. Idempotent: it re-reads the application
 * and starts at its days_done, so a retry after a killed worker writes only
 * the dates no committed write covered. When the last attempt fails, the
 * application says so (status failed, error).
 */
export default async function applyScheduleTemplateJob({ rt, payload, actor, requestId, orgId, logger, job }: JobContext<{ application_id: string }>) {
  const ctx = orgId ? await rt.orgs.openOrgForJob(orgId, { actor, requestId }) : null;
  if (!ctx) {
    logger.warn({ application_id: payload.application_id }, "the org of the template application no longer exists");
    return { application_id: payload.application_id, org_missing: true };
  }
  try {
    const result = await runApplication(ctx, payload.application_id, {
      onChunk: (c) => logger.debug({ application_id: payload.application_id, ...c }, "template application chunk written"),
    });
    logger.info({ application_id: payload.application_id, ...result }, "template application ended");
    return { application_id: payload.application_id, ...result };
  } catch (error) {
    if (job.retryCount >= (scheduleTemplatesApply.queue?.retryLimit ?? 0)) {
      await markApplicationFailed(
        ctx,
        payload.application_id,
        "job_failed: The application stopped with an error; apply the template again with replace_existing",
      ).catch((e) => logger.error({ err: e }, "could not record the failed template application"));
    }
    throw error;
  }
}
