import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync } from "node:fs";
import { eq, inArray } from "drizzle-orm";
import { iamAssignments, auditIndex, memberships, orgs, permissionGroups, shards } from "@db/control/schema";
import { auditEntries } from "@db/tenant/audit";
import { get, run } from "@/platform/db/work";
import { orgDatabaseLocation } from "@/platform/db/open";
import { newId } from "@/platform/ids";
import { TENANT_READ_TIMEOUT_MS } from "@/domains/platform-admin/audit/service";
import { startTestApp, unique, type TestApp } from "@tests/helpers";

const BASE = "/api/v1/platform/audit";
let t: TestApp;
let token: string;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
});

afterAll(async () => {
  await t.close();
});

/** An org with one location created and then renamed; returns the PATCH's before/after as the API showed them. */
async function orgWithPatchedLocation() {
  const org = await t.createOrg(token);
  const created = await t.request("POST", `/api/v1/${org.id}/locations`, { token, body: { name: "Main Street", timezone: "America/New_York" } });
  expect(created.status).toBe(201);
  const patched = await t.request("PATCH", `/api/v1/${org.id}/locations/${created.body.id}`, { token, body: { base_version: 1, name: "Main Street Dental" } });
  expect(patched.status).toBe(200);
  const entries = await t.request("GET", `${BASE}?org_uuid=${org.id}&resource_type=location`, { token });
  const byAction = Object.fromEntries(entries.body.items.map((i: any) => [i.action, i]));
  return {
    org,
    before: created.body,
    after: patched.body,
    createdEntry: byAction["location.created"],
    updatedEntry: byAction["location.updated"],
    patchRequestId: patched.headers.get("x-request-id"),
  };
}

async function shardOf(orgId: string) {
  return (await t.rt.control.read((db) =>
    get(db.select({ dsn: shards.dsn }).from(orgs).innerJoin(shards, eq(shards.id, orgs.shard_id)).where(eq(orgs.id, orgId))),
  ))!;
}

