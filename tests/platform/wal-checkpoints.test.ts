import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import { sql } from "drizzle-orm";
import { LocalSqlDatabase } from "@/platform/db/database";
import { run } from "@/platform/db/work";
import { BACKSTOP_PAGES, checkpoint, WAL_SIZE_LIMIT, walCheckpoints } from "@/platform/db/wal-checkpoints";
import { waitFor } from "@tests/helpers";

// WAL checkpoints run on a worker thread instead of inside a request's COMMIT
// (src/platform/db/wal-checkpoints.ts).

const dir = mkdtempSync(join(tmpdir(), "cusp-wal-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const walBytes = (path: string) => statSync(`${path}-wal`).size;
const sqliteOf = (db: LocalSqlDatabase<{}>) => (db as unknown as { sqlite: Database }).sqlite;
const insert = (db: LocalSqlDatabase<{}>, id: number, body: string) =>
  db.write(function* (tx) {
    yield* run({ run: () => tx.run(sql`INSERT INTO t (id, body) VALUES (${id}, ${body})`) });
  });

describe("WAL checkpoints off the request path", () => {
  test("the worker checkpoints a busy database: once it is quiet, the next write starts the WAL over and cuts its file back", async () => {
    expect(walCheckpoints.active).toBe(true);
    const path = join(dir, "busy.db");
    const db = new LocalSqlDatabase(path, {});
    const raw = sqliteOf(db);
    // SQLite's own checkpoint is only the backstop
    expect((raw.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint).toBe(BACKSTOP_PAGES);
    raw.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    const body = "x".repeat(1000);
    for (let i = 0; i < 1_500; i++) {
      insert(db, i, body);
      if (i % 100 === 99) await new Promise((r) => setImmediate(r));
    }
    // never as many pages as the backstop needs (written without any checkpoint, the WAL would be ~12 MB,
    // 3 times the file limit): only the worker can checkpoint it, and nothing else can cut the file back
    expect(walBytes(path)).toBeLessThan(BACKSTOP_PAGES * 4096);
    // quiet: the worker's checkpoint completes; each probe write starts the WAL over once it has
    let id = 1_500;
    await waitFor(
      () => {
        insert(db, id++, "probe");
        return walBytes(path) <= WAL_SIZE_LIMIT || null;
      },
      { timeoutMs: 5_000, intervalMs: 50 },
    );
    expect(walBytes(path)).toBeLessThanOrEqual(WAL_SIZE_LIMIT);
    expect((raw.query("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(id);
    db.close();
  });

  test("a database removed since its commit is not recreated by a checkpoint", () => {
    const path = join(dir, "removed.db");
    const db = new LocalSqlDatabase(path, {});
    sqliteOf(db).exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
    insert(db, 1, "x");
    db.close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
    expect(checkpoint(path)).toBeNull();
    expect(() => statSync(path)).toThrow();
  });
});
