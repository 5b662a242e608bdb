import { Database as BunSqlite } from "bun:sqlite";
import { BACKSTOP_PAGES, WAL_SIZE_LIMIT, walCheckpoints } from "./wal-checkpoints";
import type { Client } from "@libsql/client";
import { onFirstUse } from "@/platform/on-first-use";
import { drizzle as drizzleBun } from "drizzle-orm/bun-sqlite";
import { migrate as migrateBun } from "drizzle-orm/bun-sqlite/migrator";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { fillPlaceholders, is, Placeholder } from "drizzle-orm";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { driveAsync, driveSync, type Step, type Work, type PreparedDef } from "./work";
import { keep } from "./kept";
import type { Maybe } from "@/platform/async/maybe";

/** @libsql/client and drizzle's driver for it, loaded by the first remote or replicated handle (an all-local process never loads them). */
export const libsql = onFirstUse(() => ({
  createClient: (require("@libsql/client") as typeof import("@libsql/client")).createClient,
  drizzle: (require("drizzle-orm/libsql") as typeof import("drizzle-orm/libsql")).drizzle,
  migrate: (require("drizzle-orm/libsql/migrator") as typeof import("drizzle-orm/libsql/migrator")).migrate,
}));

/** The drizzle handle a unit of work builds its queries on (either backend). */
export type Db<S extends Record<string, unknown>> = BaseSQLiteDatabase<"sync" | "async", unknown, S>;

/**
 * One data-access interface over one database, whichever backend serves it.
 * Local files answer synchronously; remote libSQL servers answer with promises.
 */
export interface SqlDatabase<S extends Record<string, unknown>> {
  readonly kind: "local" | "remote" | "sync";
  readonly location: string;
  /** Reads only: a read never writes (local reads share one snapshot per event-loop turn). */
  read<T>(work: (db: Db<S>) => Work<T>): Maybe<T>;
  /**
   * A read whose answer is kept under `key` and handed out again, frozen,
   * while the database has not changed since it was read (local files: see
   * LocalSqlDatabase.readKept). For answers that depend on nothing but the
   * database: never on the time, the caller or the request.
   */
  readKept<T>(key: string, work: (db: Db<S>) => Work<T>): Maybe<T>;
  /**
   * A short write transaction (BEGIN IMMEDIATE on local files). `unfenced`
   * skips the write fence: only for the move itself (platform/tenancy/orgs.ts).
   */
  write<T>(work: (tx: Db<S>) => Work<T>, options?: WriteOptions): Maybe<T>;
  migrate(folder: string): Maybe<void>;
  schemaVersion(): Maybe<number>;
  ping(): Maybe<void>;
  /** Reads and writes begun on this handle so far: how the idle sweep (org-databases.ts) sees it used, by requests and long jobs alike. */
  readonly uses?: number;
  /** Gives back memory kept only for speed (page cache, kept answers) while the handle idles; nothing is lost. */
  releaseMemory?(): void;
  close(): void;
}

/**
 * Work run first in every write transaction of a database (the org databases'
 * move fence: platform/db/org-databases.ts). It may throw to refuse the write
 * before anything is written.
 */
export type WriteFence<S extends Record<string, unknown>> = (tx: Db<S>) => Work<void>;

export type WriteOptions = { unfenced?: boolean };

/** `work` behind the fence, when there is one. */
export function fenced<S extends Record<string, unknown>, T>(
  fence: WriteFence<S> | undefined,
  work: (tx: Db<S>) => Work<T>,
  options: WriteOptions | undefined,
): (tx: Db<S>) => Work<T> {
  if (!fence || options?.unfenced) return work;
  return function* (tx) {
    yield* fence(tx);
    return yield* work(tx);
  };
}

const BUSY_TIMEOUT_MS = 5000;
/**
 * Kept answers per open database (oldest dropped first; all are dropped on any
 * change). With 256 open databases of ~1 KB answers (object
 * plus JSON text) that bounds the memory at roughly 100 MB.
 */
const KEPT_LIMIT = 256;
/** Marks a key read once (kept.get's value until it is read again). */
const SIGHTED = Symbol("sighted");

