import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, createMember, waitForEvent, twoOrgApp, type TestApp } from "@tests/helpers";
import { blockouts } from "@db/tenant/scheduling";
import type { EventEnvelope } from "@/platform/events/envelope";
import { insertDefinition, malformed, rowsOf, scheduleSetup, type ScheduleSetup } from "@tests/domains/scheduling/provider-schedules/fixtures";

let t: TestApp;
let token: string;
let orgId: string;
let otherOrg: string;
let s: ScheduleSetup;
let other: ScheduleSetup;
let lunch: { id: string };
let meeting: { id: string };
let holiday: { id: string };
let foreignType: { id: string };
const events: EventEnvelope[] = [];
const P = () => `/api/v1/${orgId}/schedule/blockouts`;
const MISSING = "01900000-0000-7000-8000-000000000000";

beforeAll(async () => {
  ({ t, admin: token, orgA: orgId, orgB: otherOrg } = await twoOrgApp());
  s = await scheduleSetup(t, orgId, "America/New_York");
  other = await scheduleSetup(t, otherOrg);
  lunch = await insertDefinition(t, orgId, "blockout_types", "Lunch");
  meeting = await insertDefinition(t, orgId, "blockout_types", "Staff meeting");
  holiday = await insertDefinition(t, orgId, "holidays", "New Year", "2026-01-01");
  foreignType = await insertDefinition(t, otherOrg, "blockout_types", "Lunch");
  t.rt.events.subscribe(orgId, (e) => events.push(e));
});
afterAll(() => t.close());

const body = (v: Record<string, unknown> = {}) => ({
  location_uuid: s.location.id,
  blockout_type_uuid: lunch.id,
  start: "2026-06-01T12:00",
  end: "2026-06-01T13:00",
  ...v,
});
async function create(v: Record<string, unknown> = {}) {
  const r = await t.request("POST", P(), { token, body: body(v) });
  if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
  return r.body;
}
const count = async () => (await rowsOf(t, orgId, blockouts)).length;
const rowOf = async (id: string) => (await rowsOf(t, orgId, blockouts, id))[0];

