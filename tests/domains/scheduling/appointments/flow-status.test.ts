import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, expectGuarded, expectValidationCases, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { appointmentRows, bookingBody, bookingSetup, createProvider, type Setup } from "./fixtures";

// POST {P}/appointments/{id}/flow-status: where the patient is in the office.

let t: TestApp;
let token: string;
let orgId: string;
let otherOrg: string;
let s: Setup;
let sB: Setup;
const P = (org = orgId) => `/api/v1/${org}/appointments`;
const FS = (org = orgId) => `/api/v1/${org}/schedule/flow-statuses`;
const UNKNOWN = "01a1fe29-0000-7000-8000-000000000000";
let day = 0;
let waiting: any, inChair: any, retired: any, archived: any, foreign: any;

beforeAll(async () => {
  ({ t, admin: token, orgA: orgId, orgB: otherOrg } = await twoOrgApp());
  s = await bookingSetup(t, orgId);
  sB = await bookingSetup(t, otherOrg);
  const status = async (name: string, color: string, org = orgId, extra = {}) => {
    const r = await t.request("POST", FS(org), { token, body: { name, color, ...extra } });
    if (r.status !== 201) throw new Error(r.text);
    return r.body;
  };
  waiting = await status("Waiting", "#ffcc00");
  inChair = await status("In Chair", "#00AA55");
  retired = await status("Retired", "#999999", orgId, { is_active: false });
  archived = await status("Archived one", "#123456");
  await t.request("POST", `${FS()}/${archived.id}/archive`, { token });
  foreign = await status("Waiting", "#FFCC00", otherOrg);
});
afterAll(() => t.close());

/** A fresh appointment on its own day with its own provider. */
async function fresh(setup = s, org = orgId) {
  const provider = await createProvider(t, org);
  const date = Temporal.PlainDate.from("2027-03-01").add({ days: day++ }).toString();
  const r = await t.request("POST", P(org), {
    token,
    body: bookingBody(setup, { provider_uuid: provider.id, scheduled_start: `${date}T09:00:00`, scheduled_end: `${date}T10:00:00` }),
  });
  if (r.status !== 201) throw new Error(r.text);
  return { ...r.body, date };
}
const setFlow = (id: string, body: unknown, tok = token, org = orgId) => t.request("POST", `${P(org)}/${id}/flow-status`, { token: tok, body });
const read = async (id: string) => (await t.request("GET", `${P()}/${id}`, { token })).body;
const row = async (id: string) => (await appointmentRows(t, orgId)).find((r) => r.id === id)!;

