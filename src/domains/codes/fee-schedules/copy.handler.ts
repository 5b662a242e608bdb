import type { JobContext } from "@/platform/queue/handlers";
import { feeSchedulesCopy, type CopyPayload } from "./copy.job";
import { markCopyFailed, runCopy } from "./copy";

/** For tests: awaited after each batch the job commits (not after the last); a hook that throws stands for a worker killed mid-job. */
export const copyHooks: {
  afterBatch?: (info: { targetId: string; batch: number; copied: number; attempt: number }) => void | Promise<void>;
  /** Called when an attempt ends without an error, with its outcome. */
  ended?: (info: { targetId: string; outcome: string; attempt: number }) => void;
} = {};

/**
 * Idempotent: each attempt re-reads the target (it works only while the
 * target is live with its copy running) and the source, and upserts every
 * source fee again from the first, so what an earlier attempt copied is found
 * unchanged and not written twice. Writes as the job's system actor, carrying
 * the causing request's id. When the last attempt fails, the target says so
 * (copy_status failed, copy_error).
 */
export default async function copyFeeScheduleJob({ rt, payload, actor, requestId, orgId, logger, job }: JobContext<CopyPayload>) {
  const ctx = orgId ? await rt.orgs.openOrgForJob(orgId, { actor, requestId }) : null;
  if (!ctx) {
    logger.warn({ target_id: payload.target_id }, "the org of the copy no longer exists");
    return { target_id: payload.target_id, org_missing: true };
  }
  const attempt = job.retryCount + 1;
  try {
    const result = await runCopy(ctx, payload, {
      onBatch: async (b) => {
        logger.debug({ target_id: payload.target_id, ...b }, "fee batch copied");
        await copyHooks.afterBatch?.({ targetId: payload.target_id, ...b, attempt });
      },
    });
    logger.info({ target_id: payload.target_id, ...result }, "fee schedule copy ended");
    copyHooks.ended?.({ targetId: payload.target_id, outcome: result.outcome, attempt });
    return { target_id: payload.target_id, ...result };
  } catch (error) {
    if (job.retryCount >= (feeSchedulesCopy.queue?.retryLimit ?? 0)) {
      await markCopyFailed(ctx, payload, "The copy failed; start it again").catch((e) => logger.error({ err: e }, "could not record the failed copy"));
    }
    throw error;
  }
}
