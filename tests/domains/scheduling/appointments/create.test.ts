import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, createMember, startTestApp, type TestApp } from "@tests/helpers";
import { appointmentRules } from "@db/tenant/appointments";
import { patients } from "@db/tenant/patients";
import type { EventEnvelope } from "@/platform/events/envelope";
import {
  appointmentRows,
  bookingBody,
  bookingSetup,
  createLocation,
  createOperatory,
  createPatient,
  createProvider,
  createRule,
  createType,
  patchRow,
  type Setup,
} from "./fixtures";

let t: TestApp;
let token: string;
let orgId: string;
let s: Setup;
const P = () => `/api/v1/${orgId}/appointments`;
const UNKNOWN = "01a1fe29-0000-7000-8000-000000000000";

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgId = (await t.createOrg()).id;
  s = await bookingSetup(t, orgId);
});
afterAll(() => t.close());

const book = (body: Record<string, unknown>, tok = token) => t.request("POST", P(), { token: tok, body });
/** A fresh provider (so each test has its own free calendar) and a body booking them. */
async function freshBody(v: Record<string, unknown> = {}) {
  const provider = await createProvider(t, orgId);
  return bookingBody(s, { provider_uuid: provider.id, ...v });
}

describe("POST /appointments: booking", () => {
  test("201 with the full appointment: refs, wall-clock times, status scheduled, ETag, event and audit", async () => {
    const seen: EventEnvelope[] = [];
    const stop = t.rt.events.subscribe(orgId, (e) => seen.push(e));
    const r = await book(bookingBody(s, { operatory_uuid: s.operatory.id, notes: "Bring x-rays" }));
    stop();
    expect(r.status).toBe(201);
    const a = r.body;
    expect(a).toEqual({
      id: a.id,
      uuid: a.id,
      status: "scheduled",
      patient: { uuid: s.patient.id, first_name: "Pat", last_name: "Ient" },
      appointment_type: { uuid: s.type.id, name: "Exam", duration_minutes: 60, color: "#3366FF" },
      fee: null, // the fixture type has no default_fee (fees: fees.test.ts)
      scheduled_start: "2026-03-09T09:00:00",
      scheduled_end: "2026-03-09T10:00:00",
      location: { uuid: s.location.id, name: s.location.name },
      provider: { uuid: s.provider.id, first_name: "Ada", last_name: "Molar", title: "Dr." },
      operatory: { uuid: s.operatory.id, name: "Op 1" },
      notes: "Bring x-rays",
      status_reason: null,
      confirmed_at: null,
      arrived_at: null,
      completed_at: null,
      cancelled_at: null,
      broken_at: null,
      is_asap: false,
      confirmation_status: "unconfirmed",
      confirmation_method: null,
      confirmation_recorded_at: null,
      seated_at: null,
      dismissed_at: null,
      flow_status: null,
      flow_status_set_at: null,
      procedures: [],
      production: "0.00",
      version: 1,
      created_at: a.created_at,
      updated_at: a.created_at,
    });
    expect(a.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(r.headers.get("etag")).toBe('"1"');
    // stored with the UTC instants (New York is UTC-4 on 9 March 2026)
    const row = (await appointmentRows(t, orgId)).find((x) => x.id === a.id)!;
    expect(row).toMatchObject({ start_utc: "2026-03-09T13:00:00.000Z", end_utc: "2026-03-09T14:00:00.000Z", status: "scheduled" });
    // the event: ids only, practice_id = the location
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ type: "appointment.created", resource_type: "appointment", resource_id: a.id, practice_id: s.location.id, org_id: orgId });
    expect(seen[0]!.data).toEqual({
      id: a.id,
      patient_id: s.patient.id,
      provider_id: s.provider.id,
      operatory_id: s.operatory.id,
      appointment_type_id: s.type.id,
      status: "scheduled",
    });
    expect(JSON.stringify(seen[0])).not.toContain("x-rays");
    const audit = await auditOf(t, orgId, a.id);
    expect(audit.map((x) => x.action)).toEqual(["appointment.created"]);
    expect(audit[0].after).toMatchObject({ patient_uuid: s.patient.id, start_utc: "2026-03-09T13:00:00.000Z" });
    // and it reads back the same
    const g = await t.request("GET", `${P()}/${a.id}`, { token });
    expect(g.body).toEqual(a);
  });

  test("without operatory or notes: operatory null, notes null; times without seconds get them", async () => {
    const r = await book(await freshBody({ scheduled_start: "2026-03-10T08:15", scheduled_end: "2026-03-10T09:45" }));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ operatory: null, notes: null, scheduled_start: "2026-03-10T08:15:00", scheduled_end: "2026-03-10T09:45:00" });
  });

  test("longer than the type's duration is fine; upper-case uuids find their records", async () => {
    const r = await book(
      await freshBody({
        patient_uuid: s.patient.id.toUpperCase(),
        location_uuid: s.location.id.toUpperCase(),
        operatory_uuid: s.operatory2.id.toUpperCase(),
        appointment_type_uuid: s.type.id.toUpperCase(),
        scheduled_start: "2026-03-10T13:00:00",
        scheduled_end: "2026-03-10T15:30:00",
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body.patient.uuid).toBe(s.patient.id);
    expect(r.body.operatory.uuid).toBe(s.operatory2.id);
  });

  test("Idempotency-Key replays the first answer instead of booking twice", async () => {
    const body = await freshBody({ scheduled_start: "2026-03-11T09:00:00", scheduled_end: "2026-03-11T10:00:00" });
    const headers = { "idempotency-key": `k-${Bun.randomUUIDv7()}` };
    const a = await t.request("POST", P(), { token, body, headers });
    const b = await t.request("POST", P(), { token, body, headers });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(b.headers.get("idempotent-replayed")).toBe("true");
    expect(b.body.id).toBe(a.body.id);
    expect((await appointmentRows(t, orgId)).filter((x) => x.provider_id === body.provider_uuid)).toHaveLength(1);
  });
});

