import { PgBoss, type Db as PgBossDb, type JobWithMetadata } from "pg-boss";
import type { PGlite } from "@electric-sql/pglite";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { Config } from "@/config";
import type { Logger } from "@/platform/logger";
import type { JobEnvelope, JobQueue, JobRecord, JobSchedule, JobState, QueuedJob, QueueSettings, WorkSettings } from "./types";

// pg-boss keeps jobs in PostgreSQL. By default that PostgreSQL is PGlite (WASM, in
// this process, persisted under config.queue.pgliteDir); with QUEUE_DATABASE_URL it
// is a real server, shared by the API and separate worker processes.

const DEFAULT_SCHEMA = "pgboss";
const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,62}$/;
const DEFAULT_STOP_TIMEOUT_MS = 10_000;
// PGlite runs PostgreSQL in single-user mode: there is no autovacuum, so the
// queue vacuums its own tables (jobs are deleted continuously by pg-boss).
const PGLITE_VACUUM_FIRST_MS = 10 * 60_000;
const PGLITE_VACUUM_EVERY_MS = 6 * 3600_000;

/**
 * QUEUE_DATABASE_URL is a plain PostgreSQL URL; an optional `schema` query
 * parameter names the pg-boss schema (default `pgboss`) and is not passed to the driver.
 */
export function parseQueueUrl(url: string): { connectionString: string; schema: string } {
  const u = new URL(url);
  const schema = u.searchParams.get("schema") ?? DEFAULT_SCHEMA;
  if (!SCHEMA_RE.test(schema)) throw new Error("QUEUE_DATABASE_URL: schema must be a lower-case PostgreSQL identifier");
  u.searchParams.delete("schema");
  return { connectionString: u.toString(), schema };
}

// ---------------------------------------------------------------------------
// PGlite adapter

/**
 * pg-boss's `db` contract is `executeSql(text, values) -> { rows }` (plus optional
 * `listen`). PGlite is one session that runs one statement at a time, so:
 *  - parameterised statements go through `query()` (extended protocol, one statement);
 *  - parameterless text may be a multi-statement block (schema migrations, pg-boss's
 *    `BEGIN; SELECT pg_advisory_xact_lock(..); ...; COMMIT;` sections) and goes through
 *    `exec()` (simple protocol), whose per-statement rows are flattened;
 *  - calls are serialised here, and when one fails the session is rolled back before
 *    the next call may run: a failed statement inside such a block leaves the only
 *    session in an aborted transaction, which would poison whatever ran next. (pg-boss's
 *    own `fromPglite` rolls back after releasing PGlite's lock, leaving a window.)
 * pg-boss never spans a transaction over several calls through this adapter (it has no
 * `beginTransaction`), so `work(..., { transactional: true })` is not available on PGlite.
 */
export function pgliteAdapter(pg: PGlite): PgBossDb {
  let tail: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const p = tail.then(fn);
    tail = p.catch(() => {});
    return p;
  };
  return {
    executeSql: (text: string, values?: unknown[]) =>
      serial(async () => {
        try {
          if (values?.length) return await pg.query(text, values as any[]);
          const results = await pg.exec(text);
          return { rows: results.flatMap((r) => r.rows ?? []) };
        } catch (err) {
          await pg.exec("ROLLBACK").catch(() => {});
          throw err;
        }
      }),
    // NOTIFY is delivered in-process by the same PGlite instance, so new jobs wake workers at once.
    listen: async (channel: string, onNotification: (payload: string) => void, onReconnect: () => void) => {
      const unlisten = await pg.listen(channel, onNotification);
      onReconnect();
      return {
        close: async () => {
          await unlisten();
        },
      };
    },
  };
}

// One process may hold a PGlite directory: a second PGlite (in this process or
// another) on the same files would corrupt them. A `<dir>.lock` file with the pid
// guards against a second process; a set guards this one.
const openDirs = new Set<string>();

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

