import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createMember, startTestApp, type TestApp } from "@tests/helpers";
import { bookingBody, bookingSetup, createLocation, createOperatory, createPatient, createProvider, type Setup } from "./fixtures";

let t: TestApp;
let token: string;
let orgId: string;
let ny: Setup;
let london: Setup & { provider2: { id: string } };
const P = () => `/api/v1/${orgId}/appointments`;
const UNKNOWN = "01a1fe29-0000-7000-8000-000000000000";
// ids of the appointments booked in beforeAll, by label
const ids: Record<string, string> = {};

async function book(label: string, s: Setup, v: Record<string, unknown>) {
  const r = await t.request("POST", P(), { token, body: bookingBody(s, v) });
  if (r.status !== 201) throw new Error(`${label}: ${r.status} ${r.text}`);
  ids[label] = r.body.id;
  return r.body;
}

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
  orgId = (await t.createOrg()).id;
  ny = await bookingSetup(t, orgId, "America/New_York");
  // a London location in the same org: its own provider, operatory and patient, the same type
  const location = await createLocation(t, orgId, "Europe/London", "London clinic");
  london = {
    ...ny,
    location,
    provider: await createProvider(t, orgId, { first_name: "Lon", last_name: "Don" }),
    provider2: await createProvider(t, orgId),
    operatory: await createOperatory(t, orgId, location.id, { name: "L1" }),
    operatory2: await createOperatory(t, orgId, location.id, { name: "L2" }),
    patient: await createPatient(t, orgId, { first_name: "Lou" }),
  };
  // 2026-06-10: London is UTC+1, New York UTC-4
  await book("ny-0900", ny, { scheduled_start: "2026-06-10T09:00:00", scheduled_end: "2026-06-10T10:00:00", operatory_uuid: ny.operatory.id }); // 13:00Z
  await book("ld-0900", london, { scheduled_start: "2026-06-10T09:00:00", scheduled_end: "2026-06-10T10:00:00", operatory_uuid: london.operatory.id }); // 08:00Z
  await book("ld-2330", london, { scheduled_start: "2026-06-10T23:30:00", scheduled_end: "2026-06-11T00:30:00" }); // 22:30Z on the 10th
  await book("ny-2330", ny, { scheduled_start: "2026-06-10T23:30:00", scheduled_end: "2026-06-11T00:30:00" }); // 03:30Z on the 11th
  await book("ny-0611", ny, { scheduled_start: "2026-06-11T08:00:00", scheduled_end: "2026-06-11T09:00:00", operatory_uuid: ny.operatory2.id }); // 12:00Z
  await book("ld-0609", london, { provider_uuid: london.provider2.id, scheduled_start: "2026-06-09T17:00:00", scheduled_end: "2026-06-09T18:00:00" });
  const c = await t.request("POST", `${P()}/${ids["ny-0611"]}/status`, { token, body: { status: "confirmed", base_version: 1 } });
  if (c.status !== 200) throw new Error(c.text);
});
afterAll(() => t.close());

const list = async (qs: string, tok = token) => {
  const r = await t.request("GET", `${P()}?${qs}`, { token: tok });
  return { ...r, labels: r.status === 200 ? r.body.items.map((a: { id: string }) => Object.keys(ids).find((k) => ids[k] === a.id)) : [] };
};

describe("GET /appointments/{id}", () => {
  test("200 with the full appointment and its ETag", async () => {
    const r = await t.request("GET", `${P()}/${ids["ld-0900"]}`, { token });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toMatchObject({
      id: ids["ld-0900"],
      uuid: ids["ld-0900"],
      status: "scheduled",
      scheduled_start: "2026-06-10T09:00:00",
      scheduled_end: "2026-06-10T10:00:00",
      location: { uuid: london.location.id, name: "London clinic" },
      provider: { uuid: london.provider.id, first_name: "Lon", last_name: "Don", title: "Dr." },
      operatory: { uuid: london.operatory.id, name: "L1" },
      patient: { uuid: london.patient.id, first_name: "Lou", last_name: "Ient" },
      appointment_type: { uuid: ny.type.id, name: "Exam", duration_minutes: 60, color: "#3366FF" },
    });
  });

  test("401 without a token; 403 without schedule.appointments.read; a writer-only member is 403 too", async () => {
    expect((await t.request("GET", `${P()}/${ids["ld-0900"]}`)).status).toBe(401);
    for (const keys of [["patients.read"], ["schedule.appointments.write"]]) {
      const m = await createMember(t, orgId, keys);
      const r = await t.request("GET", `${P()}/${ids["ld-0900"]}`, { token: m.token });
      expect(r.status).toBe(403);
    }
    const reader = await createMember(t, orgId, ["schedule.appointments.read"]);
    expect((await t.request("GET", `${P()}/${ids["ld-0900"]}`, { token: reader.token })).status).toBe(200);
  });

  test("404 for an unknown id, a malformed id, another org's appointment and an org the caller is not in", async () => {
    expect((await t.request("GET", `${P()}/${UNKNOWN}`, { token })).body).toEqual({ detail: "Appointment not found", code: "not_found" });
    expect((await t.request("GET", `${P()}/not-an-id`, { token })).status).toBe(404);
    const other = (await t.createOrg()).id;
    const o = await bookingSetup(t, other);
    const theirs = await t.request("POST", `/api/v1/${other}/appointments`, { token, body: bookingBody(o) });
    expect((await t.request("GET", `${P()}/${theirs.body.id}`, { token })).status).toBe(404);
    const member = await createMember(t, orgId, ["schedule.appointments.read"]);
    expect((await t.request("GET", `/api/v1/${other}/appointments/${theirs.body.id}`, { token: member.token })).status).toBe(404);
    expect((await t.request("GET", `/api/v1/${other}/appointments`, { token: member.token })).status).toBe(404);
  });
});

