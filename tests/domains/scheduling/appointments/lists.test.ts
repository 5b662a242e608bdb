import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { twoOrgApp, type TestApp } from "@tests/helpers";
import { appointments } from "@db/tenant/appointments";
import { patients } from "@db/tenant/patients";
import { bookingBody, bookingSetup, createLocation, createPatient, createProvider, patchRow, type Setup } from "./fixtures";

// A patient's appointment history, the ASAP / unscheduled list and the is_asap flag.

let t: TestApp;
let token: string;
let orgId: string;
let otherOrg: string;
let s: Setup;
let sB: Setup;
let reader: string;
let outsider: string;
const P = (org = orgId) => `/api/v1/${org}/appointments`;
const UNKNOWN = "01a1fe29-0000-7000-8000-000000000000";

beforeAll(async () => {
  ({
    t,
    admin: token,
    orgA: orgId,
    orgB: otherOrg,
    tokens: { reader, outsider },
  } = await twoOrgApp({ reader: ["schedule.appointments.read"], outsider: ["patients.read", "patients.write"] }));
  s = await bookingSetup(t, orgId);
  sB = await bookingSetup(t, otherOrg);
});
afterAll(() => t.close());

/** Book `start` (a wall clock) for an hour with a fresh provider; extras override the body. */
async function book(start: string, v: Record<string, unknown> = {}, setup = s, org = orgId) {
  const provider = await createProvider(t, org);
  const end = Temporal.PlainDateTime.from(start).add({ hours: 1 }).toString();
  const r = await t.request("POST", P(org), {
    token,
    body: bookingBody(setup, { provider_uuid: provider.id, scheduled_start: start, scheduled_end: end, ...v }),
  });
  if (r.status !== 201) throw new Error(`book: ${r.status} ${r.text}`);
  return r.body as { id: string; version: number; is_asap: boolean };
}
const setStatus = (id: string, body: Record<string, unknown>) => t.request("POST", `${P()}/${id}/status`, { token, body });
const ids = (r: { body: { items: { id: string }[] } }) => r.body.items.map((x) => x.id);

// ---------------------------------------------------------------- patient history

describe("GET /patients/{patient_uuid}/appointments", () => {
  const H = (patient: string, q = "", org = orgId) => `/api/v1/${org}/patients/${patient}/appointments${q}`;

  test("newest first, only this patient's, every status; status filter (one, comma, repeated); paging", async () => {
    const patient = await createPatient(t, orgId, { first_name: "Hist" });
    const other = await createPatient(t, orgId);
    const old = await book("2025-02-03T09:00:00", { patient_uuid: patient.id });
    const mid = await book("2026-05-04T09:00:00", { patient_uuid: patient.id });
    const next = await book("2028-06-05T09:00:00", { patient_uuid: patient.id });
    await book("2027-01-01T09:00:00", { patient_uuid: other.id });
    await setStatus(old.id, { status: "cancelled", base_version: 1 });
    await setStatus(mid.id, { status: "broken", base_version: 1, reason: "No show" });
    const all = await t.request("GET", H(patient.id), { token: reader });
    expect(all.status).toBe(200);
    expect(ids(all)).toEqual([next.id, mid.id, old.id]);
    expect(all.body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(all.body.items[0]).toMatchObject({ patient: { uuid: patient.id, first_name: "Hist" }, status: "scheduled" });
    expect(ids(await t.request("GET", H(patient.id, "?status=broken"), { token }))).toEqual([mid.id]);
    expect(ids(await t.request("GET", H(patient.id, "?status=cancelled,broken"), { token }))).toEqual([mid.id, old.id]);
    expect(ids(await t.request("GET", H(patient.id, "?status=scheduled&status=cancelled"), { token }))).toEqual([next.id, old.id]);
    const p2 = await t.request("GET", H(patient.id, "?page=2&page_size=2"), { token });
    expect(p2.body).toMatchObject({ page: 2, page_size: 2, total: 3 });
    expect(ids(p2)).toEqual([old.id]);
  });

  test("an archived patient keeps their history; a patient without appointments has an empty page", async () => {
    const patient = await createPatient(t, orgId);
    const a = await book("2027-03-01T09:00:00", { patient_uuid: patient.id });
    expect((await t.request("POST", `/api/v1/${orgId}/patients/${patient.id}/archive`, { token })).status).toBe(200);
    expect(ids(await t.request("GET", H(patient.id), { token }))).toEqual([a.id]);
    const none = await createPatient(t, orgId);
    expect((await t.request("GET", H(none.id), { token })).body).toEqual({ items: [], page: 1, page_size: 50, total: 0 });
  });

  test("404 unknown patient and another org's patient; 422 query rules; 401; 403", async () => {
    for (const id of [UNKNOWN, sB.patient.id]) {
      const r = await t.request("GET", H(id), { token });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Patient not found", code: "not_found" });
    }
    for (const [q, field, type] of [
      ["?status=gone", "status", "enum"],
      ["?page_size=201", "page_size", "out_of_range"],
      ["?page=0", "page", "out_of_range"],
      ["?patient_uuid=x", "patient_uuid", "extra_forbidden"],
    ] as const) {
      const r = await t.request("GET", H(s.patient.id, q), { token });
      expect(r.status).toBe(422);
      expect(r.body.detail[0].loc.slice(0, 2)).toEqual(["query", field]);
      expect(r.body.detail[0].type).toBe(type);
    }
    expect((await t.request("GET", H(s.patient.id))).status).toBe(401);
    expect((await t.request("GET", H(s.patient.id), { token: outsider })).status).toBe(403);
    // a member of this org asking the other org's path: 404 (no tenant enumeration)
    expect((await t.request("GET", H(sB.patient.id, "", otherOrg), { token: reader })).status).toBe(404);
  });
});

// ---------------------------------------------------------------- is_asap

describe("is_asap on create and PATCH", () => {
  test("defaults to false; settable on create and PATCH (event names the field); 422 for a non-boolean", async () => {
    const a = await book("2030-01-07T09:00:00");
    expect(a.is_asap).toBe(false);
    const b = await book("2030-01-07T11:00:00", { is_asap: true });
    expect(b.is_asap).toBe(true);
    const seen: string[][] = [];
    const stop = t.rt.events.subscribe(orgId, (e) => seen.push(e.data.changed_fields as string[]));
    const r = await t.request("PATCH", `${P()}/${a.id}`, { token, body: { base_version: 1, is_asap: true } });
    stop();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ is_asap: true, version: 2 });
    expect(seen).toEqual([["is_asap"]]);
    const bad = await t.request("PATCH", `${P()}/${a.id}`, { token, body: { base_version: 2, is_asap: "yes" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0]).toMatchObject({ loc: ["body", "is_asap"], type: "type_error" });
    const badCreate = await t.request("POST", P(), { token, body: bookingBody(s, { is_asap: 1 }) });
    expect(badCreate.body.detail[0]).toMatchObject({ loc: ["body", "is_asap"], type: "type_error" });
    // front-desk fields are read-only on create and PATCH
    for (const field of ["confirmation_status", "broken_at", "seated_at", "dismissed_at", "confirmation_method"]) {
      const c = await t.request("POST", P(), { token, body: bookingBody(s, { [field]: null }) });
      expect(c.body.detail[0]).toMatchObject({ loc: ["body", field], type: "read_only" });
      const u = await t.request("PATCH", `${P()}/${a.id}`, { token, body: { base_version: 2, [field]: null } });
      expect(u.body.detail[0]).toMatchObject({ loc: ["body", field], type: "read_only" });
    }
    expect((await t.request("GET", `${P()}/${a.id}`, { token })).body).toMatchObject({ version: 2, is_asap: true });
  });
});

