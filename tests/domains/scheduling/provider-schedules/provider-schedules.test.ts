import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, createMember, waitForEvent, twoOrgApp, type TestApp } from "@tests/helpers";
import { providerSchedules } from "@db/tenant/scheduling";
import type { EventEnvelope } from "@/platform/events/envelope";
import { createOperatory, createProvider, malformed, rowsOf, scheduleSetup, type ScheduleSetup } from "./fixtures";

let t: TestApp;
let token: string;
let orgId: string;
let otherOrg: string;
let s: ScheduleSetup;
let other: ScheduleSetup;
const events: EventEnvelope[] = [];
const P = () => `/api/v1/${orgId}/schedule/provider-schedules`;

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
  weekday: 1,
  start_time: "08:00",
  end_time: "12:00",
  ...v,
});
async function create(v: Record<string, unknown> = {}) {
  const r = await t.request("POST", P(), { token, body: body(v) });
  if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
  return r.body;
}
const count = async () => (await rowsOf(t, orgId, providerSchedules)).length;

describe("POST /schedule/provider-schedules", () => {
  test("creates a template with refs, version 1, ETag, audit row and event", async () => {
    const before = events.length;
    const r = await t.request("POST", P(), {
      token,
      body: body({ operatory_uuid: s.operatory.id, weekday: 2, effective_from: "2026-01-01", effective_to: "2026-12-31" }),
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toMatchObject({
      provider: { uuid: s.provider.id, name: "Ada Molar" },
      location: { uuid: s.location.id, name: s.location.name },
      operatory: { uuid: s.operatory.id, name: "Op 1" },
      weekday: 2,
      start_time: "08:00",
      end_time: "12:00",
      effective_from: "2026-01-01",
      effective_to: "2026-12-31",
      version: 1,
    });
    const audit = await auditOf(t, orgId, r.body.id);
    expect(audit.map((a) => a.action)).toEqual(["provider_schedule.created"]);
    expect(audit[0].after).toMatchObject({ provider_uuid: s.provider.id, weekday: 2 });
    const e = await waitForEvent(events, (x) => x.type === "provider_schedule.created", { from: before });
    expect(e).toMatchObject({
      resource_id: r.body.id,
      practice_id: s.location.id,
      data: { id: r.body.id, provider_id: s.provider.id, location_id: s.location.id, operatory_id: s.operatory.id, weekday: 2 },
    });
  });

  test("operatory and effective dates are optional (null); touching shifts do not overlap", async () => {
    const a = await create({ weekday: 3, start_time: "08:00", end_time: "12:00" });
    const b = await create({ weekday: 3, start_time: "12:00", end_time: "17:00" });
    expect(a).toMatchObject({ operatory: null, effective_from: null, effective_to: null });
    expect(b.start_time).toBe("12:00");
  });

  test("409 schedule_overlap for the same provider, weekday and overlapping hours (any location); none when effective dates do not overlap", async () => {
    await create({ weekday: 4, start_time: "09:00", end_time: "13:00", effective_to: "2026-06-30" });
    const n = await count();
    const other = await createOperatory(t, orgId, s.location.id, { name: "Op X" });
    const r = await t.request("POST", P(), { token, body: body({ weekday: 4, start_time: "12:30", end_time: "15:00", operatory_uuid: other.id }) });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("schedule_overlap");
    expect(await count()).toBe(n);
    // the other provider, or later dates, are fine
    expect(
      (await t.request("POST", P(), { token, body: body({ weekday: 4, provider_uuid: s.provider2.id, start_time: "12:30", end_time: "15:00" }) })).status,
    ).toBe(201);
    expect(
      (await t.request("POST", P(), { token, body: body({ weekday: 4, start_time: "12:30", end_time: "15:00", effective_from: "2026-07-01" }) })).status,
    ).toBe(201);
  });

  test("404 for an unknown provider, location or operatory, and for another org's", async () => {
    const n = await count();
    const missing = "01900000-0000-7000-8000-000000000000";
    for (const [field, value, what] of [
      ["provider_uuid", missing, "Provider"],
      ["location_uuid", missing, "Location"],
      ["operatory_uuid", missing, "Operatory"],
      ["provider_uuid", other.provider.id, "Provider"],
      ["location_uuid", other.location.id, "Location"],
      ["operatory_uuid", other.operatory.id, "Operatory"],
    ] as const) {
      const r = await t.request("POST", P(), { token, body: body({ [field]: value }) });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: `${what} not found`, code: "not_found" });
    }
    expect(await count()).toBe(n);
  });

  test("422 for an operatory of another location, end not after start, effective dates out of order", async () => {
    const n = await count();
    const elsewhere = await scheduleSetup(t, orgId);
    let r = await t.request("POST", P(), { token, body: body({ operatory_uuid: elsewhere.operatory.id }) });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "operatory_location_mismatch", detail: [{ loc: ["body", "operatory_uuid"] }] });
    r = await t.request("POST", P(), { token, body: body({ weekday: 6, start_time: "12:00", end_time: "12:00" }) });
    expect(r.body).toEqual({ code: "invalid_hours", detail: [{ loc: ["body", "end_time"], msg: "Must be after start_time", type: "value_error" }] });
    r = await t.request("POST", P(), { token, body: body({ weekday: 6, effective_from: "2026-05-02", effective_to: "2026-05-01" }) });
    expect(r.body).toMatchObject({ code: "invalid_effective_dates", detail: [{ loc: ["body", "effective_to"] }] });
    expect(await count()).toBe(n);
  });

  test("422 schema rules: missing, wrong types, ranges, formats, unknown and read-only fields, malformed JSON", async () => {
    const n = await count();
    const cases: [Record<string, unknown>, (string | number)[], string][] = [
      [{ weekday: undefined }, ["body", "weekday"], "missing"],
      [{ provider_uuid: undefined }, ["body", "provider_uuid"], "missing"],
      [{ weekday: "1" }, ["body", "weekday"], "type_error"],
      [{ weekday: 7 }, ["body", "weekday"], "out_of_range"],
      [{ weekday: -1 }, ["body", "weekday"], "out_of_range"],
      [{ weekday: 1.5 }, ["body", "weekday"], "type_error"],
      [{ start_time: "8:00" }, ["body", "start_time"], "format"],
      [{ end_time: "24:00" }, ["body", "end_time"], "format"],
      [{ effective_from: "2026-02-30" }, ["body", "effective_from"], "format"],
      [{ provider_uuid: "nope" }, ["body", "provider_uuid"], "format"],
      [{ color: "red" }, ["body", "color"], "extra_forbidden"],
      [{ version: 3 }, ["body", "version"], "read_only"],
    ];
    for (const [v, loc, type] of cases) {
      const r = await t.request("POST", P(), { token, body: body(v) });
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    const bad = await t.request("POST", P(), { token, ...malformed });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect(await count()).toBe(n);
  });

  test("401 without a token, 403 without schedule.write, 404 for a non-member org", async () => {
    const n = await count();
    expect((await t.request("POST", P(), { body: body() })).status).toBe(401);
    const reader = await createMember(t, orgId, ["schedule.read"]);
    const r = await t.request("POST", P(), { token: reader.token, body: body({ weekday: 0 }) });
    expect(r.status).toBe(403);
    const outsider = await createMember(t, otherOrg, ["schedule.write"]);
    expect((await t.request("POST", P(), { token: outsider.token, body: body({ weekday: 0 }) })).status).toBe(404);
    expect(await count()).toBe(n);
  });
});

