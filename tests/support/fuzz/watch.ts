// Did a request change stored data? Each database file (the control database
// and every org database) is watched through a connection of our own:
// `PRAGMA data_version` changes exactly when another connection (the
// service's) commits a change, so reading it before and after a request costs
// microseconds and misses no committed write, while rolled-back work leaves it
// alone. When the control database moved, a per-table summary says which
// tables did, since a refusal may legitimately store an idempotent replay or
// revoke a refresh-token family (never add rows elsewhere).
import { Database } from "bun:sqlite";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

type Summary = Map<string, string>;

/** Control tables a refused request may change, and how. */
const REFUSAL_MAY_CHANGE: Record<string, "any" | "no new rows"> = {
  // the contract: a POST with Idempotency-Key stores its first answer (refusals included) for replay
  idempotency_records: "any",
  // reusing a spent refresh token revokes its whole family (a 401 that writes)
  sessions: "no new rows",
  refresh_tokens: "no new rows",
};

export type Snapshot = { versions: Map<string, number>; files: number };

export class StoreWatch {
  private readonly conns = new Map<string, Database>();
  private controlSummary: { version: number; summary: Summary } | null = null;

  constructor(
    private readonly controlPath: string,
    private readonly orgDirs: string[],
  ) {}

  private listed: { stamp: string; files: string[] } | null = null;

  /** The control database and every org database file (listed again only when a directory changed). */
  private files(): string[] {
    const stamp = this.orgDirs.map((d) => (existsSync(d) ? statSync(d).mtimeMs : -1)).join(",");
    if (this.listed?.stamp === stamp) return this.listed.files;
    const out = [this.controlPath];
    for (const dir of this.orgDirs) {
      if (!existsSync(dir)) continue;
      for (const f of readdirSync(dir)) if (f.endsWith(".db")) out.push(join(dir, f));
    }
    this.listed = { stamp, files: out };
    return out;
  }

  private conn(path: string): Database {
    let c = this.conns.get(path);
    if (!c) {
      c = new Database(path);
      c.exec("PRAGMA busy_timeout = 5000");
      this.conns.set(path, c);
    }
    return c;
  }

  private dataVersion(path: string): number {
    return (this.conn(path).query("PRAGMA data_version").get() as { data_version: number }).data_version;
  }

  /** The state before a request (and, on the control database, a fresh summary when it moved since the last one). */
  before(): Snapshot {
    const versions = new Map<string, number>();
    const files = this.files();
    for (const f of files) versions.set(f, this.dataVersion(f));
    const cv = versions.get(this.controlPath)!;
    if (this.controlSummary?.version !== cv) this.controlSummary = { version: cv, summary: summarize(this.conn(this.controlPath)) };
    return { versions, files: files.length };
  }

  /** What a request changed since `before`, as human-readable findings the refusal was not allowed to cause (empty: nothing). */
  changedBy(before: Snapshot): string[] {
    const out: string[] = [];
    const files = this.files();
    if (files.length !== before.files) out.push(`database files: ${before.files} -> ${files.length}`);
    for (const f of files) {
      const was = before.versions.get(f);
      if (was === undefined) continue;
      if (this.dataVersion(f) === was) continue;
      if (f === this.controlPath) {
        const now = summarize(this.conn(f));
        const prev = this.controlSummary?.summary ?? new Map();
        for (const [table, sig] of now) {
          const old = prev.get(table);
          if (old === sig) continue;
          const rule = REFUSAL_MAY_CHANGE[table];
          if (rule === "any") continue;
          if (rule === "no new rows" && old && old.split("|")[0] === sig.split("|")[0]) continue;
          out.push(`control.${table}: ${old ?? "(none)"} -> ${sig}`);
        }
      } else {
        out.push(`org database ${f.split("/").pop()}: ${describeOrgChange(this.conn(f))}`);
      }
    }
    return out;
  }

  /**
   * Whether `id` is a record of org `orgId` alone: a row of its own database,
   * or a control-database row carrying its org_id (a permission group). Users
   * are shared by the orgs they belong to: not owned by one.
   */
  ownedBy(orgId: string, id: string): boolean {
    const file = this.files().find((f) => f.endsWith(`/${orgId}.db`));
    if (file && tablesWith(this.conn(file), ["id"]).some((t) => this.conn(file).query(`SELECT 1 FROM "${t}" WHERE id = ?`).get(id))) return true;
    const control = this.conn(this.controlPath);
    return tablesWith(control, ["id", "org_id"]).some((t) => control.query(`SELECT 1 FROM "${t}" WHERE id = ? AND org_id = ?`).get(id, orgId));
  }

  close() {
    for (const c of this.conns.values()) c.close();
    this.conns.clear();
  }
}

const columnsCache = new WeakMap<Database, Map<string, string[]>>();
/** The tables of a database that have all of `columns`. */
function tablesWith(db: Database, columns: string[]): string[] {
  let byTable = columnsCache.get(db);
  if (!byTable) {
    byTable = new Map();
    const tables = db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
    for (const { name } of tables)
      byTable.set(
        name,
        (db.query(`PRAGMA table_info("${name.replace(/"/g, '""')}")`).all() as { name: string }[]).map((c) => c.name),
      );
    columnsCache.set(db, byTable);
  }
  return [...byTable].filter(([, cols]) => columns.every((c) => cols.includes(c))).map(([t]) => t);
}

/** Per table: row count, then max(rowid) and per-column non-null counts and total lengths (small tables). */
function summarize(db: Database): Summary {
  const out: Summary = new Map();
  const tables = db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[];
  for (const { name } of tables) {
    const q = `"${name.replace(/"/g, '""')}"`;
    const n = (db.query(`SELECT count(*) AS n FROM ${q}`).get() as { n: number }).n;
    if (n > 5000) {
      const m = db.query(`SELECT max(rowid) AS m FROM ${q}`).get() as { m: number };
      out.set(name, `${n}|${m.m}`);
      continue;
    }
    const cols = (db.query(`PRAGMA table_info(${q})`).all() as { name: string }[]).map((c) => `"${c.name.replace(/"/g, '""')}"`);
    const parts = cols.map((c) => `count(${c}) || ':' || total(length(${c}))`).join(" || ',' || ");
    let sig = "";
    try {
      const row = db.query(`SELECT max(rowid) AS m, ${parts || "''"} AS s FROM ${q}`).get() as { m: number; s: string };
      sig = `${row.m}|${row.s}`;
    } catch {
      // a WITHOUT ROWID table
      const row = db.query(`SELECT ${parts || "''"} AS s FROM ${q}`).get() as { s: string };
      sig = row.s;
    }
    out.set(name, `${n}|${sig}`);
  }
  return out;
}

/** The newest audit entries of an org database: what a write that should not have happened did. */
function describeOrgChange(db: Database): string {
  try {
    const rows = db.query("SELECT action, resource_type, resource_id FROM audit_entries ORDER BY rowid DESC LIMIT 3").all() as Record<string, string>[];
    return rows.length
      ? `newest audit entries (may predate the request): ${rows.map((r) => `${r.action} ${r.resource_type} ${r.resource_id}`).join("; ")}`
      : "changed (no audit entry)";
  } catch {
    return "changed";
  }
}

/** The directories org databases live in under a data directory (the local shards). */
export function orgDatabaseDirs(dataDir: string): string[] {
  const shards = join(dataDir, "shards");
  if (!existsSync(shards)) return [];
  return readdirSync(shards)
    .map((d) => join(shards, d))
    .filter((d) => statSync(d).isDirectory());
}