describe("detail", () => {
  test("before/after come from the org's own database and equal the location around the PATCH", async () => {
    const { org, before, after, updatedEntry, patchRequestId } = await orgWithPatchedLocation();
    const r = await t.request("GET", `${BASE}/${updatedEntry.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: updatedEntry.id,
      action: "location.updated",
      actor_type: "user",
      actor_display_name: "Platform administrator",
      resource_type: "location",
      resource_display_id: before.id,
      org_id: org.id,
      org_name: org.name,
      trace_id: patchRequestId,
    });
    expect(r.body.before).toEqual(before);
    expect(r.body.after).toEqual(after);
    expect(r.body.before.name).toBe("Main Street");
    expect(r.body.after.name).toBe("Main Street Dental");
    // the same id (case-insensitive) answers the same entry
    const upper = await t.request("GET", `${BASE}/${updatedEntry.id.toUpperCase()}`, { token });
    expect(upper.body.id).toBe(updatedEntry.id);
  });

  test("a creation has before null and after the created record", async () => {
    const { before, createdEntry } = await orgWithPatchedLocation();
    const r = await t.request("GET", `${BASE}/${createdEntry.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.body.before).toBeNull();
    expect(r.body.after).toEqual(before);
  });

  test("404 for an unknown or malformed entry id", async () => {
    for (const id of [newId(), "not-a-uuid", "00000000-0000-0000-0000-000000000000"]) {
      const r = await t.request("GET", `${BASE}/${id}`, { token });
      expect(r.status).toBe(404);
      expect(r.body.code).toBe("not_found");
    }
  });

  test("entry purged from the org's database: the index row answers with null before/after", async () => {
    const { org, updatedEntry } = await orgWithPatchedLocation();
    const db = await t.rt.orgDbs.get(org.id, { id: "x", dsn: (await shardOf(org.id)).dsn, auth_token: null });
    await db.write((tx) => run(tx.delete(auditEntries).where(eq(auditEntries.id, updatedEntry.id))));
    const r = await t.request("GET", `${BASE}/${updatedEntry.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: updatedEntry.id, action: "location.updated", org_id: org.id, before: null, after: null });
  });

  test("org database file gone: null before/after, and reading does not recreate the file", async () => {
    const { org, updatedEntry } = await orgWithPatchedLocation();
    const loc = orgDatabaseLocation((await shardOf(org.id)).dsn, org.id);
    t.rt.orgDbs.evict(org.id);
    for (const suffix of ["", "-wal", "-shm"]) rmSync(loc.location + suffix, { force: true });
    const r = await t.request("GET", `${BASE}/${updatedEntry.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.body.before).toBeNull();
    expect(r.body.after).toBeNull();
    expect(existsSync(loc.location)).toBe(false);
  });

  test("shard unreachable: null before/after, answered promptly", async () => {
    const { org, updatedEntry } = await orgWithPatchedLocation();
    const deadShard = newId();
    const now = new Date().toISOString();
    await t.rt.control.write(function* (tx) {
      yield* run(
        tx.insert(shards).values({
          id: deadShard,
          name: unique("dead"),
          region: "nowhere",
          dsn: "http://127.0.0.1:9/{db}",
          max_orgs: 1,
          is_active: false,
          created_at: now,
          updated_at: now,
          version: 1,
        }),
      );
      yield* run(tx.update(orgs).set({ shard_id: deadShard }).where(eq(orgs.id, org.id)));
    });
    t.rt.orgDbs.evict(org.id);
    const started = performance.now();
    const r = await t.request("GET", `${BASE}/${updatedEntry.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: updatedEntry.id, org_id: org.id, before: null, after: null });
    expect(performance.now() - started).toBeLessThan(3500);
    t.rt.orgDbs.evict(org.id);
  });

  test("shard that never answers: null before/after after the read timeout", async () => {
    const { org, updatedEntry } = await orgWithPatchedLocation();
    const server = Bun.serve({ port: 0, fetch: () => new Promise<Response>(() => {}) });
    try {
      const slowShard = newId();
      const now = new Date().toISOString();
      await t.rt.control.write(function* (tx) {
        yield* run(
          tx.insert(shards).values({
            id: slowShard,
            name: unique("slow"),
            region: "nowhere",
            dsn: `http://127.0.0.1:${server.port}/{db}`,
            max_orgs: 1,
            is_active: false,
            created_at: now,
            updated_at: now,
            version: 1,
          }),
        );
        yield* run(tx.update(orgs).set({ shard_id: slowShard }).where(eq(orgs.id, org.id)));
      });
      t.rt.orgDbs.evict(org.id);
      const started = performance.now();
      const r = await t.request("GET", `${BASE}/${updatedEntry.id}`, { token });
      const took = performance.now() - started;
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: updatedEntry.id, before: null, after: null });
      expect(took).toBeGreaterThanOrEqual(TENANT_READ_TIMEOUT_MS - 50);
      expect(took).toBeLessThan(TENANT_READ_TIMEOUT_MS + 2000);
    } finally {
      t.rt.orgDbs.evict(org.id);
      server.stop(true);
    }
  });

  test("org removed from the control database: null before/after, org_name as it was written", async () => {
    const { org, updatedEntry } = await orgWithPatchedLocation();
    await t.rt.control.write(function* (tx) {
      const ms = yield* get<{ id: string } | undefined>(tx.select({ id: memberships.id }).from(memberships).where(eq(memberships.org_id, org.id)));
      if (ms) yield* run(tx.delete(iamAssignments).where(eq(iamAssignments.membership_id, ms.id)));
      yield* run(tx.delete(memberships).where(eq(memberships.org_id, org.id)));
      yield* run(tx.delete(permissionGroups).where(eq(permissionGroups.org_id, org.id)));
      yield* run(tx.delete(orgs).where(eq(orgs.id, org.id)));
    });
    await t.rt.access.invalidate();
    const r = await t.request("GET", `${BASE}/${updatedEntry.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ org_id: org.id, org_name: org.name, before: null, after: null });
  });

  test("archived orgs keep their data: before/after still readable", async () => {
    const { org, after, updatedEntry } = await orgWithPatchedLocation();
    const archived = await t.request("POST", `/api/v1/admin/orgs/${org.id}/archive`, { token });
    expect(archived.status).toBe(200);
    const r = await t.request("GET", `${BASE}/${updatedEntry.id}`, { token });
    expect(r.body.after).toEqual(after);
  });

  test("a platform-level entry (no org) has null org and snapshots", async () => {
    const shard = await t.request("POST", "/api/v1/admin/shards", {
      token,
      body: { name: unique("shard"), dsn: `file:${t.dir}/extra-shard`, max_orgs: 5, is_active: false },
    });
    expect(shard.status).toBe(201);
    const list = await t.request("GET", `${BASE}?action=shard.created`, { token });
    expect(list.body.total).toBe(1);
    const r = await t.request("GET", `${BASE}/${list.body.items[0].id}`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ resource_type: "shard", resource_display_id: shard.body.id, org_id: null, org_name: null, before: null, after: null });
  });

  test("the index row is the source of truth for existence: removed from the index is 404", async () => {
    const { updatedEntry } = await orgWithPatchedLocation();
    await t.rt.control.write((tx) => run(tx.delete(auditIndex).where(inArray(auditIndex.id, [updatedEntry.id]))));
    const r = await t.request("GET", `${BASE}/${updatedEntry.id}`, { token });
    expect(r.status).toBe(404);
  });
});
