import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, startTestApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { appointmentRows, bookingBody, bookingSetup, createProvider, type Setup } from "./fixtures";

// An appointment's fee: copied from its type's default_fee at booking, or set explicitly.
let t: TestApp;
let token: string;
let orgId: string;
let s: Setup;
let cleaning: { id: string }; // a type created through the API with default_fee 95.00
const P = () => `/api/v1/${orgId}/appointments`;
const T = () => `/api/v1/${orgId}/appointment-types`;
let day = 0;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgId = (await t.createOrg()).id;
  s = await bookingSetup(t, orgId);
  const r = await t.request("POST", T(), { token, body: { code: "CLN", name: "Cleaning", duration_minutes: 60, color: "#00AA00", default_fee: 95 } });
  expect(r.status).toBe(201);
  cleaning = r.body;
});
afterAll(() => t.close());

/** A booking 09:00–10:00 on its own day with its own provider, of the Cleaning type unless `v` says otherwise. */
async function book(v: Record<string, unknown> = {}) {
  const provider = await createProvider(t, orgId);
  const date = Temporal.PlainDate.from("2026-08-03").add({ days: day++ }).toString();
  return t.request("POST", P(), {
    token,
    body: bookingBody(s, {
      appointment_type_uuid: cleaning.id,
      provider_uuid: provider.id,
      scheduled_start: `${date}T09:00:00`,
      scheduled_end: `${date}T10:00:00`,
      ...v,
    }),
  });
}
async function booked(v: Record<string, unknown> = {}) {
  const r = await book(v);
  if (r.status !== 201) throw new Error(r.text);
  return r.body;
}
const patch = (id: string, body: unknown) => t.request("PATCH", `${P()}/${id}`, { token, body });
const read = async (id: string) => (await t.request("GET", `${P()}/${id}`, { token })).body;
const rowOf = async (id: string) => (await appointmentRows(t, orgId)).find((x) => x.id === id)!;
const setDefault = async (fee: number | null) => {
  const cur = (await t.request("GET", `${T()}/${cleaning.id}`, { token })).body;
  const r = await t.request("PATCH", `${T()}/${cleaning.id}`, { token, body: { base_version: cur.version, default_fee: fee } });
  expect(r.status).toBe(200);
};

describe("fee on create", () => {
  test("omitted: the type's default_fee, stored in cents, shown on get and in lists", async () => {
    const a = await booked();
    expect(a.fee).toBe("95.00");
    expect((await rowOf(a.id)).fee_cents).toBe(9500);
    expect((await read(a.id)).fee).toBe("95.00");
    const list = await t.request("GET", `${P()}?provider_uuid=${a.provider.uuid}`, { token });
    expect(list.body.items.map((x: any) => [x.id, x.fee])).toEqual([[a.id, "95.00"]]);
    const audit = await auditOf(t, orgId, a.id);
    expect(audit[0].after.fee).toBe("95.00");
  });

  test("a type without default_fee books with fee null", async () => {
    const a = await booked({ appointment_type_uuid: s.type.id });
    expect(a.fee).toBeNull();
    expect((await rowOf(a.id)).fee_cents).toBeNull();
  });

  test("an explicit fee wins over the default; 0 is a fee; null books without one; cents are exact", async () => {
    const cases: [unknown, string | null, number | null][] = [
      [150.5, "150.50", 15050],
      [0, "0.00", 0],
      [null, null, null],
      [19.99, "19.99", 1999],
      [0.29, "0.29", 29],
      [1_000_000, "1000000.00", 100_000_000],
    ];
    for (const [fee, shown, cents] of cases) {
      const a = await booked({ fee });
      expect(a.fee).toBe(shown);
      expect((await rowOf(a.id)).fee_cents).toBe(cents);
    }
  });

  test("the default is a snapshot: changing or clearing the type's default_fee later does not move booked fees", async () => {
    const before = await booked();
    expect(before.fee).toBe("95.00");
    await setDefault(120.25);
    expect((await read(before.id)).fee).toBe("95.00");
    const after = await booked();
    expect(after.fee).toBe("120.25");
    // a reschedule does not re-price either
    const moved = await patch(after.id, { base_version: 1, scheduled_end: `${after.scheduled_start.slice(0, 10)}T11:00:00` });
    expect(moved.status).toBe(200);
    expect(moved.body.fee).toBe("120.25");
    await setDefault(null);
    expect((await booked()).fee).toBeNull();
    expect((await read(before.id)).fee).toBe("95.00");
    expect((await read(after.id)).fee).toBe("120.25");
    await setDefault(95);
  });

  test("422 for a negative, three-decimal, string, boolean or too large fee; nothing is booked", async () => {
    const before = (await appointmentRows(t, orgId)).length;
    const cases: [unknown, string][] = [
      [-1, "out_of_range"],
      [-0.01, "out_of_range"],
      [10.555, "value_error"],
      [0.001, "value_error"],
      ["95", "type_error"],
      ["95.00", "type_error"],
      [true, "type_error"],
      [1_000_000.01, "out_of_range"],
    ];
    for (const [fee, type] of cases) {
      const r = await book({ fee });
      expect(r.status).toBe(422);
      expect(r.body.detail).toEqual([expect.objectContaining({ loc: ["body", "fee"], type })]);
    }
    expect((await appointmentRows(t, orgId)).length).toBe(before);
  });
});

