import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "@tests/helpers";
import { insertDefinition, scheduleSetup } from "@tests/domains/scheduling/provider-schedules/fixtures";

// day_hours and calendar days on the 2026 clock changes of New York and London.
let t: TestApp;
let token: string;
let orgId: string;
let lunch: { id: string };
const S = () => `/api/v1/${orgId}/schedule`;
const get = async (path: string) => {
  const r = await t.request("GET", `${S()}/${path}`, { token });
  expect(r.status).toBe(200);
  return r.body;
};

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgId = (await t.createOrg()).id;
  lunch = await insertDefinition(t, orgId, "blockout_types", "Closed");
});
afterAll(() => t.close());

const CASES = [
  { tz: "America/New_York", spring: "2026-03-08", fall: "2026-11-01" },
  { tz: "Europe/London", spring: "2026-03-29", fall: "2026-10-25" },
];

for (const c of CASES) {
  describe(c.tz, () => {
    test(`day_hours: 23 on ${c.spring}, 25 on ${c.fall}, 24 the days around them (daily, weekly, monthly)`, async () => {
      const s = await scheduleSetup(t, orgId, c.tz);
      const L = s.location.id;
      expect((await get(`calendar/daily?location_uuid=${L}&target_date=${c.spring}`)).day_hours).toBe(23);
      expect((await get(`calendar/daily?location_uuid=${L}&target_date=${c.fall}`)).day_hours).toBe(25);
      const start = Temporal.PlainDate.from(c.spring).subtract({ days: 3 }).toString();
      expect((await get(`calendar/weekly?location_uuid=${L}&week_start=${start}`)).days.map((d: any) => d.day_hours)).toEqual([24, 24, 24, 23, 24, 24, 24]);
      const month = await get(`calendar/monthly?location_uuid=${L}&month=${c.fall.slice(0, 7)}`);
      const hours = month.days.map((d: any) => d.day_hours);
      expect(hours.filter((h: number) => h !== 24)).toEqual([25]);
      expect(month.days[Number(c.fall.slice(8)) - 1]).toMatchObject({ date: c.fall, day_hours: 25 });
    });

    test("a 08:00-17:00 template shows on both transition days; a night blockout across the change lands on its day", async () => {
      const s = await scheduleSetup(t, orgId, c.tz);
      const r = await t.request("POST", `${S()}/provider-schedules`, {
        token,
        body: { provider_uuid: s.provider.id, location_uuid: s.location.id, weekday: 0, start_time: "08:00", end_time: "17:00" },
      });
      expect(r.status).toBe(201);
      for (const day of [c.spring, c.fall]) {
        const d = await get(`daily-providers?location_uuid=${s.location.id}&date=${day}`);
        expect(d.providers.map((p: any) => p.hours)).toEqual([[{ start_time: "08:00", end_time: "17:00", operatory: null }]]);
      }
      const b = await t.request("POST", `${S()}/blockouts`, {
        token,
        body: { location_uuid: s.location.id, blockout_type_uuid: lunch.id, start: `${c.fall}T00:30`, end: `${c.fall}T03:00` },
      });
      expect(b.status).toBe(201);
      const week = await get(
        `calendar/weekly?location_uuid=${s.location.id}&week_start=${Temporal.PlainDate.from(c.fall).subtract({ days: 1 })}&fields=blockouts`,
      );
      expect(week.days.map((d: any) => [d.day_hours, d.blockouts.map((x: any) => [x.start, x.end])])).toEqual([
        [24, []],
        [25, [[`${c.fall}T00:30:00`, `${c.fall}T03:00:00`]]],
        [24, []],
        [24, []],
        [24, []],
        [24, []],
        [24, []],
      ]);
    });
  });
}
