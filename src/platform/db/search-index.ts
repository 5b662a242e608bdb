// The full-text indexes of a replicated org database (docs/platform/edge-replicas.md,
// "Search"). The sync engine has no FTS5, so each instance keeps the org's
// search indexes in a bun:sqlite file of its own beside its replica, derived
// from the replica: triggers in the org database (the sync engine's variant
// of migrations 0002 and 0008) log every change to a searched column in
// `search_changes`, and after each commit (primary) or pull (edge) the index
// reads the log past the last change it applied and re-indexes those rows.
// The index tables have the names, columns and tokenizers of the FTS5 tables
// of a plain shard, so a search's MATCH expression is the same on both; the
// matching rowids go into the org database's query as a JSON list.
import { Database as BunSqlite } from "bun:sqlite";
import { rmSync } from "node:fs";

export type FtsTable = "patients_fts" | "patients_contact_fts" | "documents_fts";

/** Answers `SELECT rowid FROM <table> WHERE <table> MATCH ?` from somewhere other than the org database. */
export interface FtsLookup {
  /** The matching rowids as a JSON array (bound into `json_each`). */
  rowids(table: FtsTable, match: string): string;
}

type Preparer = { prepare(sql: string): Promise<{ raw(on: boolean): unknown; all(...a: unknown[]): Promise<unknown[]> }> };

/** The searched columns of each logged table, in the order the index tables take them. */
const SOURCES = {
  patients: {
    columns: ["first_name", "last_name", "preferred_name", "email", "phone_digits"],
    tables: { patients_fts: [0, 1, 2], patients_contact_fts: [3, 4] },
  },
  documents: { columns: ["title", "ocr_text"], tables: { documents_fts: [0, 1] } },
} as const;

const SCHEMA = [
  "CREATE VIRTUAL TABLE IF NOT EXISTS patients_fts USING fts5(first_name, last_name, preferred_name, tokenize='unicode61 remove_diacritics 2', prefix='1 2 3')",
  "CREATE VIRTUAL TABLE IF NOT EXISTS patients_contact_fts USING fts5(email, phone_digits, tokenize='trigram')",
  "CREATE VIRTUAL TABLE IF NOT EXISTS documents_fts USING fts5(title, ocr_text, tokenize='unicode61 remove_diacritics 2', prefix='2 3')",
  "CREATE TABLE IF NOT EXISTS applied (id INTEGER PRIMARY KEY CHECK (id = 1), seq INTEGER NOT NULL)",
  "INSERT OR IGNORE INTO applied VALUES (1, 0)",
];

/** Log rows read per round while catching up. */
const BATCH = 2_000;

/**
 * Statements added to the sync engine's variant of the tenant migration
 * `tag` (platform/db/turso-sync.ts): the change log and its triggers, in
 * place of the FTS5 tables and theirs.
 */
export const SEARCH_LOG_STATEMENTS: Record<string, string[]> = {
  "0002_patients_fts": [
    "CREATE TABLE `search_changes` (`seq` integer PRIMARY KEY AUTOINCREMENT, `tbl` text NOT NULL, `rid` integer NOT NULL)",
    ...logTriggers("patients"),
  ],
  "0008_documents": logTriggers("documents"),
};

function logTriggers(table: keyof typeof SOURCES): string[] {
  const log = (row: "new" | "old") => `INSERT INTO search_changes (tbl, rid) VALUES ('${table}', ${row}.rowid);`;
  const columns = SOURCES[table].columns.join(", ");
  return [
    `CREATE TRIGGER \`${table}_search_ai\` AFTER INSERT ON \`${table}\` BEGIN ${log("new")} END`,
    `CREATE TRIGGER \`${table}_search_au\` AFTER UPDATE OF ${columns} ON \`${table}\` BEGIN ${log("new")} END`,
    `CREATE TRIGGER \`${table}_search_ad\` AFTER DELETE ON \`${table}\` BEGIN ${log("old")} END`,
  ];
}

export class DerivedSearchIndex implements FtsLookup {
  private readonly sqlite: BunSqlite;
  private catching: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {
    this.sqlite = new BunSqlite(file, { create: true });
    this.sqlite.exec("PRAGMA journal_mode = WAL");
    this.sqlite.exec("PRAGMA synchronous = NORMAL");
    for (const statement of SCHEMA) this.sqlite.exec(statement);
  }

  /** The last logged change this index holds. */
  get appliedSeq(): number {
    return (this.sqlite.query("SELECT seq FROM applied WHERE id = 1").get() as { seq: number }).seq;
  }

  rowids(table: FtsTable, match: string): string {
    const rows = this.sqlite.query(`SELECT rowid FROM ${table} WHERE ${table} MATCH ?`).values(match) as [number][];
    return JSON.stringify(rows.map((r) => r[0]));
  }

  /** Applies the org database's logged changes past the last one applied (one catch-up at a time). */
  catchUp(db: Preparer): Promise<void> {
    const next = this.catching.then(() => this.applyLog(db));
    this.catching = next.catch(() => undefined);
    return next;
  }

