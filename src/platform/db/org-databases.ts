import { eq } from "drizzle-orm";
import { existsSync } from "node:fs";
import { openDatabase, orgDatabaseLocation, MIGRATIONS, type SyncHolding } from "./open";
import { OnlyAtPrimary, type Replicated } from "./replication-state";
import { ServiceUnavailable } from "@/platform/errors";
import { expectedSchemaVersion, LocalSqlDatabase, type SqlDatabase } from "./database";
import { tenantSchema, type TenantSchema } from "@db/tenant/drizzle-schema";
import { appliedSeeds } from "@db/tenant/seeds";
import { ORG_SEEDS } from "@db/seeds";
import type { OrgSeed } from "@db/seeds/seed";
import { orgMoveState } from "@db/tenant/move-state";
import { OrgMoving } from "@/platform/errors";
import type { Db } from "./database";
import { all, getPrepared, prepared, run, type Work } from "./work";
import { then } from "@/platform/async/maybe";

export type OrgDatabase = SqlDatabase<TenantSchema>;

/**
 * The move fence (docs/admin/admin.md, "Moving an org between shards"): every write
 * transaction of an org database first reads org_move_state; a database frozen
 * for a move refuses the write (OrgMoving) before anything is written, so no
 * write can land in a database whose copy is being made or has been made.
 */
export function* moveFence(tx: Db<TenantSchema>): Work<void> {
  const state = yield* getPrepared(tx, moveState, {});
  if (state?.frozen) throw new OrgMoving(state.moved_to_shard_id);
}

// compiled once per connection: building the query's SQL text on every write cost ~40 µs (docs/operations/performance.md)
const moveState = prepared<{ frozen: number; moved_to_shard_id: string | null }>((db) =>
  db.select({ frozen: orgMoveState.frozen, moved_to_shard_id: orgMoveState.moved_to_shard_id }).from(orgMoveState).where(eq(orgMoveState.id, 1)).prepare(),
);
/** Ticks per idle period: a handle is closed between IDLE_TICKS and IDLE_TICKS + 1 ticks (1 to 1.25 idle periods) after its last use. */
const IDLE_TICKS = 4;

export type ShardTarget = { id: string; dsn: string; auth_token: string | null };

/**
 * Org databases, opened lazily and kept in a bounded LRU cache so that file
 * handles stay flat however many orgs a process serves. Eviction closes the
 * least recently used handle; local work is synchronous, so nothing is mid-query.
 */
export class OrgDatabases {
  private readonly open = new Map<string, OrgDatabase>();
  /** The shard each open handle is on: a handle on another shard than the org's is closed (the org moved). */
  private readonly shardOf = new Map<string, string>();
  readonly tenantSchemaVersion = expectedSchemaVersion(MIGRATIONS.tenant);
  private readonly pending = new Map<string, Promise<OrgDatabase>>();
  /**
   * Orgs whose database this process has migrated and seeded. A handle closed
   * by the bound and opened again skips both checks (about 1 ms of the 5 ms a
   * reopen costs: docs/operations/performance.md); evict() forgets the org, since its
   * file may have been replaced.
   */
  private readonly checked = new Set<string>();
  /** The org last moved to (or added at) the young end of `open`. */
  private newest: string | undefined;
  /**
   * Idle handles (docs/operations/performance.md, "Memory"): each sweep tick
   * notes every open handle's use counter (SqlDatabase.uses, one integer
   * increment per read or write, so requests pay nothing more and a long job
   * keeps its handle open). A handle unchanged for a tick gives back its
   * caches; one unchanged for IDLE_TICKS ticks is closed, and opened again on
   * its org's next request (~2 ms).
   */
  private tick = 0;
  private readonly seen = new Map<string, { uses: number; tick: number; released: boolean }>();
  private sweeper?: ReturnType<typeof setInterval>;
  /** Called once per org the first time this process opens (and checks) its database. */
  onFirstOpen?: (orgId: string, db: OrgDatabase) => void;
  /** Called once per org the first time this edge process opens its replica (never written: no onFirstOpen work). */
  onFirstReplicaOpen?: (orgId: string, db: OrgDatabase) => void;
  /** A replicated database's push reached its shard (replication-notices.ts). */
  onPushed?: (orgId: string, position: number) => void;

