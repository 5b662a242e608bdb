import { asc, eq, isNotNull, sql } from "drizzle-orm";
import { auditIndex, orgs } from "@db/control/schema";
import { auditEntries } from "@db/tenant/audit";
import { all, get, prepared, run, runPrepared, type Work } from "@/platform/db/work";
import type { ControlDatabase } from "@/platform/db/control";
import { insertRow } from "@/platform/db/prepared-writes";
import type { OrgDatabase } from "@/platform/db/org-databases";
import type { Logger } from "@/platform/logger";
import type { AuditIndexEntry } from "./entry";

// The platform audit index (control database) gets one row per org audit
// entry. Written after each org commit on its own, it cost every write a
// second transaction (a BEGIN, an insert and a COMMIT on another file: about
// 80 µs). Here the entries of every write committed in one event-loop turn
// go in one control transaction, and the writes that made them are answered
// once it has committed, so a client that wrote sees its entry in the index.
//
// Nothing is lost in a crash: each org entry is written with index_pending = 1
// in the org's own transaction, and the mark is cleared by the org's next
// write transaction once the entry is indexed (a refused request writes
// nothing, and no extra transaction is needed). Whatever a stopped process
// left pending is indexed the next time a process opens the org's database
// (reconcile). Index rows are inserted by entry id with ON CONFLICT DO
// NOTHING, so an entry indexed twice is stored once.

/** Index rows per insert statement (12 bound values each; SQLite allows 32,766). */
const ROWS_PER_INSERT = 500;
/** Marks kept per org to clear on its next write. */
const MARKS_KEPT = 10_000;

export type AuditIndexDeps = {
  control: ControlDatabase;
  logger: Logger;
};

// compiled once per connection: it runs in every org write transaction
const clearMark = prepared((db) =>
  db
    .update(auditEntries)
    .set({ index_pending: null })
    .where(eq(auditEntries.id, sql.placeholder("id")))
    .prepare(),
);

/** Inside an org write transaction: clear the marks of entries now in the index. */
export function* clearIndexPending(tx: unknown, ids: readonly string[]): Work<void> {
  for (const id of ids) yield* runPrepared(tx, clearMark, { id });
}

type IndexRow = AuditIndexEntry & { org_id: string; org_name: string | null };
type Batch = { rows: IndexRow[]; done: Promise<void> };

export class AuditIndexWriter {
  private batch: Batch | null = null;
  /** Per org: entries now in the index whose index_pending marks are not cleared yet. */
  private readonly indexed = new Map<string, string[]>();
  /** Control transactions written so far (tests compare it with the number of writes). */
  flushes = 0;

  constructor(private readonly deps: AuditIndexDeps) {}

  /** Index a committed org write's entries with the others of this turn; resolves once they are in the index. */
  add(org: { id: string; name: string }, entries: AuditIndexEntry[]): Promise<void> {
    if (!this.batch) {
      const rows: IndexRow[] = [];
      const done = new Promise<void>((resolve) => setImmediate(() => this.flush(rows).then(resolve)));
      this.batch = { rows, done };
    }
    for (const e of entries) this.batch.rows.push({ ...e, org_id: org.id, org_name: org.name });
    return this.batch.done;
  }

  private async flush(rows: IndexRow[]): Promise<void> {
    this.batch = null;
    try {
      await this.insert(rows);
    } catch (err) {
      // the entries stay pending in their orgs' trails: the org's next reconcile indexes them
      this.deps.logger.error({ err: (err as Error).message, entries: rows.length }, "audit index write failed");
      return;
    }
    const byOrg = new Map<string, string[]>();
    for (const row of rows) byOrg.get(row.org_id)?.push(row.id) ?? byOrg.set(row.org_id, [row.id]);
    for (const [orgId, ids] of byOrg) this.remember(orgId, ids);
  }

  private async insert(rows: IndexRow[]): Promise<void> {
    if (!rows.length) return;
    this.flushes++;
    // a local control database runs a prepared statement per row (no text to build); a remote one
    // gets the turn's rows in multi-row INSERTs, one round trip each
    const perRow = this.deps.control.kind === "local" || rows.length === 1;
    await this.deps.control.write(function* (tx) {
      if (perRow) {
        for (const row of rows) yield* insertRow(tx, auditIndex, row, { ignoreConflicts: true });
        return;
      }
      for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
        yield* run(
          tx
            .insert(auditIndex)
            .values(rows.slice(i, i + ROWS_PER_INSERT))
            .onConflictDoNothing(),
        );
      }
    });
  }

  /** The org's entries indexed since its last write: that write clears their marks (clearIndexPending). */
  takeIndexed(orgId: string): string[] | undefined {
    const ids = this.indexed.get(orgId);
    if (ids) this.indexed.delete(orgId);
    return ids;
  }

  /** A write that took marks to clear did not commit: the next one clears them. */
  restoreIndexed(orgId: string, ids: string[]): void {
    this.remember(orgId, ids);
  }

  private remember(orgId: string, ids: string[]): void {
    const list = this.indexed.get(orgId);
    if (!list) this.indexed.set(orgId, ids.slice(-MARKS_KEPT));
    else {
      list.push(...ids);
      // an org whose writes keep failing: forget the oldest (the next reconcile indexes them again, once)
      if (list.length > MARKS_KEPT) list.splice(0, list.length - MARKS_KEPT);
    }
  }

  /**
   * Index every entry of the org still marked pending (left by a process that
   * stopped between an org commit and its index write), then clear the marks.
   * Returns how many entries were pending.
   */
  async reconcile(orgId: string, db: OrgDatabase): Promise<number> {
    const pending = await db.read((d) =>
      all<AuditIndexEntry>(
        d
          .select({
            id: auditEntries.id,
            actor_id: auditEntries.actor_id,
            actor_type: auditEntries.actor_type,
            actor_display_name: auditEntries.actor_display_name,
            action: auditEntries.action,
            resource_type: auditEntries.resource_type,
            resource_id: auditEntries.resource_id,
            request_id: auditEntries.request_id,
            ip_address: auditEntries.ip_address,
            created_at: auditEntries.created_at,
          })
          .from(auditEntries)
          .where(isNotNull(auditEntries.index_pending))
          .orderBy(asc(auditEntries.created_at)),
      ),
    );
    if (!pending.length) return 0;
    const org = await this.deps.control.read((c) => get<{ name: string }>(c.select({ name: orgs.name }).from(orgs).where(eq(orgs.id, orgId))));
    await this.insert(pending.map((e) => ({ ...e, org_id: orgId, org_name: org?.name ?? null })));
    const ids = pending.map((e) => e.id);
    await db.write((tx) => clearIndexPending(tx, ids));
    return pending.length;
  }

  /** Write the index rows waiting for this turn: before the databases close. (Uncleared marks only cost a no-op reconcile.) */
  async drain(): Promise<void> {
    if (this.batch) await this.batch.done;
  }
}
