// Replicated (turso-sync) org databases against real tursodb sync servers
// (scripts/services/tursodb.ts): a primary instance's handle writes and
// pushes, an edge instance's replica pulls; positions order what a replica
// holds; a shard that is briefly unreachable loses nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { startTestApp, type TestApp } from "@tests/helpers";
import { SyncRouter } from "@scripts/services/tursodb";
import { OrgDatabases } from "@/platform/db/org-databases";
import { MIGRATIONS, orgDatabaseLocation } from "@/platform/db/open";
import { engineStatements, listsAsEqualities, TursoSyncDatabase } from "@/platform/db/turso-sync";
import { MAX_STALENESS_MS, ReplicaUnavailable, ReplicaWriteRefused } from "@/platform/db/replication-state";
import { locations } from "@db/tenant/practice";
import { tenantSchema } from "@db/tenant/drizzle-schema";
import { all, get } from "@/platform/db/work";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";
import { ORG_SEEDS } from "@db/seeds";
import { appliedSeeds } from "@db/tenant/seeds";
import { createPatient } from "@/domains/patients/record/service";
import { PatientCreate } from "@/domains/patients/record/schemas";
import { MemoryBus } from "@/platform/cache/memory";
import { replicationNotices } from "@/platform/db/replication-notices";
import { waitFor } from "@tests/support/wait";

type SyncDb = TursoSyncDatabase<typeof tenantSchema>;

let t: TestApp;
let router: SyncRouter;
let primaryShard: { id: string; dsn: string; auth_token: null };
let edgeShard: { id: string; dsn: string; auth_token: null };
let primaries: OrgDatabases;
let edges: OrgDatabases;
const orgId = Bun.randomUUIDv7();

beforeAll(async () => {
  t = await startTestApp();
  router = new SyncRouter(join(t.dir, "sync-shard")).start();
  // the same shard seen from two regions, each instance with its own replica directory
  primaryShard = { id: "sync", dsn: `turso-sync:${router.template}`, auth_token: null };
  edgeShard = primaryShard;
  primaries = new OrgDatabases(8, ORG_SEEDS, { role: "primary", dir: join(t.dir, "primary-replicas") });
  edges = new OrgDatabases(8, ORG_SEEDS, { role: "replica", dir: join(t.dir, "edge-replicas") });
  await primaries.provision(orgId, primaryShard);
}, 60_000);

afterAll(async () => {
  primaries?.closeAll();
  edges?.closeAll();
  await router?.stop();
  await t?.close();
});

const internal = { actor: { type: "internal" as const, id: "internal", display_name: "t" }, requestId: null, ip: null };

async function createLocation(dbs: OrgDatabases, shard: typeof primaryShard, name: string, org = orgId) {
  const db = (await dbs.get(org, shard)) as SyncDb;
  const ctx = t.rt.orgs.context({ id: org, name: "x", slug: "x", status: "active", shard }, db, internal);
  const created = await withTransaction(ctx, (s) => locationRecords.create(s, { name, timezone: "America/Chicago" }));
  return { created, position: db.replicationPosition };
}

const namesOn = async (db: SyncDb) =>
  (await db.read((d) => all<{ name: string }>(d.select({ name: locations.name }).from(locations)))).map((r) => r.name).sort();

describe("the tenant schema on the sync engine", () => {
  test("FTS5 statements are left out and WITHOUT ROWID tables become rowid tables; every other statement runs", () => {
    const fts = readFileSync(join(MIGRATIONS.tenant, "0002_patients_fts.sql"), "utf8");
    expect(engineStatements(fts)).toEqual([]);
    const facts = engineStatements(readFileSync(join(MIGRATIONS.tenant, "0011_patient_filter_facts.sql"), "utf8"));
    expect(facts.some((s) => /WITHOUT ROWID/i.test(s))).toBe(false);
    expect(facts.some((s) => s.startsWith("CREATE TABLE `patient_filter_facts`") && s.endsWith(");"))).toBe(true);
    const documents = readFileSync(join(MIGRATIONS.tenant, "0008_documents.sql"), "utf8");
    const kept = engineStatements(documents);
    expect(kept.some((s) => s.includes("documents_fts"))).toBe(false);
    expect(kept.some((s) => s.startsWith("CREATE TABLE `documents`"))).toBe(true);
  });

  test("a provisioned org database is migrated to the code's schema version and seeded, and the shard holds the result", async () => {
    const db = (await primaries.get(orgId, primaryShard)) as SyncDb;
    expect(db.kind).toBe("sync");
    expect(await db.schemaVersion()).toBe(primaries.tenantSchemaVersion);
    const edge = (await edges.get(orgId, edgeShard)) as SyncDb;
    expect(edge.role).toBe("replica");
    expect(await edge.schemaVersion()).toBe(primaries.tenantSchemaVersion);
    // the seeds arrived through the shard (the replica never ran them)
    const seeded = await edge.read((d) => all<{ name: string }>(d.select({ name: appliedSeeds.name }).from(appliedSeeds)));
    expect(seeded.map((s) => s.name).sort()).toEqual(ORG_SEEDS.map((s) => s.name).sort());
    // a replica file is the instance's own: each region keeps its copy in its replica directory
    expect(edge.location).toBe(join(t.dir, "edge-replicas", `${orgId}.db`));
    expect(db.location).toBe(join(t.dir, "primary-replicas", `${orgId}.db`));
    expect(orgDatabaseLocation(edgeShard.dsn, orgId)).toEqual({
      kind: "sync",
      engine: "turso",
      location: `${orgId}.db`,
      url: `${router.url}/org_${orgId.replaceAll("-", "")}`,
    });
  });
});

