import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "@tests/helpers";
import { bookingSetup, createLocation, createProvider, type Setup } from "@tests/domains/scheduling/appointments/fixtures";

// Monthly production: the fees of each local day's appointments that hold time.
let t: TestApp;
let token: string;
let orgId: string;
let s: Setup; // New York
let london: { id: string };
let cleaning: { id: string }; // default_fee 95.00
let crown: { id: string }; // default_fee 1200.50
const P = () => `/api/v1/${orgId}`;

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgId = (await t.createOrg()).id;
  s = await bookingSetup(t, orgId, "America/New_York");
  london = await createLocation(t, orgId, "Europe/London");
  const type = async (code: string, default_fee: number) => {
    const r = await t.request("POST", `${P()}/appointment-types`, { token, body: { code, name: code, duration_minutes: 60, color: "#336699", default_fee } });
    expect(r.status).toBe(201);
    return r.body;
  };
  cleaning = await type("CLN", 95);
  crown = await type("CRN", 1200.5);
});
afterAll(() => t.close());

/** Book through the API with a provider of its own (so bookings never conflict); Cleaning at New York unless `v` says otherwise. */
async function book(start: string, end: string, v: Record<string, unknown> = {}) {
  const provider = await createProvider(t, orgId);
  const r = await t.request("POST", `${P()}/appointments`, {
    token,
    body: {
      patient_uuid: s.patient.id,
      appointment_type_uuid: cleaning.id,
      location_uuid: s.location.id,
      provider_uuid: provider.id,
      scheduled_start: start,
      scheduled_end: end,
      ...v,
    },
  });
  if (r.status !== 201) throw new Error(r.text);
  return r.body as { id: string; version: number };
}
async function status(a: { id: string }, ...steps: [string, string?][]) {
  let version = 1;
  for (const [to, reason] of steps) {
    const r = await t.request("POST", `${P()}/appointments/${a.id}/status`, {
      token,
      body: { status: to, base_version: version, ...(reason ? { reason } : {}) },
    });
    expect(r.status).toBe(200);
    version = r.body.version;
  }
}
async function month(m: string, location = s.location.id) {
  const r = await t.request("GET", `${P()}/schedule/calendar/monthly?location_uuid=${location}&month=${m}`, { token });
  expect(r.status).toBe(200);
  return r.body.days as {
    date: string;
    day_hours: number;
    appointment_count: number;
    counts: Record<string, number>;
    production: string;
    [k: string]: unknown;
  }[];
}
const dayOf = (days: Awaited<ReturnType<typeof month>>, date: string) => days.find((d) => d.date === date)!;

