import type { JobContext } from "@/platform/queue/handlers";
import { SOURCE_VERSION } from "@/domains/revenue/fields/registry";
import { checkListDrift } from "./drift";

/**
 * Idempotent: it re-reads every list and writes only those whose flag is
 * wrong, so a retry or a second run changes nothing. One org failing does not
 * stop the others; the attempt then fails so pg-boss retries it.
 */
export default async function revenueListsDriftJob({ rt, logger, actor, requestId }: JobContext<Record<string, never>>) {
  let flagged = 0;
  let cleared = 0;
  let checked = 0;
  const { total, failed } = await rt.orgs.forEachOrg({ actor, requestId }, { includeArchived: false }, async (ctx) => {
    const r = await checkListDrift(ctx);
    flagged += r.flagged;
    cleared += r.cleared;
    checked += r.checked;
  });
  for (const f of failed) logger.error({ org_id: f.orgId, err: f.error.message }, "smart list drift check failed for an org");
  const result = {
    source_version: SOURCE_VERSION,
    lists_checked: checked,
    lists_flagged: flagged,
    lists_cleared: cleared,
    orgs_processed: total - failed.length,
    orgs_failed: failed.length,
  };
  logger.info(result, "smart list drift check done");
  if (failed.length) throw new Error(`smart list drift check failed for ${failed.length} of ${total} orgs`);
  return result;
}
