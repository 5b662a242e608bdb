import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, isNotNull } from "drizzle-orm";
import { auditIndex } from "@db/control/schema";
import { auditEntries } from "@db/tenant/audit";
import { startTestApp, waitFor, type TestApp } from "@tests/helpers";
import { all } from "@/platform/db/work";
import { loadConfig } from "@/config";
import { buildApp } from "@/app";
import { closeRuntime, createRuntime } from "@/platform/bootstrap/create-runtime";
import { AuditIndexWriter } from "@/platform/audit/index-writer";
import { REACTIONS } from "@/reactions";

// The platform audit index is written in groups after commit, and entries a
// stopped process left unindexed are indexed when the org is next opened
// (platform/audit/index-writer.ts).

let t: TestApp;
let token: string;
let orgId: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgId = (await t.createOrg(token)).id;
});
afterAll(() => t.close());

const nextTurn = () => new Promise((r) => setImmediate(r));

async function orgDb(rt = t.rt) {
  const org = (await rt.access.org(orgId))!;
  return rt.orgDbs.get(org.id, org.shard);
}
const indexed = async (resourceIds: string[], rt = t.rt) => {
  await nextTurn();
  const rows = await rt.control.read((db) =>
    all<{ id: string; resource_id: string; org_id: string | null; action: string }>(
      db
        .select({ id: auditIndex.id, resource_id: auditIndex.resource_id, org_id: auditIndex.org_id, action: auditIndex.action })
        .from(auditIndex)
        .where(eq(auditIndex.org_id, orgId)),
    ),
  );
  return rows.filter((r) => resourceIds.includes(r.resource_id));
};
const pendingIds = async (rt = t.rt) => {
  await nextTurn();
  const db = await orgDb(rt);
  return (await db.read((d) => all<{ id: string }>(d.select({ id: auditEntries.id }).from(auditEntries).where(isNotNull(auditEntries.index_pending))))).map(
    (r) => r.id,
  );
};
const createLocations = (n: number, tag: string) =>
  Promise.all(
    Array.from({ length: n }, (_, i) => t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: `${tag} ${i}`, timezone: "America/Chicago" } })),
  );

