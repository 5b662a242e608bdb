import { and, asc, eq, isNull, lt, or } from "drizzle-orm";
import { auditIndex, orgAuditOutbox, orgs } from "@db/control/schema";
import { auditEntries } from "@db/tenant/audit";
import { all, get, run, type Work } from "@/platform/db/work";
import type { Caller } from "@/platform/auth/actor";
import type { ControlDatabase, ControlDb } from "@/platform/db/control";
import type { OrgDatabase } from "@/platform/db/org-databases";
import type { PendingEvent } from "@/platform/events/envelope";
import type { Logger } from "@/platform/logger";
import { auditEntryOf } from "./audit";
import type { AuditIndexEntry, AuditInput } from "./entry";

// A write to the control database (memberships, groups, orgs) whose audit entry
// belongs to an org's own trail cannot share a transaction with that trail: the
// two are different databases. The entry (and its event) is stored in the
// write's own transaction instead, then delivered after commit: copied into the
// org's trail and the index, published, dropped. Nothing is lost in a crash
// between commit and delivery (the next delivery for the org, or the start-up
// sweep, finishes it) and nothing is written twice (both inserts are by id).

/** How long a deliverer holds an entry before another process may take it over. */
const CLAIM_MS = 30_000;

type Stored = { entry: AuditIndexEntry & { before: Record<string, unknown> | null; after: Record<string, unknown> | null }; event: PendingEvent | null };

/** Inside a control-database write: the org-trail entry of this write (and its event), in the same transaction. */
export function* recordOrgAudit(tx: ControlDb, orgId: string, caller: Caller, now: string, input: AuditInput, event?: PendingEvent): Work<void> {
  const entry = { ...auditEntryOf(caller, now, input), before: input.before, after: input.after };
  yield* run(
    tx.insert(orgAuditOutbox).values({ id: entry.id, org_id: orgId, entry, event: (event as Record<string, unknown> | undefined) ?? null, created_at: now }),
  );
}

export type OutboxDeps = {
  control: ControlDatabase;
  /** The org's database, or null when it no longer exists (the entry is then dropped). */
  openOrg: (orgId: string) => Promise<OrgDatabase | null>;
  publish: (orgId: string, event: PendingEvent) => Promise<unknown>;
  logger: Logger;
};

export class OrgAuditOutbox {
  constructor(private readonly deps: OutboxDeps) {}

  /** Deliver the org's pending entries, oldest first. Call after the write that stored them has committed. */
  async deliver(orgId: string): Promise<void> {
    const ids = await this.deps.control.read((db) =>
      all<{ id: string }>(
        db
          .select({ id: orgAuditOutbox.id })
          .from(orgAuditOutbox)
          .where(eq(orgAuditOutbox.org_id, orgId))
          .orderBy(asc(orgAuditOutbox.created_at), asc(orgAuditOutbox.id)),
      ),
    );
    for (const { id } of ids) await this.deliverOne(id);
  }

  /** Every org's pending entries: what a process that died between commit and delivery left behind (run at start-up). */
  async deliverAll(): Promise<number> {
    const orgIds = await this.deps.control.read((db) => all<{ org_id: string }>(db.selectDistinct({ org_id: orgAuditOutbox.org_id }).from(orgAuditOutbox)));
    for (const { org_id } of orgIds) {
      try {
        await this.deliver(org_id);
      } catch (err) {
        this.deps.logger.error({ org_id, err: (err as Error).message }, "audit outbox delivery failed; it is retried on the org's next write or start-up");
      }
    }
    return orgIds.length;
  }

  private async deliverOne(id: string): Promise<void> {
    const now = new Date();
    const claimed = await this.deps.control.write((tx) =>
      get<{ org_id: string; entry: unknown; event: unknown }>(
        tx
          .update(orgAuditOutbox)
          .set({ claimed_until: new Date(now.getTime() + CLAIM_MS).toISOString() })
          .where(and(eq(orgAuditOutbox.id, id), or(isNull(orgAuditOutbox.claimed_until), lt(orgAuditOutbox.claimed_until, now.toISOString()))))
          .returning({ org_id: orgAuditOutbox.org_id, entry: orgAuditOutbox.entry, event: orgAuditOutbox.event }),
      ),
    );
    if (!claimed) return; // delivered already, or another process is delivering it
    const { entry, event } = claimed as unknown as Stored;
    let orgDb: OrgDatabase | null;
    try {
      orgDb = await this.deps.openOrg(claimed.org_id);
      if (orgDb) await orgDb.write((tx) => run(tx.insert(auditEntries).values(entry).onConflictDoNothing()));
      const { before: _b, after: _a, ...indexed } = entry;
      const delivered = orgDb;
      await this.deps.control.write(function* (tx) {
        const org = yield* get<{ name: string }>(tx.select({ name: orgs.name }).from(orgs).where(eq(orgs.id, claimed.org_id)));
        if (delivered)
          yield* run(
            tx
              .insert(auditIndex)
              .values({ ...indexed, org_id: claimed.org_id, org_name: org?.name ?? null })
              .onConflictDoNothing(),
          );
        yield* run(tx.delete(orgAuditOutbox).where(eq(orgAuditOutbox.id, id)));
      });
    } catch (err) {
      // let the next delivery (the org's next write, or start-up) try again at once
      await Promise.resolve(
        this.deps.control.write((tx) => run(tx.update(orgAuditOutbox).set({ claimed_until: null }).where(eq(orgAuditOutbox.id, id)))),
      ).catch(() => {});
      throw err;
    }
    if (!orgDb) this.deps.logger.warn({ org_id: claimed.org_id, entry_id: id }, "audit entry dropped: its org no longer exists");
    else if (event) await this.deps.publish(claimed.org_id, event);
  }
}
