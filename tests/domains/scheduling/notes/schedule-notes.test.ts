import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, expectValidationCases, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { createLocation } from "@tests/domains/scheduling/appointments/fixtures";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let A: string; // {P}/schedule/notes of org A
let B: string;
let locA: { id: string; name: string };
let locA2: { id: string; name: string };
let locB: { id: string; name: string };
let archivedLoc: { id: string; name: string };
let reader: string;
let outsider: string;
let memberOfB: string;
let events: EventEnvelope[];
const MISSING = "01970000-0000-7000-8000-000000000000";

beforeAll(async () => {
  const w = await twoOrgApp(
    {
      reader: ["schedule.read"],
      outsider: ["schedule.appointments.read", "schedule.appointments.write"],
      memberOfB: { org: "B", keys: ["schedule.read", "schedule.write"] },
    },
    { events: true },
  );
  ({ t, admin, orgA, orgB, events } = w);
  ({ reader, outsider, memberOfB } = w.tokens);
  A = `${w.pathA}/schedule/notes`;
  B = `${w.pathB}/schedule/notes`;
  locA = await createLocation(t, orgA, "America/Chicago", "Downtown");
  locA2 = await createLocation(t, orgA, "America/Chicago", "Uptown");
  locB = await createLocation(t, orgB, "Europe/London", "Elsewhere");
  archivedLoc = await createLocation(t, orgA, "America/Chicago", "Closed");
  await t.request("POST", `/api/v1/${orgA}/locations/${archivedLoc.id}/archive`, { token: admin });
});
afterAll(() => t.close());

async function create(body: Record<string, unknown> = {}, P = A, loc = locA) {
  const r = await t.request("POST", P, { token: admin, body: { location_uuid: loc.id, note_date: "2026-03-09", note: "Dr. Molar out after 2pm", ...body } });
  if (r.status !== 201) throw new Error(`create note failed: ${r.status} ${r.text}`);
  return r.body;
}
const read = async (id: string, P = A) => (await t.request("GET", `${P}/${id}`, { token: admin })).body;
const total = async (P = A) => (await t.request("GET", `${P}?page_size=1`, { token: admin })).body.total as number;