  constructor(
    private readonly capacity: number,
    private readonly seeds: readonly OrgSeed[] = ORG_SEEDS,
    /** How this instance holds replicated (turso-sync) org databases: written here (primary region) or only read (edge), and where its replicas are. */
    readonly sync: SyncHolding = { role: "primary", dir: "./data/replicas" },
    /** Close handles unused this long (ORG_DB_IDLE_SECONDS); 0 keeps them until the bound evicts them. */
    idleSeconds = 0,
  ) {
    if (idleSeconds > 0) {
      this.sweeper = setInterval(() => this.sweepIdle(), (idleSeconds * 1000) / IDLE_TICKS);
      this.sweeper.unref();
    }
  }

  /**
   * One tick of the idle sweep: handles unused since the last tick give back
   * their caches, handles unused for IDLE_TICKS ticks are closed. Replicated
   * (turso-sync) handles stay open: their replication status feeds /api/health.
   * Local work is synchronous and remote close() waits for queries in flight,
   * so nothing is closed under a query.
   */
  sweepIdle(): { released: number; closed: number } {
    const tick = ++this.tick;
    let released = 0;
    let closed = 0;
    for (const [orgId, db] of this.open) {
      if (db.kind === "sync" || this.pending.has(orgId)) continue;
      const uses = db.uses ?? 0;
      const seen = this.seen.get(orgId);
      if (!seen || seen.uses !== uses) {
        this.seen.set(orgId, { uses, tick, released: false });
      } else if (tick - seen.tick >= IDLE_TICKS) {
        this.drop(orgId);
        closed++;
      } else if (!seen.released) {
        db.releaseMemory?.();
        seen.released = true;
        released++;
      }
    }
    return { released, closed };
  }

  get size(): number {
    return this.open.size;
  }

  /** The org's database if this process has it open (never opens one). */
  peek(orgId: string): OrgDatabase | undefined {
    return this.open.get(orgId);
  }

  /** The open handles of replicated (turso-sync) org databases: their replication status feeds /api/health. */
  replicated(): (OrgDatabase & Replicated)[] {
    return [...this.open.values()].filter((db): db is OrgDatabase & Replicated => db.kind === "sync");
  }

  /** Create (or open) the org's database on its shard and bring its schema up to date. */
  async provision(orgId: string, shard: ShardTarget): Promise<OrgDatabase> {
    const db = this.connect(orgId, shard);
    await db.migrate(MIGRATIONS.tenant);
    await this.seed(db);
    this.checked.add(orgId);
    return db;
  }

  /** Apply the starter-data seeds this database has not received yet (db/seeds). */
  private seed(db: OrgDatabase) {
    const seeds = this.seeds;
    if (seeds.length === 0) return;
    // read first: a database with every seed (the common case, and a database frozen for a move) is not written
    const missing = (done: { name: string }[]) => seeds.some((s) => !done.some((d) => d.name === s.name));
    return then(
      db.read((d) => all<{ name: string }>(d.select({ name: appliedSeeds.name }).from(appliedSeeds))),
      (done) => (missing(done) ? this.applySeeds(db) : undefined),
    );
  }

  private applySeeds(db: OrgDatabase) {
    const seeds = this.seeds;
    return db.write(function* (tx) {
      const done = new Set((yield* all<{ name: string }>(tx.select({ name: appliedSeeds.name }).from(appliedSeeds))).map((r) => r.name));
      const now = new Date().toISOString();
      for (const seed of seeds) {
        if (done.has(seed.name)) continue;
        yield* seed.run(tx, now);
        yield* run(tx.insert(appliedSeeds).values({ name: seed.name, applied_at: now }));
      }
    });
  }

