import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, busDrained, createMember, twoOrgApp, type TestApp } from "@tests/helpers";
import { productionGoals } from "@db/tenant/scheduling";
import type { EventEnvelope } from "@/platform/events/envelope";
import { createProvider, rowsOf, scheduleSetup, type ScheduleSetup } from "@tests/domains/scheduling/provider-schedules/fixtures";

let t: TestApp;
let token: string;
let orgId: string;
let otherOrg: string;
let s: ScheduleSetup;
let other: ScheduleSetup;
const events: EventEnvelope[] = [];
const P = () => `/api/v1/${orgId}/schedule/production-goals`;
const MISSING = "01900000-0000-7000-8000-000000000000";

beforeAll(async () => {
  ({ t, admin: token, orgA: orgId, orgB: otherOrg } = await twoOrgApp());
  s = await scheduleSetup(t, orgId);
  other = await scheduleSetup(t, otherOrg);
  t.rt.events.subscribe(orgId, (e) => events.push(e));
});
afterAll(() => t.close());

const body = (v: Record<string, unknown> = {}) => ({
  provider_uuid: s.provider.id,
  location_uuid: s.location.id,
  goal_date: "2026-06-01",
  goal_amount: 2500,
  ...v,
});
const upsert = (v: Record<string, unknown> = {}, tok: string | null = token) => t.request("PUT", `${P()}/upsert`, { token: tok ?? undefined, body: body(v) });
const count = async () => (await rowsOf(t, orgId, productionGoals)).length;