describe("fee on PATCH", () => {
  test("sets, changes and clears the fee; version +1; event changed_fields ['fee']; audit before/after", async () => {
    const a = await booked();
    const seen: EventEnvelope[] = [];
    const stop = t.rt.events.subscribe(orgId, (e) => seen.push(e));
    const r = await patch(a.id, { base_version: 1, fee: 80.25 });
    stop();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ fee: "80.25", version: 2, scheduled_start: a.scheduled_start });
    expect(await read(a.id)).toEqual(r.body);
    expect((await rowOf(a.id)).fee_cents).toBe(8025);
    expect(seen.map((e) => [e.type, e.data])).toEqual([["appointment.updated", { id: a.id, changed_fields: ["fee"] }]]);
    const audit = await auditOf(t, orgId, a.id);
    expect(audit.map((x) => x.action)).toEqual(["appointment.created", "appointment.updated"]);
    expect([audit[1].before.fee, audit[1].after.fee]).toEqual(["95.00", "80.25"]);

    const cleared = await patch(a.id, { base_version: 2, fee: null });
    expect(cleared.body).toMatchObject({ fee: null, version: 3 });
    // omitted keeps it (null stays null; the type's default does not come back)
    const notes = await patch(a.id, { base_version: 3, notes: "x" });
    expect(notes.body).toMatchObject({ fee: null, version: 4 });
    const zero = await patch(a.id, { base_version: 4, fee: 0 });
    expect(zero.body.fee).toBe("0.00");
  });

  test("422 for bad fees, and for naming the type (fixed: nothing re-prices); nothing changes", async () => {
    const a = await booked({ fee: 60 });
    for (const [fee, type] of [
      [-5, "out_of_range"],
      [12.345, "value_error"],
      ["60", "type_error"],
      [{}, "type_error"],
    ] as [unknown, string][]) {
      const r = await patch(a.id, { base_version: 1, fee });
      expect(r.status).toBe(422);
      expect(r.body.detail).toEqual([expect.objectContaining({ loc: ["body", "fee"], type })]);
    }
    const typed = await patch(a.id, { base_version: 1, appointment_type_uuid: s.type.id });
    expect(typed.status).toBe(422);
    expect(typed.body.detail[0].loc).toEqual(["body", "appointment_type_uuid"]);
    expect(await read(a.id)).toEqual(a);
    expect((await rowOf(a.id)).fee_cents).toBe(6000);
  });

  test("409 on a stale base_version and 422 invalid_transition once cancelled; the fee stays", async () => {
    const a = await booked();
    const stale = await patch(a.id, { base_version: 2, fee: 10 });
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    const c = await t.request("POST", `${P()}/${a.id}/status`, { token, body: { status: "cancelled", base_version: 1 } });
    expect(c.status).toBe(200);
    const r = await patch(a.id, { base_version: 2, fee: 10 });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("invalid_transition");
    expect(await read(a.id)).toMatchObject({ fee: "95.00", version: 2, status: "cancelled" });
  });
});
