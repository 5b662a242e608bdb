import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import { eq, sql } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { LocalSqlDatabase } from "@/platform/db/database";
import { insertRow, updateRowById } from "@/platform/db/prepared-writes";
import { get, run } from "@/platform/db/work";

// Inserts and by-id updates on statements prepared once per (table, columns)
// shape (src/platform/db/prepared-writes.ts) store exactly what drizzle's
// query builder stores, and fall back to the builder where a prepared
// statement would be wrong.

const dir = mkdtempSync(join(tmpdir(), "cusp-prepared-writes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const things = sqliteTable("things", {
  id: text("id").primaryKey(),
  version: integer("version").notNull(),
  name: text("name").notNull(),
  flag: integer("flag", { mode: "boolean" }),
  data: text("data", { mode: "json" }).$type<Record<string, unknown> | null>(),
  note: text("note").default("none"),
});
let counter = 0;
const stamped = sqliteTable("stamped", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  stamp: text("stamp").$defaultFn(() => `stamp-${++counter}`),
});
const schema = { things, stamped };
const DDL = `CREATE TABLE things (id TEXT PRIMARY KEY, version INTEGER NOT NULL, name TEXT NOT NULL, flag INTEGER, data TEXT, note TEXT DEFAULT 'none');
  CREATE TABLE stamped (id TEXT PRIMARY KEY, name TEXT NOT NULL, stamp TEXT);`;

function open(name: string) {
  const db = new LocalSqlDatabase(join(dir, name), schema);
  const raw = (db as unknown as { sqlite: Database }).sqlite;
  raw.exec(DDL);
  return { db, raw };
}
const stored = (raw: Database, id: string) => raw.query("SELECT id, version, name, flag, data, note FROM things WHERE id = ?").get(id);

describe("insertRow and updateRowById", () => {
  test("store the same values as the builder: booleans, JSON, nulls (SQL NULL, not 'null' or 0) and column defaults", () => {
    const { db, raw } = open("same.db");
    const rows = [
      { id: "a", version: 1, name: "A", flag: true, data: { x: [1, 2] } },
      { id: "b", version: 1, name: "B", flag: false, data: null, note: null },
      { id: "c", version: 1, name: "C", flag: null, data: undefined },
    ];
    const answers = db.write(function* (tx) {
      const out = [];
      for (const r of rows) out.push(yield* insertRow(tx, things, { ...r, id: `p-${r.id}` }, { returning: true }));
      for (const r of rows) out.push(yield* get(tx.insert(things).values(r).returning()));
      return out;
    });
    for (const r of rows) {
      expect(stored(raw, `p-${r.id}`)).toEqual({ ...(stored(raw, r.id) as object), id: `p-${r.id}` });
    }
    expect(stored(raw, "p-b")).toEqual({ id: "p-b", version: 1, name: "B", flag: 0, data: null, note: null });
    expect(stored(raw, "p-c")).toEqual({ id: "p-c", version: 1, name: "C", flag: null, data: null, note: "none" });
    // the returned rows are mapped as drizzle maps them
    for (let i = 0; i < rows.length; i++) expect(answers[i]).toEqual({ ...answers[i + rows.length]!, id: `p-${rows[i]!.id}` });
    expect(answers[0]).toEqual({ id: "p-a", version: 1, name: "A", flag: true, data: { x: [1, 2] }, note: "none" });
    db.close();
  });

  test("update by id and version: the updated row, undefined for another version or a missing id, nothing changed then", () => {
    const { db, raw } = open("update.db");
    db.write((tx) => insertRow(tx, things, { id: "u", version: 1, name: "U", flag: true, data: { a: 1 } }));
    const updated = db.write((tx) => updateRowById(tx, things, "u", { version: 2, name: "U2", data: null, flag: null }, 1));
    expect(updated).toEqual({ id: "u", version: 2, name: "U2", flag: null, data: null, note: "none" });
    expect(stored(raw, "u")).toEqual({ id: "u", version: 2, name: "U2", flag: null, data: null, note: "none" });
    expect(db.write((tx) => updateRowById(tx, things, "u", { version: 3, name: "stale" }, 1))).toBeUndefined();
    expect(db.write((tx) => updateRowById(tx, things, "nobody", { version: 3, name: "ghost" }, 2))).toBeUndefined();
    expect(stored(raw, "u")).toEqual({ id: "u", version: 2, name: "U2", flag: null, data: null, note: "none" });
    // without a version: by id alone; JSON set again
    expect(db.write((tx) => updateRowById(tx, things, "u", { data: { b: [true] } }))).toMatchObject({ version: 2, data: { b: [true] } });
    expect(stored(raw, "u")).toMatchObject({ data: '{"b":[true]}' });
    db.close();
  });

  test("one statement per shape, reused: the second write of a shape prepares nothing", () => {
    const { db, raw } = open("reuse.db");
    const compiled: string[] = [];
    for (const name of ["prepare", "query"] as const) {
      const original = raw[name].bind(raw);
      (raw as unknown as Record<string, (s: string) => unknown>)[name] = (s: string) => {
        if (s.startsWith("insert")) compiled.push(s);
        return original(s);
      };
    }
    db.write((tx) => insertRow(tx, things, { id: "r1", version: 1, name: "R1" }));
    expect(compiled).toHaveLength(1);
    db.write((tx) => insertRow(tx, things, { id: "r2", version: 1, name: "R2" }));
    expect(compiled).toHaveLength(1);
    // another set of columns is another statement
    db.write((tx) => insertRow(tx, things, { id: "r3", version: 1, name: "R3", flag: true }));
    expect(compiled).toHaveLength(2);
    expect(compiled[1]).toContain('"flag"');
    expect((raw.query("SELECT count(*) AS n FROM things").get() as { n: number }).n).toBe(3);
    db.close();
  });

  test("falls back to the builder for $defaultFn columns (computed per row, never frozen) and SQL values", () => {
    const { db, raw } = open("fallback.db");
    db.write(function* (tx) {
      yield* insertRow(tx, stamped, { id: "s1", name: "one" });
      yield* insertRow(tx, stamped, { id: "s2", name: "two" });
      yield* insertRow(tx, things, { id: "q", version: 1, name: sql`upper('quiet')` });
    });
    expect(raw.query("SELECT stamp FROM stamped ORDER BY id").all()).toEqual([{ stamp: "stamp-1" }, { stamp: "stamp-2" }]);
    expect(stored(raw, "q")).toMatchObject({ name: "QUIET" });
    db.close();
  });

  test("ignoreConflicts keeps the first row", () => {
    const { db, raw } = open("conflicts.db");
    db.write(function* (tx) {
      yield* insertRow(tx, things, { id: "k", version: 1, name: "first" }, { ignoreConflicts: true });
      yield* insertRow(tx, things, { id: "k", version: 1, name: "second" }, { ignoreConflicts: true });
    });
    expect(stored(raw, "k")).toMatchObject({ name: "first" });
    expect(() => db.write((tx) => insertRow(tx, things, { id: "k", version: 1, name: "third" }))).toThrow(/UNIQUE/);
    expect(db.read((tx) => get(tx.select().from(things).where(eq(things.id, "k"))))).toMatchObject({ name: "first" });
    // the run helper is still how a caller writes raw SQL
    db.write((tx) => run({ run: () => tx.run(sql`DELETE FROM things`) }));
    expect((raw.query("SELECT count(*) AS n FROM things").get() as { n: number }).n).toBe(0);
  });
});