describe("POST /appointments: 401, 403, 404", () => {
  test("401 without a token, 403 for a member without schedule.appointments.write; nothing is written", async () => {
    const before = (await appointmentRows(t, orgId)).length;
    const anon = await t.request("POST", P(), { body: bookingBody(s) });
    expect(anon.status).toBe(401);
    expect(anon.headers.get("www-authenticate")).toBe("Bearer");
    const reader = await createMember(t, orgId, ["schedule.appointments.read"]);
    const r = await book(await freshBody(), reader.token);
    expect(r.status).toBe(403);
    expect(r.body.code).toBe("forbidden");
    expect((await appointmentRows(t, orgId)).length).toBe(before);
  });

  test("a member holding only schedule.appointments.write can book", async () => {
    const writer = await createMember(t, orgId, ["schedule.appointments.write"]);
    const r = await book(await freshBody({ scheduled_start: "2026-03-12T09:00:00", scheduled_end: "2026-03-12T10:00:00" }), writer.token);
    expect(r.status).toBe(201);
  });

  test("404 in an org the caller is not a member of", async () => {
    const other = (await t.createOrg()).id;
    const member = await createMember(t, orgId, ["schedule.appointments.write"]);
    const r = await t.request("POST", `/api/v1/${other}/appointments`, { token: member.token, body: bookingBody(s) });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe("not_found");
  });

  test.each([
    ["patient_uuid", "Patient"],
    ["appointment_type_uuid", "Appointment type"],
    ["location_uuid", "Location"],
    ["provider_uuid", "Provider"],
    ["operatory_uuid", "Operatory"],
  ])("404 for an unknown %s; nothing is written", async (field, label) => {
    const before = (await appointmentRows(t, orgId)).length;
    const r = await book(await freshBody({ [field]: UNKNOWN }));
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ detail: `${label} not found`, code: "not_found" });
    expect((await appointmentRows(t, orgId)).length).toBe(before);
  });

  test("404 for records of another org (each org has its own database)", async () => {
    const otherOrg = (await t.createOrg()).id;
    const o = await bookingSetup(t, otherOrg);
    for (const [field, id] of [
      ["patient_uuid", o.patient.id],
      ["provider_uuid", o.provider.id],
      ["location_uuid", o.location.id],
      ["appointment_type_uuid", o.type.id],
      ["operatory_uuid", o.operatory.id],
    ] as const) {
      const r = await book(await freshBody({ [field]: id }));
      expect(r.status).toBe(404);
    }
    // and an appointment of the other org is not reachable through this org's path
    const theirs = await t.request("POST", `/api/v1/${otherOrg}/appointments`, { token, body: bookingBody(o) });
    expect(theirs.status).toBe(201);
    expect((await t.request("GET", `${P()}/${theirs.body.id}`, { token })).status).toBe(404);
  });

  test("404 for an archived type, location, provider or operatory", async () => {
    const type = await createType(t, orgId, { code: "ARCH", deleted_at: new Date().toISOString(), is_active: false });
    expect((await book(await freshBody({ appointment_type_uuid: type.id }))).status).toBe(404);
    const provider = await createProvider(t, orgId, { deleted_at: new Date().toISOString() });
    expect((await book(bookingBody(s, { provider_uuid: provider.id }))).status).toBe(404);
    const op = await createOperatory(t, orgId, s.location.id, { deleted_at: new Date().toISOString() });
    expect((await book(await freshBody({ operatory_uuid: op.id }))).status).toBe(404);
    const loc = await createLocation(t, orgId, "UTC", "Closed clinic");
    await t.request("POST", `/api/v1/${orgId}/locations/${loc.id}/archive`, { token });
    expect((await book(await freshBody({ location_uuid: loc.id }))).status).toBe(404);
  });
});

