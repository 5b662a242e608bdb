import { or, sql, type SQL, type SQLWrapper } from "drizzle-orm";

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
