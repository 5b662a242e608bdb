import { join } from "node:path";
import { LocalSqlDatabase, RemoteSqlDatabase, type SqlDatabase, type WriteFence } from "./database";
import { TursoSyncDatabase, type SyncRole } from "./turso-sync";

export const MIGRATIONS = {
  control: join(import.meta.dir, "../../../db/migrations/control"),
  tenant: join(import.meta.dir, "../../../db/migrations/tenant"),
};

export type DatabaseTarget = { kind: "local" | "remote"; location: string } | { kind: "sync"; location: string; url: string };

const SYNC_PREFIX = "turso-sync:";

/**
 * A shard DSN is either `file:<directory>` (each org is `<directory>/<org_id>.db`,
 * served by the synchronous local driver), a URL template with `{db}`, served
 * by @libsql/client (libsql://, https://, or file: to exercise that path locally),
 * or `turso-sync:<directory>|<URL template with {db}>`: a replicated shard whose
 * org databases each have a tursodb sync server at the template's URL, kept as
 * local replicas `<directory>/<org_id>.db` (platform/db/turso-sync.ts).
 */
export function orgDatabaseLocation(dsn: string, orgId: string): DatabaseTarget {
  const dbName = `org_${orgId.replaceAll("-", "")}`;
  if (dsn.startsWith(SYNC_PREFIX)) {
    const [dir, template] = dsn.slice(SYNC_PREFIX.length).split("|");
    if (!dir || !template?.includes("{db}") || !/^https?:\/\//.test(template))
      throw new Error("a turso-sync shard dsn is turso-sync:<directory>|<http(s) URL template containing {db}>");
    return { kind: "sync", location: join(dir, `${orgId}.db`), url: template.replaceAll("{db}", dbName) };
  }
  if (dsn.includes("{db}")) return { kind: "remote", location: dsn.replaceAll("{db}", dbName) };
  if (!dsn.startsWith("file:")) throw new Error("shard dsn must be file:<dir> or a URL template containing {db}");
  return { kind: "local", location: join(dsn.slice("file:".length), `${orgId}.db`) };
}

/** `role`: how this instance holds replicated (turso-sync) databases: the primary region writes them, edge regions read them. */
export function openDatabase<S extends Record<string, unknown>>(
  target: DatabaseTarget,
  authToken: string | undefined,
  schema: S,
  fence?: WriteFence<S>,
  role: SyncRole = "primary",
): SqlDatabase<S> {
  if (target.kind === "sync") return new TursoSyncDatabase(target.location, target.url, role, schema, fence, authToken);
  return target.kind === "local" ? new LocalSqlDatabase(target.location, schema, fence) : new RemoteSqlDatabase(target.location, authToken, schema, fence);
}

/** The control database URL: `file:<path>` is local, anything else is remote. */
export function controlDatabaseTarget(url: string): { kind: "local" | "remote"; location: string } {
  return url.startsWith("file:") && !url.startsWith("file://") ? { kind: "local", location: url.slice("file:".length) } : { kind: "remote", location: url };
}
