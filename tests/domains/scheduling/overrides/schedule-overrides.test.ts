import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, createMember, waitForEvent, twoOrgApp, type TestApp } from "@tests/helpers";
import { scheduleOverrides } from "@db/tenant/scheduling";
import type { EventEnvelope } from "@/platform/events/envelope";
import { createProvider, malformed, rowsOf, scheduleSetup, type ScheduleSetup } from "@tests/domains/scheduling/provider-schedules/fixtures";

let t: TestApp;
let token: string;
let orgId: string;
let otherOrg: string;
let s: ScheduleSetup;
let other: ScheduleSetup;
const events: EventEnvelope[] = [];
const P = () => `/api/v1/${orgId}/schedule/overrides`;
const MISSING = "01900000-0000-7000-8000-000000000000";

beforeAll(async () => {
  ({ t, admin: token, orgA: orgId, orgB: otherOrg } = await twoOrgApp());
  s = await scheduleSetup(t, orgId);
  other = await scheduleSetup(t, otherOrg);
  t.rt.events.subscribe(orgId, (e) => events.push(e));
});
afterAll(() => t.close());

let day = 1;
const nextDate = () => `2026-04-${String(day++).padStart(2, "0")}`;
const body = (v: Record<string, unknown> = {}) => ({
  provider_uuid: s.provider.id,
  location_uuid: s.location.id,
  override_date: nextDate(),
  start_time: "10:00",
  end_time: "14:00",
  override_reason: "reduced_hours",
  ...v,
});
async function create(v: Record<string, unknown> = {}) {
  const r = await t.request("POST", P(), { token, body: body(v) });
  if (r.status !== 201) throw new Error(`create: ${r.status} ${r.text}`);
  return r.body;
}
const count = async () => (await rowsOf(t, orgId, scheduleOverrides)).length;
const rowOf = async (id: string) => (await rowsOf(t, orgId, scheduleOverrides, id))[0];

