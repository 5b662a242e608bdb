import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createMember, startTestApp, type TestApp } from "@tests/helpers";
import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";

let t: TestApp;
let token: string;
let orgId: string;
const base = () => `/api/v1/${orgId}/locations`;
const total = async () => (await t.request("GET", base(), { token })).body.total;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgId = (await t.createOrg()).id;
});
afterAll(() => t.close());

describe("Idempotency-Key on POST", () => {
  test("same key and body replays the first response without a second write", async () => {
    const headers = { "idempotency-key": "create-main-1" };
    const first = await t.request("POST", base(), { token, body: { name: "Once", timezone: "UTC" }, headers });
    const second = await t.request("POST", base(), { token, body: { name: "Once", timezone: "UTC" }, headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect([first.headers.get("etag"), second.headers.get("etag")]).toEqual(['"1"', '"1"']);
    expect(await total()).toBe(1);
  });

  test("same key with a different body is 409 idempotency_conflict", async () => {
    const headers = { "idempotency-key": "create-main-2" };
    await t.request("POST", base(), { token, body: { name: "Two", timezone: "UTC" }, headers });
    const r = await t.request("POST", base(), { token, body: { name: "Other", timezone: "UTC" }, headers });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("idempotency_conflict");
    expect(await total()).toBe(2);
  });

  test("error responses are replayed too", async () => {
    const headers = { "idempotency-key": "bad-1" };
    const a = await t.request("POST", base(), { token, body: { name: "Bad" }, headers });
    const b = await t.request("POST", base(), { token, body: { name: "Bad" }, headers });
    expect(a.status).toBe(422);
    expect(b.status).toBe(422);
    expect(b.body).toEqual(a.body);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
  });

  test("keys are scoped per caller: another user's same key is a new request", async () => {
    const other = await createMember(t, orgId, ORG_PERMISSION_KEYS);
    const headers = { "idempotency-key": "shared-key" };
    const a = await t.request("POST", base(), { token, body: { name: "Mine", timezone: "UTC" }, headers });
    const b = await t.request("POST", base(), { token: other.token, body: { name: "Mine", timezone: "UTC" }, headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.body.id).not.toBe(a.body.id);
  });

  test("concurrent duplicates: exactly one write happens", async () => {
    const before = await total();
    const headers = { "idempotency-key": "race-1" };
    const results = await Promise.all(Array.from({ length: 5 }, () => t.request("POST", base(), { token, body: { name: "Race", timezone: "UTC" }, headers })));
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    expect(results.every((r) => r.status === 201 || (r.status === 409 && r.body.code === "idempotency_conflict"))).toBe(true);
    expect(await total()).toBe(before + 1);
  });

  test("without the header every POST is a new request", async () => {
    const before = await total();
    await t.request("POST", base(), { token, body: { name: "Free", timezone: "UTC" } });
    await t.request("POST", base(), { token, body: { name: "Free", timezone: "UTC" } });
    expect(await total()).toBe(before + 2);
  });
});

describe("stored responses", () => {
  test("are encrypted at rest in the control database", async () => {
    const { idempotencyRecords } = await import("@db/control/schema");
    const { all } = await import("@/platform/db/work");
    await t.request("POST", base(), { token, body: { name: "Sealed Name", timezone: "UTC" }, headers: { "idempotency-key": "sealed-1" } });
    const rows = await t.rt.control.read((db) => all<{ body: string }>(db.select().from(idempotencyRecords)));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.some((r) => r.body.includes("Sealed Name"))).toBe(false);
    const replay = await t.request("POST", base(), { token, body: { name: "Sealed Name", timezone: "UTC" }, headers: { "idempotency-key": "sealed-1" } });
    expect(replay.body.name).toBe("Sealed Name");
  });
});
