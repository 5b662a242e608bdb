import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { appointments } from "@db/tenant/appointments";
import { auditEntries } from "@db/tenant/audit";
import { auditOf, expectGuarded, twoOrgApp, type TestApp } from "@tests/helpers";
import { run } from "@/platform/db/work";
import { bookingBody, bookingSetup, createOperatory, createProvider, patchRow, type Setup } from "./fixtures";

// GET {P}/appointments/{id}/history: the appointment's audit trail, newest first.

let t: TestApp;
let token: string;
let orgId: string;
let otherOrg: string;
let s: Setup;
let sB: Setup;
let memberName: string;
let memberToken: string;
const P = (org = orgId) => `/api/v1/${org}/appointments`;
const UNKNOWN = "01a1fe29-0000-7000-8000-000000000000";
let day = 0;

beforeAll(async () => {
  const w = await twoOrgApp({ frontDesk: { keys: ["schedule.appointments.read", "schedule.appointments.write"], displayName: "Fran Desk" } });
  ({ t, admin: token, orgA: orgId, orgB: otherOrg } = w);
  memberToken = w.tokens.frontDesk;
  memberName = "Fran Desk";
  s = await bookingSetup(t, orgId);
  sB = await bookingSetup(t, otherOrg);
});
afterAll(() => t.close());