// ---------------------------------------------------------------- ASAP list

describe("GET /appointments/asap-list", () => {
  /** A location of its own, so each test reads only its own entries. */
  async function place() {
    const location = await createLocation(t, orgId, "America/New_York", `ASAP ${Math.random()}`);
    const patient = await createPatient(t, orgId);
    return { location, patient, body: { location_uuid: location.id, patient_uuid: patient.id } };
  }
  const list = (q: string, tok = token) => t.request("GET", `${P()}/asap-list${q}`, { token: tok });

  test("asap (scheduled or confirmed, still ahead), cancelled and broken not rebooked; ordered by start; kind filter", async () => {
    const { location, body } = await place();
    const asap = await book("2030-02-04T09:00:00", { ...body, is_asap: true });
    const asapConfirmed = await book("2030-02-05T09:00:00", { ...body, is_asap: true });
    await setStatus(asapConfirmed.id, { status: "confirmed", base_version: 1 });
    const asapPast = await book("2025-02-04T09:00:00", { ...body, is_asap: true }); // its time has gone: not a candidate for an earlier slot
    const asapArrived = await book("2030-02-06T09:00:00", { ...body, is_asap: true });
    await setStatus(asapArrived.id, { status: "arrived", base_version: 1 });
    await book("2030-02-07T09:00:00", body); // plain booking: not listed
    // a different patient each, so no booking counts as a rebooking of the other
    const cPatient = await createPatient(t, orgId);
    const cancelled = await book("2029-03-01T09:00:00", { location_uuid: location.id, patient_uuid: cPatient.id });
    await setStatus(cancelled.id, { status: "cancelled", base_version: 1, reason: "Car trouble" });
    const bPatient = await createPatient(t, orgId);
    const broken = await book("2025-03-01T09:00:00", { location_uuid: location.id, patient_uuid: bPatient.id });
    await setStatus(broken.id, { status: "broken", base_version: 1, reason: "No show" });
    const q = `?location_uuid=${location.id}`;
    const r = await list(q);
    expect(r.status).toBe(200);
    expect(ids(r)).toEqual([broken.id, cancelled.id, asap.id, asapConfirmed.id]);
    expect(r.body.total).toBe(4);
    expect(r.body.items.map((x: { status: string }) => x.status)).toEqual(["broken", "cancelled", "scheduled", "confirmed"]);
    expect(ids(await list(`${q}&kind=asap`))).toEqual([asap.id, asapConfirmed.id]);
    expect(ids(await list(`${q}&kind=cancelled,broken`))).toEqual([broken.id, cancelled.id]);
    expect(ids(await list(`${q}&kind=broken&kind=asap`))).toEqual([broken.id, asap.id, asapConfirmed.id]);
    const page = await list(`${q}&page=2&page_size=3`);
    expect(page.body).toMatchObject({ page: 2, page_size: 3, total: 4 });
    expect(ids(page)).toEqual([asapConfirmed.id]);
    expect(ids(r)).not.toContain(asapPast.id);
  });

  test("a cancelled or broken appointment leaves the list once the patient is booked again; unflagging leaves it too", async () => {
    const { location, patient, body } = await place();
    await book("2030-03-04T09:00:00", body); // booked before the cancellation: not a rebooking
    const c = await book("2030-03-05T09:00:00", body);
    await setStatus(c.id, { status: "cancelled", base_version: 1 });
    const q = `?location_uuid=${location.id}`;
    expect(ids(await list(q))).toEqual([c.id]);
    // a rebooking that is itself cancelled does not count
    const again = await book("2030-03-12T09:00:00", body);
    await setStatus(again.id, { status: "cancelled", base_version: 1 });
    expect(ids(await list(q))).toEqual([c.id, again.id]);
    // a real rebooking (anywhere) clears both
    const other = await createLocation(t, orgId, "UTC", `Elsewhere ${Math.random()}`);
    await book("2030-03-20T09:00:00", { patient_uuid: patient.id, location_uuid: other.id });
    expect(ids(await list(q))).toEqual([]);
    // an ASAP flag cleared by PATCH leaves the list
    const flagged = await book("2030-04-01T09:00:00", { ...body, is_asap: true });
    expect(ids(await list(q))).toEqual([flagged.id]);
    await t.request("PATCH", `${P()}/${flagged.id}`, { token, body: { base_version: 1, is_asap: false } });
    expect(ids(await list(q))).toEqual([]);
  });

  test("archived and deceased patients and archived appointments are left out; provider filter", async () => {
    const { location, body } = await place();
    const q = `?location_uuid=${location.id}`;
    const a = await book("2030-05-04T09:00:00", { ...body, is_asap: true });
    const deceased = await createPatient(t, orgId);
    const d = await book("2030-05-05T09:00:00", { location_uuid: location.id, patient_uuid: deceased.id, is_asap: true });
    const archived = await createPatient(t, orgId);
    const x = await book("2030-05-06T09:00:00", { location_uuid: location.id, patient_uuid: archived.id, is_asap: true });
    const gone = await book("2030-05-07T09:00:00", { ...body, is_asap: true });
    expect(ids(await list(q))).toEqual([a.id, d.id, x.id, gone.id]);
    await patchRow(t, orgId, patients, deceased.id, { status: "deceased" });
    await patchRow(t, orgId, patients, archived.id, { deleted_at: new Date().toISOString() });
    await patchRow(t, orgId, appointments, gone.id, { deleted_at: new Date().toISOString() });
    expect(ids(await list(q))).toEqual([a.id]);
    const provider = (await t.request("GET", `${P()}/${a.id}`, { token })).body.provider.uuid;
    expect(ids(await list(`${q}&provider_uuid=${provider}`))).toEqual([a.id]);
    expect(ids(await list(`${q}&provider_uuid=${UNKNOWN}`))).toEqual([]);
  });

  test("asap-list is not taken for an appointment id; 422 query rules; 401; 403; another org's entries never show", async () => {
    // the static route answers with a page even with no filter (not a 404 'Appointment not found')
    const r = await list("", reader);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 50 });
    expect(Array.isArray(r.body.items)).toBe(true);
    // its own query schema applies (the by-id route takes no query)
    for (const [q, field, type] of [
      ["?kind=late", "kind", "enum"],
      ["?page_size=500", "page_size", "out_of_range"],
      ["?location_uuid=x", "location_uuid", "format"],
      ["?status=cancelled", "status", "extra_forbidden"],
    ] as const) {
      const bad = await list(q);
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc.slice(0, 2)).toEqual(["query", field]);
      expect(bad.body.detail[0].type).toBe(type);
    }
    expect((await t.request("GET", `${P()}/asap-list`)).status).toBe(401);
    expect((await list("", outsider)).status).toBe(403);
    // the other org's ASAP and cancelled appointments
    const theirs = await book("2030-06-01T09:00:00", { is_asap: true }, sB, otherOrg);
    const all = (await list("?page_size=200")).body;
    expect(all.items.map((x: { id: string }) => x.id)).not.toContain(theirs.id);
    expect(all.items.every((x: { location: { uuid: string } }) => x.location.uuid !== sB.location.id)).toBe(true);
    expect((await list(`?location_uuid=${sB.location.id}`)).body).toEqual({ items: [], page: 1, page_size: 50, total: 0 });
    // and a member of this org gets 404 on the other org's list
    expect((await t.request("GET", `${P(otherOrg)}/asap-list`, { token: reader })).status).toBe(404);
  });
});