describe("GET /schedule/calendar/monthly: production", () => {
  test("sums the fees of appointments not cancelled or broken; snapshot, explicit and missing fees; '0.00' otherwise", async () => {
    await book("2026-06-01T09:00", "2026-06-01T10:00"); // 95.00 from the type
    await status(await book("2026-06-01T10:00", "2026-06-01T11:00", { appointment_type_uuid: crown.id }), ["confirmed"]); // 1200.50
    await status(await book("2026-06-01T11:00", "2026-06-01T12:00", { fee: 80.25 }), ["arrived"], ["completed"]); // explicit 80.25
    await book("2026-06-01T12:00", "2026-06-01T13:00", { appointment_type_uuid: s.type.id }); // a type without default: no fee
    await book("2026-06-01T13:00", "2026-06-01T14:00", { fee: 0 });
    await status(await book("2026-06-01T14:00", "2026-06-01T15:00"), ["cancelled"]); // 95.00, not counted
    await status(await book("2026-06-01T15:00", "2026-06-01T16:00", { appointment_type_uuid: crown.id }), ["broken", "no-show"]); // not counted
    await status(await book("2026-06-02T09:00", "2026-06-02T10:00"), ["cancelled"]);
    // a later change of the type's default does not move booked fees
    const r = await t.request("PATCH", `${P()}/appointment-types/${cleaning.id}`, { token, body: { base_version: 1, default_fee: 500 } });
    expect(r.status).toBe(200);

    const june = await month("2026-06");
    expect(dayOf(june, "2026-06-01")).toEqual({
      date: "2026-06-01",
      day_hours: 24,
      appointment_count: 5,
      counts: { scheduled: 3, confirmed: 1, completed: 1, cancelled: 1, broken: 1 },
      production: "1375.75",
      goal: "0.00",
      is_holiday: false,
      holiday_name: null,
    });
    expect(dayOf(june, "2026-06-02")).toMatchObject({ appointment_count: 0, counts: { cancelled: 1 }, production: "0.00" });
    expect(dayOf(june, "2026-06-03")).toMatchObject({ appointment_count: 0, counts: {}, production: "0.00" });
    // another location's month does not see them
    expect((await month("2026-06", london.id)).every((d) => d.production === "0.00")).toBe(true);
  });

  test("a day is the location's local date of scheduled_start, across month boundaries", async () => {
    await book("2026-05-31T23:00", "2026-06-01T00:00", { fee: 7 }); // 03:00Z on 1 June
    await book("2026-06-30T23:00", "2026-07-01T00:00", { fee: 95 }); // 03:00Z on 1 July
    await book("2026-07-01T00:00", "2026-07-01T01:00", { fee: 10 });
    expect(dayOf(await month("2026-05"), "2026-05-31").production).toBe("7.00");
    const june = await month("2026-06");
    expect(dayOf(june, "2026-06-30")).toMatchObject({ appointment_count: 1, production: "95.00" });
    expect(dayOf(june, "2026-06-01").production).toBe("1375.75"); // unchanged by the 31 May booking
    const july = await month("2026-07");
    expect(dayOf(july, "2026-07-01")).toMatchObject({ appointment_count: 1, production: "10.00" });
  });

  test("New York DST months: the 23-hour and 25-hour days (both fall-back 01:30s) and the month ends", async () => {
    await book("2026-03-08T01:00", "2026-03-08T03:00", { fee: 50 }); // 01:00 EST to 03:00 EDT: one hour
    await book("2026-03-08T23:00", "2026-03-09T00:00", { fee: 25 });
    await book("2026-03-31T23:00", "2026-04-01T00:00", { fee: 30 });
    const march = await month("2026-03");
    expect(dayOf(march, "2026-03-08")).toMatchObject({ day_hours: 23, appointment_count: 2, production: "75.00" });
    expect(dayOf(march, "2026-03-31").production).toBe("30.00");
    expect(march.reduce((sum, d) => sum + Number(d.production), 0)).toBe(105);
    expect(dayOf(await month("2026-04"), "2026-04-01").production).toBe("0.00");

    await book("2026-11-01T01:30", "2026-11-01T02:30", { fee: 40 }); // first 01:30 (EDT)
    await book("2026-11-01T01:30:00-05:00", "2026-11-01T02:30:00-05:00", { fee: 60 }); // second 01:30 (EST)
    await book("2026-10-31T23:30", "2026-11-01T00:30", { fee: 5 });
    const november = await month("2026-11");
    expect(dayOf(november, "2026-11-01")).toMatchObject({ day_hours: 25, appointment_count: 2, production: "100.00" });
    expect(dayOf(await month("2026-10"), "2026-10-31").production).toBe("5.00");
  });

  test("London: the spring-forward day, and 00:30 BST on 1 April (still 31 March in UTC) counts in April", async () => {
    const at = { location_uuid: london.id };
    await book("2026-03-29T00:30", "2026-03-29T02:30", { ...at, fee: 12 }); // 00:30 GMT to 02:30 BST: one hour
    await book("2026-03-31T23:00", "2026-04-01T00:00", { ...at, fee: 13 });
    await book("2026-04-01T00:30", "2026-04-01T01:30", { ...at, fee: 11 }); // 23:30Z on 31 March
    const march = await month("2026-03", london.id);
    expect(dayOf(march, "2026-03-29")).toMatchObject({ day_hours: 23, production: "12.00" });
    expect(dayOf(march, "2026-03-31")).toMatchObject({ appointment_count: 1, production: "13.00" });
    expect(dayOf(await month("2026-04", london.id), "2026-04-01")).toMatchObject({ appointment_count: 1, production: "11.00" });
  });
});
