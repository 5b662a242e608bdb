import type { JobContext } from "@/platform/queue/handlers";
import { exportBatch, type ExportResult } from "./export";
import { claimsExport837d } from "./export.job";

/**
 * One claim batch's 837D file: built, checked, stored, and the batch ready
 * with its claims sent, as the job's system actor carrying the causing
 * request's id. The last attempt that fails marks the batch failed instead
 * of throwing.
 */
export default async function exportClaimBatchJob({
  rt,
  payload,
  actor,
  requestId,
  orgId,
  job,
}: JobContext<{ batch_id: string }>): Promise<ExportResult | { org_missing: true }> {
  const ctx = orgId ? await rt.orgs.openOrgForJob(orgId, { actor, requestId }) : null;
  if (!ctx) return { org_missing: true };
  const retryLimit = claimsExport837d.queue?.retryLimit ?? 0;
  return exportBatch(rt, ctx, payload.batch_id, { number: job.retryCount + 1, last: job.retryCount >= retryLimit });
}
