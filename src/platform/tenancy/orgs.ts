import { existsSync, rmSync } from "node:fs";
import type { ReplicationStatus } from "@/platform/db/replication-state";
import { asc, eq, ne, notInArray, sql } from "drizzle-orm";
import { orgs, shards } from "@db/control/schema";
import { all, get, run, type Work } from "@/platform/db/work";
import { orgDatabaseLocation } from "@/platform/db/open";
import type { OrgDatabase, OrgDatabases, ShardTarget } from "@/platform/db/org-databases";
import type { Db } from "@/platform/db/database";
import type { TenantSchema } from "@db/tenant/drizzle-schema";
import type { Actor, Caller } from "@/platform/auth/actor";
import type { ControlDatabase, ControlDb } from "@/platform/db/control";
import type { EventPublisher } from "@/platform/events/publisher";
import type { JobQueue } from "@/platform/queue/types";
import { jobRow, pendingJob, type PendingJob } from "@/platform/queue/enqueue";
import { JobRelay, recordControlJobs } from "@/platform/queue/outbox";
import { bumpAccessEpoch } from "./access";
import type { Logger } from "@/platform/logger";
import type { AccessResolver, OrgRecord } from "./access";
import { OrgAuditOutbox, recordOrgAudit } from "@/platform/audit/org-outbox";
import { AuditIndexWriter } from "@/platform/audit/index-writer";
import { OrgControl, type QueueControlJob, type RecordOrgAudit } from "./org-control";
import { copyDatabase, emptyTarget, openMoveEnd, setMoveState, unfreezeCopy } from "./move";
import { nowIso } from "@/platform/ids";
import { NotFound, ServiceUnavailable } from "@/platform/errors";
import type { CommitEffects, OrgContext, Reactions } from "@/platform/records/context";
import { commitEffects } from "@/platform/records/transaction";

/** How long a write waits for an org's move before it is answered 503, and how often it looks. */
const MOVE_HOLD_MS = 15_000;
const MOVE_POLL_MS = 25;

export type OrgsDeps = {
  control: ControlDatabase;
  orgDbs: OrgDatabases;
  events: EventPublisher;
  queue: JobQueue | null;
  logger: Logger;
  access: AccessResolver;
  /** What reacts to the moments org writes announce (src/reactions.ts). */
  reactions: Reactions;
  /** False at an edge region: its replicas are never written, so it relays no jobs. */
  primary: boolean;
};

type OrgRow = { id: string; name: string; slug: string; status: string; shard_id: string; dsn: string; auth_token: string | null };
const ORG_COLUMNS = { id: orgs.id, name: orgs.name, slug: orgs.slug, status: orgs.status, shard_id: shards.id, dsn: shards.dsn, auth_token: shards.auth_token };
const recordOf = (r: OrgRow): OrgRecord => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  status: r.status,
  shard: { id: r.shard_id, dsn: r.dsn, auth_token: r.auth_token },
});

/**
 * !!! TENANCY: every way into an org's database other than a request's own org; changes need two reviewers. !!!
 * A request reaches exactly its org (the guard builds its context here). Work
 * that must name an org by id asks for it by name: provisioning a new org,
 * a job in one org (openOrgForJob), a job over every org (forEachOrg), a
 * platform read of an org's trail (readExisting), and the delivery of
 * org-trail audit entries written with the control database (writeControl).
 */
export class Orgs {
  readonly outbox: OrgAuditOutbox;
  /** The platform audit index of org writes, written in groups (platform/audit/index-writer.ts). */
  readonly auditIndex: AuditIndexWriter;
  /** Hands the jobs writes recorded to the queue (platform/queue/outbox.ts). */
  readonly jobRelay: JobRelay;

