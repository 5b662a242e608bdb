import type { JobContext } from "@/platform/queue/handlers";
import type { RecallsRecomputePayload } from "./recompute.job";
import { recomputeRecalls, type RecomputeOutcome } from "./recompute";

/** For tests: called after each committed chunk of patients; a hook that throws stands for a worker killed mid-job. */
export const recallRecomputeHooks: { afterChunk?: (info: { patientIds: string[]; requestId: string | null; attempt: number }) => void } = {};

/**
 * Idempotent: every chunk re-reads the patients' procedures, appointments and
 * recalls and writes only what changed, so a retry after a failure part-way
 * finds only what is left and bumps no version twice. Queued by a write: that
 * org. Scheduled (no org): every org's every patient, the nightly sweep; one
 * org failing does not stop the others, and the attempt then fails so it is
 * retried.
 */
export default async function recomputeRecallsJob({ rt, payload, actor, requestId, orgId, logger, job }: JobContext<RecallsRecomputePayload>) {
  const afterChunk = (patientIds: string[]) => recallRecomputeHooks.afterChunk?.({ patientIds, requestId, attempt: job.retryCount + 1 });
  if (orgId) {
    const ctx = await rt.orgs.openOrgForJob(orgId, { actor, requestId });
    if (!ctx) {
      logger.warn("the job names no org that exists");
      return { patients: 0, org_missing: true };
    }
    const out = await recomputeRecalls(ctx, payload, afterChunk);
    logger.info(out, "recalls recomputed");
    return out;
  }
  const out: RecomputeOutcome = { patients: 0, created: 0, updated: 0 };
  const { total, failed } = await rt.orgs.forEachOrg({ actor, requestId }, { includeArchived: false }, async (ctx) => {
    const r = await recomputeRecalls(ctx, { all: true }, afterChunk);
    out.patients += r.patients;
    out.created += r.created;
    out.updated += r.updated;
  });
  for (const f of failed) logger.error({ org_id: f.orgId, err: f.error.message }, "recall sweep failed for an org");
  const result = { ...out, orgs_processed: total - failed.length, orgs_failed: failed.length };
  logger.info(result, "recall sweep done");
  if (failed.length)
    throw new Error(
      `recall sweep failed for ${failed.length} of ${total} orgs: ${failed
        .slice(0, 10)
        .map((f) => f.orgId)
        .join(", ")}`,
    );
  return result;
}