describe("lists in prepared statements on the sync engine", () => {
  test("a JSON list becomes an OR of equalities (indexed there), its values in its placeholder's place; long lists and other uses stay", () => {
    const sql = 'select "id" from "l" where "a" = ? and "l"."id" IN (SELECT value FROM json_each(?)) and "b" IN (SELECT value FROM json_each(?)) limit ?';
    expect(listsAsEqualities(sql, [1, '["x","y"]', "[]", 5])).toEqual({
      sql: 'select "id" from "l" where "a" = ? and ("l"."id" = ? OR "l"."id" = ?) and (0) limit ?',
      params: [1, "x", "y", 5],
    });
    const rowids = '"patients".rowid IN (SELECT value AS rowid FROM json_each(?))';
    expect(listsAsEqualities(rowids, ["[3]"])).toEqual({ sql: '("patients".rowid = ?)', params: [3] });
    const long = JSON.stringify(Array.from({ length: 201 }, (_, i) => i));
    expect(listsAsEqualities(rowids, [long])).toEqual({ sql: rowids, params: [long] });
    expect(listsAsEqualities('select 1 where "p"."chart" IN (?, ?, ?) and "id" = ?', ["a", "B", "c", 9])).toEqual({
      sql: 'select 1 where ("p"."chart" = ? OR "p"."chart" = ? OR "p"."chart" = ?) and "id" = ?',
      params: ["a", "B", "c", 9],
    });
    const lowered = "lower(x) IN (SELECT lower(value) FROM json_each(?))";
    expect(listsAsEqualities(lowered, ['["a"]'])).toEqual({ sql: lowered, params: ['["a"]'] });
  });
});