  constructor(private readonly deps: OrgsDeps) {
    this.outbox = new OrgAuditOutbox({
      control: deps.control,
      logger: deps.logger,
      openOrg: (orgId) => this.openExisting(orgId),
      publish: (orgId, event) => deps.events.publish(orgId, event),
    });
    this.auditIndex = new AuditIndexWriter({ control: deps.control, logger: deps.logger });
    this.jobRelay = new JobRelay({
      queue: deps.queue,
      control: deps.control,
      logger: deps.logger,
      openOrg: (orgId) => this.openExisting(orgId),
      enabled: deps.primary,
    });
    // the first time this process opens an org's database: index what a stopped process left
    // pending, and relay the jobs it left in the outbox
    deps.orgDbs.onFirstOpen = (orgId, db) =>
      setImmediate(() => {
        this.auditIndex.reconcile(orgId, db).catch((err) => deps.logger.warn({ org_id: orgId, err: (err as Error).message }, "audit index reconcile failed"));
        this.jobRelay.checkOrg(orgId, db).catch((err) => deps.logger.warn({ org_id: orgId, err: (err as Error).message }, "job outbox check failed"));
      });
  }

  /** The replication status of this instance's replicated org databases (health checks report it). */
  replicationStatuses(): ReplicationStatus[] {
    return this.deps.orgDbs.replicated().map((db) => db.status());
  }

  /** The tenant schema version this code migrates org databases to (health checks compare it). */
  get tenantSchemaVersion(): number {
    return this.deps.orgDbs.tenantSchemaVersion;
  }

  /** The context of a verb in an open org database: the guard's, and the jobs' below. */
  context(org: OrgRecord, db: OrgDatabase, caller: Caller & { permissions?: ReadonlySet<string> }): OrgContext {
    return new OrgScope(org, db, caller, this.deps, this);
  }

  /** Create the org's database on its shard, migrated and seeded (a new org). */
  async provision(orgId: string, shard: ShardTarget): Promise<void> {
    await this.deps.orgDbs.provision(orgId, shard);
  }

  /** Remove a database provisioned for an org whose creation then failed. */
  discard(orgId: string, shard: ShardTarget): void {
    this.deps.orgDbs.evict(orgId);
    const loc = orgDatabaseLocation(shard.dsn, orgId);
    if (loc.kind === "local") for (const suffix of ["", "-wal", "-shm"]) rmSync(loc.location + suffix, { force: true });
  }

  /**
   * Remove the database of a deleted org (the orgs.purge job; docs/admin/admin.md): this
   * process's handle is closed and a local file is deleted with its -wal and -shm.
   * Refuses any org whose status is not "deleted". Remote libSQL and turso-sync shards are not
   * supported yet: nothing is removed and "unsupported" is answered.
   */
  async purgeDatabase(orgId: string): Promise<"removed" | "absent" | "unsupported"> {
    const row = await this.deps.control.read((db) => orgRow(db, orgId));
    if (!row || row.status !== "deleted") throw new Error(`org ${orgId} is not a deleted org: its database is kept`);
    const loc = orgDatabaseLocation(row.dsn, orgId);
    if (loc.kind !== "local") return "unsupported";
    this.deps.orgDbs.evict(orgId);
    const existed = existsSync(loc.location);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(loc.location + suffix, { force: true });
    return existed ? "removed" : "absent";
  }

  /**
   * After a write met the move fence (OrgMoving): wait while the org is
   * "migrating" (polling the control database, at most MOVE_HOLD_MS), then
   * answer its database on the shard it is on now. 503 with Retry-After when
   * the move takes longer (docs/admin/admin.md, "Moving an org between shards").
   */
  async awaitMove(orgId: string): Promise<OrgDatabase> {
    const until = Date.now() + MOVE_HOLD_MS;
    for (;;) {
      const row = await this.deps.control.read((db) => orgRow(db, orgId));
      if (!row || row.status === "deleted") throw new NotFound("Organization");
      if (row.status !== "migrating") return this.deps.orgDbs.get(orgId, recordOf(row).shard);
      if (Date.now() >= until) throw new ServiceUnavailable("The organization's database is being moved to another shard; try again shortly", 5);
      await Bun.sleep(MOVE_POLL_MS);
    }
  }