  private async applyLog(db: Preparer): Promise<void> {
    // the primary prunes the log (TursoSyncDatabase.pruneSearchLog): an index behind its oldest entry starts again from the tables
    const [[oldest]] = (await rawAll(db, "SELECT min(seq) FROM search_changes", [])) as [[number | null]];
    if (oldest !== null && oldest > this.appliedSeq + 1) await this.rebuild(db);
    for (;;) {
      const after = this.appliedSeq;
      const changes = (await rawAll(db, "SELECT seq, tbl, rid FROM search_changes WHERE seq > ? ORDER BY seq LIMIT ?", [after, BATCH])) as [
        number,
        string,
        number,
      ][];
      if (changes.length === 0) return;
      const byTable = new Map<keyof typeof SOURCES, Set<number>>();
      for (const [, tbl, rid] of changes) {
        if (!(tbl in SOURCES)) continue;
        const set = byTable.get(tbl as keyof typeof SOURCES) ?? new Set();
        set.add(rid);
        byTable.set(tbl as keyof typeof SOURCES, set);
      }
      const current = new Map<keyof typeof SOURCES, Map<number, unknown[]>>();
      for (const [tbl, rids] of byTable) {
        const { columns } = SOURCES[tbl];
        // a join on rowid: this engine seeks each row, where `rowid IN (...)` would scan the table
        const rows = (await rawAll(
          db,
          `SELECT t.rowid, ${columns.map((c) => `t.${c}`).join(", ")} FROM json_each(?) AS j JOIN ${tbl} AS t ON t.rowid = j.value`,
          [JSON.stringify([...rids])],
        )) as unknown[][];
        current.set(tbl, new Map(rows.map((r) => [r[0] as number, r.slice(1)])));
      }
      const last = changes[changes.length - 1]![0];
      this.sqlite.transaction(() => {
        for (const [tbl, rids] of byTable) {
          const rows = current.get(tbl)!;
          for (const [ftsTable, picks] of Object.entries(SOURCES[tbl].tables) as [FtsTable, readonly number[]][]) {
            const remove = this.sqlite.query(`DELETE FROM ${ftsTable} WHERE rowid = ?`);
            const names = picks.map((i) => SOURCES[tbl].columns[i]).join(", ");
            const insert = this.sqlite.query(`INSERT INTO ${ftsTable} (rowid, ${names}) VALUES (?${", ?".repeat(picks.length)})`);
            for (const rid of rids) {
              remove.run(rid);
              const row = rows.get(rid);
              if (row) insert.run(rid, ...picks.map((i) => (row[i] ?? null) as string | null));
            }
          }
        }
        this.sqlite.query("UPDATE applied SET seq = ? WHERE id = 1").run(last);
      })();
    }
  }

  /** Every searched row indexed afresh from the tables, then the log applied from the last entry read before. */
  private async rebuild(db: Preparer): Promise<void> {
    const [[newest]] = (await rawAll(db, "SELECT coalesce(max(seq), 0) FROM search_changes", [])) as [[number]];
    const rows = new Map<keyof typeof SOURCES, unknown[][]>();
    for (const tbl of Object.keys(SOURCES) as (keyof typeof SOURCES)[]) {
      const all: unknown[][] = [];
      for (let after = 0; ; ) {
        const page = (await rawAll(db, `SELECT rowid, ${SOURCES[tbl].columns.join(", ")} FROM ${tbl} WHERE rowid > ? ORDER BY rowid LIMIT ?`, [
          after,
          BATCH,
        ])) as unknown[][];
        all.push(...page);
        if (page.length < BATCH) break;
        after = page[page.length - 1]![0] as number;
      }
      rows.set(tbl, all);
    }
    // one transaction: a search never sees the index half rebuilt
    this.sqlite.transaction(() => {
      for (const [tbl, all] of rows)
        for (const [ftsTable, picks] of Object.entries(SOURCES[tbl].tables) as [FtsTable, readonly number[]][]) {
          this.sqlite.exec(`DELETE FROM ${ftsTable}`);
          const names = picks.map((i) => SOURCES[tbl].columns[i]).join(", ");
          const insert = this.sqlite.query(`INSERT INTO ${ftsTable} (rowid, ${names}) VALUES (?${", ?".repeat(picks.length)})`);
          for (const row of all) insert.run(row[0] as number, ...picks.map((i) => (row[i + 1] ?? null) as string | null));
        }
      this.sqlite.query("UPDATE applied SET seq = ? WHERE id = 1").run(newest);
    })();
  }

  close(): void {
    this.sqlite.close();
  }

  /** Removes the index file (it is derived: the next open rebuilds it from the whole log). */
  static remove(file: string): void {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
  }
}

async function rawAll(db: Preparer, sql: string, args: unknown[]): Promise<unknown[]> {
  const stmt = (await db.prepare(sql)) as unknown as { raw(on: boolean): { all(...a: unknown[]): Promise<unknown[]> } };
  return stmt.raw(true).all(...args);
}

const LOOKUP = Symbol.for("cusp.fts-lookup");

/** Marks a database handle (or drizzle handle) whose full-text lookups `lookup` answers. */
export function attachFtsLookup(handle: object, lookup: FtsLookup): void {
  (handle as { [LOOKUP]?: FtsLookup })[LOOKUP] = lookup;
}

/** The lookup answering a handle's full-text searches; undefined where the FTS5 tables are in the database itself. */
export function ftsLookupOf(handle: unknown): FtsLookup | undefined {
  return (handle as { [LOOKUP]?: FtsLookup } | null)?.[LOOKUP];
}
