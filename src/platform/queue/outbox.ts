import { asc, inArray } from "drizzle-orm";
import { jobOutbox as orgOutbox } from "@db/tenant/job-outbox";
import { jobOutbox as controlOutbox } from "@db/control/schema";
import { Breaker } from "@/platform/async/breaker";
import type { Actor } from "@/platform/auth/actor";
import type { ControlDatabase, ControlDb } from "@/platform/db/control";
import type { Db, SqlDatabase } from "@/platform/db/database";
import { all, run, type Work } from "@/platform/db/work";
import type { Logger } from "@/platform/logger";
import { sendRow, type JobRow } from "./enqueue";
import type { JobQueue } from "./types";

// The job outbox (docs/platform/reliability.md, "Jobs"): a write records the
// jobs it causes in its own database, in its own transaction (the org's
// job_outbox, or the control database's for platform writes), so a job exists
// exactly when the write does. After commit the writing process hands them to
// the queue at once, each under its row's id, and deletes the rows the queue
// took. What it could not hand over (the queue's PostgreSQL away, the process
// killed) stays, and the relay hands it over later: every second while it knows
// of such rows, for an org database when this process first opens it, and for
// every org in the outbox sweep (workers/jobs/outbox-sweep.ts). A row handed
// over twice is one job: the queue ignores an id it has.

/** Rows handed over per pass and database: a backlog drains over a few passes, not in one long one. */
const BATCH = 200;
const RELAY_EVERY_MS = 1_000;
/** The queue's PostgreSQL is given this long per hand-over on a request's path (the breaker's timeout). */
const HAND_OVER_TIMEOUT_MS = 250;
/** PGlite runs in this process and cannot be away, but may be busy with the workers' own statements. */
const PGLITE_HAND_OVER_TIMEOUT_MS = 10_000;

const ORG_COLUMNS = {
  id: orgOutbox.id,
  name: orgOutbox.name,
  payload: orgOutbox.payload,
  actor: orgOutbox.actor,
  request_id: orgOutbox.request_id,
  singleton_key: orgOutbox.singleton_key,
  start_after_seconds: orgOutbox.start_after_seconds,
};

/** A recorded job's row (the org outbox has no org_id: it is the org's own). */
const valuesOf = (r: JobRow, now: string) => ({
  id: r.id,
  name: r.name,
  payload: r.payload,
  actor: r.actor as Record<string, unknown> | null,
  request_id: r.request_id,
  singleton_key: r.singleton_key,
  start_after_seconds: r.start_after_seconds,
  created_at: now,
});

/** Record an org write's jobs in its transaction. */
export function* recordOrgJobs(tx: Db<any>, rows: JobRow[], now: string): Work<void> {
  if (rows.length) yield* run(tx.insert(orgOutbox).values(rows.map((r) => valuesOf(r, now))));
}

/** Record a control-database write's jobs in its transaction. */
export function* recordControlJobs(tx: ControlDb, rows: JobRow[], now: string): Work<void> {
  if (rows.length) yield* run(tx.insert(controlOutbox).values(rows.map((r) => ({ ...valuesOf(r, now), org_id: r.org_id }))));
}

type OrgDb = SqlDatabase<any>;
type OutboxRow = Omit<JobRow, "org_id" | "actor"> & { actor: Record<string, unknown> | null };

export type RelayDeps = {
  queue: JobQueue | null;
  control: ControlDatabase;
  logger: Logger;
  /** An org's database by id, or null when the org is gone (tenancy/orgs.ts: the only way in by id). */
  openOrg(orgId: string): Promise<OrgDb | null>;
  /** False at an edge region (its replicas are never written) and without a queue. */
  enabled: boolean;
};

/**
 * Hands recorded jobs to the queue: right after their write commits, and again
 * later for what the queue did not take then. Never fails a caller: a write's
 * answer does not depend on the queue (the job is recorded; it goes out later).
 */
export class JobRelay {
  /** Orgs whose outbox holds rows this process knows of, with how many. */
  private readonly waiting = new Map<string, number>();
  private controlWaiting = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private passing: Promise<void> | null = null;
  private lastWarning = 0;
  /** Every hand-over goes through it: a queue that does not answer is given up on at once (async/breaker.ts). */
  readonly breaker: Breaker;

  constructor(private readonly deps: RelayDeps) {
    const timeoutMs = deps.queue?.kind === "pglite" ? PGLITE_HAND_OVER_TIMEOUT_MS : HAND_OVER_TIMEOUT_MS;
    this.breaker = new Breaker("queue", { timeoutMs }, (state) =>
      (state === "open" ? deps.logger.warn : deps.logger.info).call(deps.logger, { state }, "queue breaker"),
    );
  }

  get enabled(): boolean {
    return this.deps.enabled && this.deps.queue !== null;
  }

  /** Jobs recorded and not handed over yet, as far as this process knows (/api/health). */
  pending(): { jobs: number; orgs: number } {
    let jobs = this.controlWaiting;
    for (const n of this.waiting.values()) jobs += n;
    return { jobs, orgs: this.waiting.size };
  }

