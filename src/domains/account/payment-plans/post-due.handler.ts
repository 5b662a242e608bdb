import type { JobContext } from "@/platform/queue/handlers";
import { postDueInstallments } from "./service";

/** For tests: called after each plan's write; a hook that throws stands for a worker killed mid-job. */
export const postDueHooks: { afterPlan?: (info: { planId: string; requestId: string | null; attempt: number }) => void } = {};

/**
 * Idempotent: each plan's write re-reads what is posted and posts only what is
 * missing, so a retry, a second run the same day or a run after missed nights
 * posts each installment exactly once. One org (or one plan) failing does not
 * stop the others; the attempt then fails so pg-boss retries it, and the retry
 * finds only what is left.
 */
export default async function postDuePaymentPlans({ rt, logger, actor, requestId, job }: JobContext<Record<string, never>>) {
  const out = { plans: 0, installments: 0, plans_failed: 0 };
  const { total, failed } = await rt.orgs.forEachOrg({ actor, requestId }, { includeArchived: false }, async (ctx) => {
    const r = await postDueInstallments(ctx, { afterPlan: (planId) => postDueHooks.afterPlan?.({ planId, requestId, attempt: job.retryCount + 1 }) });
    out.plans += r.plans;
    out.installments += r.installments;
    out.plans_failed += r.failed.length;
    for (const f of r.failed) logger.error({ org_id: ctx.org.id, plan_id: f.plan_id, err: f.error }, "payment plan installments not posted");
    if (r.failed.length) throw new Error(`${r.failed.length} payment plans not posted`);
  });
  for (const f of failed) logger.error({ org_id: f.orgId, err: f.error.message }, "payment-plan posting failed for an org");
  const result = { ...out, orgs_processed: total - failed.length, orgs_failed: failed.length };
  logger.info(result, "payment-plan installments posted");
  if (failed.length)
    throw new Error(
      `payment-plan posting failed for ${failed.length} of ${total} orgs: ${failed
        .slice(0, 10)
        .map((f) => f.orgId)
        .join(", ")}`,
    );
  return result;
}
