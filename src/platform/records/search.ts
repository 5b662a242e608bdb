import { gte, lte, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { invalid } from "@/platform/errors";
import { ftsLookupOf, type FtsTable } from "@/platform/db/search-index";

/**
 * The rowids an FTS5 `match` finds in `table`, as a subquery for `rowid IN (...)`:
 * from the org database's own FTS5 table, or, for a replicated database
 * (`handle` the database or its drizzle handle), from the instance's derived
 * index, whose rowids are bound as one JSON list (db/search-index.ts).
 */
export function ftsRowids(handle: unknown, table: FtsTable, match: string, bind: (value: unknown) => SQL = (v) => sql`${v}`): SQL {
  const lookup = ftsLookupOf(handle);
  if (lookup) return sql`SELECT value AS rowid FROM json_each(${bind(lookup.rowids(table, match))})`;
  const t = sql.raw(table);
  return sql`SELECT rowid FROM ${t} WHERE ${t} MATCH ${bind(match)}`;
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Case-insensitive (ASCII) substring match, with %, _ and \ in the text taken
 * literally. SQLite LIKE has no default escape character, so it is named here.
 */
export function containsText(col: SQLWrapper, text: string): SQL {
  return sql`${col} LIKE ${`%${escapeLike(text)}%`} ESCAPE '\\'`;
}

/** Case-insensitive (ASCII) prefix match, with %, _ and \ taken literally. */
export function startsWithText(col: SQLWrapper, text: string): SQL {
  return sql`${col} LIKE ${`${escapeLike(text)}%`} ESCAPE '\\'`;
}

/** True when any of the columns contains the text. */
export function anyContains(cols: SQLWrapper[], text: string): SQL {
  return or(...cols.map((c) => containsText(c, text)))!;
}

type DateRange = { date_from?: string; date_to?: string };

/** A list's inclusive date range: 422 on date_to when it is before date_from (checked before anything is looked up). */
export function checkDateRange(q: DateRange): void {
  if (q.date_from && q.date_to && q.date_to < q.date_from) throw invalid(["query", "date_to"], "Must not be before date_from");
}

/** The conditions of a list's date_from / date_to on a date column (both inclusive). */
export function withinDates(column: SQLWrapper, q: DateRange): (SQL | undefined)[] {
  return [q.date_from ? gte(column, q.date_from) : undefined, q.date_to ? lte(column, q.date_to) : undefined];
}

/** Words as SQLite's FTS5 unicode61 tokenizer sees them: runs of letters and digits. */
export function wordTokens(s: string): string[] {
  return s
    .normalize("NFC")
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** An FTS5 query matching rows that have every one of the words as a word prefix. */
export const allWordPrefixes = (tokens: string[]) => tokens.map((t) => `"${t}"*`).join(" AND ");
