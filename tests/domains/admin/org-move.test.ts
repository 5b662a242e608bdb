import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { orgDatabaseLocation } from "@/platform/db/open";
import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";
import { runMove } from "@/domains/admin/service";
import { systemActor } from "@/platform/auth/actor";
import { eq } from "drizzle-orm";
import { orgs } from "@db/control/schema";
import { run } from "@/platform/db/work";
import { startWorkers } from "@/platform/queue/workers";
import { JOBS } from "@workers/registry";
import { auditOf, createMember, startTestApp, waitFor, type TestApp } from "@tests/helpers";

// POST /api/v1/admin/orgs/{id}/move and the orgs.move job (docs/admin/admin.md,
// "Moving an org between shards"): the org's database is copied to another
// shard while clients keep writing; no 2xx write may be missing on the new
// shard, reads keep working, and the old database is frozen for good. Local
// file shards and libSQL shards through @libsql/client (a {db} template on
// file:, as the tests of the remote path do everywhere).

let t: TestApp;
let token: string;
let stopWorkers: () => Promise<void>;
const shardIds: Record<string, string> = {};
const dsnOf: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp({}, { withQueue: true });
  stopWorkers = await startWorkers(t.rt, JOBS);
  token = await t.adminToken();
  const add = async (name: string, dsn: string, extra: Record<string, unknown> = {}) => {
    const r = await t.request("POST", "/api/v1/admin/shards", { token, body: { name, dsn, ...extra } });
    if (r.status !== 201) throw new Error(`shard ${name}: ${r.status} ${r.text}`);
    shardIds[name] = r.body.id;
    dsnOf[name] = dsn;
  };
  const dflt = (await t.request("GET", "/api/v1/admin/shards", { token })).body.items[0];
  shardIds.default = dflt.id;
  dsnOf.default = `file:${join(t.dir, "shards", "local")}`;
  await add("second", `file:${join(t.dir, "second")}`);
  await add("remote", `file:${join(t.dir, "remote")}/{db}.db`);
  await add("off", `file:${join(t.dir, "off")}`, { is_active: false });
  await add("full", `file:${join(t.dir, "full")}`, { max_orgs: 1 });
}, 30_000);
afterAll(async () => {
  await stopWorkers();
  await t.close();
});

const P = (orgId: string) => `/api/v1/${orgId}`;
/** New orgs go to the least used active shard: the tests ask where one is and pick a local shard it is not on. */
const shardName = (id: string) => Object.entries(shardIds).find(([, v]) => v === id)![0];
const whereIs = async (orgId: string) => shardName((await getOrg(orgId)).shard.id);
const otherLocal = (name: string) => (name === "second" ? "default" : "second");
const getOrg = async (orgId: string) => (await t.request("GET", `/api/v1/admin/orgs/${orgId}`, { token })).body;
const moved = (orgId: string, shard: string) =>
  waitFor(
    async () => {
      const o = await getOrg(orgId);
      return o.status === "active" && o.shard.id === shardIds[shard] ? o : null;
    },
    { timeoutMs: 30_000, intervalMs: 20, what: `org ${orgId} active on shard ${shard}` },
  );

/** Writers creating locations as fast as they can until stopped; every 2xx id and every other status are kept. */
function writers(orgId: string, loops = 4) {
  const ids: string[] = [];
  const refused: string[] = [];
  let stop = false;
  let n = 0;
  const done = Promise.all(
    Array.from({ length: loops }, async () => {
      while (!stop) {
        const r = await t.request("POST", `${P(orgId)}/locations`, { token, body: { name: `W${n++}`, timezone: "UTC" } });
        if (r.status === 201) ids.push(r.body.id);
        else refused.push(`${r.status} ${r.text.slice(0, 200)}`);
        // an in-process request on a local file resolves with microtasks only: let timers (the job, the test) run
        await new Promise((resolve) => setImmediate(resolve));
      }
    }),
  );
  return {
    ids,
    refused,
    async stop() {
      stop = true;
      await done;
    },
  };
}

/** The ids of the live locations stored in the org's file on `shard` (read straight from the file). */
function locationsIn(shard: string, orgId: string): Set<string> {
  const loc = orgDatabaseLocation(dsnOf[shard]!, orgId);
  const db = new Database(loc.location.replace(/^file:/, ""), { readonly: true });
  try {
    return new Set((db.query("SELECT id FROM locations").all() as { id: string }[]).map((r) => r.id));
  } finally {
    db.close();
  }
}
function moveState(shard: string, orgId: string) {
  const loc = orgDatabaseLocation(dsnOf[shard]!, orgId);
  const db = new Database(loc.location.replace(/^file:/, ""), { readonly: true });
  try {
    return db.query("SELECT frozen, moved_to_shard_id FROM org_move_state WHERE id = 1").get();
  } finally {
    db.close();
  }
}

