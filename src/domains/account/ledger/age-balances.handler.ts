import type { JobContext } from "@/platform/queue/handlers";
import { todayUtc } from "@/platform/time/dates";
import { ageDueBalances } from "./service";

/**
 * Idempotent: it reads only the ledger and the clock, so a retry or a second
 * run the same day finds nothing left to move. One org failing does not stop
 * the others; the attempt then fails so pg-boss retries it.
 */
export default async function ageBalancesJob({ rt, logger, actor, requestId }: JobContext<Record<string, never>>) {
  const today = todayUtc();
  let patientsReaged = 0;
  const { total, failed } = await rt.orgs.forEachOrg({ actor, requestId }, { includeArchived: false }, async ({ db }) => {
    patientsReaged += await ageDueBalances(db, today);
  });
  for (const f of failed) logger.error({ org_id: f.orgId, err: f.error.message }, "ledger aging failed for an org");
  const result = { today, patients_reaged: patientsReaged, orgs_processed: total - failed.length, orgs_failed: failed.length };
  logger.info(result, "ledger aging done");
  if (failed.length)
    throw new Error(
      `ledger aging failed for ${failed.length} of ${total} orgs: ${failed
        .slice(0, 10)
        .map((f) => f.orgId)
        .join(", ")}`,
    );
  return result;
}
