import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createMember, twoOrgApp, type TestApp } from "@tests/helpers";
import {
  createLocation,
  createOperatory,
  createPatient,
  createProvider,
  createType,
  insertAppointment,
  insertDefinition,
  scheduleSetup,
  type ScheduleSetup,
} from "@tests/domains/scheduling/provider-schedules/fixtures";
import { createRule, patchRow } from "@tests/domains/scheduling/appointments/fixtures";

let t: TestApp;
let token: string;
let orgId: string;
let otherOrg: string;
let other: ScheduleSetup;
let patient: { id: string };
let exam: { id: string };
let cleaning: { id: string };
let blockType: { id: string };
const S = () => `/api/v1/${orgId}/schedule`;
const MISSING = "01900000-0000-7000-8000-000000000000";
const MONDAY = "2026-06-01";

beforeAll(async () => {
  ({ t, admin: token, orgA: orgId, orgB: otherOrg } = await twoOrgApp());
  other = await scheduleSetup(t, otherOrg);
  patient = await createPatient(t, orgId);
  exam = await createType(t, orgId, { code: "EX60", name: "Exam", duration_minutes: 60 });
  cleaning = await createType(t, orgId, { code: "PRO30", name: "Cleaning", duration_minutes: 30 });
  blockType = await insertDefinition(t, orgId, "blockout_types", "Lunch");
});
afterAll(() => t.close());

async function post(path: string, body: Record<string, unknown>) {
  const r = await t.request("POST", `${S()}/${path}`, { token, body });
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
}
const template = (s: ScheduleSetup, v: Record<string, unknown>) =>
  post("provider-schedules", { provider_uuid: s.provider.id, location_uuid: s.location.id, weekday: 1, start_time: "08:00", end_time: "12:00", ...v });
async function slots(s: ScheduleSetup, q: Record<string, string> = {}, typeId = exam.id) {
  const qs = new URLSearchParams({ location_uuid: s.location.id, appointment_type_uuid: typeId, date_from: MONDAY, date_to: MONDAY, ...q });
  const r = await t.request("GET", `${S()}/availability?${qs}`, { token });
  if (r.status !== 200) throw new Error(`availability: ${r.status} ${r.text}`);
  return r.body;
}
const starts = (body: any, providerId?: string) =>
  body.slots.filter((x: any) => !providerId || x.provider_uuid === providerId).map((x: any) => x.start.slice(11, 16));
const appt = (s: ScheduleSetup, v: Record<string, unknown>) =>
  insertAppointment(t, orgId, {
    timeZone: s.location.timezone,
    location_id: s.location.id,
    provider_id: s.provider.id,
    patient_id: patient.id,
    appointment_type_id: exam.id,
    ...v,
  } as any);
const quarterHours = (from: string, to: string) => {
  const out: string[] = [];
  for (let m = Number(from.slice(0, 2)) * 60 + Number(from.slice(3)); m <= Number(to.slice(0, 2)) * 60 + Number(to.slice(3)); m += 15)
    out.push(`${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`);
  return out;
};