describe("moving an org between shards under writes", () => {
  test("local to local: every 2xx write is on the new shard, none on the old one after the freeze; reads work; audited", async () => {
    const org = await t.createOrg();
    const patient = (await t.request("POST", `${P(org.id)}/patients`, { token, body: { first_name: "Mo", last_name: "Ver", email: "mo@example.com" } })).body;
    const w = writers(org.id);
    await Bun.sleep(100);
    const from = await whereIs(org.id);
    const to = otherLocal(from);
    const r = await t.request("POST", `/api/v1/admin/orgs/${org.id}/move`, { token, body: { target_shard_uuid: shardIds[to] } });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ id: org.id, status: "migrating", shard: { id: shardIds[from] } });
    // reads keep working while it moves
    const during = await t.request("GET", `${P(org.id)}/patients/${patient.id}`, { token });
    expect({ status: during.status, name: during.body.first_name }).toEqual({ status: 200, name: "Mo" });
    const after = await moved(org.id, to);
    await Bun.sleep(100); // writes continue on the new shard
    await w.stop();

    expect(w.refused).toEqual([]);
    expect(w.ids.length).toBeGreaterThan(20);
    const onTarget = locationsIn(to, org.id);
    expect(w.ids.filter((id) => !onTarget.has(id))).toEqual([]);
    // the old file is frozen, knows where the org went, and got nothing after the copy
    // the old file is marked just after the switch the API already shows
    await waitFor(() => (moveState(from, org.id) as { moved_to_shard_id: string | null }).moved_to_shard_id !== null, {
      timeoutMs: 10_000,
      intervalMs: 20,
      what: "the old database to record where the org went",
    });
    expect(moveState(from, org.id)).toEqual({ frozen: 1, moved_to_shard_id: shardIds[to] });
    expect(moveState(to, org.id)).toEqual({ frozen: 0, moved_to_shard_id: null });
    const onSource = locationsIn(from, org.id);
    expect([...onSource].filter((id) => !onTarget.has(id))).toEqual([]);
    // the API reads the new shard: the patient, the list total, the search index
    expect((await t.request("GET", `${P(org.id)}/patients/${patient.id}`, { token })).body.email).toBe("mo@example.com");
    expect((await t.request("GET", `${P(org.id)}/locations?page_size=1`, { token })).body.total).toBe(onTarget.size);
    expect((await t.request("GET", `${P(org.id)}/patients?search=Mo%20Ver`, { token })).body.items.map((p: { id: string }) => p.id)).toEqual([patient.id]);
    expect(after).toMatchObject({ status: "active", version: org.version + 2, shard: { id: shardIds[to], name: to } });
    const trail = (await auditOf(t, org.id, org.id)).map((a: { action: string }) => a.action);
    expect(trail).toContain("organization.move_started");
    expect(trail).toContain("organization.moved");
  }, 60_000);

  test("to a libSQL shard (@libsql/client) and back, under writes; nothing lost either way", async () => {
    const org = await t.createOrg();
    const all: string[] = [];
    const home = await whereIs(org.id);
    const local = home === "remote" ? "default" : home;
    const legs =
      home === "remote"
        ? [
            ["default", "remote"],
            ["remote", "default"],
          ]
        : [
            ["remote", local],
            [local, "remote"],
          ];
    for (const [to, from] of legs as [string, string][]) {
      const w = writers(org.id, 3);
      await Bun.sleep(50);
      const current = await getOrg(org.id);
      expect(current.shard.id).toBe(shardIds[from]);
      const r = await t.request("POST", `/api/v1/admin/orgs/${org.id}/move`, {
        token,
        body: { target_shard_uuid: shardIds[to], base_version: current.version },
      });
      expect(r.status).toBe(202);
      await moved(org.id, to);
      await Bun.sleep(50);
      await w.stop();
      expect(w.refused).toEqual([]);
      all.push(...w.ids);
      const stored = locationsIn(to, org.id);
      expect(all.filter((id) => !stored.has(id))).toEqual([]);
    }
    expect((await t.request("GET", `${P(org.id)}/locations?page_size=1`, { token })).body.total).toBe(all.length);
  }, 60_000);

  test("the job is idempotent: a retry after the switch only finishes; a retry after a killed copy copies again from scratch", async () => {
    const org = await t.createOrg();
    await t.request("POST", `${P(org.id)}/locations`, { token, body: { name: "Before", timezone: "UTC" } });
    const caller = { actor: systemActor("orgs.move"), requestId: null, ip: null };
    // a killed first attempt: the org is migrating, its database frozen, and a half-made file sits at the target
    await t.rt.control.write((tx) => run(tx.update(orgs).set({ status: "migrating" }).where(eq(orgs.id, org.id))));
    const from = await whereIs(org.id);
    const to = otherLocal(from);
    const half = new Database(orgDatabaseLocation(dsnOf[to]!, org.id).location, { create: true });
    half.exec("CREATE TABLE locations (id TEXT PRIMARY KEY); INSERT INTO locations VALUES ('left-over');");
    half.close();
    expect(await runMove(t.rt, org.id, shardIds[from]!, shardIds[to]!, caller)).toMatchObject({ org_id: org.id, to_shard_id: shardIds[to] });
    expect(await getOrg(org.id)).toMatchObject({ status: "active", shard: { id: shardIds[to] } });
    expect([...locationsIn(to, org.id)]).toHaveLength(1);
    expect(locationsIn(to, org.id).has("left-over")).toBe(false);
    // running the job again changes nothing and reports the move as done
    expect(await runMove(t.rt, org.id, shardIds[from]!, shardIds[to]!, caller)).toMatchObject({ already_moved: true });
    expect(locationsIn(to, org.id).size).toBe(1);
    // an org that is not migrating is left alone
    expect(await runMove(t.rt, org.id, shardIds[to]!, shardIds[from]!, caller)).toMatchObject({ skipped: expect.stringContaining("active") });
  }, 30_000);
});