describe("POST /schedule/overrides", () => {
  test("creates changed hours with refs, audit and event (no note in the event)", async () => {
    const before = events.length;
    const r = await t.request("POST", P(), {
      token,
      body: body({ override_date: "2026-03-02", operatory_uuid: s.operatory.id, note: "Leaves early for the dentist convention" }),
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toMatchObject({
      provider: { uuid: s.provider.id, name: "Ada Molar" },
      location: { uuid: s.location.id },
      operatory: { uuid: s.operatory.id, name: "Op 1" },
      override_date: "2026-03-02",
      start_time: "10:00",
      end_time: "14:00",
      is_unavailable: false,
      override_reason: "reduced_hours",
      note: "Leaves early for the dentist convention",
      version: 1,
    });
    expect((await auditOf(t, orgId, r.body.id)).map((a) => a.action)).toEqual(["schedule_override.created"]);
    const e = await waitForEvent(events, (x) => x.type === "schedule_override.created", { from: before });
    expect(e.data).toEqual({
      id: r.body.id,
      provider_id: s.provider.id,
      location_id: s.location.id,
      override_date: "2026-03-02",
      is_unavailable: false,
      override_reason: "reduced_hours",
    });
    expect(e.practice_id).toBe(s.location.id);
  });

  test("an unavailable day has no hours; note defaults to empty", async () => {
    const c = await create({ start_time: undefined, end_time: undefined, is_unavailable: true, override_reason: "vacation" });
    expect(c).toMatchObject({ start_time: null, end_time: null, is_unavailable: true, override_reason: "vacation", note: "", operatory: null });
  });

  test("422: hours on an unavailable day, missing hours, end not after start, invalid override_reason, schema rules", async () => {
    const n = await count();
    let r = await t.request("POST", P(), { token, body: body({ is_unavailable: true }) });
    expect(r.body).toEqual({
      code: "hours_on_unavailable_day",
      detail: [
        { loc: ["body", "start_time"], msg: "Must be null when is_unavailable is true", type: "value_error" },
        { loc: ["body", "end_time"], msg: "Must be null when is_unavailable is true", type: "value_error" },
      ],
    });
    r = await t.request("POST", P(), { token, body: body({ end_time: undefined }) });
    expect(r.body).toEqual({ code: "hours_required", detail: [{ loc: ["body", "end_time"], msg: "Required unless is_unavailable is true", type: "missing" }] });
    r = await t.request("POST", P(), { token, body: body({ start_time: "14:00", end_time: "10:00" }) });
    expect(r.body.code).toBe("invalid_hours");
    r = await t.request("POST", P(), { token, body: body({ override_reason: "beach" }) });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ["body", "override_reason"], type: "enum" })]);
    for (const [v, loc, type] of [
      [{ override_reason: undefined }, ["body", "override_reason"], "missing"],
      [{ override_date: "2026-04-31" }, ["body", "override_date"], "format"],
      [{ is_unavailable: "yes" }, ["body", "is_unavailable"], "type_error"],
      [{ start_time: "10:60" }, ["body", "start_time"], "format"],
      [{ note: 5 }, ["body", "note"], "type_error"],
      [{ reason: "x" }, ["body", "reason"], "extra_forbidden"],
      [{ id: MISSING }, ["body", "id"], "read_only"],
    ] as const) {
      const x = await t.request("POST", P(), { token, body: body(v as Record<string, unknown>) });
      expect(x.status).toBe(422);
      expect(x.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    expect((await t.request("POST", P(), { token, ...malformed })).body.detail[0].type).toBe("json_invalid");
    const elsewhere = await scheduleSetup(t, orgId);
    expect((await t.request("POST", P(), { token, body: body({ operatory_uuid: elsewhere.operatory.id }) })).body.code).toBe("operatory_location_mismatch");
    expect(await count()).toBe(n);
  });

  test("404 unknown or foreign provider, location, operatory; 409 duplicate day", async () => {
    const n = await count();
    for (const [field, value] of [
      ["provider_uuid", MISSING],
      ["location_uuid", other.location.id],
      ["operatory_uuid", other.operatory.id],
      ["provider_uuid", other.provider.id],
    ]) {
      expect((await t.request("POST", P(), { token, body: body({ [field!]: value }) })).status).toBe(404);
    }
    expect(await count()).toBe(n);
    const c = await create();
    const dup = await t.request("POST", P(), {
      token,
      body: body({ override_date: c.override_date, is_unavailable: true, start_time: null, end_time: null, override_reason: "sick" }),
    });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("duplicate");
    expect(await count()).toBe(n + 1);
  });

  test("401, 403 without schedule.write, 404 for a non-member", async () => {
    const n = await count();
    expect((await t.request("POST", P(), { body: body() })).status).toBe(401);
    expect((await t.request("POST", P(), { token: (await createMember(t, orgId, ["schedule.read"])).token, body: body() })).status).toBe(403);
    expect((await t.request("POST", P(), { token: (await createMember(t, otherOrg, ["schedule.write"])).token, body: body() })).status).toBe(404);
    expect(await count()).toBe(n);
  });
});

