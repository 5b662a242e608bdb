// What an instance knows of one replicated org database (docs/platform/edge-replicas.md):
// the replication position it holds, when it last synced with the shard, and,
// for an edge's replica, when a read may be answered from it. Shared by the
// turso sync engine's databases (turso-sync.ts) and libSQL embedded replicas
// (libsql-replica.ts): only how a pull is made differs.

import { eq, sql } from "drizzle-orm";
import { replicationPosition } from "@db/tenant/replication-position";
import type { Db } from "./database";
import { get, type Work } from "./work";

export type SyncRole = "primary" | "replica";

const P = replicationPosition;

/** The replication position the database holds (0 before the migration that creates it: an empty replica). */
export function* positionNow(db: Db<any>): Work<number> {
  return (yield* get<{ position: number }>(db.select({ position: P.position }).from(P).where(eq(P.id, 1))))?.position ?? 0;
}

/** `work`, then the position raised by one in the same transaction; `raised` is told the new position. */
export function raisingPosition<S extends Record<string, unknown>, T>(work: (tx: Db<S>) => Work<T>, raised: (position: number) => void) {
  return function* (tx: Db<S>): Work<T> {
    const value = yield* work(tx);
    const row = yield* get<{ position: number }>(
      tx
        .update(P)
        .set({ position: sql`${P.position} + 1` })
        .where(eq(P.id, 1))
        .returning({ position: P.position }),
    );
    raised(row?.position ?? 0);
    return value;
  };
}

/** A replica read waits for a pull first when the last one is older than this. */
export const MAX_STALENESS_MS = 1_000;
/** A replica read starts a pull in the background when the last one is older than this. */
export const REFRESH_MS = 100;

/** A replica that could not pull from its shard in time: the read is sent to the primary instead. */
export class ReplicaUnavailable extends Error {
  constructor(location: string, cause: unknown) {
    super(`the replica ${location} could not pull from its shard: ${(cause as Error)?.message ?? cause}`);
  }
}

/**
 * An org database an edge does not hold: one on a local-file shard lives on
 * the primary's disk only, so the edge sends the request to the primary.
 */
export class OnlyAtPrimary extends Error {
  constructor(location: string) {
    super(`${location} is on the primary's disk: not readable from an edge`);
  }
}

/** A write asked of an edge replica: edge instances send writes to the primary (platform/http/edge.ts), never here. */
export class ReplicaWriteRefused extends Error {
  constructor(location: string) {
    super(`the replica ${location} is read-only: writes go to the shard's primary`);
  }
}

export type ReplicationStatus = {
  role: SyncRole;
  /** The replication position this instance holds (the primary: its last commit; a replica: the last it pulled). */
  position: number;
  /** When the last pull (replica) or push (primary) succeeded, ms since the epoch; null if never. */
  synced_at: number | null;
  /** The last sync error since the last success, if any. */
  error: string | null;
  /** Commits of this primary not yet taken by the shard (0 on a replica). */
  unpushed: number;
};

/** The replicated handles the edge mechanism and health reports work with, whichever engine keeps them. */
export interface Replicated {
  readonly kind: "sync";
  readonly role: SyncRole;
  readonly replicationPosition: number;
  catchUp(target: number, timeoutMs: number): Promise<boolean>;
  noticed(position: number): void;
  status(): ReplicationStatus;
  /** Called with each position the shard has taken from this primary (replication notices). */
  onPushed?: (position: number) => void;
}

export class ReplicationState {
  position = 0;
  syncedAt: number | null = null;
  error: string | null = null;
  /** Commits of this primary the shard has not taken yet. */
  unpushed = 0;
  private pulling?: Promise<void>;

  /** `pullOnce` brings the replica forward and answers the position it then holds. */
  constructor(
    readonly location: string,
    readonly role: SyncRole,
    private readonly pullOnce: () => Promise<number>,
  ) {}

  synced(): void {
    this.syncedAt = Date.now();
    this.error = null;
  }

  failed(err: unknown): void {
    this.error = (err as Error)?.message ?? String(err);
  }

  /** Pulls the shard's changes (one pull at a time; callers share it); a failure is a ReplicaUnavailable. */
  pull(): Promise<void> {
    this.pulling ??= (async () => {
      try {
        this.position = await this.pullOnce();
        this.synced();
      } catch (err) {
        this.failed(err);
        throw new ReplicaUnavailable(this.location, err);
      }
    })().finally(() => {
      this.pulling = undefined;
    });
    return this.pulling;
  }

  /** The shard holds `position` (a replication notice): a replica behind it pulls now instead of at its next read. */
  noticed(position: number): void {
    if (this.role === "replica" && position > this.position) this.pull().catch(() => undefined);
  }

  /** Before a replica read: wait for a pull when the last is too old, start one in the background when it is getting old. */
  async fresh(): Promise<void> {
    const age = this.syncedAt === null ? Infinity : Date.now() - this.syncedAt;
    if (age > MAX_STALENESS_MS) await this.pull();
    else if (age > REFRESH_MS && !this.pulling) this.pull().catch(() => undefined);
  }

  /** Pulls until the replica holds `target` (a position the primary answered a write with) or `timeoutMs` has passed; true when it does. */
  async catchUp(target: number, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.position < target) {
      if (Date.now() >= deadline) return false;
      try {
        await Promise.race([this.pull(), Bun.sleep(Math.max(1, deadline - Date.now()))]);
      } catch {
        await Bun.sleep(Math.min(25, Math.max(0, deadline - Date.now())));
      }
    }
    return true;
  }

  status(): ReplicationStatus {
    return { role: this.role, position: this.position, synced_at: this.syncedAt, error: this.error, unpushed: this.unpushed };
  }
}