async function fresh(setup = s, org = orgId) {
  const provider = await createProvider(t, org, { first_name: "Pia", last_name: `Prov${day}` });
  const date = Temporal.PlainDate.from("2027-05-03").add({ days: day++ }).toString();
  const r = await t.request("POST", P(org), {
    token,
    body: bookingBody(setup, { provider_uuid: provider.id, scheduled_start: `${date}T09:00:00`, scheduled_end: `${date}T10:00:00` }),
  });
  if (r.status !== 201) throw new Error(r.text);
  return { ...r.body, date, provider };
}
async function ok(method: string, path: string, body: unknown, tok = token) {
  const r = await t.request(method, path, { token: tok, body });
  if (r.status !== 200 && r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
}
const history = (id: string, query = "", tok = token, org = orgId) => t.request("GET", `${P(org)}/${id}/history${query}`, { token: tok });

describe("GET /appointments/{id}/history", () => {
  test("200: every change, newest first, with who, when and each field's before and after", async () => {
    const a = await fresh();
    const other = await createProvider(t, orgId, { first_name: "Otto", last_name: "Other" });
    const op2 = await createOperatory(t, orgId, s.location.id, { name: "Op Nine" });
    const flow = (await ok("POST", `/api/v1/${orgId}/schedule/flow-statuses`, { name: "Waiting room", color: "#FFAA00" })).id;
    // rescheduled by the front desk member: new time, provider and chair
    await ok(
      "PATCH",
      `${P()}/${a.id}`,
      { base_version: 1, scheduled_start: `${a.date}T11:00:00`, scheduled_end: `${a.date}T12:00:00`, provider_uuid: other.id, operatory_uuid: op2.id },
      memberToken,
    );
    await ok("PATCH", `${P()}/${a.id}`, { base_version: 2, notes: "Prefers the window seat" });
    await ok("POST", `${P()}/${a.id}/confirmation`, { base_version: 3, confirmation_status: "confirmed", method: "text" });
    await ok("POST", `${P()}/${a.id}/check-in`, { base_version: 4 });
    await ok("POST", `${P()}/${a.id}/flow-status`, { base_version: 5, flow_status_uuid: flow });
    await ok("POST", `${P()}/${a.id}/status`, { base_version: 6, status: "completed" });

    const r = await history(a.id);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 7 });
    const items = r.body.items;
    expect(items.map((i: any) => [i.kind, i.action])).toEqual([
      ["status_changed", "appointment.status_changed"],
      ["flow_status_changed", "appointment.flow_status_changed"],
      ["checked_in", "appointment.checked_in"],
      ["confirmation_recorded", "appointment.confirmation_recorded"],
      ["updated", "appointment.updated"],
      ["rescheduled", "appointment.updated"],
      ["created", "appointment.created"],
    ]);
    const audit = await auditOf(t, orgId, a.id);
    const byAction = (action: string) => audit.filter((x) => x.action === action);
    const change = (i: any, field: string) => i.changes.find((c: any) => c.field === field);

    // the reschedule: who and the slot's from / to, with names for the references
    const moved = items[5];
    expect(moved.id).toBe(byAction("appointment.updated")[0].id);
    expect(moved.occurred_at).toBe(byAction("appointment.updated")[0].created_at);
    expect(moved.actor).toEqual({ id: expect.any(String), type: "user", display_name: memberName });
    expect(moved.changes.map((c: any) => c.field).sort()).toEqual(["operatory_uuid", "provider_uuid", "scheduled_end", "scheduled_start"]);
    expect(change(moved, "scheduled_start")).toEqual({
      field: "scheduled_start",
      from: `${a.date}T09:00:00`,
      to: `${a.date}T11:00:00`,
      from_name: null,
      to_name: null,
    });
    expect(change(moved, "provider_uuid")).toEqual({
      field: "provider_uuid",
      from: a.provider.id,
      to: other.id,
      from_name: `Pia ${a.provider.last_name}`,
      to_name: "Otto Other",
    });
    expect(change(moved, "operatory_uuid")).toEqual({ field: "operatory_uuid", from: null, to: op2.id, from_name: null, to_name: "Op Nine" });
    // a notes-only edit is an update, not a reschedule
    expect(items[4].changes).toEqual([{ field: "notes", from: null, to: "Prefers the window seat", from_name: null, to_name: null }]);
    expect(items[4].actor.type).toBe("user");
    // confirmation, check-in, flow status and completion: their fields
    expect(items[3].changes.map((c: any) => [c.field, c.from, c.to])).toEqual([
      ["confirmed_at", null, expect.any(String)],
      ["confirmation_status", "unconfirmed", "confirmed"],
      ["confirmation_method", null, "text"],
      ["confirmation_recorded_at", null, expect.any(String)],
    ]);
    expect(change(items[2], "status")).toMatchObject({ from: "scheduled", to: "arrived" });
    expect(change(items[1], "flow_status_uuid")).toEqual({ field: "flow_status_uuid", from: null, to: flow, from_name: null, to_name: "Waiting room" });
    expect(change(items[0], "status")).toMatchObject({ from: "arrived", to: "completed" });
    // the creation lists what it set
    const created = items[6];
    expect(change(created, "status")).toEqual({ field: "status", from: null, to: "scheduled", from_name: null, to_name: null });
    expect(change(created, "patient_uuid")).toEqual({ field: "patient_uuid", from: null, to: s.patient.id, from_name: null, to_name: "Pat Ient" });
    expect(change(created, "location_uuid").to_name).toBe(s.location.name);
    expect(change(created, "appointment_type_uuid").to_name).toBe("Exam");
    expect(created.changes.map((c: any) => c.field)).not.toContain("version");
    expect(created.changes.map((c: any) => c.field)).not.toContain("start_utc");
  });

  test("any action recorded on the appointment is read generically (procedures attached), and only this appointment's", async () => {
    const a = await fresh();
    const b = await fresh();
    const org = (await t.rt.access.org(orgId))!;
    const db = await t.rt.orgDbs.get(org.id, org.shard);
    const PROC = "01a1fe29-1111-7000-8000-000000000001";
    await db.write(function* (tx) {
      yield* run(
        tx.insert(auditEntries).values({
          id: Bun.randomUUIDv7(),
          actor_id: "system",
          actor_type: "system",
          actor_display_name: null,
          action: "appointment.procedures_attached",
          resource_type: "appointment",
          resource_id: a.id,
          before: { id: a.id, version: 1, procedure_uuids: [] },
          after: { id: a.id, version: 2, procedure_uuids: [PROC] },
          created_at: "2099-01-01T00:00:00.000Z",
        }),
      );
    });
    const r = await history(a.id);
    expect(r.body.total).toBe(2);
    expect(r.body.items[0]).toEqual({
      id: expect.any(String),
      kind: "procedures_attached",
      action: "appointment.procedures_attached",
      occurred_at: "2099-01-01T00:00:00.000Z",
      actor: { id: "system", type: "system", display_name: null },
      changes: [{ field: "procedure_uuids", from: [], to: [PROC], from_name: null, to_name: null }],
    });
    expect(r.body.items[1].kind).toBe("created");
    expect((await history(b.id)).body.items.map((i: any) => i.kind)).toEqual(["created"]);
  });

  test("paging: 50 by default, at most 200; total counts every entry", async () => {
    const a = await fresh();
    let v = 1;
    for (const n of ["a", "b", "c", "d"]) v = (await ok("PATCH", `${P()}/${a.id}`, { base_version: v, notes: n })).version;
    const first = await history(a.id, "?page_size=2");
    expect([first.body.total, first.body.page_size, first.body.items.map((i: any) => i.changes[0].to)]).toEqual([5, 2, ["d", "c"]]);
    const third = await history(a.id, "?page_size=2&page=3");
    expect(third.body.items.map((i: any) => i.kind)).toEqual(["created"]);
    expect((await history(a.id, "?page=4&page_size=2")).body).toEqual({ items: [], page: 4, page_size: 2, total: 5 });
  });

  test("404: unknown, another org's or an archived appointment", async () => {
    const b = await fresh(sB, otherOrg);
    const gone = await fresh();
    await patchRow(t, orgId, appointments, gone.id, { deleted_at: new Date().toISOString() });
    for (const id of [UNKNOWN, b.id, gone.id]) {
      const r = await history(id);
      expect({ id, status: r.status, body: r.body }).toEqual({ id, status: 404, body: { detail: "Appointment not found", code: "not_found" } });
    }
  });

  test("422: paging out of range, unknown parameters", async () => {
    const a = await fresh();
    for (const [query, loc, type] of [
      ["?page_size=0", ["query", "page_size"], "out_of_range"],
      ["?page_size=201", ["query", "page_size"], "out_of_range"],
      ["?page=x", ["query", "page"], "type_error"],
      ["?kind=created", ["query", "kind"], "extra_forbidden"],
    ] as const) {
      const r = await history(a.id, query);
      expect({ query, status: r.status, first: r.body.detail?.[0] }).toEqual({ query, status: 422, first: { loc, msg: expect.any(String), type } });
    }
  });

  test("401, 403 without schedule.appointments.read, 404 for a member of another org; reading writes nothing", async () => {
    const a = await fresh();
    const reader = await expectGuarded(t, orgId, otherOrg, "GET", `${P()}/${a.id}/history`, "schedule.appointments.read");
    const r = await history(a.id, "", reader);
    expect([r.status, r.body.total]).toEqual([200, 1]);
    expect((await auditOf(t, orgId, a.id)).length).toBe(1);
  });
});