describe("GET /appointments", () => {
  test("every appointment, ordered by the real start instant across zones, with paging defaults", async () => {
    const r = await list("");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 6 });
    expect(r.labels).toEqual(["ld-0609", "ld-0900", "ny-0900", "ld-2330", "ny-2330", "ny-0611"]);
  });

  test("paging", async () => {
    const p2 = await list("page=2&page_size=4");
    expect(p2.body).toMatchObject({ page: 2, page_size: 4, total: 6 });
    expect(p2.labels).toEqual(["ny-2330", "ny-0611"]);
    const beyond = await list("page=5&page_size=4");
    expect(beyond.body.items).toEqual([]);
    expect(beyond.body.total).toBe(6);
    expect((await list("page_size=200")).status).toBe(200);
  });

  test("a date means that day on each location's own wall clock, both bounds inclusive", async () => {
    expect((await list("date_from=2026-06-10&date_to=2026-06-10")).labels).toEqual(["ld-0900", "ny-0900", "ld-2330", "ny-2330"]);
    expect((await list("date_from=2026-06-11")).labels).toEqual(["ny-0611"]);
    expect((await list("date_to=2026-06-09")).labels).toEqual(["ld-0609"]);
    expect((await list("date_from=2026-06-10&date_to=2026-06-11&location_uuid=" + ny.location.id)).labels).toEqual(["ny-0900", "ny-2330", "ny-0611"]);
  });

  test("a local date-time compares with the wall clock; one with an offset with the instant", async () => {
    expect((await list("date_from=2026-06-10T09:00&date_to=2026-06-10T09:00:00")).labels).toEqual(["ld-0900", "ny-0900"]);
    expect((await list("date_from=2026-06-10T09:00:01&date_to=2026-06-10T23:30")).labels).toEqual(["ld-2330", "ny-2330"]);
    // 08:00Z .. 13:00Z inclusive: London's 09:00 (08:00Z) and New York's 09:00 (13:00Z)
    expect((await list(`date_from=${encodeURIComponent("2026-06-10T08:00:00Z")}&date_to=${encodeURIComponent("2026-06-10T09:00:00-04:00")}`)).labels).toEqual([
      "ld-0900",
      "ny-0900",
    ]);
    expect((await list(`date_from=${encodeURIComponent("2026-06-10T10:00:00+01:00")}&date_to=${encodeURIComponent("2026-06-11T03:30:00Z")}`)).labels).toEqual([
      "ny-0900",
      "ld-2330",
      "ny-2330",
    ]);
  });

  test("filters by location, provider, operatory, patient and status (one or several)", async () => {
    expect((await list(`location_uuid=${london.location.id}`)).labels).toEqual(["ld-0609", "ld-0900", "ld-2330"]);
    expect((await list(`provider_uuid=${london.provider2.id}`)).labels).toEqual(["ld-0609"]);
    expect((await list(`provider_uuid=${ny.provider.id.toUpperCase()}`)).labels).toEqual(["ny-0900", "ny-2330", "ny-0611"]);
    expect((await list(`operatory_uuid=${ny.operatory.id}`)).labels).toEqual(["ny-0900"]);
    expect((await list(`patient_uuid=${london.patient.id}`)).labels).toEqual(["ld-0609", "ld-0900", "ld-2330"]);
    expect((await list("status=confirmed")).labels).toEqual(["ny-0611"]);
    expect((await list("status=confirmed,scheduled")).body.total).toBe(6);
    expect((await list("status=cancelled")).body.total).toBe(0);
    expect((await list(`status=scheduled&location_uuid=${ny.location.id}&date_from=2026-06-10`)).labels).toEqual(["ny-0900", "ny-2330"]);
    expect((await list(`location_uuid=${UNKNOWN}`)).body).toMatchObject({ items: [], total: 0 });
  });

  test("422 for out-of-range paging, unknown statuses, malformed ids and dates, and an inverted date range", async () => {
    const cases: [string, string, string][] = [
      ["page=0", "page", "out_of_range"],
      ["page_size=201", "page_size", "out_of_range"],
      ["page_size=abc", "page_size", "type_error"],
      ["status=booked", "status", "enum"],
      ["status=scheduled,gone", "status", "enum"],
      ["provider_uuid=nope", "provider_uuid", "format"],
      ["date_from=2026-13-01", "date_from", "value_error"],
      ["date_to=yesterday", "date_to", "value_error"],
      ["date_from=2026-06-11&date_to=2026-06-10", "date_to", "value_error"],
    ];
    for (const [qs, field, type] of cases) {
      const r = await list(qs);
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc[0]).toBe("query");
      expect(r.body.detail[0].loc[1]).toBe(field);
      expect(r.body.detail[0].type).toBe(type);
    }
  });

  test("401 without a token, 403 without the read key", async () => {
    expect((await t.request("GET", P())).status).toBe(401);
    const m = await createMember(t, orgId, ["locations.read"]);
    expect((await list("", m.token)).status).toBe(403);
  });
});
