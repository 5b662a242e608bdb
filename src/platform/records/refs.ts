// References to other records as answers show them ({uuid, name}), and the
// id-to-name lookups behind them: one query per kind of record, none when
// there is nothing to look up. Archived records keep their names (a link
// stays readable).
import { getTableName } from "drizzle-orm";
import { inJsonList } from "@/platform/db/in-list";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { allPrepared, prepared, type PreparedDef, type Work } from "@/platform/db/work";
import type { Db } from "@/platform/db/database";

/** "First Last". */
export const personName = (p: { first_name: string; last_name: string }) => `${p.first_name} ${p.last_name}`;

/** A person as a reference: `{uuid, name: "First Last"}`. */
export const personRef = (p: { id: string; first_name: string; last_name: string }) => ({ uuid: p.id, name: personName(p) });

export type Names = ReadonlyMap<string, string>;
export type RefValue = { uuid: string; name: string | null };

/** `{uuid, name}` from looked-up names (name null when the id is unknown or nothing was looked up), or null without an id. */
export function ref(id: string, names?: Names): RefValue;
export function ref(id: string | null | undefined, names?: Names): RefValue | null;
export function ref(id: string | null | undefined, names?: Names): RefValue | null {
  return id ? { uuid: id, name: names?.get(id) ?? null } : null;
}

type ColumnValues<C extends Record<string, SQLiteColumn>> = { [K in keyof C]: C[K]["_"]["data"] };

/** How one kind of record is named in references: a prepared lookup by ids and the name made of a row (null: it has none). */
export type NameSource = { kind: string; byIds: PreparedDef<{ id: string }>; name: (row: any) => string | null };

/**
 * `columns` are keyed by their own column names (so the prepared select
 * answers with the driver's row objects); the ids travel as one JSON array.
 */
export function nameSource<C extends Record<string, SQLiteColumn>>(id: SQLiteColumn, columns: C, name: (row: ColumnValues<C>) => string | null): NameSource {
  const table = (id as unknown as { table: never }).table;
  const byIds = prepared<{ id: string }>((db) =>
    db
      .select({ id, ...columns })
      .from(table)
      .where(inJsonList(id, "ids"))
      .prepare(),
  );
  return { kind: getTableName(table), byIds, name };
}

/** The distinct non-null ids the rows name (through any number of fields). */
export function idsOf<R>(rows: readonly R[], ...picks: ((row: R) => string | null | undefined)[]): string[] {
  const out = new DistinctIds();
  for (const r of rows) for (const pick of picks) out.add(pick(r));
  return out.list;
}

/** Distinct non-null ids in first-seen order. References on one page are few: a scan until a Set pays. */
class DistinctIds {
  readonly list: string[] = [];
  private seen?: Set<string>;

  add(id: string | null | undefined): void {
    if (!id) return;
    if (this.seen) {
      if (this.seen.has(id)) return;
      this.seen.add(id);
    } else if (this.list.includes(id)) return;
    else if (this.list.length >= 32) this.seen = new Set([...this.list, id]);
    this.list.push(id);
  }
}

/** Names of these ids (nulls and repeats dropped). */
export function* namesOf(db: Db<any>, source: NameSource, ids: Iterable<string | null | undefined>): Work<Map<string, string>> {
  const distinct = new DistinctIds();
  for (const id of ids) distinct.add(id);
  const wanted = distinct.list;
  const out = new Map<string, string>();
  if (!wanted.length) return out;
  for (const r of yield* allPrepared(db, source.byIds, { ids: JSON.stringify(wanted) })) {
    const name = source.name(r);
    if (name !== null) out.set(r.id, name);
  }
  return out;
}

/** Several kinds at once: `{ providers: [PROVIDER, ids], ... }` gives `{ providers: Map, ... }`. */
export function* namesOfEach<K extends string>(
  db: Db<any>,
  wanted: Record<K, readonly [NameSource, Iterable<string | null | undefined>]>,
): Work<Record<K, Map<string, string>>> {
  const out = {} as Record<K, Map<string, string>>;
  for (const key of Object.keys(wanted) as K[]) out[key] = yield* namesOf(db, wanted[key][0], wanted[key][1]);
  return out;
}