  /**
   * The org's database; migrates on first open when the code expects a newer
   * schema. A local file that does not exist is an error, never silently
   * recreated empty: only provision() creates databases.
   */
  get(orgId: string, shard: ShardTarget): OrgDatabase | Promise<OrgDatabase> {
    let hit = this.open.get(orgId);
    if (hit && this.shardOf.get(orgId) !== shard.id) {
      this.evict(orgId);
      hit = undefined;
    }
    if (hit) {
      // move it to the young end, unless it is there already (the common case under load)
      if (this.newest !== orgId) {
        this.open.delete(orgId);
        this.open.set(orgId, hit);
        this.newest = orgId;
      }
      return hit;
    }
    const target = orgDatabaseLocation(shard.dsn, orgId);
    // an edge reads replicated and remote shards; a local-file shard is the primary's alone
    if (target.kind === "local" && this.sync.role === "replica") throw new OnlyAtPrimary(target.location);
    if (target.kind === "local" && !existsSync(target.location)) throw new ServiceUnavailable("The organization's database is unavailable");
    const db = this.connect(orgId, shard);
    if (this.checked.has(orgId)) return db;
    if (db instanceof LocalSqlDatabase) {
      if (db.userVersion() < this.tenantSchemaVersion) db.migrate(MIGRATIONS.tenant);
      this.seed(db);
      this.checked.add(orgId);
      this.onFirstOpen?.(orgId, db);
      return db;
    }
    let p = this.pending.get(orgId);
    if (!p) {
      p = (async () => {
        try {
          // (an edge's replica "migrates" by pulling: the primary migrates and seeds, and the replica is never written)
          if ((await db.schemaVersion()) < this.tenantSchemaVersion) await db.migrate(MIGRATIONS.tenant);
          if (db.kind === "sync" && this.sync.role === "replica") {
            if ((await db.schemaVersion()) < this.tenantSchemaVersion) throw new ServiceUnavailable("The organization's database is being upgraded", 1);
            this.checked.add(orgId);
            this.onFirstReplicaOpen?.(orgId, db);
            return db;
          }
          await this.seed(db);
          this.checked.add(orgId);
          this.onFirstOpen?.(orgId, db);
          return db;
        } catch (err) {
          this.evict(orgId); // never hand out a handle whose schema was not checked
          throw err;
        }
      })().finally(() => this.pending.delete(orgId));
      this.pending.set(orgId, p);
    }
    return p;
  }

  private connect(orgId: string, shard: ShardTarget): OrgDatabase {
    const existing = this.open.get(orgId);
    if (existing) return existing;
    const db = openDatabase(orgDatabaseLocation(shard.dsn, orgId), shard.auth_token ?? undefined, tenantSchema, moveFence, this.sync);
    if (db.kind === "sync") (db as unknown as Replicated).onPushed = (position) => this.onPushed?.(orgId, position);
    this.open.set(orgId, db);
    this.shardOf.set(orgId, shard.id);
    this.newest = orgId;
    while (this.open.size > this.capacity) this.drop(this.open.keys().next().value as string);
    return db;
  }

  /** Closes the org's handle; the org stays checked, so its next open skips the schema and seed checks. */
  private drop(orgId: string): void {
    this.open.get(orgId)?.close();
    this.open.delete(orgId);
    this.shardOf.delete(orgId);
    this.seen.delete(orgId);
    if (this.newest === orgId) this.newest = undefined;
  }

  /** Forget an org's handle (e.g. after its database was removed). */
  evict(orgId: string): void {
    this.drop(orgId);
    this.checked.delete(orgId);
  }

  closeAll(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    for (const db of this.open.values()) db.close();
    this.open.clear();
    this.shardOf.clear();
    this.seen.clear();
    this.checked.clear();
    this.newest = undefined;
  }
}