describe("POST /appointments: 422", () => {
  test("each required field missing", async () => {
    for (const field of ["patient_uuid", "appointment_type_uuid", "location_uuid", "provider_uuid", "scheduled_start", "scheduled_end"]) {
      const body: Record<string, unknown> = bookingBody(s);
      delete body[field];
      const r = await book(body);
      expect(r.status).toBe(422);
      expect(r.body.detail).toEqual([{ loc: ["body", field], msg: "Field required", type: "missing" }]);
    }
  });

  test("wrong types, malformed values, unknown and read-only fields, malformed JSON", async () => {
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{ scheduled_start: 900 }, ["body", "scheduled_start"], "type_error"],
      [{ scheduled_start: "tomorrow" }, ["body", "scheduled_start"], "format"],
      [{ scheduled_start: "2026-02-30T09:00:00" }, ["body", "scheduled_start"], "format"],
      [{ scheduled_end: "2026-03-09 10:00" }, ["body", "scheduled_end"], "format"],
      [{ scheduled_start: "1800-03-09T09:00:00" }, ["body", "scheduled_start"], "value_error"],
      [{ patient_uuid: "not-a-uuid" }, ["body", "patient_uuid"], "format"],
      [{ provider_uuid: 12 }, ["body", "provider_uuid"], "type_error"],
      [{ override_scheduling_restriction: "yes" }, ["body", "override_scheduling_restriction"], "type_error"],
      [{ notes: "x".repeat(4001) }, ["body", "notes"], "out_of_range"],
      [{ colour: "red" }, ["body", "colour"], "extra_forbidden"],
      [{ id: UNKNOWN }, ["body", "id"], "read_only"],
      [{ uuid: UNKNOWN }, ["body", "uuid"], "read_only"],
      [{ version: 2 }, ["body", "version"], "read_only"],
    ];
    for (const [patch, loc, type] of cases) {
      const r = await book(bookingBody(s, patch));
      expect(r.status).toBe(422);
      expect(r.body.detail[0]).toMatchObject({ loc, type });
    }
    // derived fields (status, patient, ...) are refused: read_only once the platform reads a schema's declared list
    for (const field of ["status", "patient", "start_utc"]) {
      const r = await book(bookingBody(s, { [field]: "x" }));
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc).toEqual(["body", field]);
      expect(["read_only", "extra_forbidden"]).toContain(r.body.detail[0].type);
    }
    const bad = await t.request("POST", P(), { token, rawBody: "{not json", headers: { "content-type": "application/json" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
  });

  test("end at or before start, shorter than the type's duration, longer than 24 hours; nothing is written", async () => {
    const before = (await appointmentRows(t, orgId)).length;
    const equal = await book(await freshBody({ scheduled_end: "2026-03-09T09:00:00" }));
    expect(equal.status).toBe(422);
    expect(equal.body).toEqual({
      detail: [{ loc: ["body", "scheduled_end"], msg: "Must be after scheduled_start", type: "value_error" }],
      code: "invalid_window",
    });
    const backwards = await book(await freshBody({ scheduled_end: "2026-03-09T08:00:00" }));
    expect(backwards.body.code).toBe("invalid_window");
    const short = await book(await freshBody({ scheduled_end: "2026-03-09T09:59:59" }));
    expect(short.status).toBe(422);
    expect(short.body.code).toBe("shorter_than_type_duration");
    expect(short.body.detail[0].loc).toEqual(["body", "scheduled_end"]);
    const long = await book(await freshBody({ scheduled_end: "2026-03-10T09:00:01" }));
    expect(long.status).toBe(422);
    expect(long.body.code).toBe("invalid_window");
    expect((await appointmentRows(t, orgId)).length).toBe(before);
  });

  test("an inactive type is 422 appointment_type_inactive", async () => {
    const type = await createType(t, orgId, { code: "OLD", is_active: false });
    const r = await book(await freshBody({ appointment_type_uuid: type.id }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "appointment_type_inactive", detail: [{ loc: ["body", "appointment_type_uuid"] }] });
  });

  test("an operatory of another location is 422 operatory_location_mismatch", async () => {
    const elsewhere = await createLocation(t, orgId, "America/Chicago", "Elsewhere");
    const op = await createOperatory(t, orgId, elsewhere.id);
    const r = await book(await freshBody({ operatory_uuid: op.id }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "operatory_location_mismatch", detail: [{ loc: ["body", "operatory_uuid"] }] });
  });

  test("a deceased patient cannot be booked, override or not; an archived one is 404", async () => {
    const deceased = await createPatient(t, orgId, { status: "deceased" });
    const r = await book(await freshBody({ patient_uuid: deceased.id, override_scheduling_restriction: true }));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ code: "patient_not_schedulable", detail: [{ loc: ["body", "patient_uuid"] }] });
    const archived = await createPatient(t, orgId, { status: "archived", deleted_at: new Date().toISOString() });
    const a = await book(await freshBody({ patient_uuid: archived.id, override_scheduling_restriction: true }));
    expect(a.status).toBe(404);
    expect(a.body.detail).toBe("Patient not found");
  });
});