describe("POST /appointments/{id}/flow-status", () => {
  test("200: sets flow_status (ref with colour) and flow_status_set_at; version +1, event, audit; GET, list and daily calendar show it", async () => {
    const a = await fresh();
    expect([a.flow_status, a.flow_status_set_at]).toEqual([null, null]);
    const seen: EventEnvelope[] = [];
    const stop = t.rt.events.subscribe(orgId, (e) => seen.push(e));
    const r = await setFlow(a.id, { flow_status_uuid: waiting.id, base_version: 1 });
    stop();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: a.id, version: 2, status: "scheduled", flow_status: { uuid: waiting.id, name: "Waiting", color: "#FFCC00" } });
    expect(r.body.flow_status_set_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(seen.map((e) => [e.type, e.resource_id, e.practice_id, e.data])).toEqual([
      ["appointment.flow_status_changed", a.id, s.location.id, { id: a.id, from: null, to: waiting.id }],
    ]);
    const audit = (await auditOf(t, orgId, a.id)).filter((x) => x.action === "appointment.flow_status_changed");
    expect(audit.map((x) => [x.before.flow_status_uuid, x.after.flow_status_uuid, x.after.flow_status_set_at])).toEqual([
      [null, waiting.id, r.body.flow_status_set_at],
    ]);
    expect(await read(a.id)).toEqual(r.body);
    const listed = (await t.request("GET", `${P()}?date_from=${a.date}&date_to=${a.date}&location_uuid=${s.location.id}`, { token })).body.items;
    expect(listed.find((x: any) => x.id === a.id).flow_status).toEqual({ uuid: waiting.id, name: "Waiting", color: "#FFCC00" });
    const daily = await t.request("GET", `/api/v1/${orgId}/schedule/calendar/daily?location_uuid=${s.location.id}&target_date=${a.date}`, { token });
    expect(daily.status).toBe(200);
    const onCalendar = daily.body.appointments.find((x: any) => x.id === a.id);
    expect([onCalendar.flow_status, onCalendar.flow_status_set_at]).toEqual([
      { uuid: waiting.id, name: "Waiting", color: "#FFCC00" },
      r.body.flow_status_set_at,
    ]);
  });

  test("moves to another status, clears with null (both fields null); events say from and to", async () => {
    const a = await fresh();
    await setFlow(a.id, { flow_status_uuid: waiting.id, base_version: 1 });
    const seen: EventEnvelope[] = [];
    const stop = t.rt.events.subscribe(orgId, (e) => seen.push(e));
    const moved = await setFlow(a.id, { flow_status_uuid: inChair.id, base_version: 2 });
    expect(moved.body).toMatchObject({ version: 3, flow_status: { uuid: inChair.id, name: "In Chair", color: "#00AA55" } });
    const cleared = await setFlow(a.id, { flow_status_uuid: null, base_version: 3 });
    stop();
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ version: 4, flow_status: null, flow_status_set_at: null });
    expect(seen.map((e) => e.data)).toEqual([
      { id: a.id, from: waiting.id, to: inChair.id },
      { id: a.id, from: inChair.id, to: null },
    ]);
  });

  test("a flow status archived later still shows on the appointment; arrived and completed appointments take one", async () => {
    const a = await fresh();
    const temp = (await t.request("POST", FS(), { token, body: { name: "Checkout", color: "#ABCDEF" } })).body;
    await t.request("POST", `${P()}/${a.id}/check-in`, { token, body: { base_version: 1 } });
    expect((await setFlow(a.id, { flow_status_uuid: temp.id, base_version: 2 })).status).toBe(200);
    await t.request("POST", `${FS()}/${temp.id}/archive`, { token });
    expect((await read(a.id)).flow_status).toEqual({ uuid: temp.id, name: "Checkout", color: "#ABCDEF" });
    await t.request("POST", `${P()}/${a.id}/status`, { token, body: { status: "completed", base_version: 3 } });
    const done = await setFlow(a.id, { flow_status_uuid: waiting.id, base_version: 4 });
    expect([done.status, done.body.status, done.body.flow_status.uuid]).toEqual([200, "completed", waiting.id]);
  });

  test("404: unknown appointment, another org's appointment; unknown, archived or another org's flow status; nothing changes", async () => {
    const a = await fresh();
    const b = await fresh(sB, otherOrg);
    for (const [id, body] of [
      [UNKNOWN, { flow_status_uuid: waiting.id, base_version: 1 }],
      [b.id, { flow_status_uuid: waiting.id, base_version: 1 }],
      [a.id, { flow_status_uuid: UNKNOWN, base_version: 1 }],
      [a.id, { flow_status_uuid: archived.id, base_version: 1 }],
      [a.id, { flow_status_uuid: foreign.id, base_version: 1 }],
    ] as const) {
      const r = await setFlow(id, body);
      expect({ id, body, status: r.status, code: r.body.code }).toEqual({ id, body, status: 404, code: "not_found" });
    }
    expect((await setFlow(a.id, { flow_status_uuid: UNKNOWN, base_version: 1 })).body.detail).toBe("Flow status not found");
    expect(await row(a.id)).toMatchObject({ version: 1, flow_status_id: null, flow_status_set_at: null });
  });

  test("409 version_conflict on a stale base_version, before the flow status is judged", async () => {
    const a = await fresh();
    await setFlow(a.id, { flow_status_uuid: waiting.id, base_version: 1 });
    for (const fs of [inChair.id, retired.id, UNKNOWN]) {
      const r = await setFlow(a.id, { flow_status_uuid: fs, base_version: 1 });
      expect([r.status, r.body.code]).toEqual([409, "version_conflict"]);
    }
    expect(await row(a.id)).toMatchObject({ version: 2, flow_status_id: waiting.id });
  });

  test("422 flow_status_inactive; 422 invalid_transition on a cancelled or broken appointment (clearing is allowed)", async () => {
    const a = await fresh();
    const r = await setFlow(a.id, { flow_status_uuid: retired.id, base_version: 1 });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      detail: [{ loc: ["body", "flow_status_uuid"], msg: "This flow status is inactive", type: "value_error" }],
      code: "flow_status_inactive",
    });
    expect(await row(a.id)).toMatchObject({ version: 1, flow_status_id: null });

    for (const [status, reason] of [
      ["cancelled", null],
      ["broken", "No show"],
    ] as const) {
      const c = await fresh();
      await setFlow(c.id, { flow_status_uuid: waiting.id, base_version: 1 });
      await t.request("POST", `${P()}/${c.id}/status`, { token, body: { status, reason, base_version: 2 } });
      const refused = await setFlow(c.id, { flow_status_uuid: inChair.id, base_version: 3 });
      expect(refused.status).toBe(422);
      expect(refused.body).toEqual({
        detail: [{ loc: ["body"], msg: `Cannot set a flow status: the appointment is ${status}`, type: "invalid_transition" }],
        code: "invalid_transition",
      });
      expect(await row(c.id)).toMatchObject({ version: 3, flow_status_id: waiting.id });
      const cleared = await setFlow(c.id, { flow_status_uuid: null, base_version: 3 });
      expect([cleared.status, cleared.body.flow_status, cleared.body.status]).toEqual([200, null, status]);
    }
  });

  test("422 for the body: missing, wrong types, unknown and read-only fields, malformed JSON; nothing changes", async () => {
    const a = await fresh();
    const url = `${P()}/${a.id}/flow-status`;
    await expectValidationCases(t, "POST", url, token, [
      [{ base_version: 1 }, ["body", "flow_status_uuid"], "missing"],
      [{ flow_status_uuid: waiting.id }, ["body", "base_version"], "missing"],
      [{ flow_status_uuid: "waiting", base_version: 1 }, ["body", "flow_status_uuid"], "format"],
      [{ flow_status_uuid: 7, base_version: 1 }, ["body", "flow_status_uuid"], "type_error"],
      [{ flow_status_uuid: waiting.id, base_version: 0 }, ["body", "base_version"], "out_of_range"],
      [{ flow_status_uuid: waiting.id, base_version: "1" }, ["body", "base_version"], "type_error"],
      [{ flow_status_uuid: waiting.id, base_version: 1, note: "x" }, ["body", "note"], "extra_forbidden"],
    ]);
    const bad = await t.request("POST", url, { token, rawBody: '{"flow_status_uuid": ', headers: { "content-type": "application/json" } });
    expect([bad.status, bad.body.detail]).toEqual([422, [{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]]);
    // the flow status is set only here: create and PATCH refuse it as read-only
    const patch = await t.request("PATCH", `${P()}/${a.id}`, { token, body: { base_version: 1, flow_status_uuid: waiting.id } });
    expect([patch.status, patch.body.detail[0].loc, patch.body.detail[0].type]).toEqual([422, ["body", "flow_status_uuid"], "read_only"]);
    expect(await row(a.id)).toMatchObject({ version: 1, flow_status_id: null });
  });

  test("401, 403 without schedule.appointments.write, 404 for a member of another org", async () => {
    const a = await fresh();
    const body = { flow_status_uuid: waiting.id, base_version: 1 };
    const holder = await expectGuarded(t, orgId, otherOrg, "POST", `${P()}/${a.id}/flow-status`, "schedule.appointments.write", body);
    expect(await row(a.id)).toMatchObject({ version: 1, flow_status_id: null });
    expect((await setFlow(a.id, body, holder)).status).toBe(200);
  });
});
