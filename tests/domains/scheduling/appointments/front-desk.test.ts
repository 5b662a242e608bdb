import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, twoOrgApp, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { bookingBody, bookingSetup, createProvider, type Setup } from "./fixtures";

// The front desk's operations: no-show (broken), confirmation tracking, check-in, seat, dismiss.

let t: TestApp;
let token: string;
let orgId: string;
let otherOrg: string;
let s: Setup;
let reader: string; // schedule.appointments.read only
let outsider: string; // a member holding no appointment keys
const P = (org = orgId) => `/api/v1/${org}/appointments`;
const UNKNOWN = "01a1fe29-0000-7000-8000-000000000000";
let day = 0;

beforeAll(async () => {
  ({
    t,
    admin: token,
    orgA: orgId,
    orgB: otherOrg,
    tokens: { reader, outsider },
  } = await twoOrgApp({ reader: ["schedule.appointments.read"], outsider: ["patients.read"] }));
  s = await bookingSetup(t, orgId);
});
afterAll(() => t.close());

/** A fresh appointment 09:00–10:00 on its own day with its own provider. */
async function fresh(v: Record<string, unknown> = {}, setup = s, org = orgId) {
  const provider = await createProvider(t, org);
  const date = Temporal.PlainDate.from("2027-01-04").add({ days: day++ }).toString();
  const r = await t.request("POST", P(org), {
    token,
    body: bookingBody(setup, { provider_uuid: provider.id, scheduled_start: `${date}T09:00:00`, scheduled_end: `${date}T10:00:00`, ...v }),
  });
  if (r.status !== 201) throw new Error(r.text);
  return { ...r.body, date, providerId: provider.id };
}
const op = (id: string, what: string, body: unknown, tok = token, org = orgId) => t.request("POST", `${P(org)}/${id}/${what}`, { token: tok, body });
const read = async (id: string) => (await t.request("GET", `${P()}/${id}`, { token })).body;

function collect() {
  const seen: EventEnvelope[] = [];
  const stop = t.rt.events.subscribe(orgId, (e) => seen.push(e));
  return { seen, stop };
}