  /** Start relaying what waits (every second while something does), beginning with the control database's outbox. */
  start(): void {
    if (!this.enabled || this.timer) return;
    this.controlWaiting = Math.max(this.controlWaiting, 1); // unknown until looked at
    this.timer = setInterval(() => void this.pass(), RELAY_EVERY_MS);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.passing;
  }

  /** An org write's jobs, just committed: hand them over now; what the queue does not take waits for the relay. */
  async afterOrgCommit(orgId: string, db: OrgDb, rows: JobRow[]): Promise<void> {
    if (!rows.length || !this.enabled) return;
    const left = await this.handOver(rows, (ids) => db.write((tx) => run(tx.delete(orgOutbox).where(inArray(orgOutbox.id, ids)))));
    if (left) this.waiting.set(orgId, (this.waiting.get(orgId) ?? 0) + left);
  }

  /** A control-database write's jobs, just committed. */
  async afterControlCommit(rows: JobRow[]): Promise<void> {
    if (!rows.length || !this.enabled) return;
    const left = await this.handOver(rows, (ids) => this.deps.control.write((tx) => run(tx.delete(controlOutbox).where(inArray(controlOutbox.id, ids)))));
    this.controlWaiting += left;
  }

  /** An org database this process opens for the first time: a stopped process may have left jobs in it. */
  async checkOrg(orgId: string, db: OrgDb): Promise<void> {
    if (!this.enabled) return;
    const rows = await db.read((d) => all<{ id: string }>(d.select({ id: orgOutbox.id }).from(orgOutbox).limit(1)));
    if (rows.length && !this.waiting.has(orgId)) this.waiting.set(orgId, rows.length);
  }

  /** Hand over what an org's outbox holds (the outbox sweep, and the relay's passes): how many rows are left. */
  async relayOrg(orgId: string, db: OrgDb): Promise<number> {
    if (!this.enabled) return 0;
    const rows = await db.read((d) => all<OutboxRow>(d.select(ORG_COLUMNS).from(orgOutbox).orderBy(asc(orgOutbox.created_at), asc(orgOutbox.id)).limit(BATCH)));
    const left = rows.length
      ? await this.handOver(
          rows.map((r) => ({ ...r, org_id: orgId, actor: r.actor as Actor | null })),
          (ids) => db.write((tx) => run(tx.delete(orgOutbox).where(inArray(orgOutbox.id, ids)))),
        )
      : 0;
    // a full batch may have more behind it
    const more = left || rows.length === BATCH ? Math.max(left, 1) : 0;
    if (more) this.waiting.set(orgId, more);
    else this.waiting.delete(orgId);
    return more;
  }

  /** One pass: the control database's outbox, then every org known to hold rows. */
  pass(): Promise<void> {
    if (!this.enabled || (!this.controlWaiting && !this.waiting.size)) return Promise.resolve();
    this.passing ??= (async () => {
      try {
        if (this.controlWaiting) await this.relayControl();
        for (const orgId of [...this.waiting.keys()]) {
          const db = await this.deps.openOrg(orgId);
          if (!db) this.waiting.delete(orgId);
          // the queue refused again (this pass's probe): the other orgs wait for the next pass
          else if ((await this.relayOrg(orgId, db)) && this.breaker.state === "open") break;
        }
      } catch (err) {
        this.deps.logger.warn({ err: (err as Error).message }, "job relay pass failed; retried in a second");
      } finally {
        this.passing = null;
      }
    })();
    return this.passing;
  }

  private async relayControl(): Promise<void> {
    const rows = await this.deps.control.read((d) =>
      all<OutboxRow & { org_id: string | null }>(
        d
          .select({ ...ORG_COLUMNS, org_id: controlOutbox.org_id })
          .from(controlOutbox)
          .orderBy(asc(controlOutbox.created_at), asc(controlOutbox.id))
          .limit(BATCH),
      ),
    );
    const left = rows.length
      ? await this.handOver(
          rows.map((r) => ({ ...r, actor: r.actor as Actor | null })),
          (ids) => this.deps.control.write((tx) => run(tx.delete(controlOutbox).where(inArray(controlOutbox.id, ids)))),
        )
      : 0;
    this.controlWaiting = left || rows.length === BATCH ? Math.max(left, 1) : 0;
  }

  /**
   * Hand rows to the queue in order, through the breaker, until one is refused;
   * delete the ones it took. Answers how many are left. Never throws: a failed
   * delete only means a row is handed over again (and ignored) later.
   */
  private async handOver(rows: JobRow[], remove: (ids: string[]) => unknown): Promise<number> {
    const queue = this.deps.queue!;
    const taken: string[] = [];
    for (const row of rows) {
      try {
        await this.breaker.run(() => sendRow(queue, row));
        taken.push(row.id);
      } catch (err) {
        const now = Date.now();
        if (now - this.lastWarning > 10_000) {
          this.lastWarning = now;
          this.deps.logger.warn({ job: row.name, job_id: row.id, err: (err as Error).message }, "jobs not handed to the queue yet; kept in the outbox");
        }
        break;
      }
    }
    if (taken.length) {
      try {
        await remove(taken);
      } catch (err) {
        this.deps.logger.warn({ err: (err as Error).message }, "handed-over jobs not removed from the outbox; they are handed over again, and ignored, later");
      }
    }
    if (taken.length < rows.length) this.start();
    return rows.length - taken.length;
  }
}