describe("POST /schedule/blockouts", () => {
  test("creates a blockout: wall clock answers, UTC stored, refs, audit, event without the note", async () => {
    const before = events.length;
    const r = await t.request("POST", P(), { token, body: body({ operatory_uuid: s.operatory.id, provider_uuid: s.provider.id, note: "Dr. Molar's lunch" }) });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      location: { uuid: s.location.id, name: s.location.name },
      operatory: { uuid: s.operatory.id, name: "Op 1" },
      provider: { uuid: s.provider.id, name: "Ada Molar" },
      blockout_type: { uuid: lunch.id, name: "Lunch" },
      start: "2026-06-01T12:00:00",
      end: "2026-06-01T13:00:00",
      note: "Dr. Molar's lunch",
      version: 1,
    });
    expect(await rowOf(r.body.id)).toMatchObject({ start_utc: "2026-06-01T16:00:00.000Z", end_utc: "2026-06-01T17:00:00.000Z" });
    expect((await auditOf(t, orgId, r.body.id)).map((a) => a.action)).toEqual(["blockout.created"]);
    await waitForEvent(events, (e) => e.type === "blockout.created", { from: before });
    expect(events.slice(before).find((e) => e.type === "blockout.created")?.data).toEqual({
      id: r.body.id,
      location_id: s.location.id,
      operatory_id: s.operatory.id,
      provider_id: s.provider.id,
      blockout_type_id: lunch.id,
    });
  });

  test("a value with an offset is converted into the location's zone; a whole-location blockout has no operatory or provider", async () => {
    const c = await create({ start: "2026-06-02T13:00:00Z", end: "2026-06-02T14:30:00-04:00" });
    expect(c).toMatchObject({ start: "2026-06-02T09:00:00", end: "2026-06-02T14:30:00", operatory: null, provider: null, note: "" });
  });

  test("DST: a start in New York's skipped hour is 422; a fall-back blockout keeps the first 01:30", async () => {
    const gap = await t.request("POST", P(), { token, body: body({ start: "2026-03-08T02:30", end: "2026-03-08T04:00" }) });
    expect(gap.status).toBe(422);
    expect(gap.body.detail).toEqual([
      { loc: ["body", "start"], msg: "This time does not exist in America/New_York (clocks move forward)", type: "value_error" },
    ]);
    const c = await create({ start: "2026-11-01T01:30", end: "2026-11-01T02:30" });
    expect(await rowOf(c.id)).toMatchObject({ start_utc: "2026-11-01T05:30:00.000Z", end_utc: "2026-11-01T07:30:00.000Z" });
  });

  test("404 unknown or foreign location, operatory, provider, blockout type; 422 type of another category, operatory of another location", async () => {
    const n = await count();
    for (const [field, value, what] of [
      ["location_uuid", other.location.id, "Location"],
      ["operatory_uuid", MISSING, "Operatory"],
      ["operatory_uuid", other.operatory.id, "Operatory"],
      ["provider_uuid", other.provider.id, "Provider"],
      ["blockout_type_uuid", MISSING, "Blockout type"],
      ["blockout_type_uuid", foreignType.id, "Blockout type"],
    ] as const) {
      expect((await t.request("POST", P(), { token, body: body({ [field]: value }) })).body).toEqual({ detail: `${what} not found`, code: "not_found" });
    }
    let r = await t.request("POST", P(), { token, body: body({ blockout_type_uuid: holiday.id }) });
    expect(r.body).toEqual({
      code: "blockout_type_invalid",
      detail: [{ loc: ["body", "blockout_type_uuid"], msg: "Must be a definition of category blockout_types", type: "value_error" }],
    });
    const elsewhere = await scheduleSetup(t, orgId);
    r = await t.request("POST", P(), { token, body: body({ operatory_uuid: elsewhere.operatory.id }) });
    expect(r.body.code).toBe("operatory_location_mismatch");
    expect(await count()).toBe(n);
  });

  test("422 window rules and schema rules; nothing written", async () => {
    const n = await count();
    for (const [v, code] of [
      [{ end: "2026-06-01T12:00" }, "invalid_window"],
      [{ end: "2026-06-01T11:00" }, "invalid_window"],
      [{ end: "2026-07-03T12:00" }, "invalid_window"],
    ] as const) {
      const r = await t.request("POST", P(), { token, body: body(v) });
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code, detail: [{ loc: ["body", "end"] }] });
    }
    for (const [v, loc, type] of [
      [{ start: undefined }, ["body", "start"], "missing"],
      [{ blockout_type_uuid: undefined }, ["body", "blockout_type_uuid"], "missing"],
      [{ start: "June 1st" }, ["body", "start"], "format"],
      [{ start: 5 }, ["body", "start"], "type_error"],
      [{ note: "x".repeat(2001) }, ["body", "note"], "out_of_range"],
      [{ reason: "x" }, ["body", "reason"], "extra_forbidden"],
      [{ created_at: "2026-01-01T00:00:00Z" }, ["body", "created_at"], "read_only"],
    ] as const) {
      const r = await t.request("POST", P(), { token, body: body(v as Record<string, unknown>) });
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    expect((await t.request("POST", P(), { token, ...malformed })).body.detail[0].type).toBe("json_invalid");
    expect(await count()).toBe(n);
  });

  test("401, 403 without schedule.write, 404 for a non-member", async () => {
    const n = await count();
    expect((await t.request("POST", P(), { body: body() })).status).toBe(401);
    expect((await t.request("POST", P(), { token: (await createMember(t, orgId, ["schedule.read"])).token, body: body() })).status).toBe(403);
    expect((await t.request("POST", P(), { token: (await createMember(t, otherOrg, ["schedule.write"])).token, body: body() })).status).toBe(404);
    expect(await count()).toBe(n);
  });
});

