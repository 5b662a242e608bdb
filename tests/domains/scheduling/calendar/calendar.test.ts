import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createMember, twoOrgApp, type TestApp } from "@tests/helpers";
import {
  createPatient,
  createType,
  insertAppointment,
  insertDefinition,
  scheduleSetup,
  type ScheduleSetup,
} from "@tests/domains/scheduling/provider-schedules/fixtures";

let t: TestApp;
let token: string;
let orgId: string;
let otherOrg: string;
let s: ScheduleSetup;
let other: ScheduleSetup;
let patient: { id: string };
let exam: { id: string };
let lunch: { id: string };
const S = () => `/api/v1/${orgId}/schedule`;
const MISSING = "01900000-0000-7000-8000-000000000000";
const DAY = "2026-06-01"; // a Monday

async function post(path: string, body: Record<string, unknown>) {
  const r = await t.request("POST", `${S()}/${path}`, { token, body });
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
}
const get = (path: string, tok: string | null = token) => t.request("GET", `${S()}/${path}`, { token: tok ?? undefined });
const book = (start: string, end: string, v: Record<string, unknown> = {}) =>
  t.request("POST", `/api/v1/${orgId}/appointments`, {
    token,
    body: {
      patient_uuid: patient.id,
      appointment_type_uuid: exam.id,
      location_uuid: s.location.id,
      provider_uuid: s.provider.id,
      scheduled_start: start,
      scheduled_end: end,
      ...v,
    },
  });

let appts: Record<string, any> = {};
let block: any;
let vacation: any;

beforeAll(async () => {
  ({ t, admin: token, orgA: orgId, orgB: otherOrg } = await twoOrgApp());
  s = await scheduleSetup(t, orgId);
  other = await scheduleSetup(t, otherOrg);
  patient = await createPatient(t, orgId, { first_name: "Pat", last_name: "Ient" });
  exam = await createType(t, orgId, { code: "EX", name: "Exam", duration_minutes: 60 });
  lunch = await insertDefinition(t, orgId, "blockout_types", "Lunch");
  await insertDefinition(t, orgId, "holidays", "Independence Day", "2026-07-03");
  await insertDefinition(t, orgId, "holidays", "Retired holiday", "2026-07-06", { is_hidden: true });
  await post("provider-schedules", {
    provider_uuid: s.provider.id,
    location_uuid: s.location.id,
    operatory_uuid: s.operatory.id,
    weekday: 1,
    start_time: "08:00",
    end_time: "12:00",
  });
  await post("provider-schedules", {
    provider_uuid: s.provider.id,
    location_uuid: s.location.id,
    operatory_uuid: s.operatory.id,
    weekday: 1,
    start_time: "13:00",
    end_time: "17:00",
  });
  await post("provider-schedules", { provider_uuid: s.provider2.id, location_uuid: s.location.id, weekday: 2, start_time: "09:00", end_time: "15:00" });
  vacation = await post("overrides", {
    provider_uuid: s.provider2.id,
    location_uuid: s.location.id,
    override_date: "2026-06-09",
    is_unavailable: true,
    override_reason: "vacation",
  });
  block = await post("blockouts", { location_uuid: s.location.id, blockout_type_uuid: lunch.id, start: `${DAY}T12:00`, end: `${DAY}T13:00` });
  appts.nine = (await book(`${DAY}T09:00`, `${DAY}T10:00`, { operatory_uuid: s.operatory.id })).body;
  appts.eight = (await book(`${DAY}T08:00`, `${DAY}T09:00`)).body;
  const cancelled = (await book(`${DAY}T14:00`, `${DAY}T15:00`)).body;
  await t.request("POST", `/api/v1/${orgId}/appointments/${cancelled.id}/status`, { token, body: { status: "cancelled", base_version: 1 } });
  appts.broken = await insertAppointment(t, orgId, {
    timeZone: s.location.timezone,
    location_id: s.location.id,
    provider_id: s.provider2.id,
    patient_id: patient.id,
    appointment_type_id: exam.id,
    start: `${DAY}T15:00`,
    end: `${DAY}T16:00`,
    status: "broken",
  });
  appts.tuesday = (await book("2026-06-02T10:00", "2026-06-02T11:00", { provider_uuid: s.provider2.id })).body;
});
afterAll(() => t.close());

