import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, createMember, expectValidationCases, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { createLocation, createOperatory, createProvider } from "@tests/domains/scheduling/appointments/fixtures";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let A: string; // {P}/schedule/views of org A
let B: string;
let locA: { id: string; name: string };
let locA2: { id: string; name: string };
let locB: { id: string; name: string };
let archivedLoc: { id: string; name: string };
let op1: string, op2: string, opOther: string, opGone: string, opB: string;
let pr1: string, pr2: string, prGone: string, prB: string;
let writer: { userId: string; token: string }; // schedule.read + schedule.write
let reader: string; // schedule.read only
let outsider: string; // no schedule keys
let memberOfB: string;
let events: EventEnvelope[];
const MISSING = "01970000-0000-7000-8000-000000000000";

beforeAll(async () => {
  const w = await twoOrgApp(
    {
      writer: ["schedule.read", "schedule.write"],
      reader: ["schedule.read"],
      outsider: ["schedule.appointments.read", "schedule.appointments.write"],
      memberOfB: { org: "B", keys: ["schedule.read", "schedule.write"] },
    },
    { events: true },
  );
  ({ t, admin, orgA, orgB, events } = w);
  writer = w.members.writer;
  ({ reader, outsider, memberOfB } = w.tokens);
  A = `${w.pathA}/schedule/views`;
  B = `${w.pathB}/schedule/views`;
  locA = await createLocation(t, orgA, "America/Chicago", "Downtown");
  locA2 = await createLocation(t, orgA, "America/Chicago", "Uptown");
  locB = await createLocation(t, orgB, "Europe/London", "Elsewhere");
  archivedLoc = await createLocation(t, orgA, "America/Chicago", "Closed");
  await t.request("POST", `/api/v1/${orgA}/locations/${archivedLoc.id}/archive`, { token: admin });
  op1 = (await createOperatory(t, orgA, locA.id, { name: "Op 1" })).id;
  op2 = (await createOperatory(t, orgA, locA.id, { name: "Op 2" })).id;
  opOther = (await createOperatory(t, orgA, locA2.id, { name: "Up 1" })).id;
  opGone = (await createOperatory(t, orgA, locA.id, { name: "Old", deleted_at: new Date().toISOString() })).id;
  opB = (await createOperatory(t, orgB, locB.id)).id;
  pr1 = (await createProvider(t, orgA, { abbreviation: "P1" })).id;
  pr2 = (await createProvider(t, orgA, { abbreviation: "P2" })).id;
  prGone = (await createProvider(t, orgA, { abbreviation: "PG", deleted_at: new Date().toISOString() })).id;
  prB = (await createProvider(t, orgB)).id;
});
afterAll(() => t.close());

async function create(body: Record<string, unknown> = {}, opts: { P?: string; token?: string; loc?: { id: string } } = {}) {
  const r = await t.request("POST", opts.P ?? A, {
    token: opts.token ?? admin,
    body: { location_uuid: (opts.loc ?? locA).id, name: "Front desk", view_type: "daily", visibility: "shared", ...body },
  });
  if (r.status !== 201) throw new Error(`create view failed: ${r.status} ${r.text}`);
  return r.body;
}
const read = async (id: string, token = admin, P = A) => (await t.request("GET", `${P}/${id}`, { token })).body;
const total = async (P = A, token = admin) => (await t.request("GET", `${P}?page_size=1`, { token })).body.total as number;
const shortcut = (id: string, key: number | null, token = admin) => t.request("POST", `${A}/${id}/set-shortcut`, { token, body: { keyboard_shortcut: key } });
const setDefault = (id: string, on: boolean, token = admin) => t.request("POST", `${A}/${id}/set-default`, { token, body: { is_default: on } });

