import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, expectValidationCases, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { createLocation, createOperatory, createPatient, createProvider } from "@tests/domains/scheduling/appointments/fixtures";

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let A: string; // {P}/schedule/patient-preferences of org A
let B: string;
let loc: string;
let op: string, opGone: string, opB: string;
let pr: string, pr2: string, prGone: string, prB: string;
let archivedPatient: string, patientB: string;
let reader: string; // schedule.appointments.read only
let scheduleOnly: string; // schedule.read + schedule.write: configuration, not patient data
let memberOfB: string;
let events: EventEnvelope[];
const MISSING = "01970000-0000-7000-8000-000000000000";

beforeAll(async () => {
  const w = await twoOrgApp(
    {
      reader: ["schedule.appointments.read"],
      scheduleOnly: ["schedule.read", "schedule.write"],
      memberOfB: { org: "B", keys: ["schedule.appointments.read", "schedule.appointments.write"] },
    },
    { events: true },
  );
  ({ t, admin, orgA, orgB, events } = w);
  ({ reader, scheduleOnly, memberOfB } = w.tokens);
  A = `${w.pathA}/schedule/patient-preferences`;
  B = `${w.pathB}/schedule/patient-preferences`;
  loc = (await createLocation(t, orgA, "America/Chicago", "Downtown")).id;
  const locB = (await createLocation(t, orgB, "Europe/London", "Elsewhere")).id;
  op = (await createOperatory(t, orgA, loc, { name: "Op 1" })).id;
  opGone = (await createOperatory(t, orgA, loc, { name: "Old", deleted_at: new Date().toISOString() })).id;
  opB = (await createOperatory(t, orgB, locB)).id;
  pr = (await createProvider(t, orgA, { abbreviation: "P1", first_name: "Ada", last_name: "Molar" })).id;
  pr2 = (await createProvider(t, orgA, { abbreviation: "P2", first_name: "Ben", last_name: "Canine" })).id;
  prGone = (await createProvider(t, orgA, { abbreviation: "PG", deleted_at: new Date().toISOString() })).id;
  prB = (await createProvider(t, orgB)).id;
  archivedPatient = (await createPatient(t, orgA, { first_name: "Old", last_name: "Timer", status: "archived", deleted_at: new Date().toISOString() })).id;
  patientB = (await createPatient(t, orgB, { first_name: "Other", last_name: "Org" })).id;
});
afterAll(() => t.close());

const patient = async (org = orgA, first = "Pat") => (await createPatient(t, org, { first_name: first, last_name: "Ient" })).id;
const put = (patientId: string, body: Record<string, unknown>, token = admin, P = A) => t.request("PUT", `${P}/by-patient/${patientId}`, { token, body });
async function create(body: Record<string, unknown> = {}, org = orgA) {
  const P = org === orgA ? A : B;
  const r = await put(await patient(org), body, admin, P);
  if (r.status !== 200) throw new Error(`create preference failed: ${r.status} ${r.text}`);
  return r.body;
}
const read = async (id: string, P = A) => (await t.request("GET", `${P}/${id}`, { token: admin })).body;
const total = async (P = A) => (await t.request("GET", `${P}?page_size=1`, { token: admin })).body.total as number;