describe("scheduling_restricted", () => {
  test("an inactive patient: 422 scheduling_restricted, then 201 with the override, which is audited", async () => {
    const p = await createPatient(t, orgId, { status: "inactive" });
    const body = await freshBody({ patient_uuid: p.id });
    const refused = await book(body);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "scheduling_restricted", detail: [{ loc: ["body", "patient_uuid"], type: "value_error" }] });
    expect((await book({ ...body, override_scheduling_restriction: false })).body.code).toBe("scheduling_restricted");
    expect((await appointmentRows(t, orgId)).filter((x) => x.patient_id === p.id)).toHaveLength(0);
    const ok = await book({ ...body, override_scheduling_restriction: true });
    expect(ok.status).toBe(201);
    const audit = await auditOf(t, orgId, ok.body.id);
    expect(audit.map((x) => x.action).sort()).toEqual(["appointment.created", "appointment.scheduling_restriction_overridden"]);
  });

  test("a balance over 500.00 across the aging buckets restricts; exactly 500.00 does not", async () => {
    const p = await createPatient(t, orgId, {
      balance_0_30_cents: 20_000,
      balance_31_60_cents: 10_000,
      balance_61_90_cents: 10_000,
      balance_over_90_cents: 10_000,
    });
    const at500 = await book(await freshBody({ patient_uuid: p.id }));
    expect(at500.status).toBe(201);
    await patchRow(t, orgId, patients, p.id, { balance_over_90_cents: 10_001 });
    const over = await book(await freshBody({ patient_uuid: p.id }));
    expect(over.status).toBe(422);
    expect(over.body.code).toBe("scheduling_restricted");
  });
});

