// Inserts and by-id updates through statements compiled once per connection.
// Building a write's SQL text with drizzle's query builder costs more than
// SQLite's own work on a small row (tens of µs a statement: the builder walks
// every column of the table and every SQL chunk), and the shared mechanisms
// (a resource's create and update, the audit row, the audit index row) run
// on every write. The statement's text depends only on the table and the
// columns written, so each (table, columns) shape is prepared once, with one
// placeholder per column. The values are encoded here as the builder encodes
// them (the column's mapToDriverValue, never for null), so what is stored is
// what the builder would store.
import { and, eq, getTableColumns, getTableName, is, sql, SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { get, getPrepared, prepared, run, runPrepared, type PreparedDef, type Work } from "./work";

/**
 * Past this many shapes a write is built as before (the shapes come from code,
 * not from input, so this bound is never reached in practice; it only keeps a
 * mistake from growing the cache without end).
 */
const MAX_SHAPES = 2_000;
const shapes = new Map<string, PreparedDef<unknown>>();

/**
 * Tables with a column computed by JavaScript at build time ($defaultFn,
 * $onUpdateFn): a prepared statement would freeze that value, so their writes
 * are always built.
 */
const computedColumns = new WeakMap<SQLiteTable, boolean>();
function hasComputedColumns(table: SQLiteTable): boolean {
  let has = computedColumns.get(table);
  if (has === undefined) {
    has = Object.values(getTableColumns(table)).some((c) => {
      const col = c as SQLiteColumn & { defaultFn?: unknown; onUpdateFn?: unknown };
      return !!col.defaultFn || !!col.onUpdateFn;
    });
    computedColumns.set(table, has);
  }
  return has;
}

/**
 * The defined keys of `values` (drizzle treats undefined as "not given") and
 * the statement's arguments, each value encoded by its column as the builder
 * would; null when a value is SQL, or encodes to SQL, or names no column (the
 * builder handles those).
 */
function encoded(
  table: SQLiteTable,
  values: Record<string, unknown>,
  extra?: Record<string, unknown>,
): { keys: string[]; args: Record<string, unknown> } | null {
  if (hasComputedColumns(table)) return null;
  const columns = getTableColumns(table) as Record<string, SQLiteColumn>;
  const keys: string[] = [];
  const args: Record<string, unknown> = extra ? { ...extra } : {};
  for (const k in values) {
    const v = values[k];
    if (v === undefined) continue;
    const column = columns[k];
    if (!column || is(v, SQL)) return null;
    const driverValue = v === null ? null : column.mapToDriverValue(v);
    if (is(driverValue, SQL)) return null;
    keys.push(k);
    args[k] = driverValue;
  }
  return keys.length ? { keys, args } : null;
}

function shapeOf(kind: string, table: SQLiteTable, keys: string[], build: () => PreparedDef<unknown>): PreparedDef<unknown> | undefined {
  const key = `${kind}:${getTableName(table)}:${keys.join(",")}`;
  let def = shapes.get(key);
  if (!def && shapes.size < MAX_SHAPES) {
    def = build();
    shapes.set(key, def);
  }
  return def;
}

/** One placeholder per column, as SQL (not a value), so drizzle binds the arguments as they are: they are encoded already. */
const placeholders = (keys: string[]) => Object.fromEntries(keys.map((k) => [k, sql`${sql.placeholder(k)}`]));

type InsertOptions = { returning?: boolean; ignoreConflicts?: boolean };

/** INSERT one row; `returning`: answer the stored row as drizzle maps it; `ignoreConflicts`: ON CONFLICT DO NOTHING. */
export function insertRow<R>(db: any, table: SQLiteTable, values: Record<string, unknown>, options: InsertOptions & { returning: true }): Work<R>;
export function insertRow(db: any, table: SQLiteTable, values: Record<string, unknown>, options?: InsertOptions & { returning?: false }): Work<void>;
export function* insertRow<R>(db: any, table: SQLiteTable, values: Record<string, unknown>, options: InsertOptions = {}): Work<R | void> {
  const { returning = false, ignoreConflicts = false } = options;
  const build = (d: any, row: Record<string, unknown>) => {
    let q = d.insert(table).values(row);
    if (ignoreConflicts) q = q.onConflictDoNothing();
    return returning ? q.returning() : q;
  };
  const given = encoded(table, values);
  const kind = `insert${returning ? "-returning" : ""}${ignoreConflicts ? "-ignore" : ""}`;
  const def = given && shapeOf(kind, table, given.keys, () => prepared((d: any) => build(d, placeholders(given.keys)).prepare()));
  if (!def) {
    if (returning) return (yield* get(build(db, values))) as R;
    return yield* run(build(db, values));
  }
  if (returning) return (yield* getPrepared(db, def, given.args)) as R;
  yield* runPrepared(db, def, given.args);
}

/**
 * UPDATE the row with this id (and this version, when given), answering the
 * updated row, or undefined when no row matched (missing, or another version).
 */
export function* updateRowById<R>(db: any, table: SQLiteTable, id: string, set: Record<string, unknown>, version?: number): Work<R | undefined> {
  const columns = getTableColumns(table) as Record<string, SQLiteColumn>;
  const where = (idValue: unknown, versionValue: unknown): SQL =>
    versionValue === undefined ? eq(columns.id!, idValue) : and(eq(columns.id!, idValue), eq(columns.version!, versionValue))!;
  const given = encoded(table, set, version === undefined ? { $id: id } : { $id: id, $version: version });
  const def =
    given &&
    shapeOf(version === undefined ? "update-by-id" : "update-by-id-version", table, given.keys, () =>
      prepared((d: any) =>
        d
          .update(table)
          .set(placeholders(given.keys))
          .where(where(sql.placeholder("$id"), version === undefined ? undefined : sql.placeholder("$version")))
          .returning()
          .prepare(),
      ),
    );
  if (!def) return (yield* get(db.update(table).set(set).where(where(id, version)).returning())) as R | undefined;
  return (yield* getPrepared(db, def, given.args)) as R | undefined;
}
