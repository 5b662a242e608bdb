import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "@tests/helpers";
import { createPatient, createType, scheduleSetup, type ScheduleSetup } from "@tests/domains/scheduling/provider-schedules/fixtures";

// Availability on the days clocks change (2026): New York Mar 8 and Nov 1,
// London Mar 29 and Oct 25 (all Sundays). Shifts are wall-clock hours of the
// location; slots are measured in real minutes and written as wall clock.
let t: TestApp;
let token: string;
let orgId: string;
let exam: { id: string };
let patient: { id: string };
const S = () => `/api/v1/${orgId}/schedule`;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgId = (await t.createOrg()).id;
  exam = await createType(t, orgId, { code: "EX60", name: "Exam", duration_minutes: 60 });
  patient = await createPatient(t, orgId);
});
afterAll(() => t.close());

async function setup(timeZone: string, shifts: [number, string, string][]) {
  const s = await scheduleSetup(t, orgId, timeZone);
  for (const [weekday, start_time, end_time] of shifts) {
    const r = await t.request("POST", `${S()}/provider-schedules`, {
      token,
      body: { provider_uuid: s.provider.id, location_uuid: s.location.id, operatory_uuid: s.operatory.id, weekday, start_time, end_time },
    });
    expect(r.status).toBe(201);
  }
  return s;
}
async function slots(s: ScheduleSetup, from: string, to = from) {
  const r = await t.request(
    "GET",
    `${S()}/availability?${new URLSearchParams({ location_uuid: s.location.id, appointment_type_uuid: exam.id, date_from: from, date_to: to })}`,
    { token },
  );
  expect(r.status).toBe(200);
  return r.body.slots as { start: string; end: string; provider_uuid: string; operatory_uuid: string }[];
}
/** Real minutes between a slot's ends, reading each wall clock as POST /appointments does (first occurrence). */
const realMinutes = (tz: string, x: { start: string; end: string }) => {
  const at = (w: string) => Temporal.PlainDateTime.from(w).toZonedDateTime(tz, { disambiguation: "earlier" }).epochMilliseconds;
  return (at(x.end) - at(x.start)) / 60_000;
};
const hhmm = (list: { start: string }[]) => list.map((x) => x.start.slice(11, 16));
const DAY_SHIFT: [number, string, string][] = [
  [6, "08:00", "17:00"],
  [0, "08:00", "17:00"],
  [1, "08:00", "17:00"],
];
const ALL_DAY = Array.from({ length: 33 }, (_, i) => `${String(8 + Math.floor(i / 4)).padStart(2, "0")}:${String((i % 4) * 15).padStart(2, "0")}`);

const CASES = [
  {
    tz: "America/New_York",
    spring: "2026-03-08",
    fall: "2026-11-01",
    springNight: ["00:00", "00:15", "00:30", "00:45", "01:00", "01:15", "01:30", "01:45", "03:00", "03:15", "03:30", "03:45", "04:00"],
    firstUtc: ["2026-03-07T13:00:00.000Z", "2026-03-09T12:00:00.000Z"],
  },
  {
    tz: "Europe/London",
    spring: "2026-03-29",
    fall: "2026-10-25",
    springNight: ["00:00", "00:15", "00:30", "00:45", "02:00", "02:15", "02:30", "02:45", "03:00", "03:15", "03:30", "03:45", "04:00"],
    firstUtc: ["2026-03-28T08:00:00.000Z", "2026-03-30T07:00:00.000Z"],
  },
];

for (const c of CASES) {
  describe(c.tz, () => {
    for (const [label, day] of [
      ["spring forward", c.spring],
      ["fall back", c.fall],
    ] as const) {
      test(`${label} (${day}): a 08:00-17:00 template gives 08:00 ... 16:00, each slot 60 real minutes`, async () => {
        const s = await setup(c.tz, DAY_SHIFT);
        const list = await slots(s, day);
        expect(hhmm(list)).toEqual(ALL_DAY);
        expect(list.at(-1)).toEqual({ start: `${day}T16:00:00`, end: `${day}T17:00:00`, provider_uuid: s.provider.id, operatory_uuid: s.operatory.id });
        expect(list.every((x) => realMinutes(c.tz, x) === 60)).toBe(true);
      });
    }

    test("across the change (Saturday to Monday): 33 slots a day; the same wall clock is another UTC offset after it", async () => {
      const s = await setup(c.tz, DAY_SHIFT);
      const sat = Temporal.PlainDate.from(c.spring).subtract({ days: 1 }).toString();
      const mon = Temporal.PlainDate.from(c.spring).add({ days: 1 }).toString();
      const list = await slots(s, sat, mon);
      expect(list.length).toBe(99);
      for (const d of [sat, c.spring, mon]) expect(hhmm(list.filter((x) => x.start.startsWith(d)))).toEqual(ALL_DAY);
      const utc = (w: string) => new Date(Temporal.PlainDateTime.from(w).toZonedDateTime(c.tz).epochMilliseconds).toISOString();
      expect([utc(list[0]!.start), utc(list[66]!.start)]).toEqual(c.firstUtc);
    });

    test("spring forward night shift 00:00-05:00: four real hours; no slot starts in the skipped hour", async () => {
      const s = await setup(c.tz, [[0, "00:00", "05:00"]]);
      const list = await slots(s, c.spring);
      expect(hhmm(list)).toEqual(c.springNight);
      expect(list.every((x) => realMinutes(c.tz, x) === 60)).toBe(true);
    });

    test("fall back night shift 00:00-05:00: six real hours; slots touching the second pass of the repeated hour are left out", async () => {
      const s = await setup(c.tz, [[0, "00:00", "05:00"]]);
      const list = await slots(s, c.fall);
      expect(hhmm(list)).toEqual(["00:00", "00:15", "00:30", "00:45", "02:00", "02:15", "02:30", "02:45", "03:00", "03:15", "03:30", "03:45", "04:00"]);
      expect(list.every((x) => realMinutes(c.tz, x) === 60)).toBe(true);
    });

    test("a slot across the spring-forward gap books as given", async () => {
      const s = await setup(c.tz, [[0, "00:00", "05:00"]]);
      const slot = (await slots(s, c.spring))[4]!; // the one that spans the gap
      expect(realMinutes(c.tz, slot)).toBe(60);
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
      expect(hhmm(await slots(s, c.spring))).not.toContain(slot.start.slice(11, 16));
    });
  });
}

describe("the fast wall clock (days without a transition) agrees with Temporal", () => {
  test("every quarter hour of days around and between the changes, several zones", async () => {
    const { dayClock, bookableWallClock } = await import("@/domains/scheduling/availability/slots");
    const { epochMinuteOf } = await import("@/domains/scheduling/provider-schedules/hours");
    for (const tz of ["America/New_York", "Europe/London", "Asia/Kathmandu", "Australia/Lord_Howe", "UTC"]) {
      for (const date of [
        "2026-03-06",
        "2026-03-07",
        "2026-03-10",
        "2026-03-27",
        "2026-03-31",
        "2026-04-05",
        "2026-06-01",
        "2026-10-23",
        "2026-10-27",
        "2026-11-03",
      ]) {
        const clock = dayClock(date, tz);
        for (let m = 0; m < 1440; m += 15) {
          const time = `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
          const minute = epochMinuteOf(date, time, tz);
          expect(clock.minuteOf(time)).toBe(minute);
          expect(clock.wallOf(minute)).toBe(bookableWallClock(minute, tz));
        }
      }
    }
  });
});