describe("PUT /schedule/patient-preferences/by-patient/{patient_uuid}", () => {
  test("creates (200) with defaults and refs; audited; the event carries ids only", async () => {
    const p = await patient(orgA, "Nora");
    const before = events.length;
    const r = await put(p.toUpperCase(), {
      preferred_provider_uuid: pr,
      preferred_operatory_uuid: op.toUpperCase(),
      preferred_days: [5, 1, 3],
      preferred_time_start: "08:00",
      preferred_time_end: "11:30",
      preferred_contact_method: "text",
      notes: "Prefers mornings; anxious patient",
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.any(String),
      patient: { uuid: p, name: "Nora Ient" },
      preferred_provider: { uuid: pr, name: "Ada Molar" },
      preferred_operatory: { uuid: op, name: "Op 1" },
      preferred_days: [1, 3, 5],
      preferred_time_start: "08:00",
      preferred_time_end: "11:30",
      preferred_contact_method: "text",
      notes: "Prefers mornings; anxious patient",
      learned_from_history: false,
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect(await read(r.body.id)).toEqual(r.body);
    expect((await auditOf(t, orgA, r.body.id)).map((a) => a.action)).toEqual(["patient_scheduling_preference.created"]);
    const ev = events.slice(before).filter((e) => e.resource_id === r.body.id);
    expect(ev.map((e) => [e.type, e.resource_type, e.data])).toEqual([
      ["patient_scheduling_preference.created", "patient_scheduling_preference", { id: r.body.id, patient_id: p }],
    ]);
    expect(JSON.stringify(ev)).not.toContain("anxious");
    const bare = await put(await patient(), {});
    expect(bare.body).toMatchObject({
      preferred_provider: null,
      preferred_operatory: null,
      preferred_days: [],
      preferred_time_start: null,
      preferred_time_end: null,
      preferred_contact_method: null,
      notes: "",
      learned_from_history: false,
    });
  });

  test("when one exists: base_version is required (422), stale is 409, current changes only the sent fields", async () => {
    const pref = await create({ preferred_days: [2], notes: "keep", preferred_provider_uuid: pr });
    const p = pref.patient.uuid;
    const missing = await put(p, { preferred_days: [4] });
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([{ loc: ["body", "base_version"], msg: expect.any(String), type: "missing" }]);
    const stale = await put(p, { base_version: 2, preferred_days: [4] });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    expect(await read(pref.id)).toEqual(pref);
    const before = events.length;
    const ok = await put(p, { base_version: 1, preferred_days: [4], preferred_provider_uuid: null, learned_from_history: true });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ ...pref, preferred_days: [4], preferred_provider: null, learned_from_history: true, version: 2, updated_at: expect.any(String) });
    expect(await total()).toBeGreaterThan(0);
    const ids = (await t.request("GET", `${A}?patient_uuid=${p}`, { token: admin })).body.items.map((x: { id: string }) => x.id);
    expect(ids).toEqual([pref.id]);
    const ev = events.slice(before).filter((e) => e.resource_id === pref.id);
    expect(ev.map((e) => e.type)).toEqual(["patient_scheduling_preference.updated"]);
    expect((ev[0]!.data.changed_fields as string[]).sort()).toEqual(["learned_from_history", "preferred_days", "preferred_provider_id"]);
    expect((await auditOf(t, orgA, pref.id)).map((a) => a.action)).toEqual(["patient_scheduling_preference.created", "patient_scheduling_preference.updated"]);
  });

  test("409 when base_version is sent but the patient has no preference yet; nothing is written", async () => {
    const p = await patient();
    const r = await put(p, { base_version: 1, notes: "x" });
    expect(r.status).toBe(409);
    expect(r.body.code).toBe("version_conflict");
    expect((await t.request("GET", `${A}?patient_uuid=${p}`, { token: admin })).body.total).toBe(0);
  });

  test("404 when the patient, provider or operatory does not resolve (unknown, archived, another org's); 422 for an archived patient; nothing is written", async () => {
    const count = await total();
    const p = await patient();
    for (const [pid, body, detail] of [
      [MISSING, {}, "Patient not found"],
      [patientB, {}, "Patient not found"],
      [p, { preferred_provider_uuid: MISSING }, "Provider not found"],
      [p, { preferred_provider_uuid: prGone }, "Provider not found"],
      [p, { preferred_provider_uuid: prB }, "Provider not found"],
      [p, { preferred_operatory_uuid: MISSING }, "Operatory not found"],
      [p, { preferred_operatory_uuid: opGone }, "Operatory not found"],
      [p, { preferred_operatory_uuid: opB }, "Operatory not found"],
    ] as const) {
      const r = await put(pid, body);
      expect({ pid, body, status: r.status, res: r.body }).toEqual({ pid, body, status: 404, res: { detail, code: "not_found" } });
    }
    const archived = await put(archivedPatient, {});
    expect(archived.status).toBe(422);
    expect(archived.body.code).toBe("patient_archived");
    expect(await total()).toBe(count);
  });

  test("422 for each rule (days, times, window order, enum, types), the patient and unknown fields, malformed JSON; nothing is written", async () => {
    const count = await total();
    const p = await patient();
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ preferred_days: [7] }, ["body", "preferred_days", 0], "out_of_range"],
      [{ preferred_days: [-1] }, ["body", "preferred_days", 0], "out_of_range"],
      [{ preferred_days: [1, 1] }, ["body", "preferred_days"], "value_error"],
      [{ preferred_days: [1.5] }, ["body", "preferred_days", 0], "type_error"],
      [{ preferred_days: "mon" }, ["body", "preferred_days"], "type_error"],
      [{ preferred_time_start: "8:00" }, ["body", "preferred_time_start"], "format"],
      [{ preferred_time_end: "24:00" }, ["body", "preferred_time_end"], "format"],
      [{ preferred_time_start: "12:00", preferred_time_end: "12:00" }, ["body", "preferred_time_end"], "value_error"],
      [{ preferred_time_start: "13:00", preferred_time_end: "09:00" }, ["body", "preferred_time_end"], "value_error"],
      [{ preferred_contact_method: "pigeon" }, ["body", "preferred_contact_method"], "enum"],
      [{ notes: null }, ["body", "notes"], "type_error"],
      [{ notes: "x".repeat(2001) }, ["body", "notes"], "out_of_range"],
      [{ learned_from_history: "no" }, ["body", "learned_from_history"], "type_error"],
      [{ preferred_provider_uuid: "dr" }, ["body", "preferred_provider_uuid"], "format"],
      [{ base_version: 0 }, ["body", "base_version"], "out_of_range"],
      [{ patient_uuid: p }, ["body", "patient_uuid"], "read_only"],
      [{ id: MISSING }, ["body", "id"], "read_only"],
      [{ favourite_color: "blue" }, ["body", "favourite_color"], "extra_forbidden"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await put(p, body);
      expect({ body, status: r.status }).toEqual({ body, status: 422 });
      expect({ body, first: r.body.detail[0] }).toEqual({ body, first: { loc, msg: expect.any(String), type } });
    }
    const window = await put(p, { preferred_time_start: "13:00", preferred_time_end: "09:00" });
    expect(window.body.code).toBe("invalid_time_range");
    const bad = await t.request("PUT", `${A}/by-patient/${p}`, { token: admin, rawBody: "{", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
    expect(await total()).toBe(count);
  });

  test("the window is checked against the stored value when only one end is sent", async () => {
    const pref = await create({ preferred_time_start: "09:00", preferred_time_end: "12:00" });
    const r = await put(pref.patient.uuid, { base_version: 1, preferred_time_end: "08:00" });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ detail: [{ loc: ["body", "preferred_time_end"], msg: expect.any(String), type: "value_error" }], code: "invalid_time_range" });
    const start = await put(pref.patient.uuid, { base_version: 1, preferred_time_start: "12:30" });
    expect(start.body.detail[0].loc).toEqual(["body", "preferred_time_start"]);
    expect(await read(pref.id)).toEqual(pref);
    expect((await put(pref.patient.uuid, { base_version: 1, preferred_time_start: null, preferred_time_end: "08:00" })).body).toMatchObject({
      preferred_time_start: null,
      preferred_time_end: "08:00",
      version: 2,
    });
  });

  test("401, 403 (schedule keys are not patient keys; read is not write), 404 non-member; nothing is written", async () => {
    const count = await total();
    const p = await patient();
    expect((await t.request("PUT", `${A}/by-patient/${p}`, { body: {} })).status).toBe(401);
    expect((await put(p, {}, reader)).status).toBe(403);
    expect((await put(p, {}, scheduleOnly)).status).toBe(403);
    expect((await put(p, {}, memberOfB)).status).toBe(404);
    expect(await total()).toBe(count);
  });
});