describe("GET /schedule/calendar/daily", () => {
  test("appointments (not cancelled; broken shown), blockouts, provider hours, day_hours and zone", async () => {
    const r = await get(`calendar/daily?location_uuid=${s.location.id}&target_date=${DAY}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(["appointments", "blockouts", "date", "day_hours", "location_timezone", "provider_schedules"]);
    expect(r.body).toMatchObject({ date: DAY, day_hours: 24, location_timezone: "America/New_York" });
    expect(r.body.appointments.map((a: any) => [a.scheduled_start, a.status])).toEqual([
      [`${DAY}T08:00:00`, "scheduled"],
      [`${DAY}T09:00:00`, "scheduled"],
      [`${DAY}T15:00:00`, "broken"],
    ]);
    expect(r.body.appointments[1]).toMatchObject({ id: appts.nine.id, patient: { first_name: "Pat", last_name: "Ient" }, operatory: { uuid: s.operatory.id } });
    expect(r.body.blockouts).toEqual([block]);
    expect(r.body.provider_schedules).toEqual([
      {
        provider: { uuid: s.provider.id, name: "Ada Molar" },
        is_unavailable: false,
        override: null,
        hours: [
          { start_time: "08:00", end_time: "12:00", operatory: { uuid: s.operatory.id, name: "Op 1" } },
          { start_time: "13:00", end_time: "17:00", operatory: { uuid: s.operatory.id, name: "Op 1" } },
        ],
      },
    ]);
  });

  test("fields projection: only the keys asked for, plus operatories and holiday; unknown key 422", async () => {
    let r = await get(`calendar/daily?location_uuid=${s.location.id}&target_date=2026-07-03&fields=holiday,operatories,blockouts`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      date: "2026-07-03",
      day_hours: 24,
      location_timezone: "America/New_York",
      blockouts: [],
      is_holiday: true,
      holiday_name: "Independence Day",
      operatories: [
        { uuid: s.operatory.id, name: "Op 1", abbreviation: null, item_order: 1 },
        { uuid: s.operatory2.id, name: "Op 2", abbreviation: null, item_order: 2 },
      ],
    });
    r = await get(`calendar/daily?location_uuid=${s.location.id}&target_date=2026-07-06&fields=holiday`);
    expect(r.body).toMatchObject({ is_holiday: false, holiday_name: null });
    r = await get(`calendar/daily?location_uuid=${s.location.id}&target_date=${DAY}&fields=appointments&fields=provider_schedules`);
    expect(Object.keys(r.body).sort()).toEqual(["appointments", "date", "day_hours", "location_timezone", "provider_schedules"]);
    r = await get(`calendar/daily?location_uuid=${s.location.id}&target_date=${DAY}&fields=appointments,patients`);
    expect(r.status).toBe(422);
    expect(r.body.detail[0]).toMatchObject({ loc: ["query", "fields", 1], type: "enum" });
  });

  test("an unavailable override shows with no hours", async () => {
    const r = await get(`calendar/daily?location_uuid=${s.location.id}&target_date=2026-06-09&fields=provider_schedules`);
    expect(r.body.provider_schedules).toEqual([
      {
        provider: { uuid: s.provider2.id, name: "Grace Canine" },
        is_unavailable: true,
        override: { uuid: vacation.id, override_reason: "vacation" },
        hours: [],
      },
    ]);
  });

  test("404 missing or other org's location; 422 missing/bad parameters; 401; 403 without schedule.appointments.read; 404 non-member", async () => {
    expect((await get(`calendar/daily?location_uuid=${other.location.id}&target_date=${DAY}`)).body).toEqual({
      detail: "Location not found",
      code: "not_found",
    });
    expect((await get(`calendar/daily?location_uuid=${MISSING}&target_date=${DAY}`)).status).toBe(404);
    for (const q of [
      `location_uuid=${s.location.id}`,
      `target_date=${DAY}`,
      `location_uuid=${s.location.id}&target_date=2026-06-31`,
      `location_uuid=${s.location.id}&target_date=${DAY}&view=x`,
    ]) {
      expect((await get(`calendar/daily?${q}`)).status).toBe(422);
    }
    const path = `calendar/daily?location_uuid=${s.location.id}&target_date=${DAY}`;
    expect((await get(path, null)).status).toBe(401);
    expect((await get(path, (await createMember(t, orgId, ["schedule.read"])).token)).status).toBe(403);
    expect((await get(path, (await createMember(t, otherOrg, ["schedule.appointments.read"])).token)).status).toBe(404);
    expect((await get(path, (await createMember(t, orgId, ["schedule.appointments.read"])).token)).status).toBe(200);
  });
});

describe("GET /schedule/calendar/weekly", () => {
  test("7 days from week_start with each day's appointments, blockouts and hours", async () => {
    const r = await get(`calendar/weekly?location_uuid=${s.location.id}&week_start=2026-05-31`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ week_start: "2026-05-31", location_timezone: "America/New_York" });
    expect(r.body.days.map((d: any) => d.date)).toEqual(["2026-05-31", "2026-06-01", "2026-06-02", "2026-06-03", "2026-06-04", "2026-06-05", "2026-06-06"]);
    expect(r.body.days.map((d: any) => d.appointments.length)).toEqual([0, 3, 1, 0, 0, 0, 0]);
    expect(r.body.days[2].appointments[0].id).toBe(appts.tuesday.id);
    expect(r.body.days.map((d: any) => d.blockouts.length)).toEqual([0, 1, 0, 0, 0, 0, 0]);
    expect(r.body.days.map((d: any) => d.provider_schedules.map((p: any) => p.provider.name))).toEqual([[], ["Ada Molar"], ["Grace Canine"], [], [], [], []]);
    const f = await get(`calendar/weekly?location_uuid=${s.location.id}&week_start=2026-05-31&fields=operatories`);
    expect(Object.keys(f.body).sort()).toEqual(["days", "location_timezone", "operatories", "week_start"]);
    expect(Object.keys(f.body.days[0]).sort()).toEqual(["date", "day_hours"]);
  });

  test("404, 422, 401, 403", async () => {
    expect((await get(`calendar/weekly?location_uuid=${other.location.id}&week_start=${DAY}`)).status).toBe(404);
    expect((await get(`calendar/weekly?location_uuid=${s.location.id}`)).status).toBe(422);
    expect((await get(`calendar/weekly?location_uuid=${s.location.id}&week_start=${DAY}&fields=x`)).status).toBe(422);
    expect((await get(`calendar/weekly?location_uuid=${s.location.id}&week_start=${DAY}`, null)).status).toBe(401);
    expect(
      (await get(`calendar/weekly?location_uuid=${s.location.id}&week_start=${DAY}`, (await createMember(t, orgId, ["schedule.read"])).token)).status,
    ).toBe(403);
  });
});

describe("GET /schedule/calendar/monthly", () => {
  test("per-day counts by status, goals summed over providers, holidays, no appointment detail", async () => {
    const goal = (provider: string, date: string, amount: number) =>
      t.request("PUT", `${S()}/production-goals/upsert`, {
        token,
        body: { provider_uuid: provider, location_uuid: s.location.id, goal_date: date, goal_amount: amount },
      });
    await goal(s.provider.id, DAY, 1000.25);
    await goal(s.provider2.id, DAY, 500);
    const r = await get(`calendar/monthly?location_uuid=${s.location.id}&month=2026-06`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ month: "2026-06", location_timezone: "America/New_York" });
    expect(r.body.days.length).toBe(30);
    expect(r.body.days[0]).toEqual({
      date: DAY,
      day_hours: 24,
      appointment_count: 2,
      counts: { scheduled: 2, cancelled: 1, broken: 1 },
      production: "0.00",
      goal: "1500.25",
      is_holiday: false,
      holiday_name: null,
    });
    expect(r.body.days[1]).toMatchObject({ date: "2026-06-02", appointment_count: 1, counts: { scheduled: 1 }, goal: "0.00" });
    const july = await get(`calendar/monthly?location_uuid=${s.location.id}&month=2026-07`);
    expect(july.body.days.length).toBe(31);
    expect(july.body.days[2]).toMatchObject({ date: "2026-07-03", is_holiday: true, holiday_name: "Independence Day", appointment_count: 0, counts: {} });
    expect(july.body.days[5]).toMatchObject({ date: "2026-07-06", is_holiday: false });
    expect((await get(`calendar/monthly?location_uuid=${s.location.id}&month=2028-02`)).body.days.length).toBe(29);
  });

  test("422 bad month; 404; 401; 403", async () => {
    for (const m of ["2026-13", "2026-6", "2026-06-01", "june"]) {
      const r = await get(`calendar/monthly?location_uuid=${s.location.id}&month=${m}`);
      expect(r.status).toBe(422);
      expect(r.body.detail[0]).toMatchObject({ loc: ["query", "month"], type: "format" });
    }
    expect((await get(`calendar/monthly?location_uuid=${s.location.id}&month=2026-06&fields=appointments`)).status).toBe(422);
    expect((await get(`calendar/monthly?location_uuid=${other.location.id}&month=2026-06`)).status).toBe(404);
    expect((await get(`calendar/monthly?location_uuid=${s.location.id}&month=2026-06`, null)).status).toBe(401);
    expect((await get(`calendar/monthly?location_uuid=${s.location.id}&month=2026-06`, (await createMember(t, orgId, ["schedule.read"])).token)).status).toBe(
      403,
    );
    expect(
      (await get(`calendar/monthly?location_uuid=${s.location.id}&month=2026-06`, (await createMember(t, otherOrg, ["schedule.appointments.read"])).token))
        .status,
    ).toBe(404);
  });
});

describe("GET /schedule/daily-providers", () => {
  test("date, location, zone and the providers with their hours that day", async () => {
    let r = await get(`daily-providers?location_uuid=${s.location.id}&date=2026-06-02`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      date: "2026-06-02",
      location: { uuid: s.location.id, name: s.location.name },
      location_timezone: "America/New_York",
      providers: [
        {
          provider: { uuid: s.provider2.id, name: "Grace Canine" },
          is_unavailable: false,
          override: null,
          hours: [{ start_time: "09:00", end_time: "15:00", operatory: null }],
        },
      ],
    });
    r = await get(`daily-providers?location_uuid=${s.location.id}&date=2026-06-07`);
    expect(r.body.providers).toEqual([]);
  });

  test("404, 422, 401, 403 (schedule.read is enough), non-member 404", async () => {
    expect((await get(`daily-providers?location_uuid=${other.location.id}&date=${DAY}`)).status).toBe(404);
    expect((await get(`daily-providers?location_uuid=${s.location.id}`)).status).toBe(422);
    expect((await get(`daily-providers?location_uuid=${s.location.id}&date=${DAY}&x=1`)).status).toBe(422);
    expect((await get(`daily-providers?location_uuid=${s.location.id}&date=${DAY}`, null)).status).toBe(401);
    expect((await get(`daily-providers?location_uuid=${s.location.id}&date=${DAY}`, (await createMember(t, orgId, ["patients.read"])).token)).status).toBe(403);
    expect((await get(`daily-providers?location_uuid=${s.location.id}&date=${DAY}`, (await createMember(t, otherOrg, ["schedule.read"])).token)).status).toBe(
      404,
    );
    expect((await get(`daily-providers?location_uuid=${s.location.id}&date=${DAY}`, (await createMember(t, orgId, ["schedule.read"])).token)).status).toBe(200);
  });
});
