// Org databases on a replicated shard (issue 21, docs/platform/edge-replicas.md): each
// instance holds a local replica of the org database, kept by the turso sync
// engine (@tursodatabase/sync) against the shard's sync server. The primary
// region's instance writes its replica and pushes every commit; edge
// instances only read theirs and pull. The engine is not SQLite: no FTS5 and
// no change capture on WITHOUT ROWID tables, so the tenant migrations run in
// a variant (engineStatements), and every write raises the database's
// replication position, which read-your-writes compares (the engine's own
// revision cannot be ordered).
import type { Database as SyncConnection } from "@tursodatabase/sync";
import { onFirstUse } from "@/platform/on-first-use";
import { drizzle as drizzleProxy } from "drizzle-orm/sqlite-proxy";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { ServiceUnavailable } from "@/platform/errors";
import { dirname } from "node:path";
import { execStep, fenced, InFlight, type Db, type SqlDatabase, type WriteFence, type WriteOptions } from "./database";
import { driveAsync, run, type PreparedDef, type Work } from "./work";
import { sql } from "drizzle-orm";
import { attachFtsLookup, DerivedSearchIndex, SEARCH_LOG_STATEMENTS } from "./search-index";
import {
  positionNow,
  raisingPosition,
  ReplicationState,
  ReplicaUnavailable,
  ReplicaWriteRefused,
  type Replicated,
  type ReplicationStatus,
  type SyncRole,
} from "./replication-state";

const tursoSync = onFirstUse(() => require("@tursodatabase/sync") as typeof import("@tursodatabase/sync"));

/** How long a write waits for its push to the shard before answering anyway (it is committed on the primary and pushed later). */
const PUSH_WAIT_MS = 2_000;
/** A failed push is tried again after this long. */
const PUSH_RETRY_MS = 500;
/** The search change log keeps this many entries; an index further behind rebuilds from the tables (search-index.ts). */
const SEARCH_LOG_KEEP = 100_000;
/** The primary prunes the log once in this many commits. */
const SEARCH_LOG_PRUNE_EVERY = 1_000;
// Statements of the tenant migrations the sync engine cannot run: FTS5 tables
// and everything that writes them (triggers, 'rebuild's). In their place the
// searched tables log their changes for each instance's derived index
// (search-index.ts).
const FTS_STATEMENT = /\busing\s+fts5\b|\b[a-z_]+_fts\b/i;

/** One migration file (`tag`, its journal name) as the sync engine runs it. */
export function engineStatements(sqlText: string, tag = ""): string[] {
  return sqlText
    .split("--> statement-breakpoint")
    .map((s) => s.trim())
    .filter((s) => s !== "" && !FTS_STATEMENT.test(s))
    .map((s) => s.replace(/\)\s*WITHOUT\s+ROWID\s*;?\s*$/i, ");"))
    .concat(SEARCH_LOG_STATEMENTS[tag] ?? []);
}

type Statement = {
  raw(on: boolean): Statement;
  run(...a: unknown[]): Promise<unknown>;
  get(...a: unknown[]): Promise<unknown>;
  all(...a: unknown[]): Promise<unknown[]>;
};
type Preparer = { prepare(sql: string): Promise<Statement> };

/**
 * `x IN (SELECT value FROM json_each(?))`, how a prepared statement takes a
 * list (platform/db/in-list.ts, records/search.ts): this engine's planner
 * scans the table for any IN, but seeks an index for each term of an OR
 * (checked: 5,000 rows, 3.1 ms against 9 µs). So, on this engine only, a
 * list of up to OR_LIST_MAX values becomes `(x = ? OR x = ? ...)`; the
 * statement text then depends on the list's length.
 */
const JSON_LIST = /((?:"[^"\s]+"\.)?(?:"[^"\s]+"|rowid)) IN \(SELECT value(?: AS rowid)? FROM json_each\(\?\)\)/g;
const OR_LIST_MAX = 200;