function lockPgliteDir(dir: string): () => void {
  if (openDirs.has(dir)) throw new Error(`the PGlite queue at ${dir} is already open in this process`);
  const file = `${dir}.lock`;
  mkdirSync(dirname(file), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx" });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw err;
      const holder = Number(readFileSync(file, "utf8").trim());
      if (holder && holder !== process.pid && processAlive(holder)) {
        throw new Error(
          `the PGlite queue at ${dir} is in use by process ${holder} (lock ${file}). PGlite serves one process: ` +
            "run workers in-process, or set QUEUE_DATABASE_URL to share a PostgreSQL queue between processes",
        );
      }
      rmSync(file, { force: true }); // stale: its process is gone
    }
  }
  openDirs.add(dir);
  return () => {
    openDirs.delete(dir);
    try {
      if (readFileSync(file, "utf8").trim() === String(process.pid)) rmSync(file, { force: true });
    } catch {
      // already gone
    }
  };
}

// ---------------------------------------------------------------------------
// The queue

class PgBossQueue implements JobQueue {
  private readonly known = new Set<string>();
  private stopping: Promise<void> | null = null;

  constructor(
    readonly kind: "pglite" | "postgres",
    private readonly boss: PgBoss,
    private readonly onClose: () => Promise<void>,
  ) {}

  /** Every job type has its own queue; `send` creates a missing one with default settings. */
  private async ensureExists(name: string): Promise<void> {
    if (this.known.has(name)) return;
    await this.boss.createQueue(name, { notify: true }); // ON CONFLICT DO NOTHING
    this.known.add(name);
  }

  async ensureQueue(name: string, settings: QueueSettings = {}): Promise<void> {
    const options = { notify: true, ...defined(settings) };
    await this.boss.createQueue(name, options);
    await this.boss.updateQueue(name, options); // an existing queue takes the current settings
    this.known.add(name);
  }

  async send<P>(
    name: string,
    envelope: JobEnvelope<P>,
    options: { id?: string; singletonKey?: string; startAfterSeconds?: number } = {},
  ): Promise<string | null> {
    await this.ensureExists(name);
    // with an id, pg-boss inserts ON CONFLICT DO NOTHING: a job handed over twice (the outbox's relay) is one job
    const id = await this.boss.send(
      name,
      envelope as object,
      defined({ id: options.id, singletonKey: options.singletonKey, startAfter: options.startAfterSeconds }),
    );
    // this process's own workers of the queue fetch now rather than at their next poll (PGlite has no NOTIFY)
    if (id && !options.startAfterSeconds) for (const worker of this.localWorkers.get(name) ?? []) this.boss.notifyWorker(worker);
    return id;
  }

  /** This process's workers by queue: one pg-boss worker per unit of concurrency, so each can be woken. */
  private readonly localWorkers = new Map<string, string[]>();

  async work<P>(name: string, settings: WorkSettings, handler: (job: QueuedJob<P>) => Promise<unknown>): Promise<void> {
    await this.ensureExists(name);
    const workers: string[] = [];
    for (let i = 0; i < (settings.concurrency ?? 1); i++) {
      const self: { id?: string } = {};
      self.id = await this.boss.work<JobEnvelope<P>>(
        name,
        // With NOTIFY on, pg-boss polls only every 30 s unless told, and a retry sends no NOTIFY:
        // the notify poll is held to the plain poll, so a retried job waits its backoff plus at most that.
        {
          batchSize: 1,
          localConcurrency: 1,
          pollingIntervalSeconds: settings.pollingIntervalSeconds ?? 2,
          notifyPollingIntervalSeconds: settings.pollingIntervalSeconds ?? 2,
        },
        async ([job]) => {
          try {
            return await handler({ id: job!.id, name: job!.name, retryCount: job!.retryCount, data: job!.data });
          } finally {
            // a worker that found a job looks for the next one at once: a backlog drains without poll delays
            if (self.id) this.boss.notifyWorker(self.id);
          }
        },
      );
      workers.push(self.id);
    }
    this.localWorkers.set(name, workers);
  }

  async offWork(name: string): Promise<void> {
    this.localWorkers.delete(name);
    await this.boss.offWork(name, { wait: true });
  }

  async schedule<P>(name: string, cron: string, envelope: JobEnvelope<P>, options: { tz?: string; missed?: "skip" | "once" } = {}): Promise<void> {
    await this.ensureExists(name);
    await this.boss.schedule(name, cron, envelope as object, { tz: options.tz ?? "UTC", missed: options.missed ?? "skip" });
  }

  async unschedule(name: string): Promise<void> {
    await this.boss.unschedule(name);
  }