describe("GET /schedule/overrides", () => {
  test("every filter, inclusive date range, ordered by date, paging up to 200", async () => {
    const p = await createProvider(t, orgId, { abbreviation: "FLT" });
    await create({ provider_uuid: p.id, override_date: "2026-05-03" });
    await create({ provider_uuid: p.id, override_date: "2026-05-01" });
    await create({ provider_uuid: p.id, override_date: "2026-05-10", is_unavailable: true, start_time: null, end_time: null, override_reason: "sick" });
    let r = await t.request("GET", `${P()}?provider_uuid=${p.id}&location_uuid=${s.location.id}&date_from=2026-05-01&date_to=2026-05-03`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total: 2, page: 1, page_size: 50 });
    expect(r.body.items.map((i: any) => i.override_date)).toEqual(["2026-05-01", "2026-05-03"]);
    r = await t.request("GET", `${P()}?provider_uuid=${p.id}&page_size=200&page=1`, { token });
    expect(r.body.items.map((i: any) => i.override_date)).toEqual(["2026-05-01", "2026-05-03", "2026-05-10"]);
    r = await t.request("GET", `${P()}?provider_uuid=${p.id}&page_size=2&page=2`, { token });
    expect(r.body).toMatchObject({ total: 3, items: [{ override_date: "2026-05-10", is_unavailable: true }] });
    r = await t.request("GET", `${P()}?date_from=2026-05-10&date_to=2026-05-10`, { token });
    expect(r.body.items.map((i: any) => i.provider.uuid)).toEqual([p.id]);
  });

  test("404 when provider or location is missing (or another org's); 422 bad paging, inverted dates, unknown parameters", async () => {
    expect((await t.request("GET", `${P()}?provider_uuid=${MISSING}`, { token })).body).toEqual({ detail: "Provider not found", code: "not_found" });
    expect((await t.request("GET", `${P()}?location_uuid=${other.location.id}`, { token })).body).toEqual({ detail: "Location not found", code: "not_found" });
    for (const q of ["page_size=201", "page=0", "date_from=2026-05-02&date_to=2026-05-01", "date=2026-05-01", "provider_uuid=x"]) {
      expect((await t.request("GET", `${P()}?${q}`, { token })).status).toBe(422);
    }
  });

  test("401, 403, 404 non-member", async () => {
    expect((await t.request("GET", P())).status).toBe(401);
    expect((await t.request("GET", P(), { token: (await createMember(t, orgId, ["patients.read"])).token })).status).toBe(403);
    expect((await t.request("GET", P(), { token: (await createMember(t, otherOrg, ["schedule.read"])).token })).status).toBe(404);
  });
});

