import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { startTestApp, type TestApp } from "@tests/helpers";
import { staleReadsUnderLoad, twoConnections } from "./two-connections";
import { LocalSqlDatabase } from "@/platform/db/database";
import { MIGRATIONS } from "@/platform/db/open";
import { keep, keptJson } from "@/platform/db/kept";
import { locations } from "@db/tenant/practice";
import { tenantSchema } from "@db/tenant/drizzle-schema";
import { get, run } from "@/platform/db/work";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

type Db = LocalSqlDatabase<typeof tenantSchema>;
const row = (id: string, name: string) => ({ id, name, timezone: "UTC", created_at: "x", updated_at: "x", version: 1 });
const nameQuery = (id: string) => (d: Parameters<Parameters<Db["read"]>[0]>[0]) =>
  get<{ name: string }>(d.select({ name: locations.name }).from(locations).where(eq(locations.id, id)));
const keptName = (db: Db, id: string) => db.readKept(`loc:${id}`, nameQuery(id));
const plainName = (db: Db, id: string) => db.read(nameQuery(id))?.name ?? null;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function openDb(name: string): Db {
  const db = new LocalSqlDatabase(join(t.dir, name), tenantSchema);
  db.migrate(MIGRATIONS.tenant);
  return db;
}

describe("kept reads (SqlDatabase.readKept) on a local file", () => {
  test("an answer read twice unchanged is kept: the same frozen object from then on; a write on the connection drops it", async () => {
    const db = openDb("kept-own.db");
    db.write((tx) => run(tx.insert(locations).values(row("a", "first"))));
    const once = keptName(db, "a")!;
    expect(once).toEqual({ name: "first" });
    expect(Object.isFrozen(once)).toBe(false); // read once: not kept, nothing paid for it
    const first = keptName(db, "a")!;
    expect(first).toEqual({ name: "first" });
    expect(first).not.toBe(once);
    await nextTurn();
    expect(keptName(db, "a")).toBe(first); // the very same object, in a later turn too
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (first as { name: string }).name = "changed";
    }).toThrow(TypeError);
    expect(keptName(db, "a")).toEqual({ name: "first" });

    db.write((tx) => run(tx.update(locations).set({ name: "second" }).where(eq(locations.id, "a"))));
    const second = keptName(db, "a");
    expect(second).toEqual({ name: "second" });
    expect(keptName(db, "a")).toEqual({ name: "second" });
    expect(keptName(db, "a")).toBe(keptName(db, "a"));
    expect(second).not.toBe(first);
    db.close();
  });

  test("another connection's commit: an answer of the same snapshot until the turn ends, the commit from the next turn on", async () => {
    const file = "kept-other.db";
    const { reader, writer } = twoConnections(join(t.dir, file));
    writer.write((tx) => run(tx.insert(locations).values(row("b", "before"))));
    await nextTurn();
    expect(keptName(reader, "b")).toEqual({ name: "before" });
    expect(keptName(reader, "b")).toBe(keptName(reader, "b")); // kept from here on
    writer.write((tx) => run(tx.update(locations).set({ name: "after" }).where(eq(locations.id, "b"))));
    // same turn: the kept answer and an uncached read agree (one snapshot)
    expect(keptName(reader, "b")).toEqual({ name: "before" });
    expect(plainName(reader, "b")).toBe("before");
    await nextTurn();
    expect(keptName(reader, "b")).toEqual({ name: "after" });

    // the snapshot may also have been opened by a plain read first
    await nextTurn();
    expect(plainName(reader, "b")).toBe("after");
    writer.write((tx) => run(tx.update(locations).set({ name: "third" }).where(eq(locations.id, "b"))));
    expect(keptName(reader, "b")).toEqual({ name: "after" });
    await nextTurn();
    expect(keptName(reader, "b")).toEqual({ name: "third" });

    // a write straight into the file by another process (no Cusp code at all)
    const outsider = new Database(join(t.dir, file));
    outsider.exec("PRAGMA busy_timeout = 5000");
    outsider.query("UPDATE locations SET name = 'outside' WHERE id = 'b'").run();
    outsider.close();
    await nextTurn();
    expect(keptName(reader, "b")).toEqual({ name: "outside" });
    reader.close();
    writer.close();
  });

  test("inside a write transaction nothing kept is handed out or kept: the transaction's own value is read, a rolled-back one never handed out", () => {
    const db = openDb("kept-tx.db");
    db.write((tx) => run(tx.insert(locations).values(row("c", "committed"))));
    keptName(db, "c");
    expect(keptName(db, "c")).toBe(keptName(db, "c")); // kept before the write begins
    expect(() =>
      db.write(function* (tx) {
        yield* run(tx.update(locations).set({ name: "rolled back" }).where(eq(locations.id, "c")));
        expect(keptName(db, "c")).toEqual({ name: "rolled back" }); // reads through the transaction
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(keptName(db, "c")).toEqual({ name: "committed" });
    db.close();
  });

  test("a read that fails is not kept, and the kept answers stay bounded", () => {
    const db = openDb("kept-bounds.db");
    db.write((tx) => run(tx.insert(locations).values(row("d", "dee"))));
    expect(() =>
      db.readKept("loc:d", () => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(keptName(db, "d")).toEqual({ name: "dee" });
    for (let i = 0; i < 600; i++) db.readKept(`other:${i}`, nameQuery("d"));
    expect((db as unknown as { kept: Map<string, unknown> }).kept.size).toBe(256);
    expect(keptName(db, "d")).toEqual({ name: "dee" });
    db.close();
  });

  test("a request sent after another connection committed gets the commit from a kept read, under concurrent load", async () => {
    const { reader: served, writer } = twoConnections(join(t.dir, "kept-causal.db"));
    writer.write((tx) => run(tx.insert(locations).values(row("e", "0"))));
    const stale = await staleReadsUnderLoad(
      () => keptName(served, "e")?.name ?? "none",
      (i) =>
        writer.write((tx) =>
          run(
            tx
              .update(locations)
              .set({ name: String(i) })
              .where(eq(locations.id, "e")),
          ),
        ),
    );
    expect(stale).toEqual([]);
    served.close();
    writer.close();
  });
});

describe("kept answers over HTTP", () => {
  test("keptJson is the answer's JSON text, worked out when it is kept; other values have none", () => {
    const value = keep({ id: "x", nested: { list: [1, "two", null] }, when: "2026-01-01" });
    expect(keptJson(value)).toBe(JSON.stringify({ id: "x", nested: { list: [1, "two", null] }, when: "2026-01-01" }));
    expect(keptJson(value)).toBe(keptJson(value)!);
    expect(keep(value)).toBe(value); // keeping it again changes nothing
    expect(Object.isFrozen((value as { nested: { list: unknown[] } }).nested.list)).toBe(true);
    expect(keptJson({ id: "x" })).toBeUndefined();
    expect(keptJson("text")).toBeUndefined();
    expect(keptJson(null)).toBeUndefined();
  });

  test("GET by id answers the same bytes and headers as before; PATCH, archive and another process's write show at once", async () => {
    const token = await t.adminToken();
    const org = await t.createOrg(token);
    const P = `/api/v1/${org.id}`;
    const created = await t.request("POST", `${P}/locations`, { token, body: { name: "Main", timezone: "America/Chicago" } });
    expect(created.status).toBe(201);
    const url = `${P}/locations/${created.body.id}`;
    const rawGet = () => t.request("GET", url, { token });

    const first = await rawGet();
    const second = await rawGet();
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("application/json;charset=utf-8");
    expect(first.headers.get("etag")).toBe('"1"');
    expect(second.text).toBe(first.text);
    expect(second.headers.get("etag")).toBe('"1"');
    expect(first.text).toBe(created.text); // the create answer is serialized by Elysia, the read from the kept text

    const patched = await t.request("PATCH", url, { token, body: { name: "Renamed", base_version: 1 } });
    expect(patched.status).toBe(200);
    const afterPatch = await rawGet();
    expect(afterPatch.headers.get("etag")).toBe('"2"');
    expect(afterPatch.text).toBe(patched.text);

    const file = join(t.dir, "shards", "local", `${org.id}.db`);
    const outsider = new Database(file);
    outsider.exec("PRAGMA busy_timeout = 5000");
    outsider.query("UPDATE locations SET name = 'Outside', version = 3 WHERE id = ?").run(created.body.id);
    outsider.close();
    await nextTurn(); // a request of a later turn (over HTTP, every request arrives in one)
    const afterOutside = await rawGet();
    expect(afterOutside.headers.get("etag")).toBe('"3"');
    expect(afterOutside.body.name).toBe("Outside");

    const archived = await t.request("POST", `${url}/archive`, { token });
    expect(archived.status).toBe(200);
    const gone = await rawGet();
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ detail: "Location not found", code: "not_found" });
  });
});
