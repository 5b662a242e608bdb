import { and, asc, eq, isNull, lte } from "drizzle-orm";
import { platformAudit } from "@/platform/audit/audit";
import { orgs } from "@db/control/schema";
import { all, run } from "@/platform/db/work";
import { nowIso } from "@/platform/ids";
import type { JobContext } from "@/platform/queue/handlers";

/**
 * Idempotent: it re-reads which deleted orgs are due and not yet purged; a purged
 * org is marked (purged_at) with its platform audit entry in one write, so a
 * retry or a second run finds nothing left. An org on a remote libSQL shard is
 * skipped with a logged reason (not supported yet) and stays due.
 */
export default async function purgeOrgsJob({ rt, logger, actor, requestId }: JobContext<Record<string, never>>) {
  const now = nowIso();
  const due = await rt.control.read((db) =>
    all<{ id: string; name: string }>(
      db
        .select({ id: orgs.id, name: orgs.name })
        .from(orgs)
        .where(and(eq(orgs.status, "deleted"), isNull(orgs.purged_at), lte(orgs.purge_after, now)))
        .orderBy(asc(orgs.purge_after), asc(orgs.id)),
    ),
  );
  let purged = 0;
  let skipped = 0;
  const failed: string[] = [];
  for (const org of due) {
    try {
      const outcome = await rt.orgs.purgeDatabase(org.id);
      if (outcome === "unsupported") {
        skipped++;
        logger.warn({ org_id: org.id }, "org database not purged: removing databases on a remote libSQL shard is not supported yet");
        continue;
      }
      const at = nowIso();
      await rt.control.write(function* (tx) {
        yield* run(
          tx
            .update(orgs)
            .set({ purged_at: at })
            .where(and(eq(orgs.id, org.id), isNull(orgs.purged_at))),
        );
        yield* platformAudit(tx, { actor, requestId, ip: null }, at, {
          action: "organization.database_purged",
          resource_type: "organization",
          resource_id: org.id,
        });
      });
      purged++;
      logger.info({ org_id: org.id, file: outcome }, "org database purged");
    } catch (err) {
      failed.push(org.id);
      logger.error({ org_id: org.id, err: (err as Error).message }, "org database purge failed");
    }
  }
  const result = { orgs_due: due.length, orgs_purged: purged, orgs_skipped: skipped, orgs_failed: failed.length };
  logger.info(result, "org purge done");
  if (failed.length) throw new Error(`org purge failed for ${failed.length} of ${due.length} orgs: ${failed.slice(0, 10).join(", ")}`);
  return result;
}