export function execStep(db: unknown, cache: Map<PreparedDef<unknown>, any>, step: Step, fastRows = false): unknown {
  if (step.prepared) {
    let stmt = cache.get(step.prepared);
    if (!stmt) {
      stmt = step.prepared.build(db);
      if (fastRows) stmt = rowsAsObjects(stmt) ?? stmt;
      cache.set(step.prepared, stmt);
    }
    return stmt[step.m](step.args);
  }
  return (step.q as any)[step.m]();
}

// Column types whose stored value is already what the record holds.
const PLAIN_COLUMNS = new Set(["SQLiteText", "SQLiteInteger", "SQLiteReal"]);

/**
 * A prepared single-table select on bun:sqlite, answered with the driver's own
 * row objects (`stmt.get/all`, keyed by column name) instead of drizzle's
 * array-then-map decoding: the hot reads allocate one object per row, and only
 * booleans and JSON columns are converted. Anything else (joins, aliases,
 * computed fields, property names that differ from column names) keeps
 * drizzle's mapping: answers null.
 */
function rowsAsObjects(pq: any): { get(a: unknown): unknown; all(a: unknown): unknown; run(a: unknown): unknown } | null {
  const fields = pq.fields as { path: string[]; field: { name?: string; columnType?: string; mapFromDriverValue?: (v: unknown) => unknown } }[] | undefined;
  // a plain select names its one table in joinsNotNullableMap; a join names more
  if (!fields || pq.customResultMapper || Object.keys(pq.joinsNotNullableMap ?? {}).length > 1 || !pq.stmt || !pq.query) return null;
  const names = new Set<string>();
  const decode: [string, (v: unknown) => unknown][] = [];
  for (const { path, field } of fields) {
    if (path.length !== 1 || !field.columnType || field.name !== path[0] || names.has(field.name)) return null;
    names.add(field.name);
    if (!PLAIN_COLUMNS.has(field.columnType)) decode.push([field.name, field.mapFromDriverValue!.bind(field)]);
  }
  const convert =
    decode.length === 0
      ? (row: Record<string, unknown>) => row
      : (row: Record<string, unknown>) => {
          for (const [k, f] of decode) if (row[k] !== null) row[k] = f(row[k]);
          return row;
        };
  const params = placeholderBinder(pq.query.params);
  return {
    get: (args) => {
      const row = pq.stmt.get(...params(args));
      return row ? convert(row) : undefined;
    },
    all: (args) => (pq.stmt.all(...params(args)) as Record<string, unknown>[]).map(convert),
    run: (args) => pq.run(args),
  };
}

/**
 * drizzle's fillPlaceholders, except for the hottest shape (one bare
 * placeholder, e.g. by id), which is bound directly: drizzle's entity checks
 * walk prototypes on every call.
 */
function placeholderBinder(params: unknown[]): (args: unknown) => unknown[] {
  const only = params.length === 1 && is(params[0], Placeholder) ? (params[0] as Placeholder).name : undefined;
  if (only === undefined) return (args) => fillPlaceholders(params, (args ?? {}) as Record<string, unknown>);
  return (args) => {
    const values = (args ?? {}) as Record<string, unknown>;
    if (!(only in values)) throw new Error(`No value for placeholder "${only}" was provided`);
    return [values[only]];
  };
}

/** Number of migrations in a drizzle-kit journal: the schema version code expects. */
export function expectedSchemaVersion(folder: string): number {
  const journal = JSON.parse(readFileSync(`${folder}/meta/_journal.json`, "utf8")) as { entries: unknown[] };
  return journal.entries.length;
}

export class LocalSqlDatabase<S extends Record<string, unknown>> implements SqlDatabase<S> {
  readonly kind = "local" as const;
  private readonly sqlite: BunSqlite;
  private readonly db: Db<S>;
  private readonly prepared = new Map<PreparedDef<unknown>, any>();