describe("GET /schedule/blockouts", () => {
  test("filters by location, operatory, provider and local date range (overlap), ordered by start", async () => {
    const loc = await scheduleSetup(t, orgId, "Europe/London");
    const b = (v: Record<string, unknown>) => create({ location_uuid: loc.location.id, ...v });
    const a1 = await b({ start: "2026-07-01T09:00", end: "2026-07-01T10:00", operatory_uuid: loc.operatory.id });
    const a2 = await b({ start: "2026-06-30T22:00", end: "2026-07-01T01:00", provider_uuid: loc.provider.id });
    const a3 = await b({ start: "2026-07-02T09:00", end: "2026-07-02T10:00" });
    let r = await t.request("GET", `${P()}?location_uuid=${loc.location.id}`, { token });
    expect(r.body).toMatchObject({ total: 3, page: 1, page_size: 50 });
    expect(r.body.items.map((i: any) => i.id)).toEqual([a2.id, a1.id, a3.id]);
    r = await t.request("GET", `${P()}?location_uuid=${loc.location.id}&date_from=2026-07-01&date_to=2026-07-01`, { token });
    expect(r.body.items.map((i: any) => i.id)).toEqual([a2.id, a1.id]);
    r = await t.request("GET", `${P()}?location_uuid=${loc.location.id}&date_from=2026-07-02`, { token });
    expect(r.body.items.map((i: any) => i.id)).toEqual([a3.id]);
    r = await t.request("GET", `${P()}?operatory_uuid=${loc.operatory.id}`, { token });
    expect(r.body.items.map((i: any) => i.id)).toEqual([a1.id]);
    r = await t.request("GET", `${P()}?provider_uuid=${loc.provider.id}`, { token });
    expect(r.body.items.map((i: any) => i.id)).toEqual([a2.id]);
    r = await t.request("GET", `${P()}?location_uuid=${loc.location.id}&page_size=1&page=3`, { token });
    expect(r.body).toMatchObject({ total: 3, items: [{ id: a3.id }] });
  });

  test("404 unknown or foreign filters; 422 paging, inverted dates, unknown parameters", async () => {
    for (const q of [`location_uuid=${other.location.id}`, `operatory_uuid=${other.operatory.id}`, `provider_uuid=${MISSING}`]) {
      expect((await t.request("GET", `${P()}?${q}`, { token })).status).toBe(404);
    }
    for (const q of ["page_size=201", "page=0", "date_from=2026-07-02&date_to=2026-07-01", "date_from=2026-7-1", "type=lunch"]) {
      expect((await t.request("GET", `${P()}?${q}`, { token })).status).toBe(422);
    }
  });

  test("401, 403, 404 non-member", async () => {
    expect((await t.request("GET", P())).status).toBe(401);
    expect((await t.request("GET", P(), { token: (await createMember(t, orgId, ["patients.read"])).token })).status).toBe(403);
    expect((await t.request("GET", P(), { token: (await createMember(t, otherOrg, ["schedule.read"])).token })).status).toBe(404);
  });
});

