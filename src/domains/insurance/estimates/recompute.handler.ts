import type { JobContext } from "@/platform/queue/handlers";
import { todayUtc } from "@/platform/time/dates";
import type { RecomputePayload } from "./recompute.job";
import { plansToRecompute, recomputePlan } from "./service";

/** For tests: called after each treatment plan is committed; a hook that throws stands for a worker killed mid-job. */
export const recomputeHooks: { afterPlan?: (info: { planId: string; requestId: string | null; attempt: number }) => void } = {};

/**
 * Idempotent: it re-reads the org, re-estimates each affected treatment plan
 * in its own transaction and leaves fresh estimates alone, so a retry after a
 * failure part-way finds only the plans still stale and no version is bumped
 * twice. Writes as the job's system actor, carrying the causing request's id.
 */
export default async function recomputeEstimates({ rt, payload, actor, requestId, orgId, logger, job }: JobContext<RecomputePayload>) {
  // enqueued by a write in an org: without one (or once the org is gone) there is nothing to do, and nothing to retry
  const ctx = orgId ? await rt.orgs.openOrgForJob(orgId, { actor, requestId }) : null;
  if (!ctx) {
    logger.warn("the job names no org that exists");
    return { treatment_plans: 0, org_missing: true };
  }
  const asOf = todayUtc();
  const planIds = await plansToRecompute(ctx, payload);
  const out = { as_of: asOf, treatment_plans: planIds.length, recomputed: 0, no_active_insurance: 0, skipped: 0, created: 0, updated: 0, deleted: 0 };
  for (const planId of planIds) {
    const r = await recomputePlan(ctx, planId, asOf);
    out[r.outcome]++;
    out.created += r.created;
    out.updated += r.updated;
    out.deleted += r.deleted;
    recomputeHooks.afterPlan?.({ planId, requestId, attempt: job.retryCount + 1 });
    await new Promise<void>((resolve) => setImmediate(resolve)); // local databases answer synchronously: let requests in
  }
  logger.info(out, "estimates recomputed");
  return out;
}
