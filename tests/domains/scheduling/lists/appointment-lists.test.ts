import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectGuarded, twoOrgApp, type TestApp } from "@tests/helpers";
import { patients } from "@db/tenant/patients";
import { appointmentRows, createLocation, createPatient, createProvider, createType, patchRow } from "@tests/domains/scheduling/appointments/fixtures";
import { insertPreference } from "./fixtures";

// GET {P}/schedule/lists/broken, /confirmations and /asap.

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let LISTS: string; // {P}/schedule/lists of org A
let APPTS: string;
let reader: string;

const ZONE = "America/New_York";
const today = () => Temporal.Now.plainDateISO(ZONE);
const day = (offset: number) => today().add({ days: offset }).toString();

let L: { id: string; name: string };
let L2: { id: string; name: string };
let type: { id: string };
let dr1: { id: string };
let dr2: { id: string };
let slot = 0;

beforeAll(async () => {
  const w = await twoOrgApp({ reader: ["schedule.appointments.read"] });
  ({ t, admin, orgA, orgB } = w);
  reader = w.tokens.reader;
  LISTS = `${w.pathA}/schedule/lists`;
  APPTS = `${w.pathA}/appointments`;
  L = await createLocation(t, orgA, ZONE, "Main Street");
  L2 = await createLocation(t, orgA, "America/Los_Angeles", "West");
  type = await createType(t, orgA, { name: "Cleaning", color: "#00AA00" });
  dr1 = await createProvider(t, orgA, { first_name: "Ann", last_name: "One" });
  dr2 = await createProvider(t, orgA, { first_name: "Ben", last_name: "Two", abbreviation: "DR2" });
});
afterAll(() => t.close());

/** Book through the API on `date` (each booking its own hour, so none overlap). */
async function book(patientId: string, date: string, v: Record<string, unknown> = {}) {
  const h = 7 + (slot++ % 10);
  const hour = (n: number) => String(n).padStart(2, "0");
  const r = await t.request("POST", APPTS, {
    token: admin,
    body: {
      patient_uuid: patientId,
      appointment_type_uuid: type.id,
      location_uuid: L.id,
      provider_uuid: dr1.id,
      scheduled_start: `${date}T${hour(h)}:00:00`,
      scheduled_end: `${date}T${hour(h + 1)}:00:00`,
      ...v,
    },
  });
  if (r.status !== 201) throw new Error(`book: ${r.status} ${r.text}`);
  return r.body;
}
async function step(a: { id: string; version: number }, what: string, body: Record<string, unknown>) {
  const r = await t.request("POST", `${APPTS}/${a.id}/${what}`, { token: admin, body: { ...body, base_version: a.version } });
  if (r.status !== 200) throw new Error(`${what}: ${r.status} ${r.text}`);
  return r.body;
}
const breakIt = (a: any) => step(a, "status", { status: "broken", reason: "No show" });

const get = async (path: string, token = admin) => {
  const r = await t.request("GET", `${LISTS}${path}`, { token });
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body;
};
const ids = (body: any) => body.items.map((i: any) => i.appointment.uuid);

async function expect422(path: string, loc: unknown[], type: string, code?: string) {
  const r = await t.request("GET", `${LISTS}${path}`, { token: admin });
  expect({ path, status: r.status, first: r.body.detail?.[0] }).toEqual({ path, status: 422, first: { loc, msg: expect.any(String), type } });
  if (code) expect(r.body.code).toBe(code);
}

// ---------------------------------------------------------------- broken