describe("POST /schedule/views", () => {
  test("201 with defaults, the location ref and per-user fields off; audited and published", async () => {
    const before = events.length;
    const r = await t.request("POST", A, { token: admin, body: { location_uuid: locA.id, name: " Hygiene ", view_type: "weekly", visibility: "personal" } });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      location: { uuid: locA.id, name: "Downtown" },
      name: "Hygiene",
      view_type: "weekly",
      visibility: "personal",
      is_default: false,
      keyboard_shortcut: null,
      min_operatory_width_px: 0,
      operatory_uuids: [],
      provider_uuids: [],
      privacy_mode: false,
      show_business_days_only: false,
      show_missed_appointments: false,
      show_production: false,
      show_provider_bars: true,
      start_time: "07:00",
      time_increment: 10,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(await read(r.body.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit.map((a) => [a.action, a.after.name, a.after.visibility])).toEqual([["schedule_view.created", "Hygiene", "personal"]]);
    const ev = events.slice(before).filter((e) => e.resource_id === r.body.id);
    expect(ev.map((e) => [e.type, e.practice_id, e.data])).toEqual([
      ["schedule_view.created", locA.id, { id: r.body.id, location_id: locA.id, visibility: "personal" }],
    ]);
  });

  test("every field; ids are normalised to lower case and keep their order", async () => {
    const body = {
      location_uuid: locA.id,
      name: "Doctors",
      view_type: "daily",
      visibility: "shared",
      min_operatory_width_px: 180,
      operatory_uuids: [op2.toUpperCase(), op1],
      provider_uuids: [pr2, pr1],
      privacy_mode: true,
      show_business_days_only: true,
      show_missed_appointments: true,
      show_production: true,
      show_provider_bars: false,
      start_time: "06:30",
      time_increment: 15,
    };
    const r = await t.request("POST", A, { token: writer.token, body });
    expect(r.status).toBe(201);
    const { location_uuid: _l, ...rest } = body;
    expect(r.body).toMatchObject({ ...rest, operatory_uuids: [op2, op1], provider_uuids: [pr2, pr1], is_default: false, keyboard_shortcut: null });
  });

  test("404 for an unknown / archived / foreign location, operatory or provider; 422 for another location's operatory; nothing is written", async () => {
    const count = await total();
    const cases: [Record<string, unknown>, string][] = [
      [{ location_uuid: MISSING }, "Location not found"],
      [{ location_uuid: archivedLoc.id }, "Location not found"],
      [{ location_uuid: locB.id }, "Location not found"],
      [{ operatory_uuids: [op1, MISSING] }, "Operatory not found"],
      [{ operatory_uuids: [opGone] }, "Operatory not found"],
      [{ operatory_uuids: [opB] }, "Operatory not found"],
      [{ provider_uuids: [pr1, MISSING] }, "Provider not found"],
      [{ provider_uuids: [prGone] }, "Provider not found"],
      [{ provider_uuids: [prB] }, "Provider not found"],
    ];
    for (const [extra, detail] of cases) {
      const r = await t.request("POST", A, { token: admin, body: { location_uuid: locA.id, name: "X", view_type: "daily", visibility: "shared", ...extra } });
      expect({ extra, status: r.status, body: r.body }).toEqual({ extra, status: 404, body: { detail, code: "not_found" } });
    }
    const mismatch = await t.request("POST", A, {
      token: admin,
      body: { location_uuid: locA.id, name: "X", view_type: "daily", visibility: "shared", operatory_uuids: [op1, opOther] },
    });
    expect(mismatch.status).toBe(422);
    expect(mismatch.body).toEqual({
      detail: [{ loc: ["body", "operatory_uuids", 1], msg: "The operatory belongs to another location", type: "value_error" }],
      code: "operatory_location_mismatch",
    });
    expect(await total()).toBe(count);
  });

  test("422 for each rule, derived, unknown and read-only fields, malformed JSON; nothing is written", async () => {
    const count = await total();
    const ok = { location_uuid: locA.id, name: "V", view_type: "daily", visibility: "shared" };
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ name: "V", view_type: "daily", visibility: "shared" }, ["body", "location_uuid"], "missing"],
      [{ location_uuid: locA.id, view_type: "daily", visibility: "shared" }, ["body", "name"], "missing"],
      [{ location_uuid: locA.id, name: "V", visibility: "shared" }, ["body", "view_type"], "missing"],
      [{ location_uuid: locA.id, name: "V", view_type: "daily" }, ["body", "visibility"], "missing"],
      [{ ...ok, name: " " }, ["body", "name"], "out_of_range"],
      [{ ...ok, view_type: "monthly" }, ["body", "view_type"], "enum"],
      [{ ...ok, visibility: "public" }, ["body", "visibility"], "enum"],
      [{ ...ok, time_increment: 7 }, ["body", "time_increment"], "enum"],
      [{ ...ok, time_increment: "15" }, ["body", "time_increment"], "enum"],
      [{ ...ok, start_time: "25:00" }, ["body", "start_time"], "format"],
      [{ ...ok, start_time: "7:00" }, ["body", "start_time"], "format"],
      [{ ...ok, min_operatory_width_px: -1 }, ["body", "min_operatory_width_px"], "out_of_range"],
      [{ ...ok, min_operatory_width_px: 2001 }, ["body", "min_operatory_width_px"], "out_of_range"],
      [{ ...ok, min_operatory_width_px: 10.5 }, ["body", "min_operatory_width_px"], "type_error"],
      [{ ...ok, privacy_mode: "true" }, ["body", "privacy_mode"], "type_error"],
      [{ ...ok, operatory_uuids: op1 }, ["body", "operatory_uuids"], "type_error"],
      [{ ...ok, operatory_uuids: [op1, op1.toUpperCase()] }, ["body", "operatory_uuids"], "value_error"],
      [{ ...ok, provider_uuids: ["dr-smith"] }, ["body", "provider_uuids", 0], "format"],
      [{ ...ok, is_default: true }, ["body", "is_default"], "read_only"],
      [{ ...ok, keyboard_shortcut: 1 }, ["body", "keyboard_shortcut"], "read_only"],
      [{ ...ok, id: MISSING }, ["body", "id"], "read_only"],
      [{ ...ok, zoom: 2 }, ["body", "zoom"], "extra_forbidden"],
    ];
    await expectValidationCases(t, "POST", A, admin, cases);
    const bad = await t.request("POST", A, { token: admin, rawBody: '{"name":}', headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect(await total()).toBe(count);
  });

  test("401, 403 (schedule.read is not enough), 404 non-member; nothing is written", async () => {
    const count = await total();
    const body = { location_uuid: locA.id, name: "V", view_type: "daily", visibility: "shared" };
    expect((await t.request("POST", A, { body })).status).toBe(401);
    expect((await t.request("POST", A, { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: memberOfB, body })).status).toBe(404);
    expect(await total()).toBe(count);
  });
});

