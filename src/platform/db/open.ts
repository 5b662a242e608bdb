import { join } from "node:path";
import { LocalSqlDatabase, RemoteSqlDatabase, type SqlDatabase, type WriteFence } from "./database";

export const MIGRATIONS = {
  control: join(import.meta.dir, "../../../db/migrations/control"),
  tenant: join(import.meta.dir, "../../../db/migrations/tenant"),
};

/**
 * A shard DSN is either `file:<directory>` (each org is `<directory>/<org_id>.db`,
 * served by the synchronous local driver) or a URL template with `{db}`, served
 * by @libsql/client (libsql://, https://, or file: to exercise that path locally).
 */
export function orgDatabaseLocation(dsn: string, orgId: string): { kind: "local" | "remote"; location: string } {
  const dbName = `org_${orgId.replaceAll("-", "")}`;
  if (dsn.includes("{db}")) return { kind: "remote", location: dsn.replaceAll("{db}", dbName) };
  if (!dsn.startsWith("file:")) throw new Error("shard dsn must be file:<dir> or a URL template containing {db}");
  return { kind: "local", location: join(dsn.slice("file:".length), `${orgId}.db`) };
}

export function openDatabase<S extends Record<string, unknown>>(
  target: { kind: "local" | "remote"; location: string },
  authToken: string | undefined,
  schema: S,
  fence?: WriteFence<S>,
): SqlDatabase<S> {
  return target.kind === "local" ? new LocalSqlDatabase(target.location, schema, fence) : new RemoteSqlDatabase(target.location, authToken, schema, fence);
}

/** The control database URL: `file:<path>` is local, anything else is remote. */
export function controlDatabaseTarget(url: string): { kind: "local" | "remote"; location: string } {
  return url.startsWith("file:") && !url.startsWith("file://") ? { kind: "local", location: url.slice("file:".length) } : { kind: "remote", location: url };
}
