import { sql, type SQL, type SQLWrapper } from "drizzle-orm";

/**
 * `column IN (...)` for a prepared statement: the values travel as one JSON
 * array in the placeholder `name` (pass `JSON.stringify(values)`), so one
 * compiled statement serves any number of them.
 */
export const inJsonList = (column: SQLWrapper, name: string): SQL => sql`${column} IN (SELECT value FROM json_each(${sql.placeholder(name)}))`;