describe("POST /schedule/notes", () => {
  test("201 with the location ref; audited; the event carries ids and the date, never the text", async () => {
    const before = events.length;
    const r = await t.request("POST", A, {
      token: admin,
      body: { location_uuid: locA.id.toUpperCase(), note_date: "2026-03-08", note: " Staff meeting 8am " },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      location: { uuid: locA.id, name: "Downtown" },
      note_date: "2026-03-08",
      note: "Staff meeting 8am",
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(await read(r.body.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit.map((a) => [a.action, a.after.note])).toEqual([["schedule_note.created", "Staff meeting 8am"]]);
    const ev = events.slice(before).filter((e) => e.resource_id === r.body.id);
    expect(ev.map((e) => [e.type, e.practice_id, e.data])).toEqual([
      ["schedule_note.created", locA.id, { id: r.body.id, location_id: locA.id, note_date: "2026-03-08" }],
    ]);
    expect(JSON.stringify(ev)).not.toContain("Staff meeting");
  });

  test("404 for an unknown, archived or another org's location; nothing is written", async () => {
    const count = await total();
    for (const id of [MISSING, archivedLoc.id, locB.id]) {
      const r = await t.request("POST", A, { token: admin, body: { location_uuid: id, note_date: "2026-03-09", note: "x" } });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Location not found", code: "not_found" });
    }
    expect(await total()).toBe(count);
  });

  test("422 for each rule, unknown and read-only fields, malformed JSON; nothing is written", async () => {
    const count = await total();
    const ok = { location_uuid: locA.id, note_date: "2026-03-09", note: "n" };
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ note_date: "2026-03-09", note: "n" }, ["body", "location_uuid"], "missing"],
      [{ location_uuid: locA.id, note: "n" }, ["body", "note_date"], "missing"],
      [{ location_uuid: locA.id, note_date: "2026-03-09" }, ["body", "note"], "missing"],
      [{ ...ok, location_uuid: "downtown" }, ["body", "location_uuid"], "format"],
      [{ ...ok, note_date: "2026-02-30" }, ["body", "note_date"], "format"],
      [{ ...ok, note_date: "09/03/2026" }, ["body", "note_date"], "format"],
      [{ ...ok, note_date: 20260309 }, ["body", "note_date"], "type_error"],
      [{ ...ok, note: "   " }, ["body", "note"], "out_of_range"],
      [{ ...ok, note: "x".repeat(4001) }, ["body", "note"], "out_of_range"],
      [{ ...ok, note: ["a"] }, ["body", "note"], "type_error"],
      [{ ...ok, color: "red" }, ["body", "color"], "extra_forbidden"],
      [{ ...ok, version: 1 }, ["body", "version"], "read_only"],
    ];
    await expectValidationCases(t, "POST", A, admin, cases);
    const bad = await t.request("POST", A, { token: admin, rawBody: "{note:", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect(await total()).toBe(count);
  });

  test("401, 403 (schedule.read is not enough), 404 non-member; nothing is written", async () => {
    const count = await total();
    const body = { location_uuid: locA.id, note_date: "2026-03-09", note: "n" };
    expect((await t.request("POST", A, { body })).status).toBe(401);
    expect((await t.request("POST", A, { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: outsider, body })).status).toBe(403);
    expect((await t.request("POST", A, { token: memberOfB, body })).status).toBe(404);
    expect(await total()).toBe(count);
  });
});

describe("GET /schedule/notes", () => {
  let P: string;
  let l1: { id: string; name: string };
  let l2: { id: string; name: string };
  beforeAll(async () => {
    const org = (await t.createOrg()).id;
    P = `/api/v1/${org}/schedule/notes`;
    l1 = await createLocation(t, org, "America/New_York", "North");
    l2 = await createLocation(t, org, "America/New_York", "South");
    await create({ note_date: "2026-03-10", note: "c" }, P, l1);
    await create({ note_date: "2026-03-08", note: "a" }, P, l1);
    await create({ note_date: "2026-03-09", note: "b" }, P, l2);
    await create({ note_date: "2026-03-12", note: "d" }, P, l2);
    const gone = await create({ note_date: "2026-03-09", note: "gone" }, P, l1);
    await t.request("DELETE", `${P}/${gone.id}`, { token: admin });
  });
  const notes = async (qs: string) => {
    const r = await t.request("GET", `${P}${qs}`, { token: admin });
    expect({ qs, status: r.status }).toEqual({ qs, status: 200 });
    return r.body.items.map((x: { note: string }) => x.note);
  };

  test("ordered by note_date ascending, deleted left out, paged, location refs named", async () => {
    const r = await t.request("GET", P, { token: admin });
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 4 });
    expect(r.body.items.map((x: { note: string }) => x.note)).toEqual(["a", "b", "c", "d"]);
    expect(r.body.items[1].location).toEqual({ uuid: l2.id, name: "South" });
    const p2 = (await t.request("GET", `${P}?page=2&page_size=3`, { token: admin })).body;
    expect(p2).toMatchObject({ page: 2, page_size: 3, total: 4 });
    expect(p2.items.map((x: { note: string }) => x.note)).toEqual(["d"]);
  });

  test("location and inclusive date range filters", async () => {
    expect(await notes(`?location_uuid=${l1.id}`)).toEqual(["a", "c"]);
    expect(await notes(`?location_uuid=${l2.id}`)).toEqual(["b", "d"]);
    expect(await notes("?date_from=2026-03-09&date_to=2026-03-10")).toEqual(["b", "c"]);
    expect(await notes("?date_from=2026-03-10")).toEqual(["c", "d"]);
    expect(await notes("?date_to=2026-03-08")).toEqual(["a"]);
    expect(await notes("?date_from=2026-03-12&date_to=2026-03-12")).toEqual(["d"]);
    expect(await notes(`?location_uuid=${l2.id}&date_from=2026-03-10`)).toEqual(["d"]);
    expect(await notes("?date_from=2027-01-01")).toEqual([]);
  });

  test("404 for an unknown, archived or another org's location filter", async () => {
    for (const id of [MISSING, archivedLoc.id, locB.id]) {
      const r = await t.request("GET", `${A}?location_uuid=${id}`, { token: admin });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Location not found", code: "not_found" });
    }
  });

  test("422: date_from after date_to, bad dates, paging, unknown parameters", async () => {
    const range = await t.request("GET", `${P}?date_from=2026-03-11&date_to=2026-03-10`, { token: admin });
    expect(range.status).toBe(422);
    expect(range.body.detail).toEqual([{ loc: ["query", "date_to"], msg: "Must not be before date_from", type: "value_error" }]);
    for (const [qs, field] of [
      ["date_from=2026-13-01", "date_from"],
      ["date_to=tomorrow", "date_to"],
      ["page=0", "page"],
      ["page_size=201", "page_size"],
      ["location_uuid=x", "location_uuid"],
      ["date=2026-03-09", "date"],
    ]) {
      const r = await t.request("GET", `${P}?${qs}`, { token: admin });
      expect({ qs, status: r.status }).toEqual({ qs, status: 422 });
      expect(r.body.detail[0].loc).toEqual(["query", field]);
    }
  });

  test("another org's notes never show; a schedule.read member may list; 401, 403, 404 non-member", async () => {
    const foreign = await create({}, B, locB);
    const r = await t.request("GET", `${A}?page_size=200`, { token: reader });
    expect(r.status).toBe(200);
    expect(r.body.items.map((x: { id: string }) => x.id)).not.toContain(foreign.id);
    expect((await t.request("GET", A)).status).toBe(401);
    expect((await t.request("GET", A, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", A, { token: memberOfB })).status).toBe(404);
  });
});

describe("GET /schedule/notes/{id}", () => {
  test("200 for a reader; 404 unknown, another org's, deleted; 401, 403, 404 non-member", async () => {
    const n = await create();
    const r = await t.request("GET", `${A}/${n.id}`, { token: reader });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual(n);
    const foreign = await create({}, B, locB);
    const gone = await create();
    await t.request("DELETE", `${A}/${gone.id}`, { token: admin });
    for (const id of [MISSING, foreign.id, gone.id]) {
      const miss = await t.request("GET", `${A}/${id}`, { token: admin });
      expect(miss.status).toBe(404);
      expect(miss.body).toEqual({ detail: "Schedule note not found", code: "not_found" });
    }
    expect((await t.request("GET", `${A}/${n.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${n.id}`, { token: outsider })).status).toBe(403);
    expect((await t.request("GET", `${A}/${n.id}`, { token: memberOfB })).status).toBe(404);
  });
});

describe("PATCH /schedule/notes/{id}", () => {
  test("200: changes the note; audited; the event names the field only", async () => {
    const n = await create({ note: "Old text" });
    const before = events.length;
    const r = await t.request("PATCH", `${A}/${n.id}`, { token: admin, body: { base_version: 1, note: "New text" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({ ...n, note: "New text", version: 2, updated_at: expect.any(String) });
    expect(await read(n.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, n.id);
    expect(audit.map((a) => a.action)).toEqual(["schedule_note.created", "schedule_note.updated"]);
    expect([audit[1].before.note, audit[1].after.note]).toEqual(["Old text", "New text"]);
    const ev = events.slice(before).filter((e) => e.resource_id === n.id);
    expect(ev.map((e) => [e.type, e.data])).toEqual([["schedule_note.updated", { id: n.id, changed_fields: ["note"] }]]);
  });

  test("422 for the immutable location and date, each rule, unknown fields, malformed JSON; unchanged", async () => {
    const n = await create();
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ note: "x" }, ["body", "base_version"], "missing"],
      [{ base_version: 1, location_uuid: locA2.id }, ["body", "location_uuid"], "read_only"],
      [{ base_version: 1, location: locA2.id }, ["body", "location"], "read_only"],
      [{ base_version: 1, note_date: "2026-04-01" }, ["body", "note_date"], "read_only"],
      [{ base_version: 1, note: "" }, ["body", "note"], "out_of_range"],
      [{ base_version: 1, note: null }, ["body", "note"], "type_error"],
      [{ base_version: 1, pinned: true }, ["body", "pinned"], "extra_forbidden"],
      [{ base_version: 1, id: MISSING }, ["body", "id"], "read_only"],
    ];
    await expectValidationCases(t, "PATCH", `${A}/${n.id}`, admin, cases);
    const bad = await t.request("PATCH", `${A}/${n.id}`, { token: admin, rawBody: "nope", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe("json_invalid");
    expect(await read(n.id)).toEqual(n);
  });

  test("409 stale; 404 unknown and another org's (unchanged); 401, 403, 404 non-member; unchanged", async () => {
    const n = await create();
    await t.request("PATCH", `${A}/${n.id}`, { token: admin, body: { base_version: 1, note: "v2" } });
    const stale = await t.request("PATCH", `${A}/${n.id}`, { token: admin, body: { base_version: 1, note: "lost" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const now = await read(n.id);
    expect(now).toMatchObject({ note: "v2", version: 2 });
    const foreign = await create({}, B, locB);
    expect((await t.request("PATCH", `${A}/${MISSING}`, { token: admin, body: { base_version: 1, note: "x" } })).status).toBe(404);
    expect((await t.request("PATCH", `${A}/${foreign.id}`, { token: admin, body: { base_version: 1, note: "hijack" } })).status).toBe(404);
    expect(await read(foreign.id, B)).toEqual(foreign);
    const body = { base_version: 2, note: "nope" };
    expect((await t.request("PATCH", `${A}/${n.id}`, { body })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/${n.id}`, { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", `${A}/${n.id}`, { token: memberOfB, body })).status).toBe(404);
    expect(await read(n.id)).toEqual(now);
  });
});

describe("DELETE /schedule/notes/{id}", () => {
  test("204; then 404 and out of lists; audited and published", async () => {
    const n = await create({ note_date: "2030-01-01" });
    const before = events.length;
    const r = await t.request("DELETE", `${A}/${n.id}`, { token: admin });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await t.request("GET", `${A}/${n.id}`, { token: admin })).status).toBe(404);
    expect((await t.request("GET", `${A}?date_from=2030-01-01`, { token: admin })).body.total).toBe(0);
    expect((await t.request("DELETE", `${A}/${n.id}`, { token: admin })).status).toBe(404);
    expect((await auditOf(t, orgA, n.id)).map((a) => a.action)).toEqual(["schedule_note.created", "schedule_note.deleted"]);
    expect(
      events
        .slice(before)
        .filter((e) => e.resource_id === n.id)
        .map((e) => e.type),
    ).toEqual(["schedule_note.deleted"]);
  });

  test("409 stale ?base_version; 404 unknown and another org's; 401, 403, 404 non-member; unchanged", async () => {
    const n = await create();
    const stale = await t.request("DELETE", `${A}/${n.id}?base_version=2`, { token: admin });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const foreign = await create({}, B, locB);
    expect((await t.request("DELETE", `${A}/${MISSING}`, { token: admin })).status).toBe(404);
    expect((await t.request("DELETE", `${A}/${foreign.id}`, { token: admin })).status).toBe(404);
    expect(await read(foreign.id, B)).toEqual(foreign);
    expect((await t.request("DELETE", `${A}/${n.id}?base_version=0`, { token: admin })).status).toBe(422);
    expect((await t.request("DELETE", `${A}/${n.id}`)).status).toBe(401);
    expect((await t.request("DELETE", `${A}/${n.id}`, { token: reader })).status).toBe(403);
    expect((await t.request("DELETE", `${A}/${n.id}`, { token: memberOfB })).status).toBe(404);
    expect(await read(n.id)).toEqual(n);
    expect((await t.request("DELETE", `${A}/${n.id}?base_version=1`, { token: admin })).status).toBe(204);
  });
});