describe("POST /admin/orgs/{id}/move: refusals change nothing", () => {
  let org: { id: string; version: number };
  let home = "";
  beforeAll(async () => {
    org = await t.createOrg();
    home = await whereIs(org.id);
  });
  const move = (id: string, body: unknown, tk = token) => t.request("POST", `/api/v1/admin/orgs/${id}/move`, { token: tk, body });
  const unchanged = async () => expect(await getOrg(org.id)).toMatchObject({ status: "active", version: org.version, shard: { id: shardIds[home] } });

  test("404 unknown org or shard; 409 same shard, stale version, full shard; 422 inactive shard or bad body", async () => {
    const away = shardIds[otherLocal(home)];
    expect((await move("01a1fe29-0000-7000-8000-000000000000", { target_shard_uuid: away })).status).toBe(404);
    const noShard = await move(org.id, { target_shard_uuid: "01a1fe29-0000-7000-8000-000000000000" });
    expect({ status: noShard.status, detail: noShard.body.detail }).toEqual({ status: 404, detail: "Shard not found" });
    const same = await move(org.id, { target_shard_uuid: shardIds[home] });
    expect({ status: same.status, code: same.body.code }).toEqual({ status: 409, code: "already_on_shard" });
    const stale = await move(org.id, { target_shard_uuid: away, base_version: org.version + 5 });
    expect({ status: stale.status, code: stale.body.code }).toEqual({ status: 409, code: "version_conflict" });
    const off = await move(org.id, { target_shard_uuid: shardIds.off });
    expect({ status: off.status, loc: off.body.detail[0].loc }).toEqual({ status: 422, loc: ["body", "target_shard_uuid"] });
    // fill the one-org shard, then it has no room
    const filler = await t.createOrg();
    if ((await whereIs(filler.id)) !== "full") {
      expect((await move(filler.id, { target_shard_uuid: shardIds.full })).status).toBe(202);
      await moved(filler.id, "full");
    }
    const full = await move(org.id, { target_shard_uuid: shardIds.full });
    expect({ status: full.status, code: full.body.code }).toEqual({ status: 409, code: "no_shard_capacity" });
    for (const body of [{}, { target_shard_uuid: "nope" }, { target_shard_uuid: away, extra: 1 }, { target_shard_uuid: away, base_version: 0 }]) {
      expect((await move(org.id, body)).status).toBe(422);
    }
    await unchanged();
    expect(existsSync(orgDatabaseLocation(dsnOf[otherLocal(home)]!, org.id).location)).toBe(false);
  });

  test("409 org_not_active for an org already moving or archived", async () => {
    const other = await t.createOrg();
    await t.request("POST", `/api/v1/admin/orgs/${other.id}/archive`, { token });
    const archived = await move(other.id, { target_shard_uuid: shardIds.second });
    expect({ status: archived.status, code: archived.body.code }).toEqual({ status: 409, code: "org_not_active" });
  });

  test("401 without a token, 403 without platform.shards.manage", async () => {
    expect((await t.request("POST", `/api/v1/admin/orgs/${org.id}/move`, { body: { target_shard_uuid: shardIds.second } })).status).toBe(401);
    const member = await createMember(t, org.id, ORG_PERMISSION_KEYS, { platformKeys: ["platform.orgs.manage"] });
    expect((await move(org.id, { target_shard_uuid: shardIds.second }, member.token)).status).toBe(403);
    await unchanged();
  });
});