describe("writes on the primary, reads on the replica", () => {
  test("each write raises the position by one, and the replica catches up to a position and then holds the write", async () => {
    const first = await createLocation(primaries, primaryShard, "North");
    const second = await createLocation(primaries, primaryShard, "South");
    expect(second.position).toBe(first.position + 1);
    const edge = (await edges.get(orgId, edgeShard)) as SyncDb;
    expect(await edge.catchUp(second.position, 5_000)).toBe(true);
    expect(edge.replicationPosition).toBeGreaterThanOrEqual(second.position);
    expect(await namesOn(edge)).toEqual(expect.arrayContaining(["North", "South"]));
    // the whole record, audit entry included, as the primary wrote it
    const row = await edge.read((d) =>
      get<{ id: string; version: number; timezone: string }>(d.select().from(locations).where(eq(locations.id, second.created.id))),
    );
    expect(row).toMatchObject({ id: second.created.id, version: 1, timezone: "America/Chicago" });
    const audit = await edge.read((d) =>
      all<{ action: string }>(
        d
          .select({ action: tenantSchema.auditEntries.action })
          .from(tenantSchema.auditEntries)
          .where(eq(tenantSchema.auditEntries.resource_id, second.created.id)),
      ),
    );
    expect(audit.map((a) => a.action)).toEqual(["location.created"]);
  });

  test("a position the primary never reached is not waited for past the timeout", async () => {
    const edge = (await edges.get(orgId, edgeShard)) as SyncDb;
    const started = Date.now();
    expect(await edge.catchUp(edge.replicationPosition + 1_000, 300)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test("a replica refuses writes, and nothing is written to it", async () => {
    const edge = (await edges.get(orgId, edgeShard)) as SyncDb;
    const before = await namesOn(edge);
    await expect(createLocation(edges, edgeShard, "Never")).rejects.toBeInstanceOf(ReplicaWriteRefused);
    expect(await namesOn(edge)).toEqual(before);
  });
});

describe("search on a replicated shard", () => {
  test("answers as on a local-file shard: the same patients, order and totals for every kind of term, sort and page", async () => {
    const token = await t.adminToken();
    const shard = await t.request("POST", "/api/v1/admin/shards", {
      token,
      body: { name: "sync-parity", dsn: `turso-sync:${router.template}`, region: "us", max_orgs: 10 },
    });
    expect(shard.status).toBe(201);
    // the default (local) shard is the oldest: it takes the first org, then the empty sync shard the second
    const local = await t.createOrg(token);
    const synced = await t.createOrg(token);
    const placed = await t.request("GET", `/api/v1/admin/orgs/${synced.id}`, { token });
    expect(placed.body.shard.id).toBe(shard.body.id);
    const people = [
      ["Maria", "García", "555-010-2000", "maria.garcia@example.com", "C-100"],
      ["Mario", "Garcia", "555-010-2001", "mario@example.org", "C-101"],
      ["Marianne", "Gardner", "(555) 010-2002", null, "c-102"],
      ["José", "Martínez", "+1 555 010 2003", "jose@clinic.test", null],
      ["Ana", "Smith-Jones", "555-010-2004", "ana.sj@example.com", "A-1"],
      ["Bob", "Smith", "555-010-2005", "bob@example.com", null],
      ["Zoë", "Ólafsdóttir", "555-010-2006", null, "Z-9"],
      ["Mar", "Garc", null, "mar@garc.io", null],
    ];
    for (const org of [local, synced])
      for (const [first_name, last_name, mobile_phone, email, chart_number] of people) {
        const r = await t.request("POST", `/api/v1/${org.id}/patients`, {
          token,
          body: { first_name, last_name, date_of_birth: "1984-03-02", mobile_phone, email, chart_number },
        });
        expect(r.status).toBe(201);
      }
    const terms = [
      "Mar Garc",
      "mar",
      "Garcia, M",
      "garcía",
      "Smith",
      "smith-jones",
      "5550102001",
      "555-010",
      "example.com",
      "C-100",
      "c-102",
      "1984-03-02",
      "03/02/1984",
      "Zoe",
      "zzz",
      "José Mart",
    ];
    const shapes = ["", "&sort_by=first_name&sort_dir=desc", "&page_size=2&page=2", "&sort_by=chart_number"];
    const totals: Record<string, number> = {};
    for (const term of terms)
      for (const shape of shapes) {
        const answer = async (orgId: string) => {
          const r = await t.request("GET", `/api/v1/${orgId}/patients?search=${encodeURIComponent(term)}${shape}`, { token });
          expect(r.status).toBe(200);
          return { total: r.body.total, names: r.body.items.map((p: { first_name: string; last_name: string }) => `${p.first_name} ${p.last_name}`) };
        };
        const found = await answer(synced.id);
        expect({ term, shape, ...found }).toEqual({ term, shape, ...(await answer(local.id)) });
        if (shape === "") totals[term] = found.total;
      }
    // the comparison is not between two empty answers
    expect(totals).toMatchObject({ Smith: 2, "C-100": 1, "5550102001": 1, "1984-03-02": 8, "03/02/1984": 8, zzz: 0, "example.com": 3 });
  }, 60_000);
});

describe("the search change log", () => {
  test("pruned at the primary, it makes an edge index that fell behind its oldest entry rebuild from the tables: nobody is lost", async () => {
    const primary = (await primaries.get(orgId, primaryShard)) as SyncDb;
    const edge = (await edges.get(orgId, edgeShard)) as SyncDb;
    const ctx = t.rt.orgs.context({ id: orgId, name: "x", slug: "x", status: "active", shard: primaryShard }, primary, internal);
    const add = async (last_name: string) => {
      await createPatient(ctx, PatientCreate.parse({ first_name: "Prunella", last_name, date_of_birth: "1990-05-05" }));
      return primary.replicationPosition;
    };
    const prunellas = () => JSON.parse(edge.searchIndex.rowids("patients_fts", '"Prunella"*')).length;
    await add("One");
    expect(await edge.catchUp(await add("Two"), 5_000)).toBe(true);
    expect(prunellas()).toBe(2);
    const behind = edge.searchIndex.appliedSeq;
    await add("Three"); // the edge does not pull this one before the log is pruned
    await primary.pruneSearchLog(0);
    const last = await add("Four");
    expect(await edge.catchUp(last, 5_000)).toBe(true);
    // "Three" was logged only in the pruned entries: it is found because the index was rebuilt from the tables
    expect(prunellas()).toBe(4);
    expect(edge.searchIndex.appliedSeq).toBeGreaterThan(behind);
  });
});

describe("replication notices", () => {
  test("a push at the primary makes an edge holding the org's replica pull at once, with no read at the edge", async () => {
    const bus = new MemoryBus();
    const primary = new OrgDatabases(8, ORG_SEEDS, { role: "primary", dir: join(t.dir, "notice-primary") });
    const edge = new OrgDatabases(8, ORG_SEEDS, { role: "replica", dir: join(t.dir, "notice-edge") });
    replicationNotices(primary, bus);
    replicationNotices(edge, bus);
    // an org of its own: one primary writes an org database
    const org = Bun.randomUUIDv7();
    try {
      await primary.provision(org, primaryShard);
      const replica = (await edge.get(org, edgeShard)) as SyncDb;
      const before = replica.replicationPosition;
      const { position } = await createLocation(primary, primaryShard, "Noticed", org);
      expect(position).toBeGreaterThan(before);
      // nothing reads at the edge: only the notice can bring the replica forward
      await waitFor(() => replica.replicationPosition >= position, { timeoutMs: 5_000, intervalMs: 5, what: () => "the notice to make the edge pull" });
      expect(replica.status().synced_at).not.toBeNull();
    } finally {
      primary.closeAll();
      edge.closeAll();
      await bus.close();
    }
  });
});

describe("a shard briefly unreachable", () => {
  test("the primary keeps committing, pushes once the shard is back, and the replica then holds every write", async () => {
    const primary = (await primaries.get(orgId, primaryShard)) as SyncDb;
    const edge = (await edges.get(orgId, edgeShard)) as SyncDb;
    router.down = true;
    try {
      const held = await createLocation(primaries, primaryShard, "Held");
      expect(primary.status().unpushed).toBe(1);
      expect(primary.status().error).not.toBeNull();
      // the replica cannot pull: a read once its last pull is too old says so (the edge then asks the primary)
      await Bun.sleep(MAX_STALENESS_MS + 50);
      await expect(namesOn(edge)).rejects.toBeInstanceOf(ReplicaUnavailable);
      expect(edge.status().error).not.toBeNull();
      router.down = false;
      expect(await edge.catchUp(held.position, 10_000)).toBe(true);
      expect(await namesOn(edge)).toContain("Held");
      await Bun.sleep(600); // the retried push (every 500 ms) has run by the time the replica got the write
      expect(primary.status()).toMatchObject({ role: "primary", unpushed: 0, error: null, position: held.position });
      expect(edge.status()).toMatchObject({ role: "replica", position: held.position, error: null });
    } finally {
      router.down = false;
    }
  }, 30_000);
});

describe("a sync server killed mid-push", () => {
  test("writes committed at the primary while their pushes were cut stay, are pushed to the restarted server, and reach the replica", async () => {
    const primary = (await primaries.get(orgId, primaryShard)) as SyncDb;
    const edge = (await edges.get(orgId, edgeShard)) as SyncDb;
    const db = [...router.servers.keys()].find((k) => k === `org_${orgId.replaceAll("-", "")}`)!;
    expect(db).toBeDefined();
    const names = Array.from({ length: 12 }, (_, i) => `Crash ${i}`);
    // the writes commit at the primary one after another; each push follows its commit
    const writes = names.map((name) => createLocation(primaries, primaryShard, name));
    await writes[2];
    // the sync server dies the hard way while the other pushes are under way
    await router.stopServer(db, "SIGKILL");
    const done = await Promise.allSettled(writes);
    // every write committed: none failed for its push
    expect(done.filter((d) => d.status === "rejected")).toEqual([]);
    const last = Math.max(...done.map((d) => (d as PromiseFulfilledResult<{ position: number }>).value.position));
    // the next request starts the server again on its file; the primary's retried pushes and the edge's pulls go through
    expect(await edge.catchUp(last, 15_000)).toBe(true);
    expect(await namesOn(edge)).toEqual(expect.arrayContaining(names));
    await waitFor(() => primary.status().unpushed === 0 && primary.status().error === null, { timeoutMs: 10_000, what: "the primary's pushes" });
    expect(primary.status().position).toBe(last);
  }, 60_000);
});
