import { nowIso } from "@/platform/ids";
import type { JobContext } from "@/platform/queue/handlers";
import { orgsWithStaleApprovals } from "./repository";
import { expireStaleApprovals } from "./approvals";

/**
 * Idempotent: it re-reads which orgs have a pending approval past its expiry
 * and expires them with expireStaleApprovals, which re-reads inside its write;
 * a retry or a second run finds nothing left to do.
 */
export default async function expireApprovalsJob({ rt, logger, actor, requestId }: JobContext<Record<string, never>>) {
  const orgIds = await rt.control.read((db) => orgsWithStaleApprovals(db, nowIso()));
  let expired = 0;
  for (const orgId of orgIds) {
    const ctx = await rt.orgs.openOrgForJob(orgId, { actor, requestId });
    if (!ctx) continue; // archived or deleted since
    expired += await expireStaleApprovals(ctx);
  }
  const result = { orgs: orgIds.length, approvals_expired: expired };
  logger.info(result, "approvals expired");
  return result;
}
