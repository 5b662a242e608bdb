import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { fdsUnder, openFds } from "@tests/support/file-descriptors";
import { join } from "node:path";
import { startTestApp, type TestApp } from "@tests/helpers";
import { staleReadsUnderLoad, twoConnections } from "./two-connections";
import { OrgDatabases } from "@/platform/db/org-databases";
import { RemoteSqlDatabase, LocalSqlDatabase } from "@/platform/db/database";
import { MIGRATIONS } from "@/platform/db/open";
import { locations } from "@db/tenant/practice";
import { tenantSchema } from "@db/tenant/drizzle-schema";
import { all, get, run } from "@/platform/db/work";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";
import { eq, count, sql } from "drizzle-orm";
import { shards as shardsTable } from "@db/control/schema";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe("org databases", () => {
  test("file handles stay flat after 10,000 transactions over 200 org databases", async () => {
    const shard = { id: "s", dsn: `file:${join(t.dir, "fd-shard")}`, auth_token: null };
    const dbs = new OrgDatabases(32);
    const orgIds = Array.from({ length: 200 }, () => Bun.randomUUIDv7());
    for (const id of orgIds) await dbs.provision(id, shard);
    const warm = openFds();
    const shardFds: number[] = [];
    for (let i = 0; i < 10_000; i++) {
      if (i % 1_000 === 999) shardFds.push(fdsUnder(join(t.dir, "fd-shard")));
      const orgId = orgIds[Math.floor(i / 50)]!; // bursts of 50 per org: 200 opens, 168 evictions
      const db = (await dbs.get(orgId, shard)) as LocalSqlDatabase<typeof tenantSchema>;
      const ctx = t.rt.orgs.context({ id: orgId, name: "x", slug: "x", status: "active", shard }, db, {
        actor: { type: "internal", id: "internal", display_name: "t" },
        requestId: null,
        ip: null,
      });
      await withTransaction(ctx, (s) => locationRecords.create(s, { name: `L${i}`, timezone: "UTC" }));
    }
    const after = openFds();
    expect(dbs.size).toBe(32);
    // each open database holds the file plus its WAL and shared-memory files, and at most one more:
    // a checkpoint connection (db/wal-checkpoints.ts) closed while this one held a lock leaves its
    // descriptor to SQLite until the next open or the last close of that file
    expect(Math.max(...shardFds)).toBeLessThanOrEqual(4 * 32);
    expect(Math.min(...shardFds)).toBeGreaterThanOrEqual(3 * 31);
    expect(after - warm).toBeLessThanOrEqual(3 + 32);
    const sample = (await dbs.get(orgIds[0]!, shard)) as LocalSqlDatabase<typeof tenantSchema>;
    expect(sample.read((db) => get<{ n: number }>(db.select({ n: count() }).from(locations)))!.n).toBe(50);
    expect(sample.read((db) => get<{ name: string }>(db.select({ name: locations.name }).from(locations).orderBy(locations.name).limit(1)))!.name).toBe("L0");
    dbs.closeAll();
  }, 120_000);

  test("databases use WAL, a busy timeout and foreign keys, and record their schema version", async () => {
    const org = await t.createOrg();
    const db = (await t.rt.orgDbs.get(org.id, (await t.rt.access.org(org.id))!.shard)) as LocalSqlDatabase<typeof tenantSchema>;
    const raw = db.raw;
    expect((raw.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode).toBe("wal");
    expect((raw.query("PRAGMA busy_timeout").get() as { timeout: number }).timeout).toBe(5000);
    expect((raw.query("PRAGMA foreign_keys").get() as { foreign_keys: number }).foreign_keys).toBe(1);
    const expected = JSON.parse(await Bun.file(`${MIGRATIONS.tenant}/meta/_journal.json`).text()).entries.length;
    expect(db.schemaVersion()).toBe(expected);
    expect(db.userVersion()).toBe(expected);
    expect(readdirSync(join(t.dir, "shards", "local"))).toContain(`${org.id}.db`);
  });

  test("a write that fails midway rolls back completely", async () => {
    const db = new LocalSqlDatabase(join(t.dir, "rollback.db"), tenantSchema);
    db.migrate(MIGRATIONS.tenant);
    expect(() =>
      db.write(function* (tx) {
        yield* run(tx.insert(locations).values({ id: "a", name: "A", timezone: "UTC", created_at: "x", updated_at: "x", version: 1 }));
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(db.read((d) => all(d.select().from(locations)))).toEqual([]);
    db.close();
  });
});

describe("reads share one read transaction per event-loop turn", () => {
  const row = (id: string, name: string) => ({ id, name, timezone: "UTC", created_at: "x", updated_at: "x", version: 1 });
  const readName = (db: LocalSqlDatabase<typeof tenantSchema>, id: string) =>
    db.read((d) => get<{ name: string }>(d.select({ name: locations.name }).from(locations).where(eq(locations.id, id))))?.name ?? null;

  test("a write on the connection ends the turn's snapshot: the next read sees it", () => {
    const db = new LocalSqlDatabase(join(t.dir, "own-writes.db"), tenantSchema);
    db.migrate(MIGRATIONS.tenant);
    expect(readName(db, "a")).toBeNull(); // opens the turn's read transaction
    db.write((tx) => run(tx.insert(locations).values(row("a", "first"))));
    expect(readName(db, "a")).toBe("first");
    db.write((tx) => run(tx.update(locations).set({ name: "second" }).where(eq(locations.id, "a"))));
    expect(readName(db, "a")).toBe("second");
    // a read nested in a write reads through the write's own transaction
    expect(
      db.write(function* (tx) {
        yield* run(tx.update(locations).set({ name: "third" }).where(eq(locations.id, "a")));
        return readName(db, "a");
      }),
    ).toBe("third");
    db.close();
  });

  test("another connection's commit is visible from the next turn on, and a failed read does not leave the snapshot stuck", async () => {
    const { reader, writer } = twoConnections(join(t.dir, "other-writer.db"));
    expect(readName(reader, "b")).toBeNull();
    writer.write((tx) => run(tx.insert(locations).values(row("b", "from another process"))));
    expect(readName(reader, "b")).toBeNull(); // same turn: the snapshot taken before the commit
    expect(() =>
      reader.read(() => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    await new Promise((resolve) => setImmediate(resolve));
    expect(readName(reader, "b")).toBe("from another process");
    reader.close();
    writer.close();
  });

  test("a request sent after another connection committed reads the commit, under concurrent load", async () => {
    // The snapshot of a turn is taken after every request of that turn arrived;
    // a request sent after a commit must never be answered from an older one.
    const { reader: served, writer } = twoConnections(join(t.dir, "causal.db"));
    writer.write((tx) => run(tx.insert(locations).values(row("c", "0"))));
    const stale = await staleReadsUnderLoad(
      () => readName(served, "c") ?? "none",
      (i) =>
        writer.write((tx) =>
          run(
            tx
              .update(locations)
              .set({ name: String(i) })
              .where(eq(locations.id, "c")),
          ),
        ),
    );
    expect(stale).toEqual([]);
    served.close();
    writer.close();
  });
});

describe("remote backend (@libsql/client)", () => {
  test("the same units of work run on the asynchronous driver, with transactions", async () => {
    const db = new RemoteSqlDatabase(`file:${join(t.dir, "remote-style.db")}`, undefined, tenantSchema);
    await db.migrate(MIGRATIONS.tenant);
    expect(await db.schemaVersion()).toBeGreaterThan(0);
    await db.write(function* (tx) {
      yield* run(tx.insert(locations).values({ id: "r1", name: "Remote", timezone: "UTC", created_at: "x", updated_at: "x", version: 1 }));
    });
    await expect(
      db.write(function* (tx) {
        yield* run(tx.insert(locations).values({ id: "r2", name: "Lost", timezone: "UTC", created_at: "x", updated_at: "x", version: 1 }));
        throw new Error("rollback");
      }),
    ).rejects.toThrow("rollback");
    const rows = await db.read((d) => all<{ id: string }>(d.select({ id: locations.id }).from(locations)));
    expect(rows).toEqual([{ id: "r1" }]);
    const one = await db.read((d) => get<{ name: string }>(d.select({ name: locations.name }).from(locations).where(eq(locations.id, "r1"))));
    expect(one).toEqual({ name: "Remote" });
    db.close();
  });

  test("a handle closed (evicted) while queries run on it closes once they are done: none fails", async () => {
    const db = new RemoteSqlDatabase(`file:${join(t.dir, "remote-evicted.db")}`, undefined, tenantSchema);
    await db.migrate(MIGRATIONS.tenant);
    // a read that takes a while (a recursive count), and a write behind it
    const slow = db.read((d) =>
      get<{ n: number }>(
        d
          .select({ n: sql<number>`(WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000) SELECT count(*) FROM c)` })
          .from(locations)
          .limit(1),
      ),
    );
    const write = db.write(function* (tx) {
      yield* run(tx.insert(locations).values({ id: "e1", name: "Evicted", timezone: "UTC", created_at: "x", updated_at: "x", version: 1 }));
    });
    db.close();
    expect(await slow).toBeUndefined(); // no location yet when it read: no row, and no "client is closed"
    await write;
    const check = new RemoteSqlDatabase(`file:${join(t.dir, "remote-evicted.db")}`, undefined, tenantSchema);
    expect(await check.read((d) => all<{ id: string }>(d.select({ id: locations.id }).from(locations)))).toEqual([{ id: "e1" }]);
    check.close();
  });

  test("an org on a shard served by @libsql/client works through the HTTP stack", async () => {
    const token = await t.adminToken();
    // drain the default shard so the new org lands on the remote-style shard
    const shards = (await t.request("GET", "/api/v1/admin/shards", { token })).body.items;
    for (const s of shards) await t.rt.control.write((tx) => run(tx.update(shardsTable).set({ is_active: false }).where(eq(shardsTable.id, s.id))));
    const shard = await t.request("POST", "/api/v1/admin/shards", {
      token,
      body: { name: "remote-style", dsn: `file:${join(t.dir, "remote")}/{db}.db`, region: "test", max_orgs: 5 },
    });
    expect(shard.status).toBe(201);
    expect(shard.body.backend).toBe("remote");
    const org = await t.createOrg(token);
    expect((org as unknown as { shard: { id: string } }).shard.id).toBe(shard.body.id);
    const created = await t.request("POST", `/api/v1/${org.id}/locations`, { token, body: { name: "Edge", timezone: "Europe/London" } });
    expect(created.status).toBe(201);
    const got = await t.request("GET", `/api/v1/${org.id}/locations/${created.body.id}`, { token });
    expect(got.body.name).toBe("Edge");
    expect(readdirSync(join(t.dir, "remote")).some((f) => f.startsWith("org_"))).toBe(true);
  });
});

describe("a missing org database", () => {
  test("is reported as unavailable (503), never recreated empty", async () => {
    const { rmSync, existsSync } = await import("node:fs");
    const own = await startTestApp();
    try {
      const token = await own.adminToken();
      const org = await own.createOrg(token);
      const file = join(own.dir, "shards", "local", `${org.id}.db`);
      expect(existsSync(file)).toBe(true);
      own.rt.orgDbs.evict(org.id);
      for (const suffix of ["", "-wal", "-shm"]) rmSync(file + suffix, { force: true });
      const r = await own.request("GET", `/api/v1/${org.id}/locations`, { token });
      expect(r.status).toBe(503);
      expect(r.body).toEqual({ detail: "The organization's database is unavailable", code: "service_unavailable" });
      expect(existsSync(file)).toBe(false);
    } finally {
      await own.close();
    }
  });
});

describe("remote backend writes", () => {
  test("PATCH and archive (prepared by-id lookups inside a transaction) work on a @libsql/client shard", async () => {
    const own = await startTestApp({ DEFAULT_SHARD_DSN: `file:${join(t.dir, "remote-default")}/{db}.db` });
    try {
      const token = await own.adminToken();
      const org = await own.createOrg(token);
      const loc = (await own.request("POST", `/api/v1/${org.id}/locations`, { token, body: { name: "R", timezone: "UTC" } })).body;
      const p = await own.request("PATCH", `/api/v1/${org.id}/locations/${loc.id}`, { token, body: { base_version: 1, name: "R2" } });
      expect(p.status).toBe(200);
      expect(p.body).toMatchObject({ name: "R2", version: 2 });
      const stale = await own.request("PATCH", `/api/v1/${org.id}/locations/${loc.id}`, { token, body: { base_version: 1, name: "R3" } });
      expect(stale.status).toBe(409);
      const a = await own.request("POST", `/api/v1/${org.id}/locations/${loc.id}/archive`, { token });
      expect(a.status).toBe(200);
      expect((await own.request("GET", `/api/v1/${org.id}/locations/${loc.id}`, { token })).status).toBe(404);
    } finally {
      await own.close();
    }
  });
});

describe("remote backend: the later domains", () => {
  // Every verb is a unit of work driven with await on a @libsql/client shard:
  // one pass over the patient record, codes, charting, notes and scheduling
  // catches any verb that assumes the synchronous local driver.
  test("patient record, codes, charting, notes and availability work on a @libsql/client shard", async () => {
    const own = await startTestApp({ DEFAULT_SHARD_DSN: `file:${join(t.dir, "remote-domains")}/{db}.db` });
    try {
      const token = await own.adminToken();
      const org = await own.createOrg(token);
      const P = `/api/v1/${org.id}`;
      const call = async (method: string, path: string, body?: unknown, status = 200) => {
        const r = await own.request(method, P + path, { token, body });
        expect({ path, status: r.status }).toEqual({ path, status });
        return r.body;
      };
      // seeds reached the remote database
      const crown = await call("GET", "/codes/procedure-codes?search=D2740");
      expect(crown.items.map((c: { code: string }) => c.code)).toEqual(["D2740"]);
      const loc = await call("POST", "/locations", { name: "R", timezone: "America/New_York" }, 201);
      const patient = await call("POST", "/patients", { first_name: "Rita", last_name: "Remote", date_of_birth: "1990-04-02", location_uuid: loc.id }, 201);
      await call("POST", `/patients/${patient.id}/allergies`, { allergen: "Penicillin", allergen_category: "drug" }, 201);
      const med = await call("POST", `/patients/${patient.id}/medications`, { med_descript: "Amoxicillin 500 mg capsule" }, 201);
      expect(med.interaction_warnings.length).toBeGreaterThan(0);
      expect((await call("GET", `/patients/${patient.id}`)).allergy_review_status).toBe("reviewed");
      const proc = await call("POST", `/clinical/patients/${patient.id}/procedures`, { procedure_code_uuid: crown.items[0].id, tooth_number: "3" }, 201);
      expect(proc).toMatchObject({ status: "treatment_planned", office_fee: crown.items[0].default_fee });
      await call("PATCH", `/clinical/procedures/${proc.id}`, { base_version: 1, status: "complete" });
      await call("PUT", `/clinical/patients/${patient.id}/tooth-statuses`, { tooth_number: "3", status: "prosthetic" });
      const chart = await call("GET", `/clinical/patients/${patient.id}/chart/at-date?date=2100-01-01`);
      expect(chart.tooth_statuses.map((s: { tooth_number: string; status: string }) => [s.tooth_number, s.status])).toEqual([["3", "prosthetic"]]);
      expect(chart.charted_procedures.map((p: { id: string; status: string }) => [p.id, p.status])).toEqual([[proc.id, "complete"]]);
      const note = await call("POST", "/clinical-notes/clinical-notes", { patient_uuid: patient.id, content: "Crown seated." }, 201);
      await call("POST", `/clinical-notes/clinical-notes/${note.id}/sign`, { base_version: note.version });
      const prov = await call("POST", "/providers", { abbreviation: "DR", first_name: "Dee", last_name: "Remote" }, 201);
      const type = await call("POST", "/appointment-types", { code: "EX", name: "Exam", duration_minutes: 30, color: "#123456" }, 201);
      const op = await call("POST", "/schedule/operatories", { location_uuid: loc.id, name: "Op 1" }, 201);
      await call(
        "POST",
        "/schedule/provider-schedules",
        { provider_uuid: prov.id, location_uuid: loc.id, operatory_uuid: op.id, weekday: 1, start_time: "08:00", end_time: "09:00" },
        201,
      );
      const slots = await call(
        "GET",
        `/schedule/availability?location_uuid=${loc.id}&appointment_type_uuid=${type.id}&date_from=2030-01-07&date_to=2030-01-07`,
      );
      expect(slots.slots.map((s: { start: string }) => s.start)).toEqual(["2030-01-07T08:00:00", "2030-01-07T08:15:00", "2030-01-07T08:30:00"]);
    } finally {
      await own.close();
    }
  }, 60_000);
});
