import { asc, eq, ne } from "drizzle-orm";
import { orgs, shards } from "@db/control/schema";
import { all } from "@/platform/db/work";
import type { JobContext } from "@workers/jobs/define";
import { todayUtc } from "./aging";
import { ageDueBalances } from "./service";

/**
 * Idempotent: it reads only the ledger and the clock, so a retry or a second
 * run the same day finds nothing left to move. One org failing does not stop
 * the others; the attempt then fails so pg-boss retries it.
 */
export default async function ageBalancesJob({ rt, logger }: JobContext<Record<string, never>>) {
  const today = todayUtc();
  const targets = await rt.control.read((db) => all(
    db.select({ orgId: orgs.id, shardId: shards.id, dsn: shards.dsn, authToken: shards.auth_token })
      .from(orgs).innerJoin(shards, eq(orgs.shard_id, shards.id)).where(ne(orgs.status, "archived")).orderBy(asc(orgs.id)),
  ));
  let patientsReaged = 0;
  const failed: string[] = [];
  for (const t of targets) {
    try {
      const db = await rt.orgDbs.get(t.orgId, { id: t.shardId, dsn: t.dsn, auth_token: t.authToken });
      patientsReaged += await ageDueBalances(db, today);
    } catch (err) {
      failed.push(t.orgId);
      logger.error({ org_id: t.orgId, err: (err as Error).message }, "ledger aging failed for an org");
    }
  }
  const result = { today, patients_reaged: patientsReaged, orgs_processed: targets.length - failed.length, orgs_failed: failed.length };
  logger.info(result, "ledger aging done");
  if (failed.length) throw new Error(`ledger aging failed for ${failed.length} of ${targets.length} orgs: ${failed.slice(0, 10).join(", ")}`);
  return result;
}