describe("GET /schedule/lists/broken", () => {
  let b1: any, b3: any, b4: any, b6: any;
  let q1: any;
  beforeAll(async () => {
    const patient = (first_name: string, v = {}) =>
      createPatient(t, orgA, { first_name, last_name: "Broken", mobile_phone: `+1 917 555 01${slot}`, email: `${first_name}@example.com`, ...v });
    q1 = await patient("Quinn", { preferred_contact_method: "phone" });
    const q2 = await patient("Rebooked");
    const q3 = await patient("Cancelled-again");
    const q4 = await patient("Old");
    const q5 = await patient("West");
    const q6 = await patient("Gone");
    b1 = await breakIt(await book(q1.id, day(-5)));
    await breakIt(await book(q2.id, day(-10)));
    await book(q2.id, day(20)); // booked again after the break: off the list
    b3 = await breakIt(await book(q3.id, day(-20)));
    await step(await book(q3.id, day(21)), "status", { status: "cancelled" }); // a rebooking cancelled in turn does not count
    b4 = await breakIt(await book(q4.id, day(-40)));
    await step(await book(q1.id, day(-3)), "status", { status: "cancelled" }); // cancelled is not broken
    b6 = await breakIt(await book(q5.id, day(-7), { location_uuid: L2.id, provider_uuid: dr2.id }));
    await breakIt(await book(q6.id, day(-6)));
    await patchRow(t, orgA, patients, q6.id, { status: "deceased" }); // nobody calls them
  });

  test("200: the last 30 days by default, newest first, with the patient's contact", async () => {
    const body = await get("/broken", reader);
    expect(body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(ids(body)).toEqual([b1.id, b6.id, b3.id]);
    expect(body.items[0]).toEqual({
      appointment: {
        uuid: b1.id,
        status: "broken",
        scheduled_start: b1.scheduled_start,
        scheduled_end: b1.scheduled_end,
        appointment_type: { uuid: type.id, name: "Cleaning", color: "#00AA00" },
        provider: { uuid: dr1.id, first_name: "Ann", last_name: "One", title: "Dr." },
        location: { uuid: L.id, name: "Main Street" },
        operatory: null,
        fee: null,
        status_reason: "No show",
        broken_at: b1.broken_at,
        is_asap: false,
        confirmation_status: "unconfirmed",
        confirmation_method: null,
        confirmation_recorded_at: null,
        version: 2,
      },
      patient: {
        uuid: q1.id,
        first_name: "Quinn",
        last_name: "Broken",
        preferred_name: null,
        home_phone: null,
        mobile_phone: q1.mobile_phone,
        work_phone: null,
        email: "Quinn@example.com",
        receives_sms: false,
        receives_email: false,
        preferred_contact_method: "phone",
        preferred_confirmation_method: null,
      },
    });
  });

  test("date range, location and provider filters; a 366-day range is allowed", async () => {
    expect(ids(await get(`/broken?date_from=${day(-45)}`))).toEqual([b1.id, b6.id, b3.id, b4.id]);
    expect(ids(await get(`/broken?date_from=${day(-45)}&date_to=${day(-15)}`))).toEqual([b3.id, b4.id]);
    expect(ids(await get(`/broken?date_from=${day(-5)}&date_to=${day(-5)}`))).toEqual([b1.id]);
    expect(ids(await get(`/broken?location_uuid=${L.id}`))).toEqual([b1.id, b3.id]);
    expect(ids(await get(`/broken?provider_uuid=${dr2.id}`))).toEqual([b6.id]);
    // only date_to: the 30 days before it
    expect(ids(await get(`/broken?date_to=${day(-15)}`))).toEqual([b3.id, b4.id]);
    expect(ids(await get(`/broken?date_to=${day(-30)}`))).toEqual([b4.id]);
    expect(ids(await get(`/broken?date_from=${day(-365)}&date_to=${day(0)}`))).toEqual([b1.id, b6.id, b3.id, b4.id]);
  });

  test("paging", async () => {
    const p2 = await get(`/broken?page_size=2&page=2&date_from=${day(-45)}`);
    expect([p2.total, ids(p2)]).toEqual([4, [b3.id, b4.id]]);
    const past = await get("/broken?page=9");
    expect([past.total, past.items]).toEqual([3, []]);
  });

  test("rebooking takes an entry off the list", async () => {
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}`;
    const loc = await createLocation(t, org, ZONE);
    const dr = await createProvider(t, org);
    const ty = await createType(t, org);
    const pat = await createPatient(t, org);
    const body = (date: string) => ({
      patient_uuid: pat.id,
      appointment_type_uuid: ty.id,
      location_uuid: loc.id,
      provider_uuid: dr.id,
      scheduled_start: `${date}T09:00:00`,
      scheduled_end: `${date}T10:00:00`,
    });
    const a = (await t.request("POST", `${P}/appointments`, { token: admin, body: body(day(-2)) })).body;
    await t.request("POST", `${P}/appointments/${a.id}/status`, { token: admin, body: { status: "broken", reason: "No show", base_version: 1 } });
    expect((await t.request("GET", `${P}/schedule/lists/broken`, { token: admin })).body.total).toBe(1);
    expect((await t.request("POST", `${P}/appointments`, { token: admin, body: body(day(9)) })).status).toBe(201);
    expect((await t.request("GET", `${P}/schedule/lists/broken`, { token: admin })).body.total).toBe(0);
  });

  test("422: date_to before date_from, more than 366 days, bad dates and unknown parameters", async () => {
    await expect422(`/broken?date_from=${day(-1)}&date_to=${day(-2)}`, ["query", "date_to"], "value_error", "invalid_date_range");
    await expect422("/broken?date_from=2025-01-01&date_to=2026-01-02", ["query", "date_to"], "value_error", "invalid_date_range");
    // only date_from, in the future: today is before it
    await expect422(`/broken?date_from=${day(3)}`, ["query", "date_to"], "value_error", "invalid_date_range");
    await expect422("/broken?date_from=2026-02-30", ["query", "date_from"], "format");
    await expect422("/broken?date_to=yesterday", ["query", "date_to"], "format");
    await expect422("/broken?location_uuid=x", ["query", "location_uuid"], "format");
    await expect422("/broken?page_size=500", ["query", "page_size"], "out_of_range");
    await expect422("/broken?kind=broken", ["query", "kind"], "extra_forbidden");
    // exactly 366 days, both counted, is fine
    expect((await get("/broken?date_from=2025-01-01&date_to=2026-01-01")).total).toBe(0);
  });

  test("401, 403, 404 for another org's member; another org's broken appointments never show", async () => {
    const token = await expectGuarded(t, orgA, orgB, "GET", `${LISTS}/broken`, "schedule.appointments.read");
    expect((await get("/broken", token)).total).toBe(3);
    const B = `/api/v1/${orgB}/schedule/lists/broken`;
    expect((await t.request("GET", B, { token: admin })).body.total).toBe(0);
  });
});

// ---------------------------------------------------------------- confirmations

describe("GET /schedule/lists/confirmations", () => {
  let c1: any, c2: any, c3: any, c5: any, c6: any;
  let r1: any;
  beforeAll(async () => {
    r1 = await createPatient(t, orgA, {
      first_name: "Rita",
      last_name: "Confirm",
      mobile_phone: "+1 646 555 0110",
      email: "rita@example.com",
      preferred_contact_method: "email",
      preferred_confirmation_method: "text",
      receives_sms: true,
    });
    await insertPreference(t, orgA, r1.id, { preferred_contact_method: "phone" });
    const r2 = await createPatient(t, orgA, { first_name: "Sam", last_name: "Confirm" });
    const r3 = await createPatient(t, orgA, { first_name: "Tia", last_name: "Confirm" });
    c1 = await book(r1.id, day(1), { scheduled_start: `${day(1)}T08:00:00`, scheduled_end: `${day(1)}T09:00:00` });
    c2 = await step(await book(r2.id, day(1), { scheduled_start: `${day(1)}T09:00:00`, scheduled_end: `${day(1)}T10:00:00` }), "confirmation", {
      confirmation_status: "confirmed",
      method: "text",
    });
    c3 = await step(await book(r3.id, day(1), { scheduled_start: `${day(1)}T10:00:00`, scheduled_end: `${day(1)}T11:00:00` }), "confirmation", {
      confirmation_status: "left_message",
      method: "phone",
    });
    await step(await book(r3.id, day(1), { scheduled_start: `${day(1)}T12:00:00`, scheduled_end: `${day(1)}T13:00:00` }), "status", { status: "cancelled" });
    c5 = await book(r2.id, day(1), { location_uuid: L2.id, provider_uuid: dr2.id, scheduled_start: `${day(1)}T08:00:00`, scheduled_end: `${day(1)}T09:00:00` });
    c6 = await book(r1.id, day(2), { scheduled_start: `${day(2)}T08:00:00`, scheduled_end: `${day(2)}T09:00:00` });
  });

  test("200: tomorrow at the location by default, by start, with confirmation state, version and contact", async () => {
    const body = await get(`/confirmations?location_uuid=${L.id}`, reader);
    expect(ids(body)).toEqual([c1.id, c2.id, c3.id]);
    expect(body.total).toBe(3);
    expect(body.items.map((i: any) => [i.appointment.confirmation_status, i.appointment.confirmation_method, i.appointment.version])).toEqual([
      ["unconfirmed", null, 1],
      ["confirmed", "text", 2],
      ["left_message", "phone", 2],
    ]);
    expect(body.items[1].appointment.status).toBe("scheduled");
    expect(body.items[1].appointment.confirmation_recorded_at).toBe(c2.confirmation_recorded_at);
    expect(body.items[0].patient).toEqual({
      uuid: r1.id,
      first_name: "Rita",
      last_name: "Confirm",
      preferred_name: null,
      home_phone: null,
      mobile_phone: "+1 646 555 0110",
      work_phone: null,
      email: "rita@example.com",
      receives_sms: true,
      receives_email: false,
      preferred_contact_method: "phone", // the scheduling preference over the record's email
      preferred_confirmation_method: "text",
    });
  });

  test("every location without location_uuid; provider, confirmation_status and date filters", async () => {
    // West's 08:00 is 11:00 in New York: by start instant
    expect(ids(await get(`/confirmations?date_from=${day(1)}`))).toEqual([c1.id, c2.id, c3.id, c5.id]);
    expect(ids(await get(`/confirmations?provider_uuid=${dr2.id}&date_from=${day(1)}`))).toEqual([c5.id]);
    expect(ids(await get(`/confirmations?location_uuid=${L.id}&confirmation_status=unconfirmed,left_message`))).toEqual([c1.id, c3.id]);
    expect(ids(await get(`/confirmations?location_uuid=${L.id}&confirmation_status=confirmed&confirmation_status=declined`))).toEqual([c2.id]);
    expect(ids(await get(`/confirmations?location_uuid=${L.id}&date_from=${day(1)}&date_to=${day(2)}`))).toEqual([c1.id, c2.id, c3.id, c6.id]);
    expect(ids(await get(`/confirmations?location_uuid=${L.id}&date_to=${day(2)}`))).toEqual([c6.id]);
    expect((await get(`/confirmations?location_uuid=${L.id}&date_from=${day(30)}`)).total).toBe(0);
  });

  test("the confirmation endpoint marks them: a recorded outcome moves the row between filters", async () => {
    const before = await get(`/confirmations?location_uuid=${L.id}&confirmation_status=unconfirmed`);
    expect(ids(before)).toEqual([c1.id]);
    const row = before.items[0].appointment;
    await step({ id: row.uuid, version: row.version }, "confirmation", { confirmation_status: "no_answer", method: "phone" });
    expect(ids(await get(`/confirmations?location_uuid=${L.id}&confirmation_status=unconfirmed`))).toEqual([]);
    expect(ids(await get(`/confirmations?location_uuid=${L.id}&confirmation_status=no_answer`))).toEqual([c1.id]);
  });

  test("paging", async () => {
    const p = await get(`/confirmations?date_from=${day(1)}&page_size=3&page=2`);
    expect([p.total, ids(p)]).toEqual([4, [c5.id]]);
  });

  test("422: bad range, unknown confirmation status, unknown parameters", async () => {
    await expect422(`/confirmations?date_from=${day(2)}&date_to=${day(1)}`, ["query", "date_to"], "value_error", "invalid_date_range");
    await expect422("/confirmations?date_from=2026-01-01&date_to=2027-01-02", ["query", "date_to"], "value_error", "invalid_date_range");
    await expect422("/confirmations?confirmation_status=maybe", ["query", "confirmation_status", 0], "enum");
    await expect422("/confirmations?status=scheduled", ["query", "status"], "extra_forbidden");
    await expect422("/confirmations?page=0", ["query", "page"], "out_of_range");
  });

  test("401, 403, 404 for another org's member", async () => {
    const token = await expectGuarded(t, orgA, orgB, "GET", `${LISTS}/confirmations`, "schedule.appointments.read");
    expect((await get(`/confirmations?location_uuid=${L.id}`, token)).total).toBe(3);
  });
});

// ---------------------------------------------------------------- asap

describe("GET /schedule/lists/asap", () => {
  test("answers what GET {P}/appointments/asap-list answers, filters and paging alike", async () => {
    const p = await createPatient(t, orgA, { first_name: "Asa", last_name: "P" });
    const a = await book(p.id, day(40), { is_asap: true });
    for (const query of ["", `?location_uuid=${L.id}`, "?kind=asap", "?kind=broken&page_size=1&page=2"]) {
      const here = await get(`/asap${query}`);
      const there = (await t.request("GET", `${APPTS}/asap-list${query}`, { token: admin })).body;
      expect({ query, body: here }).toEqual({ query, body: there });
    }
    expect((await get("/asap?kind=asap")).items.map((i: any) => i.id)).toEqual([a.id]);
    // nothing written by reading
    expect((await appointmentRows(t, orgA)).find((r) => r.id === a.id)!.version).toBe(1);
  });

  test("422 for unknown parameters and kinds; guarded", async () => {
    await expect422("/asap?kind=late", ["query", "kind", 0], "enum");
    await expect422("/asap?sort=start", ["query", "sort"], "extra_forbidden");
    await expectGuarded(t, orgA, orgB, "GET", `${LISTS}/asap`, "schedule.appointments.read");
  });
});