describe("GET, PATCH, DELETE /schedule/blockouts/{blockout_uuid}", () => {
  test("get; 404 missing and other org's for every route; 401; 403", async () => {
    const c = await create();
    expect((await t.request("GET", `${P()}/${c.id}`, { token })).body).toEqual(c);
    expect((await t.request("GET", `${P()}/${MISSING}`, { token })).status).toBe(404);
    const foreign = await t.request("POST", `/api/v1/${otherOrg}/schedule/blockouts`, {
      token,
      body: { location_uuid: other.location.id, blockout_type_uuid: foreignType.id, start: "2026-06-01T12:00", end: "2026-06-01T13:00" },
    });
    expect(foreign.status).toBe(201);
    expect((await t.request("GET", `${P()}/${foreign.body.id}`, { token })).status).toBe(404);
    expect((await t.request("PATCH", `${P()}/${foreign.body.id}`, { token, body: { base_version: 1, note: "x" } })).status).toBe(404);
    expect((await t.request("DELETE", `${P()}/${foreign.body.id}?base_version=1`, { token })).status).toBe(404);
    expect((await rowsOf(t, otherOrg, blockouts, foreign.body.id))[0]).toMatchObject({ note: "", version: 1, deleted_at: null });
    expect((await t.request("GET", `${P()}/${c.id}`)).status).toBe(401);
    expect((await t.request("GET", `${P()}/${c.id}`, { token: (await createMember(t, orgId, ["patients.read"])).token })).status).toBe(403);
  });

  test("PATCH: one end keeps the other; type, operatory, provider and note change; 409 stale; 422 and 404 leave the row", async () => {
    const c = await create();
    const before = events.length;
    let r = await t.request("PATCH", `${P()}/${c.id}`, {
      token,
      body: { base_version: 1, end: "2026-06-01T14:00", blockout_type_uuid: meeting.id, operatory_uuid: s.operatory2.id, note: "moved" },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      version: 2,
      start: "2026-06-01T12:00:00",
      end: "2026-06-01T14:00:00",
      blockout_type: { uuid: meeting.id, name: "Staff meeting" },
      operatory: { uuid: s.operatory2.id },
      note: "moved",
    });
    expect(await rowOf(c.id)).toMatchObject({ start_utc: "2026-06-01T16:00:00.000Z", end_utc: "2026-06-01T18:00:00.000Z" });
    await waitForEvent(events, (e) => e.type === "blockout.updated", { from: before });
    expect(events.slice(before).find((e) => e.type === "blockout.updated")?.data).toEqual({
      id: c.id,
      changed_fields: ["operatory", "blockout_type", "end", "note"],
    });
    expect((await t.request("PATCH", `${P()}/${c.id}`, { token, body: { base_version: 1, note: "x" } })).body.code).toBe("version_conflict");
    for (const [b, status] of [
      [{ base_version: 2, start: "2026-06-01T15:00" }, 422],
      [{ base_version: 2, blockout_type_uuid: holiday.id }, 422],
      [{ base_version: 2, location_uuid: other.location.id }, 422],
      [{ note: "x" }, 422],
      [{ base_version: 2, provider_uuid: MISSING }, 404],
      [{ base_version: 2, blockout_type_uuid: MISSING }, 404],
    ] as const) {
      expect((await t.request("PATCH", `${P()}/${c.id}`, { token, body: b })).status).toBe(status);
    }
    expect((await t.request("PATCH", `${P()}/${c.id}`, { token, ...malformed })).status).toBe(422);
    expect(
      (await t.request("PATCH", `${P()}/${c.id}`, { token: (await createMember(t, orgId, ["schedule.read"])).token, body: { base_version: 2, note: "y" } }))
        .status,
    ).toBe(403);
    expect((await t.request("PATCH", `${P()}/${c.id}`, { body: { base_version: 2 } })).status).toBe(401);
    expect(await rowOf(c.id)).toMatchObject({ version: 2, end: "2026-06-01T14:00:00", blockout_type_id: meeting.id, provider_id: null, note: "moved" });
    r = await t.request("PATCH", `${P()}/${c.id}`, { token, body: { base_version: 2, operatory_uuid: null, provider_uuid: s.provider2.id } });
    expect(r.body).toMatchObject({ version: 3, operatory: null, provider: { uuid: s.provider2.id, name: "Grace Canine" } });
  });

  test("DELETE: base_version required, stale 409, 204, audit, event, then 404", async () => {
    const c = await create();
    expect((await t.request("DELETE", `${P()}/${c.id}`, { token })).status).toBe(422);
    expect((await t.request("DELETE", `${P()}/${c.id}?base_version=2`, { token })).status).toBe(409);
    expect((await t.request("DELETE", `${P()}/${c.id}?base_version=1`, { token: (await createMember(t, orgId, ["schedule.read"])).token })).status).toBe(403);
    expect((await t.request("DELETE", `${P()}/${c.id}?base_version=1`)).status).toBe(401);
    expect((await rowOf(c.id)).deleted_at).toBeNull();
    const before = events.length;
    expect((await t.request("DELETE", `${P()}/${c.id}?base_version=1`, { token })).status).toBe(204);
    await waitForEvent(events, (e) => e.type === "blockout.deleted", { from: before });
    expect(events.slice(before).map((e) => e.type)).toContain("blockout.deleted");
    expect((await auditOf(t, orgId, c.id)).map((a) => a.action)).toEqual(["blockout.created", "blockout.deleted"]);
    expect((await t.request("GET", `${P()}/${c.id}`, { token })).status).toBe(404);
    expect((await t.request("DELETE", `${P()}/${c.id}?base_version=2`, { token })).status).toBe(404);
  });
});