describe("GET /schedule/patient-preferences", () => {
  let P: string;
  let ids: string[];
  let p2: string;
  beforeAll(async () => {
    const org = (await t.createOrg()).id;
    P = `/api/v1/${org}/schedule/patient-preferences`;
    ids = [];
    for (const name of ["One", "Two", "Three"]) {
      const pid = (await createPatient(t, org, { first_name: name, last_name: "X" })).id;
      if (name === "Two") p2 = pid;
      ids.push((await put(pid, {}, admin, P)).body.id);
    }
  });

  test("ordered by record id ascending; paged; patient filter; names on refs", async () => {
    const r = await t.request("GET", P, { token: admin });
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(r.body.items.map((x: { id: string }) => x.id)).toEqual([...ids].sort());
    expect(r.body.items.map((x: { patient: { name: string } }) => x.patient.name)).toEqual(["One X", "Two X", "Three X"]);
    const page = (await t.request("GET", `${P}?page=2&page_size=2`, { token: admin })).body;
    expect(page).toMatchObject({ page: 2, page_size: 2, total: 3 });
    expect(page.items.map((x: { id: string }) => x.id)).toEqual([ids[2]]);
    const one = (await t.request("GET", `${P}?patient_uuid=${p2}`, { token: admin })).body;
    expect(one.items.map((x: { id: string }) => x.id)).toEqual([ids[1]]);
  });

  test("404 for an unknown or another org's patient filter; an archived patient is a valid filter; 422 paging and unknown parameters", async () => {
    for (const id of [MISSING, patientB]) {
      const r = await t.request("GET", `${A}?patient_uuid=${id}`, { token: admin });
      expect(r.status).toBe(404);
      expect(r.body.detail).toBe("Patient not found");
    }
    expect((await t.request("GET", `${A}?patient_uuid=${archivedPatient}`, { token: admin })).body.total).toBe(0);
    for (const [qs, field] of [
      ["page=0", "page"],
      ["page_size=201", "page_size"],
      ["patient_uuid=x", "patient_uuid"],
      ["provider_uuid=" + pr, "provider_uuid"],
    ]) {
      const r = await t.request("GET", `${P}?${qs}`, { token: admin });
      expect({ qs, status: r.status }).toEqual({ qs, status: 422 });
      expect(r.body.detail[0].loc).toEqual(["query", field]);
    }
  });

  test("another org's preferences never show; a reader may list; 401, 403, 404 non-member", async () => {
    const foreign = await create({}, orgB);
    await create();
    const r = await t.request("GET", `${A}?page_size=200`, { token: reader });
    expect(r.status).toBe(200);
    expect(r.body.total).toBeGreaterThan(0);
    expect(r.body.items.map((x: { id: string }) => x.id)).not.toContain(foreign.id);
    expect((await t.request("GET", A)).status).toBe(401);
    expect((await t.request("GET", A, { token: scheduleOnly })).status).toBe(403);
    expect((await t.request("GET", A, { token: memberOfB })).status).toBe(404);
  });
});