/** `x IN (?, ?, ...)`: the same, with the values already in place. */
const PLACEHOLDER_LIST = /((?:"[^"\s]+"\.)?"[^"\s]+") IN \((\?(?:, \?)*)\)/g;

export function listsAsEqualities(given: string, params: unknown[]): { sql: string; params: unknown[] } {
  const sql = given.includes(" IN (?")
    ? given.replace(
        PLACEHOLDER_LIST,
        (_, column: string, list: string) =>
          `(${list
            .split(", ")
            .map(() => `${column} = ?`)
            .join(" OR ")})`,
      )
    : given;
  if (!sql.includes("json_each(?)")) return { sql, params };
  const out = [...params];
  let shift = 0; // parameters added so far by earlier lists
  const text = sql.replace(JSON_LIST, (match, column: string, offset: number) => {
    const index = countPlaceholders(sql, offset + match.length - 3) + shift; // the list's own ? (the match ends "(?))")
    let values: unknown;
    try {
      values = JSON.parse(String(out[index]));
    } catch {
      return match;
    }
    if (!Array.isArray(values) || values.length > OR_LIST_MAX) return match;
    out.splice(index, 1, ...values);
    shift += values.length - 1;
    return values.length === 0 ? "(0)" : `(${values.map(() => `${column} = ?`).join(" OR ")})`;
  });
  return { sql: text, params: out };
}

/** The `?` placeholders of `sql` before `end` (drizzle writes every parameter as a bare ?, never inside a literal). */
function countPlaceholders(sql: string, end: number): number {
  let n = 0;
  for (let i = sql.indexOf("?"); i !== -1 && i < end; i = sql.indexOf("?", i + 1)) n++;
  return n;
}

/** Statements compiled per handle, by SQL text: compiling a wide select costs ~60 µs on this engine, running it ~10 µs. */
const STATEMENTS_PER_HANDLE = 500;

/**
 * drizzle over one engine handle (rows as arrays, as sqlite-proxy expects
 * them), its statements compiled once per handle: `handle()` names the one in
 * use, and a new one (the next write transaction's) starts a new set.
 */
function proxyDb<S extends Record<string, unknown>>(handle: () => Preparer, schema: S): Db<S> {
  let owner: Preparer | undefined;
  let compiled = new Map<string, Promise<Statement>>();
  const statement = (sql: string) => {
    const h = handle();
    if (h !== owner || compiled.size >= STATEMENTS_PER_HANDLE) {
      owner = h;
      compiled = new Map();
    }
    let stmt = compiled.get(sql);
    if (!stmt) {
      stmt = Promise.resolve(h.prepare(sql)); // (a transaction's prepare answers at once)
      stmt.catch(() => compiled.delete(sql)); // a statement that does not compile is not kept
      compiled.set(sql, stmt);
    }
    return stmt;
  };
  return drizzleProxy(
    async (text, values, method) => {
      const { sql, params } = listsAsEqualities(text, values);
      const stmt = await statement(sql);
      if (method === "run") {
        await stmt.run(params);
        return { rows: [] };
      }
      stmt.raw(true);
      return { rows: (method === "get" ? await stmt.get(params) : await stmt.all(params)) as any[] };
    },
    { schema },
  ) as unknown as Db<S>;
}

export class TursoSyncDatabase<S extends Record<string, unknown>> implements SqlDatabase<S>, Replicated {
  readonly kind = "sync" as const;
  private readonly ready: Promise<SyncConnection>;
  private conn?: SyncConnection;
  /** The org's full-text indexes, kept beside the replica (search-index.ts). */
  readonly searchIndex: DerivedSearchIndex;
  private readonly readDb: Db<S>;
  private readonly readPrepared = new Map<PreparedDef<unknown>, any>();
  /** The open write transaction's handle: writes run one at a time, so one drizzle instance serves them all. */
  private txn?: Preparer;
  private readonly txDb: Db<S>;
  private readonly txPrepared = new Map<PreparedDef<unknown>, any>();
  private writing: Promise<unknown> = Promise.resolve();
  private closed = false;
  private commits = 0;
  private readonly inFlight = new InFlight();

  private readonly state: ReplicationState;
  private pushing?: Promise<void>;
  private pushAgain?: Promise<void>;
  private pushRetry?: ReturnType<typeof setTimeout>;
  /** Called with the position a successful push carried the shard to (the primary's replication notices). */
  onPushed?: (position: number) => void;

  constructor(
    /** The local replica file. */
    readonly location: string,
    readonly url: string,
    readonly role: SyncRole,
    schema: S,
    private readonly fence?: WriteFence<S>,
    authToken?: string,
  ) {
    mkdirSync(dirname(location), { recursive: true });
    this.state = new ReplicationState(location, role, async () => {
      const conn = await this.ready;
      await conn.pull();
      await this.indexChanges(conn);
      return this.positionNow();
    });
    this.searchIndex = new DerivedSearchIndex(`${location}.search`);
    // a new replica is bootstrapped from the shard by connect(); one already on disk opens without it, but may be of any age
    const bootstrapped = !existsSync(location);
    this.ready = tursoSync()
      .connect({ path: location, url, authToken, clientName: role })
      .then(
        async (conn) => {
          this.conn = conn;
          await this.indexChanges(conn);
          this.state.position = await this.positionNow();
          if (role === "replica" && bootstrapped) this.state.synced();
          // commits a stopped primary left unpushed go now, not with the next write
          if (role === "primary" && !bootstrapped) void this.requestPush().catch(() => undefined);
          return conn;
        },
        (err) => {
          this.state.failed(err);
          throw role === "replica" ? new ReplicaUnavailable(location, err) : new ServiceUnavailable("The organization's database is unavailable", 2);
        },
      );
    this.ready.catch(() => undefined); // reported to whoever awaits it
    this.readDb = proxyDb(() => this.conn!, schema);
    this.txDb = proxyDb(() => this.txn!, schema);
    for (const handle of [this, this.readDb, this.txDb]) attachFtsLookup(handle, this.searchIndex);
  }

  /** Brings the derived search index up to the replica's state (after a commit or a pull). */
  private async indexChanges(conn: SyncConnection): Promise<void> {
    // before the migration that logs them there is nothing to index
    if (!this.changesLogged && !(this.changesLogged = await hasTable(conn, "search_changes"))) return;
    await this.searchIndex.catchUp(conn as unknown as Preparer);
  }
  private changesLogged = false;

  read<T>(work: (db: Db<S>) => Work<T>): Promise<T> {
    return this.inFlight.track(this.readNow(work));
  }

  private async readNow<T>(work: (db: Db<S>) => Work<T>): Promise<T> {
    await this.ready;
    if (this.role === "replica") await this.state.fresh();
    return this.runRead(work);
  }

  /** `work` on the replica as it is (no freshness check: pulls read their own result through it). */
  private runRead<T>(work: (db: Db<S>) => Work<T>): Promise<T> {
    return driveAsync(work(this.readDb), (step) => execStep(this.readDb, this.readPrepared, step), this.readDb);
  }

  /** Not kept: the replica changes under the process on every pull. */
  readKept<T>(_key: string, work: (db: Db<S>) => Work<T>): Promise<T> {
    return this.read(work);
  }

  write<T>(work: (tx: Db<S>) => Work<T>, options?: WriteOptions): Promise<T> {
    if (this.role === "replica") return Promise.reject(new ReplicaWriteRefused(this.location));
    const guarded = fenced(this.fence, work, options);
    const mine = this.writing.then(() => this.transact(guarded));
    this.writing = mine.catch(() => undefined); // a failed write does not stop the next one
    return this.inFlight.track(
      mine.then(async (result) => {
        await this.indexChanges(this.conn!);
        await this.pushed();
        return result;
      }),
    );
  }

  private async transact<T>(work: (tx: Db<S>) => Work<T>): Promise<T> {
    const conn = await this.ready;
    let position = 0;
    const result = await conn.transactionAsync(async (txn) => {
      this.txn = txn as unknown as Preparer;
      try {
        const raising = raisingPosition(work, (p) => (position = p));
        return await driveAsync(raising(this.txDb), (step) => execStep(this.txDb, this.txPrepared, step), this.txDb);
      } finally {
        this.txn = undefined;
      }
    })();
    this.state.position = position;
    this.state.unpushed++;
    if (++this.commits % SEARCH_LOG_PRUNE_EVERY === 0) void this.pruneSearchLog(SEARCH_LOG_KEEP).catch(() => undefined);
    return result as T;
  }

  /**
   * Deletes all but the newest `keep` entries of the search change log (a
   * write of its own, pushed like any): replicas whose indexes are behind the
   * oldest entry left rebuild them from the tables.
   */
  pruneSearchLog(keep: number): Promise<void> {
    return this.write((tx) => run({ run: () => tx.run(sql`DELETE FROM search_changes WHERE seq <= (SELECT max(seq) FROM search_changes) - ${keep}`) }));
  }

  /** The replication position of this instance's last commit (primary) or pull (replica). */
  get replicationPosition(): number {
    return this.state.position;
  }

  status(): ReplicationStatus {
    return this.state.status();
  }

  /**
   * Pushes this primary's commits to the shard: one push at a time, and the
   * commits made while one runs go together in the next. Waits at most
   * PUSH_WAIT_MS: a write is committed on the primary either way, and a push
   * that failed is retried until the shard takes it.
   */
  private pushed(): Promise<void> {
    const push = this.requestPush().catch(() => undefined);
    return Promise.race([push, Bun.sleep(PUSH_WAIT_MS)]);
  }

  private requestPush(): Promise<void> {
    if (!this.pushing) {
      this.pushing = this.pushOnce().finally(() => {
        this.pushing = undefined;
      });
      return this.pushing;
    }
    this.pushAgain ??= this.pushing
      .catch(() => undefined)
      .then(() => {
        this.pushAgain = undefined;
        return this.requestPush();
      });
    return this.pushAgain;
  }

  private async pushOnce(): Promise<void> {
    const conn = await this.ready;
    const commits = this.state.unpushed; // the commits made so far are all in this push
    const position = this.state.position;
    try {
      await conn.push();
      this.state.unpushed -= commits;
      if (commits > 0) this.onPushed?.(position);
      this.state.synced();
    } catch (err) {
      this.state.failed(err);
      if (!this.closed && !this.pushRetry)
        this.pushRetry = setTimeout(() => {
          this.pushRetry = undefined;
          if (!this.closed) this.requestPush().catch(() => undefined);
        }, PUSH_RETRY_MS);
      throw err;
    }
  }

  /** The position this replica holds (0 before the migration that creates it). */
  private async positionNow(): Promise<number> {
    try {
      return await this.runRead(positionNow);
    } catch {
      return 0;
    }
  }

  /** Pulls the shard's changes into this replica (one pull at a time; callers share it). */
  pull(): Promise<void> {
    return this.state.pull();
  }

  noticed(position: number): void {
    this.state.noticed(position);
  }

  async catchUp(target: number, timeoutMs: number): Promise<boolean> {
    await this.ready;
    return this.state.catchUp(target, timeoutMs);
  }

  async migrate(folder: string): Promise<void> {
    if (this.role === "replica") return this.pull();
    const conn = await this.ready;
    await conn.exec(MIGRATIONS_TABLE);
    const journal = JSON.parse(readFileSync(`${folder}/meta/_journal.json`, "utf8")) as { entries: { tag: string; when: number }[] };
    const applied = await this.schemaVersion();
    for (const entry of journal.entries.slice(applied)) {
      const text = readFileSync(`${folder}/${entry.tag}.sql`, "utf8");
      await conn.transactionAsync(async (txn) => {
        for (const statement of engineStatements(text, entry.tag)) await txn.exec(statement);
        await txn.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES (?, ?)", createHash("sha256").update(text).digest("hex"), entry.when);
      })();
    }
    await this.indexChanges(conn);
    await this.requestPush().catch(() => undefined);
  }

  async schemaVersion(): Promise<number> {
    const conn = await this.ready;
    if (!(await hasTable(conn, "__drizzle_migrations"))) return 0;
    const row = (await (await conn.prepare("SELECT count(*) FROM __drizzle_migrations")).raw(true).get()) as unknown[];
    return Number(row[0]);
  }

  async ping(): Promise<void> {
    const conn = await this.ready;
    await (await conn.prepare("SELECT 1")).raw(true).get();
  }

  close(): void {
    this.closed = true;
    if (this.pushRetry) clearTimeout(this.pushRetry);
    void this.ready
      .then((conn) => this.inFlight.whenIdle().then(() => conn.close()))
      .catch(() => undefined)
      .finally(() => this.searchIndex.close());
  }
}

const MIGRATIONS_TABLE = "CREATE TABLE IF NOT EXISTS __drizzle_migrations (id INTEGER PRIMARY KEY, hash TEXT NOT NULL, created_at NUMERIC)";

async function hasTable(conn: Preparer, name: string): Promise<boolean> {
  return !!(await (await conn.prepare(`SELECT 1 FROM sqlite_master WHERE type='table' AND name='${name}'`)).raw(true).get());
}
