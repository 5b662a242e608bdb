// Org databases on a libSQL server with embedded replicas at the edges
// (docs/platform/edge-replicas.md, "libSQL servers"): for operators who run sqld or a
// hosted libSQL service. Shard DSN `libsql-replica:<URL template with {db}>`.
// The primary region works on the server itself, as on a remote shard, and
// raises the replication position in every write transaction; an edge keeps
// an embedded replica (@libsql/client with `syncUrl`), a local file the
// client reads and pulls into with sync(). libSQL has FTS5, so the schema and
// search are the plain ones. The freshness rules are the turso-sync shards'
// (replication-state.ts).
import { RemoteSqlDatabase, type Db, type SqlDatabase, type WriteFence, type WriteOptions } from "./database";
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
import type { Work } from "./work";

export class LibsqlReplicatedDatabase<S extends Record<string, unknown>> implements SqlDatabase<S>, Replicated {
  readonly kind = "sync" as const;
  private readonly inner?: RemoteSqlDatabase<S>;
  private readonly openError?: unknown;
  private readonly state: ReplicationState;
  onPushed?: (position: number) => void;

  /** `location`: the server's URL at the primary; the embedded replica's file at an edge, which pulls from `url`. */
  constructor(
    readonly location: string,
    url: string,
    readonly role: SyncRole,
    schema: S,
    fence?: WriteFence<S>,
    authToken?: string,
  ) {
    this.state = new ReplicationState(location, role, async () => {
      const inner = this.open();
      await inner.sync();
      return inner.read(positionNow);
    });
    try {
      this.inner =
        role === "primary" ? new RemoteSqlDatabase(url, authToken, schema, fence) : new RemoteSqlDatabase(`file:${location}`, authToken, schema, fence, url);
      // an embedded replica syncs as it is created
      if (role === "replica") this.state.synced();
    } catch (err) {
      // @libsql/client connects an embedded replica as it creates it: this one is unusable until it is opened again
      this.openError = err;
      this.state.failed(err);
    }
  }

  private open(): RemoteSqlDatabase<S> {
    if (!this.inner) throw new ReplicaUnavailable(this.location, this.openError);
    return this.inner;
  }

  async read<T>(work: (db: Db<S>) => Work<T>): Promise<T> {
    const inner = this.open();
    if (this.role === "replica") await this.state.fresh();
    return inner.read(work);
  }

  readKept<T>(_key: string, work: (db: Db<S>) => Work<T>): Promise<T> {
    return this.read(work);
  }

  async write<T>(work: (tx: Db<S>) => Work<T>, options?: WriteOptions): Promise<T> {
    if (this.role === "replica") throw new ReplicaWriteRefused(this.location);
    let position = 0;
    const result = await this.open().write(
      raisingPosition(work, (p) => (position = p)),
      options,
    );
    // the server is the shard: a commit there is what edges pull
    this.state.position = position;
    this.state.synced();
    this.onPushed?.(position);
    return result;
  }

  get replicationPosition(): number {
    return this.state.position;
  }

  catchUp(target: number, timeoutMs: number): Promise<boolean> {
    return this.state.catchUp(target, timeoutMs);
  }

  noticed(position: number): void {
    this.state.noticed(position);
  }

  status(): ReplicationStatus {
    return this.state.status();
  }

  async migrate(folder: string): Promise<void> {
    if (this.role === "replica") return this.state.pull();
    await this.open().migrate(folder);
    this.state.position = await this.open().read(positionNow);
  }

  schemaVersion(): Promise<number> {
    return this.open().schemaVersion();
  }

  ping(): Promise<void> {
    return this.open().ping();
  }

  close(): void {
    this.inner?.close();
  }
}