describe("GET /schedule/views", () => {
  let org: string;
  let P: string;
  let l1: { id: string }, l2: { id: string };
  let me: { userId: string; token: string };
  let other: { userId: string; token: string };
  beforeAll(async () => {
    org = (await t.createOrg()).id;
    P = `/api/v1/${org}/schedule/views`;
    l1 = await createLocation(t, org, "America/New_York", "North");
    l2 = await createLocation(t, org, "America/New_York", "South");
    [me, other] = await Promise.all([createMember(t, org, ["schedule.read", "schedule.write"]), createMember(t, org, ["schedule.read", "schedule.write"])]);
    await create({ name: "Shared North" }, { P, loc: l1, token: me.token });
    await create({ name: "Mine North", visibility: "personal" }, { P, loc: l1, token: me.token });
    await create({ name: "Shared South" }, { P, loc: l2, token: other.token });
    await create({ name: "Theirs North", visibility: "personal" }, { P, loc: l1, token: other.token });
    const gone = await create({ name: "Gone" }, { P, loc: l1, token: me.token });
    await t.request("DELETE", `${P}/${gone.id}`, { token: me.token });
  });
  const names = async (qs: string, token: string) => {
    const r = await t.request("GET", `${P}${qs}`, { token });
    expect({ qs, status: r.status }).toEqual({ qs, status: 200 });
    return r.body.items.map((v: { name: string }) => v.name);
  };

  test("shared views plus the caller's own personal ones, ordered by name; deleted left out; paged", async () => {
    expect(await names("", me.token)).toEqual(["Mine North", "Shared North", "Shared South"]);
    expect(await names("", other.token)).toEqual(["Shared North", "Shared South", "Theirs North"]);
    const p = (await t.request("GET", `${P}?page=2&page_size=2`, { token: me.token })).body;
    expect(p).toMatchObject({ page: 2, page_size: 2, total: 3 });
    expect(p.items.map((v: { name: string }) => v.name)).toEqual(["Shared South"]);
  });

  test("location and visibility filters; per-user fields in lists", async () => {
    expect(await names(`?location_uuid=${l1.id}`, me.token)).toEqual(["Mine North", "Shared North"]);
    expect(await names(`?location_uuid=${l2.id}&visibility=shared`, me.token)).toEqual(["Shared South"]);
    expect(await names("?visibility=personal", other.token)).toEqual(["Theirs North"]);
    const north = (await t.request("GET", `${P}?location_uuid=${l1.id}&visibility=shared`, { token: me.token })).body.items[0];
    await t.request("POST", `${P}/${north.id}/set-default`, { token: me.token, body: { is_default: true } });
    await t.request("POST", `${P}/${north.id}/set-shortcut`, { token: me.token, body: { keyboard_shortcut: 2 } });
    const mine = (await t.request("GET", `${P}?location_uuid=${l1.id}&visibility=shared`, { token: me.token })).body.items[0];
    const theirs = (await t.request("GET", `${P}?location_uuid=${l1.id}&visibility=shared`, { token: other.token })).body.items[0];
    expect([mine.is_default, mine.keyboard_shortcut]).toEqual([true, 2]);
    expect([theirs.is_default, theirs.keyboard_shortcut]).toEqual([false, null]);
  });

  test("404 for an unknown, archived or another org's location filter; 422 for bad values and unknown parameters", async () => {
    for (const id of [MISSING, archivedLoc.id, locB.id]) {
      const r = await t.request("GET", `${A}?location_uuid=${id}`, { token: admin });
      expect(r.status).toBe(404);
      expect(r.body.detail).toBe("Location not found");
    }
    for (const [qs, field] of [
      ["page=0", "page"],
      ["page_size=201", "page_size"],
      ["visibility=all", "visibility"],
      ["location_uuid=x", "location_uuid"],
      ["owner=me", "owner"],
    ]) {
      const r = await t.request("GET", `${P}?${qs}`, { token: me.token });
      expect({ qs, status: r.status }).toEqual({ qs, status: 422 });
      expect(r.body.detail[0].loc).toEqual(["query", field]);
    }
  });

  test("another org's views never show; a schedule.read member may list; 401, 403, 404 non-member", async () => {
    const foreign = await create({}, { P: B, loc: locB, token: memberOfB });
    const r = await t.request("GET", `${A}?page_size=200`, { token: reader });
    expect(r.status).toBe(200);
    expect(r.body.items.map((v: { id: string }) => v.id)).not.toContain(foreign.id);
    expect((await t.request("GET", A)).status).toBe(401);
    expect((await t.request("GET", A, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", A, { token: memberOfB })).status).toBe(404);
  });
});

describe("GET /schedule/views/{id}", () => {
  test("200 for the owner and (shared) for others; 404 for someone else's personal view, unknown, another org's, deleted", async () => {
    const shared = await create({ name: "Everyone" });
    const personal = await create({ name: "Private", visibility: "personal" }, { token: writer.token });
    const r = await t.request("GET", `${A}/${shared.id}`, { token: reader });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual(shared);
    expect((await t.request("GET", `${A}/${personal.id}`, { token: writer.token })).body).toEqual(personal);
    const foreign = await create({}, { P: B, loc: locB, token: memberOfB });
    const gone = await create();
    await t.request("DELETE", `${A}/${gone.id}`, { token: admin });
    for (const [id, token] of [
      [personal.id, admin],
      [personal.id, reader],
      [MISSING, admin],
      [foreign.id, admin],
      [gone.id, admin],
    ] as const) {
      const miss = await t.request("GET", `${A}/${id}`, { token });
      expect(miss.status).toBe(404);
      expect(miss.body).toEqual({ detail: "Schedule view not found", code: "not_found" });
    }
  });

  test("401, 403, 404 non-member", async () => {
    const v = await create();
    expect((await t.request("GET", `${A}/${v.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${v.id}`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${A}/${v.id}`, { token: memberOfB })).status).toBe(404);
  });
});

describe("PATCH /schedule/views/{id}", () => {
  test("200: changes the sent fields and replaces the id lists; audited and published", async () => {
    const v = await create({ operatory_uuids: [op1] });
    const before = events.length;
    const r = await t.request("PATCH", `${A}/${v.id}`, {
      token: writer.token,
      body: {
        base_version: 1,
        name: "Renamed",
        operatory_uuids: [op2, op1],
        provider_uuids: [pr1],
        time_increment: 30,
        start_time: "08:15",
        privacy_mode: true,
      },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({
      ...v,
      name: "Renamed",
      operatory_uuids: [op2, op1],
      provider_uuids: [pr1],
      time_increment: 30,
      start_time: "08:15",
      privacy_mode: true,
      version: 2,
      updated_at: expect.any(String),
    });
    expect(await read(v.id)).toEqual(r.body);
    expect((await auditOf(t, orgA, v.id)).map((a) => a.action)).toEqual(["schedule_view.created", "schedule_view.updated"]);
    const ev = events.slice(before).filter((e) => e.resource_id === v.id);
    expect(ev.map((e) => e.type)).toEqual(["schedule_view.updated"]);
    expect((ev[0]!.data.changed_fields as string[]).sort()).toEqual(["name", "operatory_ids", "privacy_mode", "provider_ids", "start_time", "time_increment"]);
  });

  test("the owner may make a shared view personal (others lose their default and shortcut on it); anyone else gets 422 not_view_owner", async () => {
    const v = await create({ name: "Going private" }, { token: writer.token });
    await setDefault(v.id, true);
    await shortcut(v.id, 5);
    const denied = await t.request("PATCH", `${A}/${v.id}`, { token: admin, body: { base_version: 1, visibility: "personal" } });
    expect(denied.status).toBe(422);
    expect(denied.body).toEqual({
      detail: [{ loc: ["body", "visibility"], msg: "Only the view's creator may make it personal", type: "value_error" }],
      code: "not_view_owner",
    });
    expect(await read(v.id)).toMatchObject({ visibility: "shared", version: 1, is_default: true, keyboard_shortcut: 5 });
    await shortcut(v.id, 6, writer.token);
    const ok = await t.request("PATCH", `${A}/${v.id}`, { token: writer.token, body: { base_version: 1, visibility: "personal" } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ visibility: "personal", keyboard_shortcut: 6 });
    expect((await t.request("GET", `${A}/${v.id}`, { token: admin })).status).toBe(404);
    const back = await t.request("PATCH", `${A}/${v.id}`, { token: writer.token, body: { base_version: 2, visibility: "shared" } });
    expect(back.body).toMatchObject({ visibility: "shared", keyboard_shortcut: 6 });
    expect(await read(v.id)).toMatchObject({ is_default: false, keyboard_shortcut: null });
  });

  test("404 for references and for someone else's personal view (unchanged); 422 another location's operatory", async () => {
    const v = await create();
    for (const [extra, detail] of [
      [{ operatory_uuids: [MISSING] }, "Operatory not found"],
      [{ provider_uuids: [prB] }, "Provider not found"],
    ] as const) {
      const r = await t.request("PATCH", `${A}/${v.id}`, { token: admin, body: { base_version: 1, ...extra } });
      expect({ status: r.status, detail: r.body.detail }).toEqual({ status: 404, detail });
    }
    const mismatch = await t.request("PATCH", `${A}/${v.id}`, { token: admin, body: { base_version: 1, operatory_uuids: [opOther] } });
    expect([mismatch.status, mismatch.body.code]).toEqual([422, "operatory_location_mismatch"]);
    expect(await read(v.id)).toEqual(v);
    const personal = await create({ visibility: "personal" }, { token: writer.token });
    const r = await t.request("PATCH", `${A}/${personal.id}`, { token: admin, body: { base_version: 1, name: "Hijack" } });
    expect(r.status).toBe(404);
    expect(r.body.detail).toBe("Schedule view not found");
    expect(await read(personal.id, writer.token)).toEqual(personal);
  });

  test("422 for each rule, the fixed location, derived and unknown fields, malformed JSON; unchanged", async () => {
    const v = await create();
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ name: "X" }, ["body", "base_version"], "missing"],
      [{ base_version: 1, location_uuid: locA2.id }, ["body", "location_uuid"], "read_only"],
      [{ base_version: 1, is_default: true }, ["body", "is_default"], "read_only"],
      [{ base_version: 1, keyboard_shortcut: 2 }, ["body", "keyboard_shortcut"], "read_only"],
      [{ base_version: 1, name: null }, ["body", "name"], "type_error"],
      [{ base_version: 1, view_type: "yearly" }, ["body", "view_type"], "enum"],
      [{ base_version: 1, time_increment: 45 }, ["body", "time_increment"], "enum"],
      [{ base_version: 1, start_time: "12:60" }, ["body", "start_time"], "format"],
      [{ base_version: 1, provider_uuids: [pr1, pr1] }, ["body", "provider_uuids"], "value_error"],
      [{ base_version: 1, show_production: 1 }, ["body", "show_production"], "type_error"],
      [{ base_version: 1, color: "red" }, ["body", "color"], "extra_forbidden"],
    ];
    await expectValidationCases(t, "PATCH", `${A}/${v.id}`, admin, cases);
    const bad = await t.request("PATCH", `${A}/${v.id}`, { token: admin, rawBody: "{,}", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe("json_invalid");
    expect(await read(v.id)).toEqual(v);
  });

  test("409 stale; 404 unknown and another org's (unchanged); 401, 403 for a reader, 404 non-member; unchanged", async () => {
    const v = await create();
    await t.request("PATCH", `${A}/${v.id}`, { token: admin, body: { base_version: 1, name: "v2" } });
    const stale = await t.request("PATCH", `${A}/${v.id}`, { token: admin, body: { base_version: 1, name: "lost" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const now = await read(v.id);
    expect(now).toMatchObject({ name: "v2", version: 2 });
    const foreign = await create({}, { P: B, loc: locB, token: memberOfB });
    expect((await t.request("PATCH", `${A}/${MISSING}`, { token: admin, body: { base_version: 1, name: "x" } })).status).toBe(404);
    expect((await t.request("PATCH", `${A}/${foreign.id}`, { token: admin, body: { base_version: 1, name: "hijack" } })).status).toBe(404);
    expect(await read(foreign.id, memberOfB, B)).toEqual(foreign);
    const body = { base_version: 2, name: "nope" };
    expect((await t.request("PATCH", `${A}/${v.id}`, { body })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/${v.id}`, { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", `${A}/${v.id}`, { token: memberOfB, body })).status).toBe(404);
    expect(await read(v.id)).toEqual(now);
  });
});

describe("DELETE /schedule/views/{id}", () => {
  test("204; then 404, out of lists, and gone from every user's default and shortcuts; audited and published", async () => {
    const v = await create({ name: "Short-lived" });
    await setDefault(v.id, true);
    await shortcut(v.id, 7, writer.token);
    const before = events.length;
    const r = await t.request("DELETE", `${A}/${v.id}`, { token: admin });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await t.request("GET", `${A}/${v.id}`, { token: admin })).status).toBe(404);
    const ids = (await t.request("GET", `${A}?page_size=200`, { token: admin })).body.items.map((x: { id: string }) => x.id);
    expect(ids).not.toContain(v.id);
    expect((await t.request("DELETE", `${A}/${v.id}`, { token: admin })).status).toBe(404);
    // key 7 is free again for the writer
    const next = await create({ name: "Next" });
    expect((await shortcut(next.id, 7, writer.token)).body.keyboard_shortcut).toBe(7);
    expect((await auditOf(t, orgA, v.id)).map((a) => a.action)).toEqual([
      "schedule_view.created",
      "schedule_view.default_set",
      "schedule_view.shortcut_set",
      "schedule_view.deleted",
    ]);
    expect(
      events
        .slice(before)
        .filter((e) => e.resource_id === v.id)
        .map((e) => e.type),
    ).toEqual(["schedule_view.deleted"]);
  });

  test("409 stale ?base_version; 404 unknown, another org's, someone else's personal view; 401, 403, 404 non-member; unchanged", async () => {
    const v = await create();
    const stale = await t.request("DELETE", `${A}/${v.id}?base_version=3`, { token: admin });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const foreign = await create({}, { P: B, loc: locB, token: memberOfB });
    const personal = await create({ visibility: "personal" }, { token: writer.token });
    expect((await t.request("DELETE", `${A}/${MISSING}`, { token: admin })).status).toBe(404);
    expect((await t.request("DELETE", `${A}/${foreign.id}`, { token: admin })).status).toBe(404);
    expect((await t.request("DELETE", `${A}/${personal.id}`, { token: admin })).status).toBe(404);
    expect(await read(foreign.id, memberOfB, B)).toEqual(foreign);
    expect(await read(personal.id, writer.token)).toEqual(personal);
    expect((await t.request("DELETE", `${A}/${v.id}?base_version=abc`, { token: admin })).status).toBe(422);
    expect((await t.request("DELETE", `${A}/${v.id}`)).status).toBe(401);
    expect((await t.request("DELETE", `${A}/${v.id}`, { token: reader })).status).toBe(403);
    expect((await t.request("DELETE", `${A}/${v.id}`, { token: memberOfB })).status).toBe(404);
    expect(await read(v.id)).toEqual(v);
    expect((await t.request("DELETE", `${A}/${personal.id}?base_version=1`, { token: writer.token })).status).toBe(204);
  });
});

describe("POST /schedule/views/{id}/set-shortcut", () => {
  test("a key belongs to one of the caller's views: setting it on another view clears it from the first; each user has their own keys", async () => {
    const v1 = await create({ name: "One" });
    const v2 = await create({ name: "Two" });
    const before = events.length;
    const r = await shortcut(v1.id, 3);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...v1, keyboard_shortcut: 3 }); // the view's version does not move
    expect((await shortcut(v1.id, 3, reader)).body.keyboard_shortcut).toBe(3); // a reader keeps their own keys
    const moved = await shortcut(v2.id, 3);
    expect(moved.body.keyboard_shortcut).toBe(3);
    expect((await read(v1.id)).keyboard_shortcut).toBeNull();
    expect((await read(v1.id, reader)).keyboard_shortcut).toBe(3);
    // one key per view: a new key replaces the view's old one
    expect((await shortcut(v2.id, 9)).body.keyboard_shortcut).toBe(9);
    expect((await shortcut(v1.id, 3)).body.keyboard_shortcut).toBe(3);
    expect((await read(v2.id)).keyboard_shortcut).toBe(9);
    const cleared = await shortcut(v2.id, null);
    expect(cleared.status).toBe(200);
    expect(cleared.body.keyboard_shortcut).toBeNull();
    expect(await read(v2.id)).toEqual(v2);
    const audit = await auditOf(t, orgA, v2.id);
    expect(audit.map((a) => [a.action, a.before?.keyboard_shortcut, a.after.keyboard_shortcut])).toEqual([
      ["schedule_view.created", undefined, undefined],
      ["schedule_view.shortcut_set", null, 3],
      ["schedule_view.shortcut_set", 3, 9],
      ["schedule_view.shortcut_set", 9, null],
    ]);
    const ev = events.slice(before).filter((e) => e.resource_id === v2.id);
    expect(ev[0]).toMatchObject({
      type: "schedule_view.shortcut_set",
      practice_id: locA.id,
      data: { id: v2.id, keyboard_shortcut: 3, cleared_view_id: v1.id },
    });
  });

  test("422 for 0, 10, fractions, strings, a missing or unknown field, malformed JSON; nothing changes", async () => {
    const v = await create();
    await shortcut(v.id, 4);
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{}, ["body", "keyboard_shortcut"], "missing"],
      [{ keyboard_shortcut: 0 }, ["body", "keyboard_shortcut"], "out_of_range"],
      [{ keyboard_shortcut: 10 }, ["body", "keyboard_shortcut"], "out_of_range"],
      [{ keyboard_shortcut: 1.5 }, ["body", "keyboard_shortcut"], "type_error"],
      [{ keyboard_shortcut: "2" }, ["body", "keyboard_shortcut"], "type_error"],
      [{ keyboard_shortcut: 2, key: "F2" }, ["body", "key"], "extra_forbidden"],
    ];
    await expectValidationCases(t, "POST", `${A}/${v.id}/set-shortcut`, admin, cases);
    const bad = await t.request("POST", `${A}/${v.id}/set-shortcut`, { token: admin, rawBody: "{", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect((await read(v.id)).keyboard_shortcut).toBe(4);
  });

  test("404 unknown, another org's, someone else's personal view; 401, 403 without schedule.read, 404 non-member", async () => {
    const v = await create();
    const foreign = await create({}, { P: B, loc: locB, token: memberOfB });
    const personal = await create({ visibility: "personal" }, { token: writer.token });
    for (const id of [MISSING, foreign.id, personal.id]) {
      const r = await shortcut(id, 1);
      expect(r.status).toBe(404);
      expect(r.body.detail).toBe("Schedule view not found");
    }
    expect((await read(foreign.id, memberOfB, B)).keyboard_shortcut).toBeNull();
    const body = { keyboard_shortcut: 1 };
    expect((await t.request("POST", `${A}/${v.id}/set-shortcut`, { body })).status).toBe(401);
    expect((await t.request("POST", `${A}/${v.id}/set-shortcut`, { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", `${A}/${v.id}/set-shortcut`, { token: memberOfB, body })).status).toBe(404);
    expect((await read(v.id)).keyboard_shortcut).toBeNull();
  });
});

describe("POST /schedule/views/{id}/set-default", () => {
  test("one default per user and location: a new one replaces the old; other locations and users are unaffected; false clears", async () => {
    const v1 = await create({ name: "D1" });
    const v2 = await create({ name: "D2" });
    const up = await create({ name: "Up" }, { loc: locA2 });
    const r = await setDefault(v1.id, true);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...v1, is_default: true });
    expect((await setDefault(up.id, true)).body.is_default).toBe(true);
    expect((await setDefault(v2.id, true, reader)).body.is_default).toBe(true);
    const replaced = await setDefault(v2.id, true);
    expect(replaced.body.is_default).toBe(true);
    expect((await read(v1.id)).is_default).toBe(false);
    expect((await read(up.id)).is_default).toBe(true);
    expect((await read(v1.id, reader)).is_default).toBe(false);
    expect((await read(v2.id, reader)).is_default).toBe(true);
    // false on a view that is not the default changes nothing
    expect((await setDefault(v1.id, false)).body.is_default).toBe(false);
    expect((await read(v2.id)).is_default).toBe(true);
    expect((await setDefault(v2.id, false)).body.is_default).toBe(false);
    expect(await read(v2.id)).toEqual(v2);
    const audit = await auditOf(t, orgA, v2.id);
    expect(audit.filter((a) => a.actor_id !== writer.userId).map((a) => [a.action, a.after.is_default])).toEqual([
      ["schedule_view.created", undefined],
      ["schedule_view.default_set", true],
      ["schedule_view.default_set", true],
      ["schedule_view.default_set", false],
    ]);
  });

  test("422 for a missing, wrong-typed or unknown field; 404 unknown, another org's, someone else's personal; 401, 403, 404 non-member", async () => {
    const v = await create();
    for (const [body, loc, type] of [
      [{}, ["body", "is_default"], "missing"],
      [{ is_default: "yes" }, ["body", "is_default"], "type_error"],
      [{ is_default: true, scope: "all" }, ["body", "scope"], "extra_forbidden"],
    ] as const) {
      const r = await t.request("POST", `${A}/${v.id}/set-default`, { token: admin, body });
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect(r.body.detail[0]).toEqual({ loc, msg: expect.any(String), type });
    }
    const foreign = await create({}, { P: B, loc: locB, token: memberOfB });
    const personal = await create({ visibility: "personal" }, { token: writer.token });
    for (const id of [MISSING, foreign.id, personal.id]) expect((await setDefault(id, true)).status).toBe(404);
    expect((await read(foreign.id, memberOfB, B)).is_default).toBe(false);
    const body = { is_default: true };
    expect((await t.request("POST", `${A}/${v.id}/set-default`, { body })).status).toBe(401);
    expect((await t.request("POST", `${A}/${v.id}/set-default`, { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", `${A}/${v.id}/set-default`, { token: memberOfB, body })).status).toBe(404);
    expect(await read(v.id)).toEqual(v);
  });
});
