import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditIndex } from "@db/control/schema";
import { run } from "@/platform/db/work";
import { newId } from "@/platform/ids";
import { createPlatformUser, startTestApp, unique, type TestApp } from "@tests/helpers";

const BASE = "/api/v1/platform/audit";
let t: TestApp;
let token: string;
let orgA: { id: string };
let orgB: { id: string };
let second: { id: string; token: string };
let backdatedId: string;

const stats = (qs = "", tok = token) => t.request("GET", `${BASE}/stats${qs}`, { token: tok });

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  second = await createPlatformUser(t, "Second Admin", ["platform.orgs.manage", "platform.audit.read"]);
  orgA = await t.createOrg(token); // admin: organization.created
  orgB = await t.createOrg(second.token); // second admin: organization.created (second is its org admin)
  const a1 = await t.request("POST", `/api/v1/${orgA.id}/locations`, { token, body: { name: "A1", timezone: "America/New_York" } });
  await t.request("POST", `/api/v1/${orgA.id}/locations`, { token, body: { name: "A2", timezone: "America/New_York" } });
  await t.request("PATCH", `/api/v1/${orgA.id}/locations/${a1.body.id}`, { token, body: { base_version: 1, name: "A1 renamed" } });
  const b1 = await t.request("POST", `/api/v1/${orgB.id}/locations`, { token: second.token, body: { name: "B1", timezone: "America/New_York" } });
  expect(b1.status).toBe(201);
  // Move orgB's location creation to last year: it counts in totals but not today.
  const list = await t.request("GET", `${BASE}?org_uuid=${orgB.id}&action=location.created`, { token });
  backdatedId = list.body.items[0].id;
  await t.rt.control.write((tx) => run(tx.update(auditIndex).set({ created_at: "2024-05-05T12:00:00.000Z" }).where(eq(auditIndex.id, backdatedId))));
  // orgA: organization.created, location.created x2, location.updated (all by admin, today)
  // orgB: organization.created (second, today), location.created (second, 2024-05-05)
});

afterAll(async () => {
  await t.close();
});

describe("stats", () => {
  test("all orgs", async () => {
    const r = await stats();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      total_entries: 6,
      by_action: { "location.created": 3, "location.updated": 1, "organization.created": 2 },
      by_resource_type: [
        { resource_type: "location", count: 4 },
        { resource_type: "organization", count: 2 },
      ],
      today_count: 5,
      active_actors_today: 2,
    });
  });

  test("one org", async () => {
    const a = await stats(`?org_uuid=${orgA.id}`);
    expect(a.body).toEqual({
      total_entries: 4,
      by_action: { "location.created": 2, "location.updated": 1, "organization.created": 1 },
      by_resource_type: [
        { resource_type: "location", count: 3 },
        { resource_type: "organization", count: 1 },
      ],
      today_count: 4,
      active_actors_today: 1,
    });
    const b = await stats(`?org_uuid=${orgB.id}`);
    expect(b.body).toMatchObject({ total_entries: 2, today_count: 1, active_actors_today: 1 });
    const none = await stats(`?org_uuid=${newId()}`);
    expect(none.body).toEqual({ total_entries: 0, by_action: {}, by_resource_type: [], today_count: 0, active_actors_today: 0 });
  });

  test("date range narrows the totals and breakdowns, not today's figures", async () => {
    const old = await stats("?start_date=2024-05-05&end_date=2024-05-05");
    expect(old.body).toEqual({
      total_entries: 1,
      by_action: { "location.created": 1 },
      by_resource_type: [{ resource_type: "location", count: 1 }],
      today_count: 5,
      active_actors_today: 2,
    });
    const today = new Date().toISOString().slice(0, 10);
    const recent = await stats(`?start_date=${today}`);
    expect(recent.body.total_entries).toBe(5);
    const before = await stats("?end_date=2024-05-04T23:59:59Z");
    expect(before.body.total_entries).toBe(0);
  });

  test("validation and access", async () => {
    for (const qs of ["?start_date=nope", "?org_uuid=123", "?start_date=2024-02-01&end_date=2024-01-01", "?action=location.created", "?page=1"]) {
      const r = await stats(qs);
      expect(r.status, qs).toBe(422);
    }
    expect((await t.request("GET", `${BASE}/stats`)).status).toBe(401);
    expect((await stats("", second.token)).status).toBe(200);
  });
});

describe("resource types", () => {
  test("distinct values, sorted", async () => {
    const r = await t.request("GET", `${BASE}/resource-types`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: ["location", "organization"] });
  });

  test("a new resource type appears once it is audited", async () => {
    const shard = await t.request("POST", "/api/v1/admin/shards", { token, body: { name: unique("s"), dsn: `file:${t.dir}/shard-b`, is_active: false } });
    expect(shard.status).toBe(201);
    const r = await t.request("GET", `${BASE}/resource-types`, { token });
    expect(r.body).toEqual({ items: ["location", "organization", "shard"] });
    expect((await t.request("GET", `${BASE}/resource-types`)).status).toBe(401);
  });
});
