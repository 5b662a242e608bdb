import { mkdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import type { Client, InArgs, Row } from "@libsql/client";
import { libsql } from "@/platform/db/database";
import { orgDatabaseLocation } from "@/platform/db/open";
import type { OrgDatabase, ShardTarget } from "@/platform/db/org-databases";
import type { Maybe } from "@/platform/async/maybe";
import { run } from "@/platform/db/work";
import { orgMoveState } from "@db/tenant/move-state";
import { eq } from "drizzle-orm";

// Copying an org database to another shard (docs/admin/admin.md, "Moving an org
// between shards"). Both ends are opened through @libsql/client, which serves
// a local file (file:) and a libSQL server (libsql://, https://) alike, so one
// code path moves between any two kinds of shard. The copy is made by SQL:
// the schema from sqlite_master, then the rows of every table (rowids kept, so
// the external-content full-text indexes stay valid), then indexes and
// triggers (created last, so no trigger fires on copied rows), then the
// full-text indexes rebuilt from their content tables.

const PAGE = 500;
const BUSY_TIMEOUT_MS = 10_000;

export type MoveEnd = { client: Client; location: string; kind: "local" | "remote" };

/** Opens one end of a move: the org's database on `shard`, through @libsql/client. */
export async function openMoveEnd(orgId: string, shard: ShardTarget, create = false): Promise<MoveEnd> {
  const target = orgDatabaseLocation(shard.dsn, orgId);
  // a replicated shard's databases live in their sync servers, which the move's copy cannot write (docs/platform/edge-replicas.md)
  if (target.kind === "sync") throw new Error("orgs cannot be moved to or from a replicated shard yet");
  // a new file needs its directory (a libSQL URL on file: included, as the tests of that path use)
  const file = target.kind === "local" ? target.location : target.location.startsWith("file:") ? target.location.slice("file:".length) : null;
  if (file && create) mkdirSync(dirname(file), { recursive: true });
  const url = target.kind === "local" ? `file:${target.location}` : target.location;
  const client = libsql().createClient({ url, authToken: shard.auth_token ?? undefined, timeout: BUSY_TIMEOUT_MS });
  return { client, location: target.location, kind: target.kind };
}

/**
 * The move state of an org database, written through the org's own handle
 * (unfenced: the fence would refuse a frozen database), so that in this
 * process it waits its turn behind the handle's writes instead of
 * contending with them for the file lock.
 */
export function setMoveState(db: OrgDatabase, state: { frozen: boolean; moved_to_shard_id: string | null }, at: string): Maybe<void> {
  return db.write(
    (tx) =>
      run(
        tx
          .update(orgMoveState)
          .set({ frozen: state.frozen ? 1 : 0, moved_to_shard_id: state.moved_to_shard_id, updated_at: at })
          .where(eq(orgMoveState.id, 1)),
      ),
    {
      unfenced: true,
    },
  );
}

/** The same on the copy, through its client (nothing else has it open yet). */
export async function unfreezeCopy(target: MoveEnd, at: string): Promise<void> {
  await target.client.execute({ sql: "UPDATE org_move_state SET frozen = 0, moved_to_shard_id = NULL, updated_at = ? WHERE id = 1", args: [at] });
}

/** Remove whatever a failed or killed earlier attempt left at the target. */
export async function emptyTarget(orgId: string, shard: ShardTarget): Promise<void> {
  const loc = orgDatabaseLocation(shard.dsn, orgId);
  if (loc.kind === "local") {
    for (const suffix of ["", "-wal", "-shm", "-journal"]) rmSync(loc.location + suffix, { force: true });
    return;
  }
  const end = await openMoveEnd(orgId, shard, true);
  try {
    const objects = await end.client.execute("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND type IN ('table', 'view')");
    await end.client.execute("PRAGMA foreign_keys = OFF");
    for (const o of objects.rows) {
      // a virtual table's shadow tables go with it; dropping one twice is harmless
      await end.client.execute(`DROP ${o.type === "view" ? "VIEW" : "TABLE"} IF EXISTS ${quote(String(o.name))}`);
    }
  } finally {
    end.client.close();
  }
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

type SchemaObject = { type: string; name: string; tbl_name: string; sql: string };

/**
 * Copy every object and row of `source` into the empty `target`; answers the
 * row count of each table, checked equal on both sides. The source must not
 * change meanwhile (it is frozen).
 */
export async function copyDatabase(source: Client, target: Client): Promise<Record<string, number>> {
  const objects = (
    await source.execute("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
  ).rows as unknown as SchemaObject[];
  const virtual = objects.filter((o) => o.type === "table" && /^CREATE VIRTUAL TABLE/i.test(o.sql));
  for (const v of virtual) {
    if (!/content\s*=/i.test(v.sql)) throw new Error(`cannot move virtual table ${v.name}: only external-content full-text tables are rebuilt`);
  }
  const shadow = (name: string) => virtual.some((v) => name.startsWith(`${v.name}_`));
  const tables = objects.filter((o) => o.type === "table" && !virtual.includes(o) && !shadow(o.name));

  await target.execute("PRAGMA foreign_keys = OFF");
  for (const t of [...tables, ...virtual]) await target.execute(t.sql);
  const counts: Record<string, number> = {};
  for (const t of tables) counts[t.name] = await copyRows(source, target, t.name);
  for (const o of objects.filter((x) => x.type !== "table")) await target.execute(o.sql);
  for (const v of virtual) await target.execute(`INSERT INTO ${quote(v.name)}(${quote(v.name)}) VALUES ('rebuild')`);
  const version = (await source.execute("PRAGMA user_version")).rows[0]![0];
  await target.execute(`PRAGMA user_version = ${Number(version)}`);

  for (const t of tables) {
    const n = Number((await target.execute(`SELECT count(*) FROM ${quote(t.name)}`)).rows[0]![0]);
    if (n !== counts[t.name]) throw new Error(`copy of ${t.name}: ${n} rows at the target, ${counts[t.name]} at the source`);
  }
  return counts;
}

/** The rows of one table, a page at a time: by rowid (kept), or by the primary key of a WITHOUT ROWID table. */
async function copyRows(source: Client, target: Client, table: string): Promise<number> {
  const info = (await source.execute(`PRAGMA table_info(${quote(table)})`)).rows as unknown as { name: string; pk: number }[];
  const columns = info.map((c) => c.name);
  const keys = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
  const withoutRowid = await source.execute(`SELECT rowid FROM ${quote(table)} LIMIT 0`).then(
    () => false,
    () => true,
  );
  const cols = columns.map(quote).join(", ");
  let copied = 0;
  if (!withoutRowid) {
    const insert = `INSERT INTO ${quote(table)} (rowid, ${cols}) VALUES (${["?", ...columns.map(() => "?")].join(", ")})`;
    let last: unknown = null;
    for (;;) {
      const page = await source.execute({
        sql: `SELECT rowid, ${cols} FROM ${quote(table)}${last === null ? "" : " WHERE rowid > ?"} ORDER BY rowid LIMIT ${PAGE}`,
        args: last === null ? [] : [last as number],
      });
      if (!page.rows.length) return copied;
      await target.batch(
        page.rows.map((r) => ({ sql: insert, args: values(r, columns.length + 1) })),
        "write",
      );
      copied += page.rows.length;
      last = page.rows[page.rows.length - 1]![0];
    }
  }
  const insert = `INSERT INTO ${quote(table)} (${cols}) VALUES (${columns.map(() => "?").join(", ")})`;
  if (keys.length !== 1) {
    // a WITHOUT ROWID table keyed on several columns: small ones only here (none in the tenant schema)
    const all = await source.execute(`SELECT ${cols} FROM ${quote(table)}`);
    if (all.rows.length)
      await target.batch(
        all.rows.map((r) => ({ sql: insert, args: values(r, columns.length) })),
        "write",
      );
    return all.rows.length;
  }
  const key = quote(keys[0]!.name);
  const keyAt = columns.indexOf(keys[0]!.name);
  let last: unknown = null;
  for (;;) {
    const page = await source.execute({
      sql: `SELECT ${cols} FROM ${quote(table)}${last === null ? "" : ` WHERE ${key} > ?`} ORDER BY ${key} LIMIT ${PAGE}`,
      args: last === null ? [] : ([last] as InArgs),
    });
    if (!page.rows.length) return copied;
    await target.batch(
      page.rows.map((r) => ({ sql: insert, args: values(r, columns.length) })),
      "write",
    );
    copied += page.rows.length;
    last = page.rows[page.rows.length - 1]![keyAt];
  }
}

const values = (row: Row, n: number) => Array.from({ length: n }, (_, i) => row[i] as InArgs extends (infer V)[] ? V : never);