describe("GET /schedule/provider-schedules", () => {
  test("lists with filters and paging, ordered by weekday then start", async () => {
    const p = await createProvider(t, orgId, { abbreviation: "LST" });
    await create({ provider_uuid: p.id, weekday: 5, start_time: "13:00", end_time: "17:00" });
    await create({ provider_uuid: p.id, weekday: 5, start_time: "08:00", end_time: "12:00", effective_to: "2026-03-01" });
    await create({ provider_uuid: p.id, weekday: 1, start_time: "10:00", end_time: "11:00" });
    let r = await t.request("GET", `${P()}?provider_uuid=${p.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(r.body.items.map((i: any) => `${i.weekday} ${i.start_time}`)).toEqual(["1 10:00", "5 08:00", "5 13:00"]);
    r = await t.request("GET", `${P()}?provider_uuid=${p.id}&weekday=5&page_size=1&page=2`, { token });
    expect(r.body).toMatchObject({ total: 2, page: 2, page_size: 1 });
    expect(r.body.items.map((i: any) => i.start_time)).toEqual(["13:00"]);
    r = await t.request("GET", `${P()}?provider_uuid=${p.id}&active_on=2026-04-01`, { token });
    expect(r.body.items.map((i: any) => i.start_time)).toEqual(["10:00", "13:00"]);
    r = await t.request("GET", `${P()}?location_uuid=${s.location.id}&provider_uuid=${p.id}`, { token });
    expect(r.body.total).toBe(3);
  });

  test("404 for an unknown or other org's provider/location filter; 422 for bad paging or unknown parameters", async () => {
    expect((await t.request("GET", `${P()}?provider_uuid=${other.provider.id}`, { token })).status).toBe(404);
    expect((await t.request("GET", `${P()}?location_uuid=${other.location.id}`, { token })).status).toBe(404);
    for (const q of ["page=0", "page_size=201", "weekday=9", "provider=1", "active_on=2026-13-01"]) {
      expect((await t.request("GET", `${P()}?${q}`, { token })).status).toBe(422);
    }
  });

  test("401, 403 without schedule.read, 404 for a non-member", async () => {
    expect((await t.request("GET", P())).status).toBe(401);
    const m = await createMember(t, orgId, ["patients.read"]);
    expect((await t.request("GET", P(), { token: m.token })).status).toBe(403);
    const outsider = await createMember(t, otherOrg, ["schedule.read"]);
    expect((await t.request("GET", P(), { token: outsider.token })).status).toBe(404);
  });
});

describe("GET, PATCH, DELETE /schedule/provider-schedules/{id}", () => {
  test("get answers the record; 404 for missing and for another org's id", async () => {
    const c = await create({ weekday: 0, start_time: "07:00", end_time: "08:00" });
    const r = await t.request("GET", `${P()}/${c.id}`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(c);
    expect((await t.request("GET", `${P()}/01900000-0000-7000-8000-000000000000`, { token })).status).toBe(404);
    const foreign = await t.request("POST", `/api/v1/${otherOrg}/schedule/provider-schedules`, {
      token,
      body: { provider_uuid: other.provider.id, location_uuid: other.location.id, weekday: 1, start_time: "08:00", end_time: "09:00" },
    });
    expect(foreign.status).toBe(201);
    expect((await t.request("GET", `${P()}/${foreign.body.id}`, { token })).status).toBe(404);
    expect((await t.request("PATCH", `${P()}/${foreign.body.id}`, { token, body: { base_version: 1, start_time: "07:00" } })).status).toBe(404);
    expect((await t.request("DELETE", `${P()}/${foreign.body.id}?base_version=1`, { token })).status).toBe(404);
    expect((await rowsOf(t, otherOrg, providerSchedules, foreign.body.id))[0]).toMatchObject({ start_time: "08:00", version: 1, deleted_at: null });
    const reader = await createMember(t, orgId, ["patients.read"]);
    expect((await t.request("GET", `${P()}/${c.id}`, { token: reader.token })).status).toBe(403);
    expect((await t.request("GET", `${P()}/${c.id}`)).status).toBe(401);
  });

  test("PATCH changes hours, operatory and dates; 409 stale; 422 rules; nothing changed after rejections", async () => {
    const c = await create({ weekday: 6, start_time: "08:00", end_time: "10:00" });
    const before = events.length;
    let r = await t.request("PATCH", `${P()}/${c.id}`, { token, body: { base_version: 1, end_time: "11:00", operatory_uuid: s.operatory2.id } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ version: 2, start_time: "08:00", end_time: "11:00", operatory: { uuid: s.operatory2.id, name: "Op 2" } });
    await waitForEvent(events, (e) => e.type === "provider_schedule.updated", { from: before });
    expect(events.slice(before).find((e) => e.type === "provider_schedule.updated")?.data).toEqual({ id: c.id, changed_fields: ["operatory", "end_time"] });
    expect((await auditOf(t, orgId, c.id)).map((a) => a.action)).toEqual(["provider_schedule.created", "provider_schedule.updated"]);
    const stale = await t.request("PATCH", `${P()}/${c.id}`, { token, body: { base_version: 1, end_time: "12:00" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    for (const [b, code] of [
      [{ base_version: 2, start_time: "11:00" }, "invalid_hours"],
      [{ base_version: 2, effective_from: "2026-02-01", effective_to: "2026-01-01" }, "invalid_effective_dates"],
      [{ base_version: 2, provider_uuid: s.provider2.id }, undefined],
      [{ base_version: 2, weekday: "x" }, undefined],
      [{ end_time: "12:00" }, undefined],
    ] as const) {
      const x = await t.request("PATCH", `${P()}/${c.id}`, { token, body: b });
      expect(x.status).toBe(422);
      expect(x.body.code).toBe(code);
    }
    expect((await t.request("PATCH", `${P()}/${c.id}`, { token, ...malformed })).status).toBe(422);
    expect(
      (await t.request("PATCH", `${P()}/${c.id}`, { token, body: { base_version: 2, operatory_uuid: "01900000-0000-7000-8000-000000000000" } })).status,
    ).toBe(404);
    // overlapping another template of the same provider
    await create({ weekday: 6, start_time: "13:00", end_time: "15:00" });
    expect((await t.request("PATCH", `${P()}/${c.id}`, { token, body: { base_version: 2, end_time: "14:00" } })).body.code).toBe("schedule_overlap");
    const row = (await rowsOf(t, orgId, providerSchedules, c.id))[0];
    expect(row).toMatchObject({ version: 2, start_time: "08:00", end_time: "11:00", provider_id: s.provider.id, operatory_id: s.operatory2.id });
    // null clears the operatory
    r = await t.request("PATCH", `${P()}/${c.id}`, { token, body: { base_version: 2, operatory_uuid: null } });
    expect(r.body).toMatchObject({ version: 3, operatory: null });
    const m = await createMember(t, orgId, ["schedule.read"]);
    expect((await t.request("PATCH", `${P()}/${c.id}`, { token: m.token, body: { base_version: 3, end_time: "12:00" } })).status).toBe(403);
    expect((await t.request("PATCH", `${P()}/${c.id}`, { body: { base_version: 3 } })).status).toBe(401);
  });

  test("DELETE needs the current base_version; 204; then 404 everywhere and out of the list", async () => {
    const c = await create({ weekday: 0, start_time: "18:00", end_time: "19:00" });
    expect((await t.request("DELETE", `${P()}/${c.id}?base_version=2`, { token })).status).toBe(409);
    expect((await t.request("DELETE", `${P()}/${c.id}`, { token })).status).toBe(422);
    const m = await createMember(t, orgId, ["schedule.read"]);
    expect((await t.request("DELETE", `${P()}/${c.id}?base_version=1`, { token: m.token })).status).toBe(403);
    expect((await t.request("DELETE", `${P()}/${c.id}?base_version=1`)).status).toBe(401);
    expect((await rowsOf(t, orgId, providerSchedules, c.id))[0].deleted_at).toBeNull();
    const before = events.length;
    const r = await t.request("DELETE", `${P()}/${c.id}?base_version=1`, { token });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    await waitForEvent(events, (e) => e.type === "provider_schedule.deleted", { from: before });
    expect(events.slice(before).map((e) => e.type)).toContain("provider_schedule.deleted");
    expect((await t.request("GET", `${P()}/${c.id}`, { token })).status).toBe(404);
    expect((await t.request("DELETE", `${P()}/${c.id}?base_version=2`, { token })).status).toBe(404);
    const list = await t.request("GET", `${P()}?weekday=0&page_size=200`, { token });
    expect(list.body.items.map((i: any) => i.id)).not.toContain(c.id);
    // the hours are free again
    expect((await t.request("POST", P(), { token, body: body({ weekday: 0, start_time: "18:00", end_time: "19:00" }) })).status).toBe(201);
  });
});
