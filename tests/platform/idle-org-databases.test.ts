// Idle org databases give back their memory (issue 36 item 4): a handle unused
// for a quarter of ORG_DB_IDLE_SECONDS drops its caches, one unused for the
// whole period is closed, and the org's next request opens it again.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fdsUnder as fdsOf } from "@tests/support/file-descriptors";
import { join } from "node:path";
import { count } from "drizzle-orm";
import { startTestApp, type TestApp } from "@tests/helpers";
import { OrgDatabases } from "@/platform/db/org-databases";
import type { LocalSqlDatabase } from "@/platform/db/database";
import type { tenantSchema } from "@db/tenant/drizzle-schema";
import { locations } from "@db/tenant/practice";
import { get } from "@/platform/db/work";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";

describe("idle org databases (the sweep)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  test("a handle idle one tick gives back its caches and still answers; one idle four ticks is closed and opens again with its data", async () => {
    const shard = { id: "s", dsn: `file:${join(t.dir, "idle-shard")}`, auth_token: null };
    const dbs = new OrgDatabases(8);
    const [a, b, c] = [Bun.randomUUIDv7(), Bun.randomUUIDv7(), Bun.randomUUIDv7()];
    const handle = async (orgId: string) => (await dbs.get(orgId, shard)) as LocalSqlDatabase<typeof tenantSchema>;
    for (const orgId of [a, b, c]) {
      await dbs.provision(orgId, shard);
      const ctx = t.rt.orgs.context({ id: orgId, name: "x", slug: "x", status: "active", shard }, await handle(orgId), {
        actor: { type: "internal", id: "internal", display_name: "t" },
        requestId: null,
        ip: null,
      });
      await withTransaction(ctx, (s) => locationRecords.create(s, { name: `L ${orgId}`, timezone: "UTC" }));
    }
    const fileOf = (orgId: string) => join(t.dir, "idle-shard", `${orgId}.db`);
    expect(fdsOf(fileOf(b))).toBeGreaterThanOrEqual(1);
    const locationsIn = (db: LocalSqlDatabase<typeof tenantSchema>) => db.read((d) => get<{ n: number }>(d.select({ n: count() }).from(locations)))!.n;

    // tick 1: the sweep first notes each handle's use counter
    expect(dbs.sweepIdle()).toEqual({ released: 0, closed: 0 });
    expect(locationsIn(await handle(a))).toBe(1);
    // tick 2: b and c, unused for a tick, give back their caches (once); a was used
    expect(dbs.sweepIdle()).toEqual({ released: 2, closed: 0 });
    expect(dbs.sweepIdle()).toEqual({ released: 1, closed: 0 }); // tick 3: a, unused since tick 2
    expect(dbs.size).toBe(3);
    // a released handle answers as before, and that use makes it hot again
    expect(locationsIn(dbs.peek(c) as LocalSqlDatabase<typeof tenantSchema>)).toBe(1);
    expect(dbs.sweepIdle()).toEqual({ released: 0, closed: 0 }); // tick 4: c was used
    // tick 5: b, unused since tick 1, is closed; c, unused for a tick, gives back its caches; a (since tick 2) stays
    expect(dbs.sweepIdle()).toEqual({ released: 1, closed: 1 });
    expect(dbs.peek(b)).toBeUndefined();
    expect(dbs.peek(a)).toBeDefined();
    expect(fdsOf(fileOf(b))).toBe(0);
    expect(dbs.sweepIdle()).toEqual({ released: 0, closed: 1 }); // tick 6: a, unused since tick 2
    expect(dbs.size).toBe(1);
    expect(dbs.peek(c)).toBeDefined();

    // the closed org opens again on its next use, with its data
    const reopened = await handle(b);
    expect(locationsIn(reopened)).toBe(1);
    expect(dbs.size).toBe(2);
    expect(fdsOf(fileOf(b))).toBeGreaterThanOrEqual(1);
    dbs.closeAll();
  });

  test("a handle held by long work (a job) and used on every tick is never released or closed, though never asked for again", async () => {
    const shard = { id: "s", dsn: `file:${join(t.dir, "idle-shard-2")}`, auth_token: null };
    const dbs = new OrgDatabases(8);
    const orgId = Bun.randomUUIDv7();
    await dbs.provision(orgId, shard);
    const db = (await dbs.get(orgId, shard)) as LocalSqlDatabase<typeof tenantSchema>;
    for (let tick = 0; tick < 8; tick++) {
      expect(db.read((d) => get<{ n: number }>(d.select({ n: count() }).from(locations)))!.n).toBe(0);
      expect(dbs.sweepIdle()).toEqual({ released: 0, closed: 0 });
    }
    expect(dbs.peek(orgId)).toBe(db);
    dbs.closeAll();
  });
});

describe("ORG_DB_IDLE_SECONDS over HTTP", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ORG_DB_IDLE_SECONDS: "1" });
  });
  afterAll(() => t.close());

  test("an org idle past the setting has its database closed; its next request opens it again and answers the same", async () => {
    const token = await t.adminToken();
    const org = (await t.createOrg(token)) as { id: string };
    const created = await t.request("POST", `/api/v1/${org.id}/patients`, { token, body: { first_name: "Ada", last_name: "Lovelace" } });
    expect(created.status).toBe(201);
    const patientId = (created.body as { id: string }).id;
    expect(t.rt.orgDbs.peek(org.id)).toBeDefined();
    // the sweep runs every 250 ms: closed 1 to 1.25 s after the last request
    const deadline = Date.now() + 5_000;
    while (t.rt.orgDbs.peek(org.id) && Date.now() < deadline) await Bun.sleep(50);
    expect(t.rt.orgDbs.peek(org.id)).toBeUndefined();
    const again = await t.request("GET", `/api/v1/${org.id}/patients/${patientId}`, { token });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: patientId, first_name: "Ada", last_name: "Lovelace", version: 1 });
    expect(t.rt.orgDbs.peek(org.id)).toBeDefined();
  });

  test("the setting is validated: a negative number is refused at start-up", async () => {
    await expect(startTestApp({ ORG_DB_IDLE_SECONDS: "-1" })).rejects.toThrow(/ORG_DB_IDLE_SECONDS/);
  });
});