describe("GET /schedule/availability", () => {
  test("slots at the type's duration every 15 minutes inside the template, in its operatory", async () => {
    const s = await scheduleSetup(t, orgId);
    await template(s, { operatory_uuid: s.operatory.id });
    const body = await slots(s);
    expect(body).toMatchObject({ location_timezone: "America/New_York", date_from: MONDAY, date_to: MONDAY, duration_minutes: 60, slot_step_minutes: 15 });
    expect(starts(body)).toEqual(quarterHours("08:00", "11:00"));
    expect(body.slots[0]).toEqual({ start: "2026-06-01T08:00:00", end: "2026-06-01T09:00:00", provider_uuid: s.provider.id, operatory_uuid: s.operatory.id });
    // other weekdays have no template
    expect((await slots(s, { date_from: "2026-06-02", date_to: "2026-06-06" })).slots).toEqual([]);
  });

  test("booked appointments block the provider and the operatory; cancelled and broken ones do not; the grid keeps to the shift's start", async () => {
    const s = await scheduleSetup(t, orgId);
    await template(s, { operatory_uuid: s.operatory.id });
    await appt(s, { start: `${MONDAY}T09:00`, end: `${MONDAY}T09:50` });
    await appt(s, { start: `${MONDAY}T10:00`, end: `${MONDAY}T11:00`, status: "cancelled" });
    await appt(s, { start: `${MONDAY}T10:00`, end: `${MONDAY}T11:00`, status: "broken" });
    // another provider's appointment in the same operatory
    await appt(s, { provider_id: s.provider2.id, operatory_id: s.operatory.id, start: `${MONDAY}T11:30`, end: `${MONDAY}T12:00` });
    expect(starts(await slots(s))).toEqual(["08:00", "10:00", "10:15", "10:30"]);
  });

  test("a template without an operatory takes the first free one (item_order); none free means no slot", async () => {
    const s = await scheduleSetup(t, orgId);
    await template(s, { start_time: "08:00", end_time: "10:00" });
    await appt(s, { provider_id: s.provider2.id, operatory_id: s.operatory.id, start: `${MONDAY}T08:00`, end: `${MONDAY}T09:00` });
    await appt(s, { provider_id: s.provider2.id, operatory_id: s.operatory2.id, start: `${MONDAY}T08:00`, end: `${MONDAY}T08:30` });
    const body = await slots(s);
    expect(body.slots.map((x: any) => [x.start.slice(11, 16), x.operatory_uuid])).toEqual([
      ["08:30", s.operatory2.id],
      ["08:45", s.operatory2.id],
      ["09:00", s.operatory.id],
    ]);
    // only operatory 1
    expect(starts(await slots(s, { operatory_uuid: s.operatory.id }))).toEqual(["09:00"]);
  });

  test("several providers at once, ordered by start then provider; provider filter", async () => {
    const s = await scheduleSetup(t, orgId);
    await template(s, { operatory_uuid: s.operatory.id, start_time: "08:00", end_time: "09:00" });
    await template(s, { provider_uuid: s.provider2.id, operatory_uuid: s.operatory2.id, start_time: "08:30", end_time: "09:30" });
    const body = await slots(s, {}, cleaning.id);
    // Grace Canine sorts before Ada Molar (last name)
    expect(body.slots.map((x: any) => `${x.start.slice(11, 16)} ${x.provider_uuid === s.provider.id ? "A" : "G"}`)).toEqual([
      "08:00 A",
      "08:15 A",
      "08:30 G",
      "08:30 A",
      "08:45 G",
      "09:00 G",
    ]);
    expect(starts(await slots(s, { provider_uuid: s.provider2.id }, cleaning.id))).toEqual(["08:30", "08:45", "09:00"]);
  });

  test("appointment rules: an allowed overlap does not block; the provider's appointment at another location always does", async () => {
    const s = await scheduleSetup(t, orgId);
    await template(s, { operatory_uuid: s.operatory.id, start_time: "08:00", end_time: "10:00" });
    const quick = await createType(t, orgId, { code: `Q${Date.now()}`, name: "Quick check", duration_minutes: 15 });
    await appt(s, { appointment_type_id: quick.id, operatory_id: s.operatory.id, start: `${MONDAY}T08:00`, end: `${MONDAY}T08:15` });
    expect(starts(await slots(s))).toEqual(["08:15", "08:30", "08:45", "09:00"]);
    await createRule(t, orgId, exam.id, quick.id, true, s.location.id);
    expect(starts(await slots(s))).toEqual(quarterHours("08:00", "09:00"));
    const elsewhere = await createLocation(t, orgId, "America/New_York", "Uptown");
    await appt(s, { location_id: elsewhere.id, appointment_type_id: quick.id, start: `${MONDAY}T09:00`, end: `${MONDAY}T09:30` });
    expect(starts(await slots(s))).toEqual(["08:00"]);
  });

  test("blockouts: location-wide, operatory, provider", async () => {
    const s = await scheduleSetup(t, orgId);
    await template(s, { start_time: "08:00", end_time: "12:00" });
    const block = (v: Record<string, unknown>) => post("blockouts", { location_uuid: s.location.id, blockout_type_uuid: blockType.id, ...v });
    await block({ start: `${MONDAY}T08:00`, end: `${MONDAY}T09:00` }); // whole location
    await block({ start: `${MONDAY}T09:00`, end: `${MONDAY}T10:00`, operatory_uuid: s.operatory.id }); // op 1 only: op 2 takes over
    await block({ start: `${MONDAY}T10:30`, end: `${MONDAY}T11:00`, provider_uuid: s.provider.id }); // the provider
    const body = await slots(s, {}, cleaning.id);
    expect(body.slots.map((x: any) => `${x.start.slice(11, 16)} ${x.operatory_uuid === s.operatory.id ? 1 : 2}`)).toEqual([
      "09:00 2",
      "09:15 2",
      "09:30 2",
      "09:45 2",
      "10:00 1",
      "11:00 1",
      "11:15 1",
      "11:30 1",
    ]);
  });

  test("overrides: an unavailable day has no slots; changed hours replace the template; effective dates", async () => {
    const s = await scheduleSetup(t, orgId);
    await template(s, { operatory_uuid: s.operatory.id, start_time: "08:00", end_time: "10:00", effective_to: "2026-06-08" });
    await post("overrides", {
      provider_uuid: s.provider.id,
      location_uuid: s.location.id,
      override_date: MONDAY,
      is_unavailable: true,
      override_reason: "vacation",
    });
    await post("overrides", {
      provider_uuid: s.provider.id,
      location_uuid: s.location.id,
      override_date: "2026-06-08",
      start_time: "13:00",
      end_time: "14:00",
      operatory_uuid: s.operatory2.id,
      override_reason: "schedule_change",
    });
    const body = await slots(s, { date_to: "2026-06-15" });
    expect(body.slots).toEqual([{ start: "2026-06-08T13:00:00", end: "2026-06-08T14:00:00", provider_uuid: s.provider.id, operatory_uuid: s.operatory2.id }]);
    // an override on a day without a template adds hours (extended_hours on a Saturday)
    await post("overrides", {
      provider_uuid: s.provider.id,
      location_uuid: s.location.id,
      override_date: "2026-06-13",
      start_time: "09:00",
      end_time: "10:00",
      override_reason: "extended_hours",
    });
    expect((await slots(s, { date_from: "2026-06-13", date_to: "2026-06-13" })).slots.map((x: any) => x.start)).toEqual(["2026-06-13T09:00:00"]);
  });

  test("a location without operatories answers operatory_uuid null; archived operatories and providers drop out", async () => {
    const location = await createLocation(t, orgId, "America/Chicago", "No chairs");
    const p = await createProvider(t, orgId, { abbreviation: "NOC" });
    const s = { location, provider: p } as unknown as ScheduleSetup;
    await template(s, { start_time: "08:00", end_time: "09:00" });
    expect((await slots(s)).slots).toEqual([{ start: "2026-06-01T08:00:00", end: "2026-06-01T09:00:00", provider_uuid: p.id, operatory_uuid: null }]);
    const op = await createOperatory(t, orgId, location.id, { name: "Later" });
    await template(s, { weekday: 2, start_time: "08:00", end_time: "09:00", operatory_uuid: op.id });
    await patchRow(t, orgId, (await import("@db/tenant/practice")).operatories, op.id, { deleted_at: new Date().toISOString() });
    expect((await slots(s, { date_from: "2026-06-02", date_to: "2026-06-02" })).slots).toEqual([]);
    await patchRow(t, orgId, (await import("@db/tenant/practice")).providers, p.id, { deleted_at: new Date().toISOString() });
    expect((await slots(s)).slots).toEqual([]);
  });

  test("422: missing parameters, bad dates, inverted or longer than 31 days, unknown parameters, inactive type, operatory of another location", async () => {
    const s = await scheduleSetup(t, orgId);
    const base = { location_uuid: s.location.id, appointment_type_uuid: exam.id, date_from: "2026-06-01", date_to: "2026-06-01" };
    const ask = (q: Record<string, string | undefined>) => {
      const qs = new URLSearchParams(Object.entries({ ...base, ...q }).filter(([, v]) => v !== undefined) as [string, string][]);
      return t.request("GET", `${S()}/availability?${qs}`, { token });
    };
    expect((await ask({ date_to: "2026-07-01" })).status).toBe(200); // 31 days
    for (const [q, loc, type] of [
      [{ date_to: "2026-07-02" }, ["query", "date_to"], "out_of_range"],
      [{ date_to: "2026-05-31" }, ["query", "date_to"], "value_error"],
      [{ date_from: undefined }, ["query", "date_from"], "missing"],
      [{ appointment_type_uuid: undefined }, ["query", "appointment_type_uuid"], "missing"],
      [{ date_from: "2026-02-30" }, ["query", "date_from"], "format"],
      [{ location_uuid: "abc" }, ["query", "location_uuid"], "format"],
      [{ step: "10" }, ["query", "step"], "extra_forbidden"],
    ] as const) {
      const r = await ask(q as Record<string, string | undefined>);
      expect(r.status).toBe(422);
      expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    }
    const inactive = await createType(t, orgId, { code: `IN${Date.now()}`, name: "Old", duration_minutes: 30, is_active: false });
    expect((await ask({ appointment_type_uuid: inactive.id })).body.code).toBe("appointment_type_inactive");
    const elsewhere = await scheduleSetup(t, orgId);
    expect((await ask({ operatory_uuid: elsewhere.operatory.id })).body).toMatchObject({
      code: "operatory_location_mismatch",
      detail: [{ loc: ["query", "operatory_uuid"] }],
    });
  });

  test("404 for missing or other org's location, type, provider, operatory; 401; 403; 404 non-member", async () => {
    const s = await scheduleSetup(t, orgId);
    const base = { location_uuid: s.location.id, appointment_type_uuid: exam.id, date_from: MONDAY, date_to: MONDAY };
    const ask = (q: Record<string, string>, tok: string | null = token) =>
      t.request("GET", `${S()}/availability?${new URLSearchParams({ ...base, ...q })}`, { token: tok ?? undefined });
    const foreignType = await createType(t, otherOrg, { code: "X", duration_minutes: 30 });
    for (const [q, what] of [
      [{ location_uuid: other.location.id }, "Location"],
      [{ location_uuid: MISSING }, "Location"],
      [{ appointment_type_uuid: foreignType.id }, "Appointment type"],
      [{ provider_uuid: other.provider.id }, "Provider"],
      [{ operatory_uuid: other.operatory.id }, "Operatory"],
    ] as const) {
      expect((await ask(q)).body).toEqual({ detail: `${what} not found`, code: "not_found" });
    }
    expect((await ask({}, null)).status).toBe(401);
    expect((await ask({}, (await createMember(t, orgId, ["patients.read"])).token)).status).toBe(403);
    expect((await ask({}, (await createMember(t, otherOrg, ["schedule.read"])).token)).status).toBe(404);
    expect((await ask({}, (await createMember(t, orgId, ["schedule.read"])).token)).status).toBe(200);
  });

  test("a returned slot books as given (POST /appointments) and then leaves availability", async () => {
    const s = await scheduleSetup(t, orgId);
    await template(s, { operatory_uuid: s.operatory.id, start_time: "08:00", end_time: "09:30" });
    const before = await slots(s);
    const slot = before.slots[1];
    const r = await t.request("POST", `/api/v1/${orgId}/appointments`, {
      token,
      body: {
        patient_uuid: patient.id,
        appointment_type_uuid: exam.id,
        location_uuid: s.location.id,
        provider_uuid: slot.provider_uuid,
        operatory_uuid: slot.operatory_uuid,
        scheduled_start: slot.start,
        scheduled_end: slot.end,
      },
    });
    expect(r.status).toBe(201);
    expect(starts(before)).toEqual(["08:00", "08:15", "08:30"]);
    expect(starts(await slots(s))).toEqual([]);
  });
});