describe("GET, PATCH, DELETE /schedule/overrides/{override_uuid}", () => {
  test("get; 404 missing and other org's; 401; 403", async () => {
    const c = await create();
    expect((await t.request("GET", `${P()}/${c.id}`, { token })).body).toEqual(c);
    expect((await t.request("GET", `${P()}/${MISSING}`, { token })).status).toBe(404);
    const foreign = await t.request("POST", `/api/v1/${otherOrg}/schedule/overrides`, {
      token,
      body: { provider_uuid: other.provider.id, location_uuid: other.location.id, override_date: "2026-04-01", is_unavailable: true, override_reason: "sick" },
    });
    expect(foreign.status).toBe(201);
    expect((await t.request("GET", `${P()}/${foreign.body.id}`, { token })).status).toBe(404);
    expect((await t.request("PATCH", `${P()}/${foreign.body.id}`, { token, body: { note: "x" } })).status).toBe(404);
    expect((await t.request("DELETE", `${P()}/${foreign.body.id}`, { token })).status).toBe(404);
    expect((await rowsOf(t, otherOrg, scheduleOverrides, foreign.body.id))[0]).toMatchObject({ note: "", version: 1, deleted_at: null });
    expect((await t.request("GET", `${P()}/${c.id}`)).status).toBe(401);
    expect((await t.request("GET", `${P()}/${c.id}`, { token: (await createMember(t, orgId, ["patients.read"])).token })).status).toBe(403);
  });

  test("PATCH without base_version; with a stale one 409; becoming unavailable clears hours; back needs hours", async () => {
    const c = await create({ operatory_uuid: s.operatory.id });
    const before = events.length;
    let r = await t.request("PATCH", `${P()}/${c.id}`, {
      token,
      body: { end_time: "16:00", note: "stays late", override_reason: "extended_hours", operatory_uuid: s.operatory2.id },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      version: 2,
      start_time: "10:00",
      end_time: "16:00",
      note: "stays late",
      override_reason: "extended_hours",
      operatory: { uuid: s.operatory2.id },
    });
    await waitForEvent(events, (e) => e.type === "schedule_override.updated", { from: before });
    expect(events.slice(before).find((e) => e.type === "schedule_override.updated")?.data).toEqual({
      id: c.id,
      changed_fields: ["operatory", "end_time", "override_reason", "note"],
    });
    const stale = await t.request("PATCH", `${P()}/${c.id}`, { token, body: { base_version: 1, note: "x" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    r = await t.request("PATCH", `${P()}/${c.id}`, { token, body: { base_version: 2, is_unavailable: true } });
    expect(r.body).toMatchObject({ version: 3, is_unavailable: true, start_time: null, end_time: null });
    const back = await t.request("PATCH", `${P()}/${c.id}`, { token, body: { is_unavailable: false } });
    expect(back.body.code).toBe("hours_required");
    expect((await t.request("PATCH", `${P()}/${c.id}`, { token, body: { start_time: "09:00" } })).body.code).toBe("hours_on_unavailable_day");
    r = await t.request("PATCH", `${P()}/${c.id}`, { token, body: { is_unavailable: false, start_time: "09:00", end_time: "12:00" } });
    expect(r.body).toMatchObject({ version: 4, is_unavailable: false, start_time: "09:00", end_time: "12:00" });
    expect((await auditOf(t, orgId, c.id)).map((a) => a.action)).toEqual([
      "schedule_override.created",
      "schedule_override.updated",
      "schedule_override.updated",
      "schedule_override.updated",
    ]);
  });

  test("PATCH 404 missing operatory, 422 invalid override_reason, fixed fields and schema errors; nothing changes", async () => {
    const c = await create();
    expect((await t.request("PATCH", `${P()}/${c.id}`, { token, body: { operatory_uuid: MISSING } })).body).toEqual({
      detail: "Operatory not found",
      code: "not_found",
    });
    expect((await t.request("PATCH", `${P()}/${MISSING}`, { token, body: { note: "x" } })).body).toEqual({
      detail: "Schedule override not found",
      code: "not_found",
    });
    for (const b of [
      { override_reason: "nap" },
      { override_date: "2026-06-01" },
      { provider_uuid: s.provider2.id },
      { end_time: "09:00" },
      { note: null },
      { base_version: 0 },
    ]) {
      expect((await t.request("PATCH", `${P()}/${c.id}`, { token, body: b })).status).toBe(422);
    }
    expect((await t.request("PATCH", `${P()}/${c.id}`, { token, ...malformed })).status).toBe(422);
    expect((await t.request("PATCH", `${P()}/${c.id}`, { token: (await createMember(t, orgId, ["schedule.read"])).token, body: { note: "x" } })).status).toBe(
      403,
    );
    expect((await t.request("PATCH", `${P()}/${c.id}`, { body: { note: "x" } })).status).toBe(401);
    expect(await rowOf(c.id)).toMatchObject({
      version: 1,
      override_reason: "reduced_hours",
      start_time: "10:00",
      end_time: "14:00",
      note: "",
      override_date: c.override_date,
    });
  });

  test("DELETE: optional base_version (stale 409), 204, then 404; the day can get a new override", async () => {
    const c = await create();
    expect((await t.request("DELETE", `${P()}/${c.id}?base_version=3`, { token })).status).toBe(409);
    expect((await t.request("DELETE", `${P()}/${c.id}`, { token: (await createMember(t, orgId, ["schedule.read"])).token })).status).toBe(403);
    expect((await t.request("DELETE", `${P()}/${c.id}`)).status).toBe(401);
    expect((await rowOf(c.id)).deleted_at).toBeNull();
    const r = await t.request("DELETE", `${P()}/${c.id}`, { token });
    expect(r.status).toBe(204);
    expect((await t.request("GET", `${P()}/${c.id}`, { token })).status).toBe(404);
    expect((await t.request("DELETE", `${P()}/${c.id}`, { token })).status).toBe(404);
    expect((await auditOf(t, orgId, c.id)).map((a) => a.action)).toEqual(["schedule_override.created", "schedule_override.deleted"]);
    expect((await t.request("POST", P(), { token, body: body({ override_date: c.override_date }) })).status).toBe(201);
  });
});