describe("GET /schedule/patient-preferences/{id}", () => {
  test("200 for a reader; 404 unknown and another org's; 401, 403, 404 non-member", async () => {
    const pref = await create({ preferred_days: [0, 6] });
    const r = await t.request("GET", `${A}/${pref.id}`, { token: reader });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual(pref);
    const foreign = await create({}, orgB);
    for (const id of [MISSING, foreign.id, "by-patient"]) {
      const miss = await t.request("GET", `${A}/${id}`, { token: admin });
      expect(miss.status).toBe(404);
      expect(miss.body).toEqual({ detail: "Scheduling preference not found", code: "not_found" });
    }
    expect((await t.request("GET", `${A}/${pref.id}`)).status).toBe(401);
    expect((await t.request("GET", `${A}/${pref.id}`, { token: scheduleOnly })).status).toBe(403);
    expect((await t.request("GET", `${A}/${pref.id}`, { token: memberOfB })).status).toBe(404);
  });
});

describe("PATCH /schedule/patient-preferences/{id}", () => {
  test("200: changes the sent fields; audited and published", async () => {
    const pref = await create({ preferred_contact_method: "email" });
    const before = events.length;
    const r = await t.request("PATCH", `${A}/${pref.id}`, {
      token: admin,
      body: { base_version: 1, preferred_provider_uuid: pr2, preferred_contact_method: null, notes: "Call first", preferred_days: [6, 0] },
    });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toEqual({
      ...pref,
      preferred_provider: { uuid: pr2, name: "Ben Canine" },
      preferred_contact_method: null,
      notes: "Call first",
      preferred_days: [0, 6],
      version: 2,
      updated_at: expect.any(String),
    });
    expect(await read(pref.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, pref.id);
    expect(audit.map((a) => a.action)).toEqual(["patient_scheduling_preference.created", "patient_scheduling_preference.updated"]);
    const ev = events.slice(before).filter((e) => e.resource_id === pref.id);
    expect((ev[0]!.data.changed_fields as string[]).sort()).toEqual(["notes", "preferred_contact_method", "preferred_days", "preferred_provider_id"]);
    expect(JSON.stringify(ev)).not.toContain("Call first");
  });

  test("422 for the immutable patient, each rule, unknown fields, malformed JSON; 422 patient_archived; unchanged", async () => {
    const pref = await create();
    const other = await patient();
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ notes: "x" }, ["body", "base_version"], "missing"],
      [{ base_version: 1, patient_uuid: other }, ["body", "patient_uuid"], "read_only"],
      [{ base_version: 1, patient: { uuid: other } }, ["body", "patient"], "read_only"],
      [{ base_version: 1, preferred_provider: { uuid: pr } }, ["body", "preferred_provider"], "read_only"],
      [{ base_version: 1, preferred_days: [1, 2, 1] }, ["body", "preferred_days"], "value_error"],
      [{ base_version: 1, preferred_time_start: "noon" }, ["body", "preferred_time_start"], "format"],
      [{ base_version: 1, preferred_time_start: "10:00", preferred_time_end: "09:59" }, ["body", "preferred_time_end"], "value_error"],
      [{ base_version: 1, learned_from_history: null }, ["body", "learned_from_history"], "type_error"],
      [{ base_version: 1, rank: 1 }, ["body", "rank"], "extra_forbidden"],
    ];
    await expectValidationCases(t, "PATCH", `${A}/${pref.id}`, admin, cases);
    const bad = await t.request("PATCH", `${A}/${pref.id}`, { token: admin, rawBody: "]", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].type).toBe("json_invalid");
    expect(await read(pref.id)).toEqual(pref);
    // a preference of a patient archived later is read-only
    await t.request("POST", `/api/v1/${orgA}/patients/${pref.patient.uuid}/archive`, { token: admin });
    const archived = await t.request("PATCH", `${A}/${pref.id}`, { token: admin, body: { base_version: 1, notes: "x" } });
    expect([archived.status, archived.body.code]).toEqual([422, "patient_archived"]);
    expect(await read(pref.id)).toEqual(pref);
  });

  test("404 for references, unknown ids and another org's (unchanged); 409 stale; 401, 403, 404 non-member; unchanged", async () => {
    const pref = await create();
    for (const [body, detail] of [
      [{ preferred_provider_uuid: prB }, "Provider not found"],
      [{ preferred_operatory_uuid: opGone }, "Operatory not found"],
    ] as const) {
      const r = await t.request("PATCH", `${A}/${pref.id}`, { token: admin, body: { base_version: 1, ...body } });
      expect({ status: r.status, detail: r.body.detail }).toEqual({ status: 404, detail });
    }
    expect(await read(pref.id)).toEqual(pref);
    const foreign = await create({}, orgB);
    expect((await t.request("PATCH", `${A}/${MISSING}`, { token: admin, body: { base_version: 1, notes: "x" } })).status).toBe(404);
    expect((await t.request("PATCH", `${A}/${foreign.id}`, { token: admin, body: { base_version: 1, notes: "hijack" } })).status).toBe(404);
    expect(await read(foreign.id, B)).toEqual(foreign);
    await t.request("PATCH", `${A}/${pref.id}`, { token: admin, body: { base_version: 1, notes: "v2" } });
    const stale = await t.request("PATCH", `${A}/${pref.id}`, { token: admin, body: { base_version: 1, notes: "lost" } });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const now = await read(pref.id);
    expect(now).toMatchObject({ notes: "v2", version: 2 });
    const body = { base_version: 2, notes: "nope" };
    expect((await t.request("PATCH", `${A}/${pref.id}`, { body })).status).toBe(401);
    expect((await t.request("PATCH", `${A}/${pref.id}`, { token: reader, body })).status).toBe(403);
    expect((await t.request("PATCH", `${A}/${pref.id}`, { token: scheduleOnly, body })).status).toBe(403);
    expect((await t.request("PATCH", `${A}/${pref.id}`, { token: memberOfB, body })).status).toBe(404);
    expect(await read(pref.id)).toEqual(now);
  });
});
