import type { JobContext } from "@/platform/queue/handlers";
import { produceStatement, type ProduceResult } from "./produce";
import { statementsRender } from "./render.job";

/**
 * One statement: rendered, stored and (mode email) mailed, as the job's
 * system actor carrying the causing request's id. The last attempt that fails
 * marks the statement failed instead of throwing.
 */
export default async function renderStatementJob({
  rt,
  payload,
  actor,
  requestId,
  orgId,
  job,
}: JobContext<{ statement_id: string }>): Promise<ProduceResult | { org_missing: true }> {
  const ctx = orgId ? await rt.orgs.openOrgForJob(orgId, { actor, requestId }) : null;
  if (!ctx) return { org_missing: true };
  const retryLimit = statementsRender.queue?.retryLimit ?? 0;
  return produceStatement(rt, ctx, payload.statement_id, { number: job.retryCount + 1, last: job.retryCount >= retryLimit });
}