  async schedules(): Promise<JobSchedule[]> {
    const rows = await this.boss.getSchedules();
    return rows.map((s) => ({ name: s.name, cron: s.cron, timezone: s.timezone })).sort((a, b) => a.name.localeCompare(b.name));
  }

  async getJob(name: string, id: string): Promise<JobRecord | null> {
    const [job] = (await this.boss.findJobs(name, { id })) as JobWithMetadata<unknown>[];
    if (!job) return null;
    return {
      id: job.id,
      name: job.name,
      state: job.state as JobState,
      retryCount: job.retryCount,
      output: job.output ?? null,
      createdOn: job.createdOn,
      completedOn: job.completedOn ?? null,
    };
  }

  async ping(): Promise<void> {
    await this.boss.getDb().executeSql("SELECT 1");
  }

  stop(options: { timeoutMs?: number } = {}): Promise<void> {
    this.stopping ??= (async () => {
      try {
        await this.boss.stop({ graceful: true, close: true, timeout: options.timeoutMs ?? DEFAULT_STOP_TIMEOUT_MS });
      } finally {
        await this.onClose();
      }
    })();
    return this.stopping;
  }
}

function defined<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function watch(boss: PgBoss, logger: Logger, kind: string) {
  // pg-boss rethrows an `error` event nobody listens for; log it instead.
  boss.on("error", (err) => logger.error({ err: err.message, queue_kind: kind }, "job queue error"));
  boss.on("warning", (w) => logger.warn({ warning: w.message, queue_kind: kind }, "job queue warning"));
}

const PGLITE_SHARED_BUFFERS = "16MB";

/** pg-boss on PGlite in-process by default; on PostgreSQL when QUEUE_DATABASE_URL is set. */
export async function createPgBossQueue(config: Config, logger: Logger): Promise<JobQueue> {
  if (config.queue.url) {
    const { connectionString, schema } = parseQueueUrl(config.queue.url);
    const boss = new PgBoss({ connectionString, schema, application_name: "cusp", useListenNotify: true });
    watch(boss, logger, "postgres");
    try {
      await boss.start();
    } catch (err) {
      await boss.stop({ graceful: false }).catch(() => {});
      throw err;
    }
    return new PgBossQueue("postgres", boss, async () => {});
  }

  const dir = config.queue.pgliteDir;
  const unlock = lockPgliteDir(dir);
  let pg: PGlite | undefined;
  try {
    const { PGlite } = await import("@electric-sql/pglite");
    mkdirSync(dir, { recursive: true });
    // PostgreSQL's default 128 MB of shared buffers are all touched at start: about 125 MB of the
    // process's memory for a queue whose tables fit in a few MB (docs/operations/performance.md, "Memory")
    pg = await PGlite.create(dir, { startParams: [...PGlite.defaultStartParams, "-c", `shared_buffers=${PGLITE_SHARED_BUFFERS}`] });
    const boss = new PgBoss({
      db: pgliteAdapter(pg),
      backend: "pglite",
      schema: DEFAULT_SCHEMA,
      useListenNotify: true,
      // No autovacuum on PGlite: the queue vacuums itself below, so pg-boss's vacuum monitor would only misreport.
      monitorVacuum: false,
    });
    watch(boss, logger, "pglite");
    try {
      await boss.start();
    } catch (err) {
      await boss.stop({ graceful: false }).catch(() => {});
      throw err;
    }
    const db = boss.getDb();
    const vacuum = () => void db.executeSql("VACUUM ANALYZE").catch((err) => logger.warn({ err: (err as Error).message }, "job queue vacuum failed"));
    let interval: ReturnType<typeof setInterval> | undefined;
    const first = setTimeout(() => {
      vacuum();
      interval = setInterval(vacuum, PGLITE_VACUUM_EVERY_MS);
      interval.unref?.();
    }, PGLITE_VACUUM_FIRST_MS);
    first.unref?.();
    const opened = pg;
    return new PgBossQueue("pglite", boss, async () => {
      clearTimeout(first);
      clearInterval(interval);
      try {
        await db.executeSql("SELECT 1").catch(() => {}); // drain statements still queued in the adapter
        await opened.close();
      } finally {
        unlock();
      }
    });
  } catch (err) {
    await pg?.close().catch(() => {});
    unlock();
    throw err;
  }
}