  constructor(
    readonly location: string,
    schema: S,
    private readonly fence?: WriteFence<S>,
  ) {
    if (location !== ":memory:") mkdirSync(dirname(location), { recursive: true });
    this.sqlite = new BunSqlite(location, { create: true });
    this.sqlite.exec("PRAGMA journal_mode = WAL");
    this.sqlite.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    this.sqlite.exec("PRAGMA foreign_keys = ON");
    this.sqlite.exec("PRAGMA synchronous = NORMAL");
    // checkpoints run on the checkpoint worker, not inside a request's COMMIT (wal-checkpoints.ts)
    this.checkpointsElsewhere = location !== ":memory:" && walCheckpoints.active;
    if (this.checkpointsElsewhere) this.sqlite.exec(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`);
    this.sqlite.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
    // 8 MiB page cache (default 2 MiB): pages are only allocated as they are read
    this.sqlite.exec("PRAGMA cache_size = -8192");
    // the pragmas above parsed the schema, leaving the sqlite_master pages (~0.1 MB) in the page
    // cache; they are not read again unless the schema changes (docs/operations/performance.md, "Memory")
    this.sqlite.exec("PRAGMA shrink_memory");
    // drizzle prepares a fresh statement per query; Bun's query() cache compiles
    // each SQL text once per connection and finalizes them on close.
    const sqlite = this.sqlite;
    const client = {
      prepare: (q: string) => sqlite.query(q),
      exec: (q: string) => sqlite.exec(q),
      transaction: sqlite.transaction.bind(sqlite),
    };
    this.db = drizzleBun({ client: client as unknown as BunSqlite, schema }) as unknown as Db<S>;
  }

  private exec = (step: Step) => execStep(this.db, this.prepared, step, true);

  // Reads share one read transaction per event-loop turn (see `read`).
  private readOpen = false;
  private readonly endReadSoon = () => this.endRead();

  /**
   * Reads run in a read transaction that stays open until the end of the
   * current event-loop turn, so the requests of one turn (they all arrived
   * before it began, and are answered from one snapshot taken after that)
   * share SQLite's WAL read lock: two `fcntl` calls per turn instead of two
   * per statement. Any write on this connection ends it first, so a request
   * always reads its own and earlier writes.
   */
  uses = 0;

  read<T>(work: (db: Db<S>) => Work<T>): T {
    this.uses++;
    this.openRead();
    return driveSync(work(this.db), this.exec, this.db);
  }

  /** Opens the turn's read transaction unless one (or a write transaction) is open; false inside a write. */
  private openRead(): boolean {
    if (this.readOpen) return true;
    // (inside a write transaction the work simply reads through it)
    if (this.sqlite.inTransaction) return false;
    this.sqlite.exec("BEGIN");
    this.readOpen = true;
    this.versionChecked = false;
    setImmediate(this.endReadSoon);
    return true;
  }

  // Kept answers belong to one database state: `keptVersion` is the
  // `PRAGMA data_version` they were read at (it changes when any other
  // connection, in this process or another, commits), and every write on this
  // connection drops them (its own commits do not change data_version).
  private readonly kept = new Map<string, unknown>();
  private keptVersion = -1;
  private versionChecked = false;
  private dataVersionQuery?: ReturnType<BunSqlite["query"]>;

  /**
   * Inside the turn's read transaction, `PRAGMA data_version` names the
   * snapshot being read (checked once per transaction: it stays fixed while
   * the transaction is open), so a kept answer is handed out only when it was
   * read from the very state an uncached read would see now.
   */
  readKept<T>(key: string, work: (db: Db<S>) => Work<T>): T {
    this.uses++;
    if (!this.openRead()) return driveSync(work(this.db), this.exec, this.db);
    if (!this.versionChecked) {
      this.versionChecked = true;
      this.dataVersionQuery ??= this.sqlite.query("PRAGMA data_version");
      const version = (this.dataVersionQuery.get() as { data_version: number }).data_version;
      if (version !== this.keptVersion) {
        this.kept.clear();
        this.keptVersion = version;
      }
    }
    const hit = this.kept.get(key);
    if (hit !== undefined && hit !== SIGHTED) return hit as T;
    const value = driveSync(work(this.db), this.exec, this.db);
    // An answer is kept the second time it is read unchanged: a record read
    // once pays nothing for freezing and pre-encoding it.
    if (this.kept.size >= KEPT_LIMIT && hit === undefined) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(key, hit === SIGHTED ? keep(value) : SIGHTED);
    return value;
  }

  private endRead(): void {
    if (!this.readOpen) return;
    this.readOpen = false;
    this.sqlite.exec("COMMIT");
  }

  // BEGIN IMMEDIATE .. COMMIT by hand, on statements compiled once: drizzle's
  // transaction() builds a transaction object over the whole schema and Bun's
  // a wrapper function on every call, which cost more than the commit itself.
  private txBegin?: ReturnType<BunSqlite["prepare"]>;
  private txCommit?: ReturnType<BunSqlite["prepare"]>;
  /** Commits are reported to the checkpoint worker instead of SQLite checkpointing inside them (wal-checkpoints.ts). */
  private checkpointsElsewhere: boolean;

  write<T>(work: (tx: Db<S>) => Work<T>, options?: WriteOptions): T {
    this.uses++;
    this.endRead();
    try {
      // Synchronous from BEGIN to COMMIT: no event-loop turn in between, so no
      // other request's statements can enter this transaction. The work runs
      // on the connection's own handle, which the transaction shares.
      const guarded = fenced(this.fence, work, options);
      this.txBegin ??= this.sqlite.prepare("BEGIN IMMEDIATE");
      this.txCommit ??= this.sqlite.prepare("COMMIT");
      this.txBegin.run();
      let result: T;
      try {
        result = driveSync(guarded(this.db), this.exec, this.db);
        this.txCommit.run();
        if (this.checkpointsElsewhere) this.reportCommit();
      } catch (err) {
        // a failed COMMIT (or a statement error SQLite already rolled back) may leave no transaction open
        if (this.sqlite.inTransaction) this.sqlite.exec("ROLLBACK");
        throw err;
      }
      return result;
    } finally {
      this.kept.clear();
    }
  }

  private reportCommit(): void {
    if (walCheckpoints.active) return walCheckpoints.committed(this.location);
    // the checkpoint worker failed: back to SQLite's own checkpoints
    this.checkpointsElsewhere = false;
    this.sqlite.exec("PRAGMA wal_autocheckpoint = 1000");
  }

  migrate(folder: string): void {
    this.endRead();
    this.kept.clear();
    migrateBun(this.db as any, { migrationsFolder: folder });
    this.sqlite.exec(`PRAGMA user_version = ${this.schemaVersion()}`);
  }

  schemaVersion(): number {
    const hasTable = this.sqlite.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='__drizzle_migrations'").get();
    if (!hasTable) return 0;
    const row = this.sqlite.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number };
    return row.n;
  }

  /** Cheap check used on open: PRAGMA user_version mirrors the applied migration count. */
  userVersion(): number {
    return (this.sqlite.query("PRAGMA user_version").get() as { user_version: number }).user_version;
  }

  ping(): void {
    this.sqlite.query("SELECT 1").get();
  }

  /** Raw handle for tests and benchmarks only. */
  get raw(): BunSqlite {
    this.endRead();
    this.kept.clear();
    return this.sqlite;
  }

  releaseMemory(): void {
    this.endRead();
    this.kept.clear();
    // frees the page cache's unused pages; they are read again (from the OS's file cache) when needed
    this.sqlite.exec("PRAGMA shrink_memory");
  }

  close(): void {
    this.endRead();
    this.kept.clear();
    for (const stmt of this.prepared.values()) stmt?.finalize?.();
    this.prepared.clear();
    this.txBegin?.finalize();
    this.txCommit?.finalize();
    walCheckpoints.forget(this.location);
    this.sqlite.close(true);
  }
}

/**
 * Queries in flight on an asynchronous handle. The org-database cache closes
 * the least recently used handle when it opens another; close() waits until
 * this is idle, so a handle is never closed under a query still running on it.
 */
export class InFlight {
  private count = 0;
  /** Every query tracked so far. */
  started = 0;
  private idle?: () => void;
  private drained?: Promise<void>;

  track<T>(work: Promise<T>): Promise<T> {
    this.count++;
    this.started++;
    return work.finally(() => {
      if (--this.count === 0) this.idle?.();
    });
  }

  whenIdle(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    this.drained ??= new Promise<void>((resolve) => {
      this.idle = () => {
        this.drained = undefined;
        this.idle = undefined;
        resolve();
      };
    });
    return this.drained;
  }
}

export class RemoteSqlDatabase<S extends Record<string, unknown>> implements SqlDatabase<S> {
  readonly kind = "remote" as const;
  private readonly client: Client;
  private readonly db: Db<S>;
  private readonly prepared = new Map<PreparedDef<unknown>, any>();

  constructor(
    readonly location: string,
    authToken: string | undefined,
    schema: S,
    private readonly fence?: WriteFence<S>,
    /** An embedded replica's server (libsql-replica.ts): `location` is then the local file: the client reads it and pulls into it. */
    syncUrl?: string,
  ) {
    if (location.startsWith("file:")) mkdirSync(dirname(location.slice("file:".length)), { recursive: true });
    // timeout: the busy timeout of local file: databases (each transaction takes a connection of the pool)
    this.client = libsql().createClient({ url: location, authToken, timeout: BUSY_TIMEOUT_MS, ...(syncUrl ? { syncUrl } : {}) });
    this.db = libsql().drizzle({ client: this.client, schema }) as unknown as Db<S>;
  }

  private exec = (step: Step) => execStep(this.db, this.prepared, step);
  private readonly inFlight = new InFlight();

  get uses(): number {
    return this.inFlight.started;
  }

  read<T>(work: (db: Db<S>) => Work<T>): Promise<T> {
    return this.inFlight.track(driveAsync(work(this.db), this.exec, this.db));
  }

  /** Not kept: a remote server's state cannot be checked without a round trip. */
  readKept<T>(_key: string, work: (db: Db<S>) => Work<T>): Promise<T> {
    return this.read(work);
  }

  /** The last write transaction started on this handle: the next one waits for it (see write). */
  private writing: Promise<unknown> = Promise.resolve();

  write<T>(work: (tx: Db<S>) => Work<T>, options?: WriteOptions): Promise<T> {
    // On a remote server the transaction lives on the server's own stream, so
    // awaiting between statements cannot mix two requests' statements.
    // Statements prepared on the transaction's own stream, kept for its duration.
    // One write transaction at a time per handle: the database takes one
    // writer anyway, and on a file: URL the client waits for the file lock
    // synchronously, which would block the transaction holding it in this process.
    const guarded = fenced(this.fence, work, options);
    const mine = this.inFlight.track(this.writing.then(() => this.transact(guarded)));
    this.writing = mine.catch(() => undefined); // a failed write does not stop the next one
    return mine;
  }

  private transact<T>(work: (tx: Db<S>) => Work<T>): Promise<T> {
    return (this.db as any).transaction(
      (tx: Db<S>) => {
        const cache = new Map<PreparedDef<unknown>, any>();
        return driveAsync(work(tx), (step) => execStep(tx, cache, step), tx);
      },
      { behavior: "immediate" },
    );
  }

  async migrate(folder: string): Promise<void> {
    await this.client.execute("PRAGMA foreign_keys = ON");
    await libsql().migrate(this.db as any, { migrationsFolder: folder });
  }

  async schemaVersion(): Promise<number> {
    const t = await this.client.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='__drizzle_migrations'");
    if (t.rows.length === 0) return 0;
    const r = await this.client.execute("SELECT count(*) AS n FROM __drizzle_migrations");
    return Number(r.rows[0]!.n);
  }

  async ping(): Promise<void> {
    await this.client.execute("SELECT 1");
  }

  /** An embedded replica pulls from its server (only with `syncUrl`). */
  async sync(): Promise<void> {
    await this.client.sync();
  }

  close(): void {
    void this.inFlight.whenIdle().then(() => this.client.close());
  }
}