/** Walk an appointment through operations ([op, body without base_version]); returns its version after. */
async function walk(id: string, steps: [string, Record<string, unknown>][]) {
  let v = 1;
  for (const [what, body] of steps) {
    const r = await op(id, what, { ...body, base_version: v });
    if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.text}`);
    v = r.body.version;
  }
  return v;
}

// ---------------------------------------------------------------- broken

describe("status broken (no-show)", () => {
  test("scheduled -> broken with a reason: broken_at, status_reason, event without the reason, audit", async () => {
    const a = await fresh();
    const ev = collect();
    const r = await op(a.id, "status", { status: "broken", base_version: 1, reason: "No call, no show" });
    ev.stop();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "broken", status_reason: "No call, no show", version: 2, cancelled_at: null });
    expect(r.body.broken_at).toMatch(/Z$/);
    expect(ev.seen.map((e) => [e.type, e.data])).toEqual([["appointment.status_changed", { id: a.id, from: "scheduled", to: "broken" }]]);
    expect(JSON.stringify(ev.seen)).not.toContain("No call");
    const audit = await auditOf(t, orgId, a.id);
    expect(audit.at(-1)).toMatchObject({ action: "appointment.status_changed", after: { status: "broken", status_reason: "No call, no show" } });
    expect(audit.at(-1).after.broken_at).toBe(r.body.broken_at);
  });

  test("confirmed -> broken too; broken is final; arrived -> broken is refused", async () => {
    const a = await fresh();
    await op(a.id, "status", { status: "confirmed", base_version: 1 });
    expect((await op(a.id, "status", { status: "broken", base_version: 2, reason: "Sick" })).status).toBe(200);
    for (const to of ["scheduled", "confirmed", "arrived", "completed", "cancelled", "broken"]) {
      const r = await op(a.id, "status", { status: to, base_version: 3, reason: "x" });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({
        detail: [{ loc: ["body", "status"], msg: `Cannot change status from broken to ${to}`, type: "invalid_transition" }],
        code: "invalid_transition",
      });
    }
    const arrived = await fresh();
    await op(arrived.id, "status", { status: "arrived", base_version: 1 });
    expect((await op(arrived.id, "status", { status: "broken", base_version: 2, reason: "x" })).body.code).toBe("invalid_transition");
    expect((await read(a.id)).version).toBe(3);
  });

  test("422 reason_required without a reason (absent, null or blank); nothing changes", async () => {
    const a = await fresh();
    const before = await read(a.id);
    for (const extra of [{}, { reason: null }, { reason: "   " }]) {
      const r = await op(a.id, "status", { status: "broken", base_version: 1, ...extra });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({
        detail: [{ loc: ["body", "reason"], msg: "A reason is required to mark an appointment broken", type: "missing" }],
        code: "reason_required",
      });
    }
    expect(await read(a.id)).toEqual(before);
    // 409 on a stale version comes before the reason rule
    expect((await op(a.id, "status", { status: "broken", base_version: 7 })).status).toBe(409);
  });

  test("a broken appointment frees its slot, like a cancelled one", async () => {
    const a = await fresh();
    const clash = bookingBody(s, { provider_uuid: a.providerId, scheduled_start: `${a.date}T09:30:00`, scheduled_end: `${a.date}T10:30:00` });
    expect((await t.request("POST", P(), { token, body: clash })).status).toBe(409);
    await op(a.id, "status", { status: "broken", base_version: 1, reason: "No show" });
    expect((await t.request("POST", P(), { token, body: clash })).status).toBe(201);
  });

  test("the list filters by status broken", async () => {
    const a = await fresh();
    await op(a.id, "status", { status: "broken", base_version: 1, reason: "No show" });
    const r = await t.request("GET", `${P()}?status=broken&provider_uuid=${a.providerId}`, { token });
    expect(r.body.items.map((x: { id: string }) => x.id)).toEqual([a.id]);
  });
});

// ---------------------------------------------------------------- confirmation

describe("POST /appointments/{id}/confirmation", () => {
  test("records outcome, method and time; status is untouched; a confirmed outcome stamps confirmed_at; event and audit", async () => {
    const a = await fresh();
    const ev = collect();
    const r1 = await op(a.id, "confirmation", { confirmation_status: "left_message", method: "phone", base_version: 1 });
    expect(r1.status).toBe(200);
    expect(r1.headers.get("etag")).toBe('"2"');
    expect(r1.body).toMatchObject({ status: "scheduled", confirmation_status: "left_message", confirmation_method: "phone", confirmed_at: null, version: 2 });
    expect(r1.body.confirmation_recorded_at).toMatch(/Z$/);
    const r2 = await op(a.id, "confirmation", { confirmation_status: "confirmed", method: "text", base_version: 2 });
    ev.stop();
    expect(r2.body).toMatchObject({ status: "scheduled", confirmation_status: "confirmed", confirmation_method: "text", version: 3 });
    expect(r2.body.confirmed_at).toBe(r2.body.confirmation_recorded_at);
    expect(await read(a.id)).toEqual(r2.body);
    expect(ev.seen.map((e) => [e.type, e.data])).toEqual([
      ["appointment.confirmation_recorded", { id: a.id, confirmation_status: "left_message", method: "phone" }],
      ["appointment.confirmation_recorded", { id: a.id, confirmation_status: "confirmed", method: "text" }],
    ]);
    expect(ev.seen[0]!.practice_id).toBe(s.location.id);
    const audit = await auditOf(t, orgId, a.id);
    expect(audit.map((x) => x.action)).toEqual(["appointment.created", "appointment.confirmation_recorded", "appointment.confirmation_recorded"]);
    expect(audit[2].before).toMatchObject({ confirmation_status: "left_message", confirmation_method: "phone" });
    expect(audit[2].after).toMatchObject({ confirmation_status: "confirmed", confirmation_method: "text" });
  });

  test("a later outcome replaces the current one but keeps confirmed_at; reset to unconfirmed clears the method", async () => {
    const a = await fresh();
    const c = (await op(a.id, "confirmation", { confirmation_status: "confirmed", method: "email", base_version: 1 })).body;
    const d = (await op(a.id, "confirmation", { confirmation_status: "declined", method: "phone", base_version: 2 })).body;
    expect(d).toMatchObject({ confirmation_status: "declined", confirmation_method: "phone", confirmed_at: c.confirmed_at });
    const u = (await op(a.id, "confirmation", { confirmation_status: "unconfirmed", base_version: 3 })).body;
    expect(u).toMatchObject({ confirmation_status: "unconfirmed", confirmation_method: null, confirmed_at: c.confirmed_at, version: 4 });
    // also allowed once the status is confirmed
    await op(a.id, "status", { status: "confirmed", base_version: 4 });
    expect((await op(a.id, "confirmation", { confirmation_status: "no_answer", method: "phone", base_version: 5 })).status).toBe(200);
  });

  test("422 for each rule; 422 invalid_transition once arrived, completed, cancelled or broken; nothing changes", async () => {
    const a = await fresh();
    const before = await read(a.id);
    // an absent enum field reads "enum" or "missing" depending on the platform's mapping (see update.test.ts)
    const cases: [Record<string, unknown>, string, string][] = [
      [{ method: "phone", base_version: 1 }, "confirmation_status", "enum|missing"],
      [{ confirmation_status: "maybe", method: "phone", base_version: 1 }, "confirmation_status", "enum"],
      [{ confirmation_status: "confirmed", method: "fax", base_version: 1 }, "method", "enum"],
      [{ confirmation_status: "confirmed", method: "phone" }, "base_version", "missing"],
      [{ confirmation_status: "confirmed", method: "phone", base_version: "1" }, "base_version", "type_error"],
      [{ confirmation_status: "confirmed", method: "phone", base_version: 1, confirmed_at: "2027-01-01T00:00:00Z" }, "confirmed_at", "extra_forbidden"],
    ];
    for (const [body, field, type] of cases) {
      const r = await op(a.id, "confirmation", body);
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["body", field]);
      expect(type.split("|")).toContain(r.body.detail[0].type);
    }
    const noMethod = await op(a.id, "confirmation", { confirmation_status: "confirmed", base_version: 1 });
    expect(noMethod.body).toEqual({ detail: [{ loc: ["body", "method"], msg: "Say how the patient was reached", type: "missing" }], code: "method_required" });
    const resetWithMethod = await op(a.id, "confirmation", { confirmation_status: "unconfirmed", method: "phone", base_version: 1 });
    expect(resetWithMethod.body.code).toBe("method_not_allowed");
    const malformed = await t.request("POST", `${P()}/${a.id}/confirmation`, { token, rawBody: "{nope", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].type).toBe("json_invalid");
    expect(await read(a.id)).toEqual(before);
    for (const path of [
      [["check-in", {}]],
      [["status", { status: "cancelled" }]],
      [["status", { status: "broken", reason: "x" }]],
      [
        ["check-in", {}],
        ["status", { status: "completed" }],
      ],
    ] as [string, Record<string, unknown>][][]) {
      const b = await fresh();
      const v = await walk(b.id, path);
      const r = await op(b.id, "confirmation", { confirmation_status: "confirmed", method: "phone", base_version: v });
      expect(r.status).toBe(422);
      expect(r.body.code).toBe("invalid_transition");
      expect((await read(b.id)).confirmation_status).toBe("unconfirmed");
    }
  });

  test("409 stale base_version, 404 unknown, 401, 403", async () => {
    const a = await fresh();
    const body = { confirmation_status: "confirmed", method: "phone", base_version: 1 };
    await op(a.id, "confirmation", body);
    const stale = await op(a.id, "confirmation", body);
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    expect((await op(UNKNOWN, "confirmation", body)).body).toEqual({ detail: "Appointment not found", code: "not_found" });
    expect((await t.request("POST", `${P()}/${a.id}/confirmation`, { body })).status).toBe(401);
    expect((await op(a.id, "confirmation", { ...body, base_version: 2 }, reader)).status).toBe(403);
    expect((await op(a.id, "confirmation", { ...body, base_version: 2 }, outsider)).status).toBe(403);
    expect((await read(a.id)).version).toBe(2);
  });
});

// ---------------------------------------------------------------- check-in, seat, dismiss

describe("check-in, seat, dismiss", () => {
  test("check-in: scheduled -> arrived with arrived_at; events checked_in and status_changed; audit", async () => {
    const a = await fresh();
    const ev = collect();
    const r = await op(a.id, "check-in", { base_version: 1 });
    ev.stop();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "arrived", version: 2, seated_at: null, dismissed_at: null });
    expect(r.body.arrived_at).toMatch(/Z$/);
    expect(ev.seen.map((e) => [e.type, e.data])).toEqual([
      ["appointment.checked_in", { id: a.id, from: "scheduled", to: "arrived" }],
      ["appointment.status_changed", { id: a.id, from: "scheduled", to: "arrived" }],
    ]);
    expect((await auditOf(t, orgId, a.id)).map((x) => x.action)).toEqual(["appointment.created", "appointment.checked_in"]);
  });

  test("the whole visit: confirmed -> check-in -> seat -> dismiss -> completed; each stamp kept; events", async () => {
    const a = await fresh();
    await op(a.id, "status", { status: "confirmed", base_version: 1 });
    const arrived = (await op(a.id, "check-in", { base_version: 2 })).body;
    const ev = collect();
    const seated = await op(a.id, "seat", { base_version: 3 });
    expect(seated.status).toBe(200);
    expect(seated.body).toMatchObject({ status: "arrived", arrived_at: arrived.arrived_at, version: 4, dismissed_at: null });
    expect(seated.body.seated_at >= arrived.arrived_at).toBe(true);
    const dismissed = await op(a.id, "dismiss", { base_version: 4 });
    ev.stop();
    expect(dismissed.body).toMatchObject({ status: "arrived", seated_at: seated.body.seated_at, version: 5 });
    expect(dismissed.body.dismissed_at >= seated.body.seated_at).toBe(true);
    expect(ev.seen.map((e) => [e.type, e.data])).toEqual([
      ["appointment.seated", { id: a.id }],
      ["appointment.dismissed", { id: a.id }],
    ]);
    const done = (await op(a.id, "status", { status: "completed", base_version: 5 })).body;
    expect(done).toMatchObject({ status: "completed", dismissed_at: dismissed.body.dismissed_at, seated_at: seated.body.seated_at });
    expect((await auditOf(t, orgId, a.id)).map((x) => x.action)).toEqual([
      "appointment.created",
      "appointment.status_changed",
      "appointment.checked_in",
      "appointment.seated",
      "appointment.dismissed",
      "appointment.status_changed",
    ]);
  });

  test("completed before dismissal: dismiss still works", async () => {
    const a = await fresh();
    const v = await walk(a.id, [
      ["check-in", {}],
      ["seat", {}],
      ["status", { status: "completed" }],
    ]);
    const r = await op(a.id, "dismiss", { base_version: v });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: "completed" });
    expect(r.body.dismissed_at).toMatch(/Z$/);
  });

  test("422 invalid_transition out of order, and nothing changes", async () => {
    const cases: [[string, Record<string, unknown>][], string, string][] = [
      [[], "seat", "Cannot seat: the appointment is scheduled (only a checked-in patient is seated)"],
      [[], "dismiss", "Cannot dismiss: the appointment is scheduled"],
      [[["check-in", {}]], "check-in", "Cannot check in: the appointment is arrived"],
      [[["check-in", {}]], "dismiss", "The patient must be seated before being dismissed"],
      [
        [
          ["check-in", {}],
          ["seat", {}],
        ],
        "seat",
        "The patient is already seated",
      ],
      [
        [
          ["check-in", {}],
          ["seat", {}],
          ["dismiss", {}],
        ],
        "dismiss",
        "The patient was already dismissed",
      ],
      [[["status", { status: "cancelled" }]], "check-in", "Cannot check in: the appointment is cancelled"],
      [[["status", { status: "broken", reason: "x" }]], "check-in", "Cannot check in: the appointment is broken"],
      [
        [
          ["check-in", {}],
          ["status", { status: "completed" }],
        ],
        "seat",
        "Cannot seat: the appointment is completed (only a checked-in patient is seated)",
      ],
      [
        [
          ["check-in", {}],
          ["status", { status: "completed" }],
        ],
        "dismiss",
        "The patient must be seated before being dismissed",
      ],
      [
        [
          ["check-in", {}],
          ["seat", {}],
          ["status", { status: "cancelled" }],
        ],
        "dismiss",
        "Cannot dismiss: the appointment is cancelled",
      ],
    ];
    for (const [path, what, msg] of cases) {
      const a = await fresh();
      const v = await walk(a.id, path);
      const before = await read(a.id);
      const r = await op(a.id, what, { base_version: v });
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ detail: [{ loc: ["body"], msg, type: "invalid_transition" }], code: "invalid_transition" });
      expect(await read(a.id)).toEqual(before);
    }
  });

  test("each: 409 stale, 404 unknown, 422 schema (missing base_version, unknown field, malformed JSON), 401, 403", async () => {
    for (const [what, setup] of [
      ["check-in", []],
      ["seat", [["check-in", {}]]],
      [
        "dismiss",
        [
          ["check-in", {}],
          ["seat", {}],
        ],
      ],
    ] as [string, [string, Record<string, unknown>][]][]) {
      const a = await fresh();
      const v = await walk(a.id, setup);
      const before = await read(a.id);
      const stale = await op(a.id, what, { base_version: v + 1 });
      expect(stale.status).toBe(409);
      expect(stale.body.code).toBe("version_conflict");
      expect((await op(UNKNOWN, what, { base_version: 1 })).status).toBe(404);
      const missing = await op(a.id, what, {});
      expect(missing.status).toBe(422);
      expect(missing.body.detail[0]).toMatchObject({ loc: ["body", "base_version"], type: "missing" });
      const extra = await op(a.id, what, { base_version: v, at: "2027-01-01T10:00:00Z" });
      expect(extra.body.detail[0]).toMatchObject({ loc: ["body", "at"], type: "extra_forbidden" });
      const zero = await op(a.id, what, { base_version: 0 });
      expect(zero.body.detail[0]).toMatchObject({ loc: ["body", "base_version"], type: "out_of_range" });
      const malformed = await t.request("POST", `${P()}/${a.id}/${what}`, { token, rawBody: "{", headers: { "content-type": "application/json" } });
      expect(malformed.status).toBe(422);
      expect((await t.request("POST", `${P()}/${a.id}/${what}`, { body: { base_version: v } })).status).toBe(401);
      expect((await op(a.id, what, { base_version: v }, reader)).status).toBe(403);
      expect(await read(a.id)).toEqual(before);
      expect((await op(a.id, what, { base_version: v })).status).toBe(200);
    }
  });
});

// ---------------------------------------------------------------- tenancy

describe("another org's appointment through this org's path", () => {
  test("404 for status, confirmation, check-in, seat and dismiss; theirs is unchanged", async () => {
    const setupB = await bookingSetup(t, otherOrg);
    const b = await fresh({}, setupB, otherOrg);
    const bodies: [string, Record<string, unknown>][] = [
      ["status", { status: "broken", reason: "x", base_version: 1 }],
      ["confirmation", { confirmation_status: "confirmed", method: "phone", base_version: 1 }],
      ["check-in", { base_version: 1 }],
      ["seat", { base_version: 1 }],
      ["dismiss", { base_version: 1 }],
    ];
    for (const [what, body] of bodies) {
      const r = await op(b.id, what, body);
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Appointment not found", code: "not_found" });
    }
    const theirs = (await t.request("GET", `${P(otherOrg)}/${b.id}`, { token })).body;
    expect(theirs).toMatchObject({ version: 1, status: "scheduled", confirmation_status: "unconfirmed" });
    // a member of this org only gets 404 on the other org's path (no tenant enumeration)
    expect((await op(b.id, "check-in", { base_version: 1 }, reader, otherOrg)).status).toBe(404);
  });
});
