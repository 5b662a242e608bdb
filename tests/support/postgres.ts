import { SQL } from "bun";

// The local PostgreSQL the production queue tests run against
// (127.0.0.1:5432, database test, trust auth; or TEST_PG_URL). A test file asks
// once whether it answers; when it does not, the file says why and its
// PostgreSQL cases are reported as skipped, never passed.

export const PG_URL = process.env.TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** Null when PostgreSQL answers; otherwise why not. */
export async function probePostgres(url = PG_URL): Promise<string | null> {
  const sql = new SQL({ url, max: 1, connectionTimeout: 2 });
  try {
    await sql`SELECT 1`;
    return null;
  } catch (err) {
    return (err as Error).message || String(err);
  } finally {
    await sql.close().catch(() => {});
  }
}

/** Probes PostgreSQL and, when it does not answer, prints which cases of `file` are skipped and why. */
export async function postgresUnavailable(file: string, cases: string): Promise<string | null> {
  const down = await probePostgres();
  if (down) console.log(`${file}: SKIPPED ${cases}: ${PG_URL} did not answer (${down})`);
  return down;
}

/** A schema name of its own for one test file's queue (`QUEUE_DATABASE_URL=${PG_URL}?schema=…`), e.g. cusp_recall_lx2…_a1b2c3. */
export const scratchSchema = (prefix: string) => `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;

/** Drops a test's scratch schema and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const sql = new SQL({ url: PG_URL, max: 1 });
  try {
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await sql.close();
  }
}
