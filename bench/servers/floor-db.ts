// The floor server's databases (bench/servers/floor.ts): the org's SQLite file
// and the control database, opened with the pragmas Cusp sets on local files
// (src/platform/db/database.ts), read and written the way Cusp's SQL runs on
// them: one read transaction per event-loop turn, BEGIN IMMEDIATE writes that
// start with the move fence and clear the audit marks indexed since, and the
// audit index rows of a turn in one control transaction after commit
// (src/platform/audit/index-writer.ts). Checkpoints go to Cusp's own
// checkpoint worker, as Cusp's connections do: the floor differs in framework
// only, never in what SQLite is asked to do.

import { Database } from "bun:sqlite";
import { BACKSTOP_PAGES, WAL_SIZE_LIMIT, walCheckpoints } from "@/platform/db/wal-checkpoints";

/** One database file as a Cusp connection opens it. */
export class FloorDb {
  readonly sqlite: Database;
  private readOpen = false;
  private readonly begin;
  private readonly commit;

  constructor(readonly path: string) {
    this.sqlite = new Database(path, { readwrite: true, create: false });
    this.sqlite.exec("PRAGMA journal_mode = WAL");
    this.sqlite.exec("PRAGMA busy_timeout = 5000");
    this.sqlite.exec("PRAGMA foreign_keys = ON");
    this.sqlite.exec("PRAGMA synchronous = NORMAL");
    this.sqlite.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    this.sqlite.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
    this.sqlite.exec("PRAGMA cache_size = -8192");
    this.begin = this.sqlite.prepare("BEGIN IMMEDIATE");
    this.commit = this.sqlite.prepare("COMMIT");
  }

  /** A prepared statement, compiled once per text (bun:sqlite's query cache). */
  q(sql: string) {
    return this.sqlite.query(sql);
  }

  /** Reads of one event-loop turn share one read transaction, as Cusp's do. */
  read<T>(work: () => T): T {
    if (!this.readOpen && !this.sqlite.inTransaction) {
      this.sqlite.exec("BEGIN");
      this.readOpen = true;
      setImmediate(() => this.endRead());
    }
    return work();
  }

  private endRead() {
    if (!this.readOpen) return;
    this.readOpen = false;
    this.sqlite.exec("COMMIT");
  }

  /** BEGIN IMMEDIATE .. COMMIT around `work` (synchronous), then the commit reported to the checkpoint worker. */
  write<T>(work: () => T): T {
    this.endRead();
    this.begin.run();
    try {
      const out = work();
      this.commit.run();
      walCheckpoints.committed(this.path);
      return out;
    } catch (err) {
      if (this.sqlite.inTransaction) this.sqlite.exec("ROLLBACK");
      throw err;
    }
  }
}

/** An audit entry as both the org trail and the platform index hold it (without the snapshots). */
export type AuditEntry = {
  id: string;
  actor_id: string;
  actor_type: string;
  actor_display_name: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  request_id: string | null;
  ip_address: string | null;
  created_at: string;
};

const FENCE = `select "frozen", "moved_to_shard_id" from "org_move_state" where "org_move_state"."id" = ?`;
const CLEAR_MARK = `update "audit_entries" set "index_pending" = ? where "audit_entries"."id" = ?`;
const INSERT_AUDIT = `insert into "audit_entries" ("id", "actor_id", "actor_type", "actor_display_name", "action", "resource_type", "resource_id", "before", "after", "request_id", "ip_address", "created_at", "index_pending") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const INSERT_INDEX = `insert into "audit_index" ("id", "org_id", "org_name", "actor_id", "actor_type", "actor_display_name", "action", "resource_type", "resource_id", "request_id", "ip_address", "created_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`;

/**
 * The org's writes: the transaction Cusp's withTransaction runs (fence, marks
 * cleared, the work, the audit row with index_pending 1), and after commit the
 * turn's index rows in the control database; a write answers once its entries
 * are indexed, as Cusp's do.
 */
export class OrgWrites {
  private indexed: string[] = [];
  private batch: { rows: AuditEntry[]; done: Promise<void> } | null = null;
  private readonly orgName: string | null;

  constructor(
    readonly org: FloorDb,
    private readonly control: FloorDb,
    private readonly orgId: string,
  ) {
    const row = control.q(`select "name" from "orgs" where "orgs"."id" = ?`).get(orgId) as { name: string } | null;
    this.orgName = row?.name ?? null;
  }

  /** `work` inside the org's write transaction; answers its value once the audit entries it wrote are indexed. */
  async write<T>(work: (audit: (entry: AuditEntry, before: unknown, after: unknown) => void) => T): Promise<T> {
    const marks = this.indexed;
    this.indexed = [];
    const entries: AuditEntry[] = [];
    let out: T;
    try {
      out = this.org.write(() => {
        const fence = this.org.q(FENCE).get(1) as { frozen: number } | null;
        if (fence?.frozen) throw new Error("the org is frozen for a move");
        const clear = this.org.q(CLEAR_MARK);
        for (const id of marks) clear.run(null, id);
        return work((entry, before, after) => {
          this.org
            .q(INSERT_AUDIT)
            .run(
              entry.id,
              entry.actor_id,
              entry.actor_type,
              entry.actor_display_name,
              entry.action,
              entry.resource_type,
              entry.resource_id,
              before === null ? null : JSON.stringify(before),
              after === null ? null : JSON.stringify(after),
              entry.request_id,
              entry.ip_address,
              entry.created_at,
              1,
            );
          entries.push(entry);
        });
      });
    } catch (err) {
      this.indexed.push(...marks);
      throw err;
    }
    if (entries.length) await this.index(entries);
    return out;
  }

  /** The entries with the others of this turn, in one control transaction (one prepared insert a row, as Cusp on a local control database). */
  private index(entries: AuditEntry[]): Promise<void> {
    if (!this.batch) {
      const rows: AuditEntry[] = [];
      const done = new Promise<void>((resolve) => setImmediate(() => resolve(this.flush(rows))));
      this.batch = { rows, done };
    }
    this.batch.rows.push(...entries);
    return this.batch.done;
  }

  private flush(rows: AuditEntry[]) {
    this.batch = null;
    this.control.write(() => {
      const insert = this.control.q(INSERT_INDEX);
      for (const e of rows)
        insert.run(
          e.id,
          this.orgId,
          this.orgName,
          e.actor_id,
          e.actor_type,
          e.actor_display_name,
          e.action,
          e.resource_type,
          e.resource_id,
          e.request_id,
          e.ip_address,
          e.created_at,
        );
    });
    for (const e of rows) this.indexed.push(e.id);
  }
}