describe("audit index written in groups", () => {
  test("40 writes at once: every entry is indexed once, in far fewer control transactions than writes, and is readable when the write answers", async () => {
    const before = t.rt.orgs.auditIndex.flushes;
    const created = await createLocations(40, "Grouped");
    expect(created.map((r) => r.status)).toEqual(Array(40).fill(201));
    const ids = created.map((r) => r.body.id as string);
    // answered only once the index row was written: no wait needed
    const rows = await indexed(ids);
    expect(rows.map((r) => r.resource_id).sort()).toEqual([...ids].sort());
    expect(new Set(rows.map((r) => r.action))).toEqual(new Set(["location.created"]));
    const flushes = t.rt.orgs.auditIndex.flushes - before;
    expect(flushes).toBeGreaterThanOrEqual(1);
    expect(flushes).toBeLessThanOrEqual(10);
  });

  test("the marks are cleared by the org's next write; until then the entries are pending but already indexed", async () => {
    const created = await createLocations(5, "Marked");
    const ids = created.map((r) => r.body.id as string);
    const db = await orgDb();
    const entryIds = (
      await db.read((d) =>
        all<{ id: string; resource_id: string }>(d.select({ id: auditEntries.id, resource_id: auditEntries.resource_id }).from(auditEntries)),
      )
    )
      .filter((e) => ids.includes(e.resource_id))
      .map((e) => e.id);
    expect(entryIds.length).toBe(5);
    expect((await indexed(ids)).length).toBe(5);
    // a refused request writes nothing, so it clears nothing
    const refused = await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "", timezone: "Nowhere/Else" } });
    expect(refused.status).toBe(422);
    expect((await pendingIds()).filter((id) => entryIds.includes(id)).sort()).toEqual([...entryIds].sort());
    const next = await t.request("POST", `/api/v1/${orgId}/locations`, { token, body: { name: "Marked next", timezone: "America/Chicago" } });
    expect(next.status).toBe(201);
    expect((await pendingIds()).filter((id) => entryIds.includes(id))).toEqual([]);
  });

  test("a failed index write leaves the entries pending (the write itself succeeds); reconcile indexes them once, and again is a no-op", async () => {
    const writer = t.rt.orgs.auditIndex as unknown as { insert: (rows: unknown[]) => Promise<void> };
    const original = writer.insert;
    writer.insert = async () => {
      throw new Error("control database unavailable");
    };
    let ids: string[];
    try {
      const created = await createLocations(3, "Unindexed");
      expect(created.map((r) => r.status)).toEqual([201, 201, 201]);
      ids = created.map((r) => r.body.id as string);
    } finally {
      writer.insert = original;
    }
    expect(await indexed(ids)).toEqual([]);
    expect((await pendingIds()).length).toBeGreaterThanOrEqual(3);
    const db = await orgDb();
    expect(await t.rt.orgs.auditIndex.reconcile(orgId, db)).toBeGreaterThanOrEqual(3);
    const rows = await indexed(ids);
    expect(rows.map((r) => r.resource_id).sort()).toEqual([...ids].sort());
    expect(await pendingIds()).toEqual([]);
    expect(await t.rt.orgs.auditIndex.reconcile(orgId, db)).toBe(0);
    expect((await indexed(ids)).length).toBe(3);
  });

  test("a process that stopped before indexing: the next process to open the org indexes what was left, once", async () => {
    const writer = t.rt.orgs.auditIndex as unknown as { insert: (rows: unknown[]) => Promise<void> };
    const original = writer.insert;
    writer.insert = async () => {
      throw new Error("process stopped");
    };
    let ids: string[];
    try {
      ids = (await createLocations(4, "Left")).map((r) => r.body.id as string);
    } finally {
      writer.insert = original;
    }
    expect(await indexed(ids)).toEqual([]);
    // a second process on the same data directory, as after a restart
    const second = await createRuntime(loadConfig({ DATA_DIR: t.dir, LOG_LEVEL: "silent", RATE_LIMITS: "off" }), { withQueue: false, reactions: REACTIONS });
    try {
      const app = buildApp(second);
      const r = await app.handle(new Request(`http://localhost/api/v1/${orgId}/locations?page_size=1`, { headers: { authorization: `Bearer ${token}` } }));
      expect(r.status).toBe(200);
      await waitFor(async () => (await indexed(ids, second)).length === 4);
      expect((await indexed(ids, second)).map((r) => r.resource_id).sort()).toEqual([...ids].sort());
      expect(await pendingIds(second)).toEqual([]);
    } finally {
      await closeRuntime(second);
    }
    // indexed once, not again by this process
    expect((await indexed(ids)).length).toBe(4);
  });

  test("entries of writes spread over several orgs share one control transaction", async () => {
    const other = (await t.createOrg(token)).id;
    const writer = new AuditIndexWriter({ control: t.rt.control, logger: t.rt.logger });
    const entry = (id: string) => ({
      id,
      actor_id: "a",
      actor_type: "system",
      actor_display_name: null,
      action: "x.created",
      resource_type: "x",
      resource_id: `r-${id}`,
      request_id: null,
      ip_address: null,
      created_at: new Date().toISOString(),
    });
    const a = Bun.randomUUIDv7();
    const b = Bun.randomUUIDv7();
    await Promise.all([writer.add({ id: orgId, name: "A" }, [entry(a)]), writer.add({ id: other, name: "B" }, [entry(b)])]);
    expect(writer.flushes).toBe(1);
    const rows = await t.rt.control.read((db) =>
      all<{ id: string; org_id: string | null; org_name: string | null }>(
        db
          .select({ id: auditIndex.id, org_id: auditIndex.org_id, org_name: auditIndex.org_name })
          .from(auditIndex)
          .where(and(eq(auditIndex.action, "x.created"))),
      ),
    );
    expect(rows.filter((r) => r.id === a || r.id === b).sort((x, y) => x.id.localeCompare(y.id))).toEqual(
      [
        { id: a, org_id: orgId, org_name: "A" },
        { id: b, org_id: other, org_name: "B" },
      ].sort((x, y) => x.id.localeCompare(y.id)),
    );
    await writer.drain();
  });
});
