import { join } from "node:path";
import { LocalSqlDatabase, RemoteSqlDatabase, type SqlDatabase, type WriteFence } from "./database";
import { TursoSyncDatabase } from "./turso-sync";
import { LibsqlReplicatedDatabase } from "./libsql-replica";
import type { SyncRole } from "./replication-state";

/** How this instance holds replicated (turso-sync) databases: its role, and the directory of its replicas. */
export type SyncHolding = { role: SyncRole; dir: string };

export const MIGRATIONS = {
  control: join(import.meta.dir, "../../../db/migrations/control"),
  tenant: join(import.meta.dir, "../../../db/migrations/tenant"),
};

/** `engine` of a replicated target: tursodb sync servers (turso-sync.ts) or a libSQL server with embedded replicas (libsql-replica.ts). */
export type DatabaseTarget = { kind: "local" | "remote"; location: string } | { kind: "sync"; engine: "turso" | "libsql"; location: string; url: string };

const REPLICATED = { "turso-sync:": "turso", "libsql-replica:": "libsql" } as const;

/** Whether a shard DSN names a replicated shard (its org databases have replicas at the edges). */
export const isReplicatedDsn = (dsn: string) => Object.keys(REPLICATED).some((prefix) => dsn.startsWith(prefix));

/**
 * A shard DSN is either `file:<directory>` (each org is `<directory>/<org_id>.db`,
 * served by the synchronous local driver), a URL template with `{db}`, served
 * by @libsql/client (libsql://, https://, or file: to exercise that path locally),
 * or `turso-sync:<http(s) URL template with {db}>`: a replicated shard whose org
 * databases each have a tursodb sync server at the template's URL; every
 * instance keeps its own replica of each, `<REPLICA_DIR>/<org_id>.db`
 * (`location` is that file's name; platform/db/turso-sync.ts); or
 * `libsql-replica:<URL template with {db}>`: a libSQL server (sqld, or a
 * hosted service) written by the primary region, with an embedded replica of
 * each org database at every edge (platform/db/libsql-replica.ts).
 */
export function orgDatabaseLocation(dsn: string, orgId: string): DatabaseTarget {
  const dbName = `org_${orgId.replaceAll("-", "")}`;
  for (const [prefix, engine] of Object.entries(REPLICATED)) {
    if (!dsn.startsWith(prefix)) continue;
    const template = dsn.slice(prefix.length);
    // a libSQL server may also be a file: URL (the primary's path, as the remote shards' tests use it)
    const schemes = engine === "turso" ? /^https?:\/\// : /^(libsql|https?|wss?|file):/;
    if (!template.includes("{db}") || !schemes.test(template) || !URL.canParse(template.replaceAll("{db}", "db")))
      throw new Error(
        `a ${prefix.slice(0, -1)} shard dsn is ${prefix}<${engine === "turso" ? "http(s)" : "libsql, http(s) or ws(s)"} URL template containing {db}>`,
      );
    return { kind: "sync", engine, location: `${orgId}.db`, url: template.replaceAll("{db}", dbName) };
  }
  if (dsn.includes("{db}")) return { kind: "remote", location: dsn.replaceAll("{db}", dbName) };
  if (!dsn.startsWith("file:")) throw new Error("shard dsn must be file:<dir> or a URL template containing {db}");
  return { kind: "local", location: join(dsn.slice("file:".length), `${orgId}.db`) };
}

/** `sync`: how this instance holds replicated databases (the primary region writes them, edge regions read them); required for a turso-sync target. */
export function openDatabase<S extends Record<string, unknown>>(
  target: DatabaseTarget,
  authToken: string | undefined,
  schema: S,
  fence?: WriteFence<S>,
  sync?: SyncHolding,
): SqlDatabase<S> {
  if (target.kind === "sync") {
    if (!sync) throw new Error("a replicated database needs this instance's replica directory and role");
    const file = join(sync.dir, target.location);
    return target.engine === "turso"
      ? new TursoSyncDatabase(file, target.url, sync.role, schema, fence, authToken)
      : new LibsqlReplicatedDatabase(sync.role === "primary" ? target.url : file, target.url, sync.role, schema, fence, authToken);
  }
  return target.kind === "local" ? new LocalSqlDatabase(target.location, schema, fence) : new RemoteSqlDatabase(target.location, authToken, schema, fence);
}

/** The control database URL: `file:<path>` is local, anything else is remote. */
export function controlDatabaseTarget(url: string): { kind: "local" | "remote"; location: string } {
  return url.startsWith("file:") && !url.startsWith("file://") ? { kind: "local", location: url.slice("file:".length) } : { kind: "remote", location: url };
}
