import { inArray, lt } from "drizzle-orm";
import { auditIndex } from "@db/control/schema";
import { auditEntries } from "@db/tenant/audit";
import { all } from "@/platform/db/work";
import { purgeExpiredIdempotency } from "@/platform/http/idempotency";
import type { JobContext } from "@/platform/queue/handlers";

const DAY_MS = 24 * 3600 * 1000;
/** Rows per delete: keeps each write transaction (and the SQLite writer lock) short. */
const BATCH = 500;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Run `deleteBatch` until it deletes less than a full batch; returns the total. */
async function deleteInBatches(deleteBatch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deleteBatch();
    total += n;
    if (n < BATCH) return total;
    await yieldToEventLoop(); // local databases answer synchronously: let requests in between batches
  }
}

/**
 * Idempotent: everything is derived from the clock and the current rows, so a retry
 * (or a second run the same day) only deletes what is still past the cutoff.
 */
export default async function auditRetention({ rt, logger, actor, requestId }: JobContext<Record<string, never>>) {
  const cutoff = new Date(Date.now() - rt.config.auditRetentionDays * DAY_MS).toISOString();

  const auditIndexDeleted = await deleteInBatches(async () => {
    const rows = await rt.control.write((tx) =>
      all(
        tx
          .delete(auditIndex)
          .where(inArray(auditIndex.id, tx.select({ id: auditIndex.id }).from(auditIndex).where(lt(auditIndex.created_at, cutoff)).limit(BATCH)))
          .returning({ id: auditIndex.id }),
      ),
    );
    return rows.length;
  });

  // Every org, archived ones included: their databases (and trails) are kept.
  let auditEntriesDeleted = 0;
  const { total, failed } = await rt.orgs.forEachOrg({ actor, requestId }, { includeArchived: true }, async ({ db }) => {
    auditEntriesDeleted += await deleteInBatches(async () => {
      const rows = await db.write((tx) =>
        all(
          tx
            .delete(auditEntries)
            .where(inArray(auditEntries.id, tx.select({ id: auditEntries.id }).from(auditEntries).where(lt(auditEntries.created_at, cutoff)).limit(BATCH)))
            .returning({ id: auditEntries.id }),
        ),
      );
      return rows.length;
    });
  });
  for (const f of failed) logger.error({ org_id: f.orgId, err: f.error.message }, "audit retention failed for an org");

  await purgeExpiredIdempotency(rt.control);

  const result = {
    cutoff,
    retention_days: rt.config.auditRetentionDays,
    audit_index_deleted: auditIndexDeleted,
    audit_entries_deleted: auditEntriesDeleted,
    orgs_processed: total - failed.length,
    orgs_failed: failed.length,
  };
  logger.info(result, "audit retention done");
  // The other orgs are done; failing the attempt makes pg-boss retry, which redoes only what is left.
  if (failed.length)
    throw new Error(
      `audit retention failed for ${failed.length} of ${total} orgs: ${failed
        .slice(0, 10)
        .map((f) => f.orgId)
        .join(", ")}`,
    );
  return result;
}