  /**
   * The database side of a move (the orgs.move job; docs/admin/admin.md): freeze the
   * org's database on `from` (the move fence then refuses every write there),
   * empty `to` of anything an earlier attempt left, copy, and unfreeze the
   * copy. Answers the row count of each table (checked equal on both sides).
   */
  async copyToShard(orgId: string, from: ShardTarget, to: ShardTarget): Promise<Record<string, number>> {
    await setMoveState(await this.deps.orgDbs.get(orgId, from), { frozen: true, moved_to_shard_id: null }, nowIso());
    await emptyTarget(orgId, to);
    const source = await openMoveEnd(orgId, from);
    try {
      const target = await openMoveEnd(orgId, to, true);
      try {
        const counts = await copyDatabase(source.client, target.client);
        await unfreezeCopy(target, nowIso());
        return counts;
      } finally {
        target.client.close();
      }
    } finally {
      source.client.close();
    }
  }

  /** After the switch: the old database records where the org went and stays frozen; this process lets go of it. */
  async leaveShard(orgId: string, from: ShardTarget, toShardId: string): Promise<void> {
    await setMoveState(await this.deps.orgDbs.get(orgId, from), { frozen: true, moved_to_shard_id: toShardId }, nowIso());
    this.deps.orgDbs.evict(orgId);
  }

  /** A move that failed: the org's database on `from` takes writes again (the org stays there). */
  async cancelMove(orgId: string, from: ShardTarget): Promise<void> {
    await setMoveState(await this.deps.orgDbs.get(orgId, from), { frozen: false, moved_to_shard_id: null }, nowIso());
  }

  /** A job's context in one org (archived ones included), acting as `job.actor`; null when the org does not exist or was deleted. */
  async openOrgForJob(orgId: string, job: { actor: Actor; requestId: string | null }): Promise<OrgContext | null> {
    const row = await this.deps.control.read((db) => orgRow(db, orgId));
    if (!row || row.status === "deleted") return null;
    const org = recordOf(row);
    return this.context(org, await this.deps.orgDbs.get(org.id, org.shard), { actor: job.actor, requestId: job.requestId, ip: null });
  }

  /**
   * Run `work` in every org, one at a time (archived orgs only when asked: their
   * databases are kept; deleted orgs never: theirs are being purged), yielding to the event loop in between. One org failing
   * does not stop the others; the failures are returned.
   */
  async forEachOrg(job: { actor: Actor; requestId: string | null }, options: { includeArchived: boolean }, work: (ctx: OrgContext) => Promise<void>) {
    const rows = await this.deps.control.read((db) =>
      all<OrgRow>(
        db
          .select(ORG_COLUMNS)
          .from(orgs)
          .innerJoin(shards, eq(orgs.shard_id, shards.id))
          .where(options.includeArchived ? ne(orgs.status, "deleted") : notInArray(orgs.status, ["archived", "deleted"]))
          .orderBy(asc(orgs.id)),
      ),
    );
    const failed: { orgId: string; error: Error }[] = [];
    for (const row of rows) {
      const org = recordOf(row);
      try {
        const db = await this.deps.orgDbs.get(org.id, org.shard);
        await work(this.context(org, db, { actor: job.actor, requestId: job.requestId, ip: null }));
      } catch (err) {
        failed.push({ orgId: org.id, error: err as Error });
      }
      await new Promise<void>((resolve) => setImmediate(resolve)); // local databases answer synchronously: let requests in
    }
    return { total: rows.length, failed };
  }

  /**
   * Read from an org's database if the org and its database exist (archived orgs
   * included); null otherwise. A missing local file is never opened: that would
   * create an empty database as a side effect of a read.
   */
  async readExisting<T>(orgId: string, work: (db: Db<TenantSchema>) => Work<T>): Promise<T | null> {
    const db = await this.openExisting(orgId);
    return db ? await db.read(work) : null;
  }

  private async openExisting(orgId: string): Promise<OrgDatabase | null> {
    const row = await this.deps.control.read((db) => orgRow(db, orgId));
    if (!row) return null;
    const loc = orgDatabaseLocation(row.dsn, orgId);
    if (loc.kind === "local" && !existsSync(loc.location)) return null;
    return this.deps.orgDbs.get(orgId, { id: row.shard_id, dsn: row.dsn, auth_token: row.auth_token });
  }