describe("PUT /schedule/production-goals/upsert", () => {
  test("creates (200), then updates the amount of the same provider, location and date; audit and events", async () => {
    const before = events.length;
    const a = await upsert({ goal_date: "2026-06-02", goal_amount: 1234.5 });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({
      provider: { uuid: s.provider.id, name: "Ada Molar" },
      location: { uuid: s.location.id, name: s.location.name },
      goal_date: "2026-06-02",
      goal_amount: "1234.50",
      version: 1,
    });
    expect(Object.keys(a.body).sort()).toEqual(["created_at", "goal_amount", "goal_date", "id", "location", "provider", "updated_at", "version"]);
    const b = await upsert({ goal_date: "2026-06-02", goal_amount: 1500.07 });
    expect(b.body).toMatchObject({ id: a.body.id, goal_amount: "1500.07", version: 2 });
    const same = await upsert({ goal_date: "2026-06-02", goal_amount: 1500.07 });
    expect(same.body).toMatchObject({ id: a.body.id, version: 2 });
    expect((await rowsOf(t, orgId, productionGoals, a.body.id))[0]).toMatchObject({ goal_cents: 150007 });
    expect((await auditOf(t, orgId, a.body.id)).map((x) => x.action)).toEqual(["production_goal.created", "production_goal.updated"]);
    await busDrained(t.rt.bus); // an exact list: the unchanged upsert must have published nothing
    expect(events.slice(before).map((e) => [e.type, e.data])).toEqual([
      ["production_goal.created", { id: a.body.id, provider_id: s.provider.id, location_id: s.location.id, goal_date: "2026-06-02" }],
      ["production_goal.updated", { id: a.body.id, changed_fields: ["goal_amount"] }],
    ]);
    // another provider or date is another goal
    const c = await upsert({ goal_date: "2026-06-02", provider_uuid: s.provider2.id });
    expect(c.body.id).not.toBe(a.body.id);
  });

  test("404 unknown or other org's provider and location; nothing written", async () => {
    const n = await count();
    for (const [v, what] of [
      [{ provider_uuid: MISSING }, "Provider"],
      [{ provider_uuid: other.provider.id }, "Provider"],
      [{ location_uuid: other.location.id }, "Location"],
    ] as const) {
      expect((await upsert(v)).body).toEqual({ detail: `${what} not found`, code: "not_found" });
    }
    expect(await count()).toBe(n);
  });

  test("422: missing, wrong types, negative, three decimals, bad date, unknown and read-only fields, malformed JSON; nothing written", async () => {
    await upsert({ goal_date: "2026-06-09", goal_amount: 100 });
    const n = await count();
    for (const [v, loc, type] of [
      [{ goal_amount: undefined }, ["body", "goal_amount"], "missing"],
      [{ goal_date: undefined }, ["body", "goal_date"], "missing"],
      [{ goal_amount: "100" }, ["body", "goal_amount"], "type_error"],
      [{ goal_amount: -1 }, ["body", "goal_amount"], "out_of_range"],
      [{ goal_amount: 10.005 }, ["body", "goal_amount"], "value_error"],
      [{ goal_date: "2026-06-31" }, ["body", "goal_date"], "format"],
      [{ note: "x" }, ["body", "note"], "extra_forbidden"],
      [{ id: MISSING }, ["body", "id"], "read_only"],
    ] as const) {
      const r = await upsert({ goal_date: "2026-06-09", ...(v as Record<string, unknown>) });
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    const bad = await t.request("PUT", `${P()}/upsert`, { token, rawBody: '{"goal_amount": 1', headers: { "content-type": "application/json" } });
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect(await count()).toBe(n);
    expect((await t.request("GET", `${P()}?goal_date=2026-06-09`, { token })).status).toBe(422);
  });

  test("401, 403 without schedule.write, 404 for a non-member", async () => {
    const n = await count();
    expect((await upsert({}, null)).status).toBe(401);
    expect((await upsert({}, (await createMember(t, orgId, ["schedule.read"])).token)).status).toBe(403);
    expect((await upsert({}, (await createMember(t, otherOrg, ["schedule.write"])).token)).status).toBe(404);
    expect(await count()).toBe(n);
  });
});

describe("GET /schedule/production-goals", () => {
  test("filters, inclusive dates, ordered by date, paged", async () => {
    const p = await createProvider(t, orgId, { abbreviation: "GLS" });
    for (const [d, amt] of [
      ["2026-07-03", 300],
      ["2026-07-01", 100],
      ["2026-07-02", 200],
    ] as const)
      await upsert({ provider_uuid: p.id, goal_date: d, goal_amount: amt });
    let r = await t.request("GET", `${P()}?provider_uuid=${p.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total: 3, page: 1, page_size: 50 });
    expect(r.body.items.map((i: any) => [i.goal_date, i.goal_amount])).toEqual([
      ["2026-07-01", "100.00"],
      ["2026-07-02", "200.00"],
      ["2026-07-03", "300.00"],
    ]);
    r = await t.request("GET", `${P()}?provider_uuid=${p.id}&location_uuid=${s.location.id}&date_from=2026-07-02&date_to=2026-07-03&page_size=1&page=2`, {
      token,
    });
    expect(r.body).toMatchObject({ total: 2, items: [{ goal_date: "2026-07-03" }] });
    for (const q of ["page_size=201", "page=0", "date_from=2026-07-02&date_to=2026-07-01"])
      expect((await t.request("GET", `${P()}?${q}`, { token })).status).toBe(422);
    expect((await t.request("GET", `${P()}?provider_uuid=${other.provider.id}`, { token })).status).toBe(404);
    expect((await t.request("GET", `${P()}?location_uuid=${MISSING}`, { token })).status).toBe(404);
  });

  test("another org's goals never show; 401; 403; 404 non-member", async () => {
    const foreign = await t.request("PUT", `/api/v1/${otherOrg}/schedule/production-goals/upsert`, {
      token,
      body: { provider_uuid: other.provider.id, location_uuid: other.location.id, goal_date: "2026-06-01", goal_amount: 9 },
    });
    expect(foreign.status).toBe(200);
    const all = await t.request("GET", `${P()}?page_size=200`, { token });
    expect(all.body.items.map((i: any) => i.id)).not.toContain(foreign.body.id);
    expect((await t.request("GET", P())).status).toBe(401);
    expect((await t.request("GET", P(), { token: (await createMember(t, orgId, ["patients.read"])).token })).status).toBe(403);
    expect((await t.request("GET", P(), { token: (await createMember(t, otherOrg, ["schedule.read"])).token })).status).toBe(404);
  });
});