describe("booking conflicts", () => {
  test("the provider's overlapping window is 409 booking_conflict; touching ends are fine; nothing is written", async () => {
    const body = await freshBody({ scheduled_start: "2026-04-01T09:00:00", scheduled_end: "2026-04-01T10:00:00" });
    expect((await book(body)).status).toBe(201);
    const before = (await appointmentRows(t, orgId)).length;
    for (const [start, end] of [
      ["2026-04-01T09:30:00", "2026-04-01T10:30:00"],
      ["2026-04-01T08:30:00", "2026-04-01T09:30:00"],
      ["2026-04-01T08:00:00", "2026-04-01T11:00:00"],
      ["2026-04-01T09:00:00", "2026-04-01T10:00:00"],
    ]) {
      const r = await book({ ...body, scheduled_start: start, scheduled_end: end });
      expect(r.status).toBe(409);
      expect(r.body).toEqual({ detail: "The provider already has an appointment in this window", code: "booking_conflict" });
    }
    expect((await appointmentRows(t, orgId)).length).toBe(before);
    expect((await book({ ...body, scheduled_start: "2026-04-01T10:00:00", scheduled_end: "2026-04-01T11:00:00" })).status).toBe(201);
    expect((await book({ ...body, scheduled_start: "2026-04-01T08:00:00", scheduled_end: "2026-04-01T09:00:00" })).status).toBe(201);
  });

  test("the operatory's overlapping window is 409 even with another provider; another operatory is free", async () => {
    const op = await createOperatory(t, orgId, s.location.id, { name: "Busy chair" });
    expect((await book(await freshBody({ operatory_uuid: op.id, scheduled_start: "2026-04-02T09:00:00", scheduled_end: "2026-04-02T10:00:00" }))).status).toBe(
      201,
    );
    const r = await book(await freshBody({ operatory_uuid: op.id, scheduled_start: "2026-04-02T09:59:00", scheduled_end: "2026-04-02T11:00:00" }));
    expect(r.status).toBe(409);
    expect(r.body).toEqual({ detail: "The operatory already has an appointment in this window", code: "booking_conflict" });
    const free = await book(await freshBody({ operatory_uuid: s.operatory2.id, scheduled_start: "2026-04-02T09:59:00", scheduled_end: "2026-04-02T11:00:00" }));
    expect(free.status).toBe(201);
  });

  test("a cancelled appointment frees its slot", async () => {
    const body = await freshBody({ scheduled_start: "2026-04-03T09:00:00", scheduled_end: "2026-04-03T10:00:00" });
    const first = (await book(body)).body;
    expect((await book(body)).status).toBe(409);
    const c = await t.request("POST", `${P()}/${first.id}/status`, { token, body: { status: "cancelled", base_version: 1 } });
    expect(c.status).toBe(200);
    expect((await book(body)).status).toBe(201);
  });

  test("the same provider at another location is a conflict (one person, one place), whatever the rules", async () => {
    const provider = await createProvider(t, orgId);
    const other = await createLocation(t, orgId, "America/New_York", "Second clinic");
    const rule = await createRule(t, orgId, s.type.id, s.type.id, true, null);
    try {
      expect(
        (await book(bookingBody(s, { provider_uuid: provider.id, scheduled_start: "2026-04-04T09:00:00", scheduled_end: "2026-04-04T10:00:00" }))).status,
      ).toBe(201);
      const r = await book(
        bookingBody(s, { provider_uuid: provider.id, location_uuid: other.id, scheduled_start: "2026-04-04T09:00:00", scheduled_end: "2026-04-04T10:00:00" }),
      );
      expect(r.status).toBe(409);
      // same location: the org-wide rule allows the overlap
      expect(
        (await book(bookingBody(s, { provider_uuid: provider.id, scheduled_start: "2026-04-04T09:30:00", scheduled_end: "2026-04-04T10:30:00" }))).status,
      ).toBe(201);
    } finally {
      // later tests expect no org-wide rule for this type pair
      await patchRow(t, orgId, appointmentRules, rule.id, { deleted_at: new Date().toISOString() });
    }
  });

  test("appointment rules: a location rule allowing the pair lets them overlap; a denying location rule beats an allowing org-wide one", async () => {
    const hygiene = await createType(t, orgId, { code: "HYG", name: "Hygiene", duration_minutes: 30 });
    const exam = await createType(t, orgId, { code: "EX2", name: "Exam 2", duration_minutes: 15 });
    const provider = await createProvider(t, orgId);
    const at = (start: string, end: string, type: string) =>
      book(bookingBody(s, { provider_uuid: provider.id, appointment_type_uuid: type, scheduled_start: start, scheduled_end: end }));
    expect((await at("2026-04-05T09:00:00", "2026-04-05T10:00:00", hygiene.id)).status).toBe(201);
    expect((await at("2026-04-05T09:15:00", "2026-04-05T09:30:00", exam.id)).status).toBe(409);
    await createRule(t, orgId, exam.id, hygiene.id, true, s.location.id); // order of the pair does not matter
    expect((await at("2026-04-05T09:15:00", "2026-04-05T09:30:00", exam.id)).status).toBe(201);
    // a third booking must be allowed against every appointment it overlaps: hygiene x hygiene has no rule
    expect((await at("2026-04-05T09:20:00", "2026-04-05T09:50:00", hygiene.id)).status).toBe(409);

    const provider2 = await createProvider(t, orgId);
    const hyg2 = await createType(t, orgId, { code: "HYG2", duration_minutes: 30 });
    const ex3 = await createType(t, orgId, { code: "EX3", duration_minutes: 15 });
    await createRule(t, orgId, hyg2.id, ex3.id, true, null);
    await createRule(t, orgId, hyg2.id, ex3.id, false, s.location.id);
    expect(
      (
        await book(
          bookingBody(s, {
            provider_uuid: provider2.id,
            appointment_type_uuid: hyg2.id,
            scheduled_start: "2026-04-06T09:00:00",
            scheduled_end: "2026-04-06T10:00:00",
          }),
        )
      ).status,
    ).toBe(201);
    expect(
      (
        await book(
          bookingBody(s, {
            provider_uuid: provider2.id,
            appointment_type_uuid: ex3.id,
            scheduled_start: "2026-04-06T09:00:00",
            scheduled_end: "2026-04-06T09:15:00",
          }),
        )
      ).status,
    ).toBe(409);
  });
});