  /**
   * A platform write to the control database (organizations, invitations)
   * whose audit entries belong to orgs' trails: `audit(orgId, ...)` records
   * them in the same transaction and `queue(...)` checks the jobs it causes;
   * after commit, cached access is dropped, the entries are delivered and the
   * jobs sent (platform/queue/enqueue.ts, as an org write's are).
   */
  async writeControl<T>(work: (tx: ControlDb, audit: RecordOrgAudit, now: string, queue: QueueControlJob) => Work<T>): Promise<T> {
    const now = nowIso();
    const audited = new Set<string>();
    const jobs: PendingJob[] = [];
    const relay = this.jobRelay;
    const result = await this.deps.control.write(function* (tx) {
      const out = yield* work(
        tx,
        function* (orgId, caller, input, event) {
          // the first audited change of an org in this write moves its access version (cache_version,
          // docs/iam/iam.md), and the first of the write the access epoch every instance watches
          if (!audited.size) yield* bumpAccessEpoch(tx);
          if (!audited.has(orgId))
            yield* run(
              tx
                .update(orgs)
                .set({ access_version: sql`${orgs.access_version} + 1` })
                .where(eq(orgs.id, orgId)),
            );
          audited.add(orgId);
          yield* recordOrgAudit(tx, orgId, caller, now, input, event);
        },
        now,
        ({ orgId, caller }, job, payload, options) =>
          jobs.push(pendingJob(job, payload, { ...options, origin: { orgId, actor: caller.actor, requestId: caller.requestId } })),
      );
      if (relay.enabled)
        yield* recordControlJobs(
          tx,
          jobs.map((j) => jobRow(j)),
          now,
        );
      return out;
    });
    // memberships, groups and orgs decide access: what was cached is stale now (never fails: committed)
    await this.deps.access.invalidate({ epochMoved: audited.size > 0 });
    for (const orgId of audited) {
      try {
        await this.outbox.deliver(orgId);
      } catch (err) {
        this.deps.logger.error({ org_id: orgId, err: (err as Error).message }, "audit outbox delivery failed");
      }
    }
    await relay.afterControlCommit(jobs.map((j) => jobRow(j)));
    return result;
  }
}

function* orgRow(db: ControlDb, orgId: string): Work<OrgRow | undefined> {
  return yield* get<OrgRow>(db.select(ORG_COLUMNS).from(orgs).innerJoin(shards, eq(orgs.shard_id, shards.id)).where(eq(orgs.id, orgId)));
}

/**
 * An OrgContext. A class, so the guard's hot path allocates one plain object per
 * request; the control handle and the commit effects are made when first used,
 * and what builds them stays in private fields no verb can reach.
 */
class OrgScope implements OrgContext {
  readonly actor: Actor;
  readonly requestId: string | null;
  readonly permissions: ReadonlySet<string> | undefined;
  readonly #caller: Caller;
  readonly #deps: OrgsDeps;
  readonly #orgs: Orgs;
  #control: OrgControl | undefined;
  #effects: CommitEffects | undefined;

  constructor(
    readonly org: OrgRecord,
    public db: OrgDatabase,
    caller: Caller & { permissions?: ReadonlySet<string> },
    deps: OrgsDeps,
    orgs: Orgs,
  ) {
    this.actor = caller.actor;
    this.requestId = caller.requestId;
    this.permissions = caller.permissions;
    this.#caller = caller;
    this.#deps = deps;
    this.#orgs = orgs;
  }

  /** Read when used: the client address is looked up lazily. */
  get ip(): string | null {
    return this.#caller.ip;
  }

  get control(): OrgControl {
    return (this.#control ??= new OrgControl(this.#orgs, this.#deps.control, this.org.id, this));
  }

  get effects(): CommitEffects {
    return (this.#effects ??= commitEffects(
      { events: this.#deps.events, relay: this.#orgs.jobRelay, auditIndex: this.#orgs.auditIndex, reactions: this.#deps.reactions },
      this.org,
    ));
  }

  async relocate(): Promise<OrgDatabase> {
    this.db = await this.#orgs.awaitMove(this.org.id);
    return this.db;
  }
}
