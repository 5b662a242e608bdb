import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { appointments } from "@db/tenant/appointments";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { all, get } from "@/platform/db/work";
import type { EventEnvelope } from "@/platform/events/envelope";
import { auditOf, busDrained, expectGuarded, expectValidationCases, twoOrgApp, type TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { createProvider, createType } from "@tests/domains/scheduling/appointments/fixtures";

// Procedures on appointments (docs/scheduling/appointments.md, "Procedures on appointments"):
// the endpoints under {P}/appointments/{id}/procedures, a booking's procedure_uuids, and what
// completing, breaking and cancelling the appointment does to them.

let t: TestApp;
let token: string;
let orgA: string;
let orgB: string;
let A: string;
let B: string;
let events: EventEnvelope[];
const MISSING = "01970000-0000-7000-8000-0000000000aa";
const today = () => new Date().toISOString().slice(0, 10);

type World = { location: string; provider: string; type: string };
let a: World; // org A, a location in UTC
let b: World;

async function ok(r: Promise<{ status: number; text: string; body: any }>, want = 201) {
  const res = await r;
  if (res.status !== want) throw new Error(`expected ${want}, got ${res.status} ${res.text}`);
  return res.body;
}
const post = (path: string, body: unknown, org = A) => t.request("POST", `${org}${path}`, { token, body });
const getBody = async (path: string, org = A) => ok(t.request("GET", `${org}${path}`, { token }), 200);

async function world(P: string, org: string): Promise<World> {
  const location = (await ok(post("/locations", { name: "Harbor", timezone: "UTC" }, P))).id;
  const provider = (await createProvider(t, org, { first_name: "Ann", last_name: "Apex" })).id;
  const type = (await createType(t, org, { duration_minutes: 30 })).id;
  return { location, provider, type };
}

beforeAll(async () => {
  const w = await twoOrgApp({}, { events: true });
  ({ t, orgA, orgB, events } = w);
  token = w.admin;
  A = w.pathA;
  B = w.pathB;
  [a, b] = await Promise.all([world(A, orgA), world(B, orgB)]);
});
afterAll(() => t.close());

let n = 0;
const patient = async (P = A, w = a) =>
  (await ok(post("/patients", { first_name: `Pat${n++}`, last_name: "Chair", date_of_birth: "1980-02-03", location_uuid: w.location }, P))).uuid as string;

const codes = new Map<string, string>();
async function codeId(code: string, P = A) {
  const key = `${P}:${code}`;
  if (!codes.has(key)) codes.set(key, (await getBody(`/codes/procedure-codes?search=${code}`, P)).items.find((c: { code: string }) => c.code === code).id);
  return codes.get(key)!;
}
/** A procedure charted for the patient (treatment_planned unless `fields` say otherwise). */
const chart = async (patientId: string, code = "D2391", fields: Record<string, unknown> = {}, P = A) =>
  ok(post(`/clinical/patients/${patientId}/procedures`, { procedure_code_uuid: await codeId(code, P), ...fields }, P));
/** D2391 #3 MO at 105.00. */
const filling = (patientId: string, P = A) => chart(patientId, "D2391", { tooth_number: "3", surfaces: "MO", fee_override: 105 }, P);

let day = 0;
/** An appointment of the patient on a day of its own (2027 onwards unless `date` is given). */
async function book(patientId: string, extra: Record<string, unknown> = {}, date?: string, P = A, w = a) {
  const d = date ?? Temporal.PlainDate.from("2027-01-04").add({ days: day++ }).toString();
  return post(
    "/appointments",
    {
      patient_uuid: patientId,
      appointment_type_uuid: w.type,
      location_uuid: w.location,
      provider_uuid: w.provider,
      scheduled_start: `${d}T09:00:00`,
      scheduled_end: `${d}T09:30:00`,
      ...extra,
    },
    P,
  );
}
const appointment = async (patientId: string, extra: Record<string, unknown> = {}, date?: string) => ok(book(patientId, extra, date));

const attach = (apptId: string, body: unknown, P = A) => t.request("POST", `${P}/appointments/${apptId}/procedures`, { token, body });
const detach = (apptId: string, procId: string, version: unknown, P = A) =>
  t.request("DELETE", `${P}/appointments/${apptId}/procedures/${procId}?base_version=${version}`, { token });
const setStatus = (apptId: string, status: string, version: number, reason?: string) =>
  ok(t.request("POST", `${A}/appointments/${apptId}/status`, { token, body: { status, base_version: version, ...(reason ? { reason } : {}) } }), 200);
const procedure = (id: string) => getBody(`/clinical/procedures/${id}`);
const readAppointment = (id: string) => getBody(`/appointments/${id}`);

async function procedureRow(id: string) {
  return (await orgDb(t, orgA)).read((d) => get<typeof chartedProcedures.$inferSelect>(d.select().from(chartedProcedures).where(eq(chartedProcedures.id, id))));
}
async function appointmentsOf(patientId: string) {
  return (await orgDb(t, orgA)).read((d) => all<typeof appointments.$inferSelect>(d.select().from(appointments).where(eq(appointments.patient_id, patientId))));
}
const ledger = async (patientId: string) => (await getBody(`/patients/${patientId}/ledger-entries?page_size=200`)).items;

/** What a refused request must leave alone: the appointment's version and each procedure's row. */
async function unchanged(apptId: string, procIds: string[]) {
  const snapshot = async () => ({
    appointment: (await readAppointment(apptId)).version,
    procedures: await Promise.all(procIds.map(procedureRow)),
  });
  const before = await snapshot();
  return async () => expect(await snapshot()).toEqual(before);
}

describe("POST /appointments/{id}/procedures", () => {
  test("200: each becomes scheduled on it; the appointment shows procedures and production; version +1, audit and events name them", async () => {
    const p = await patient();
    const fill = await filling(p);
    const exam = await chart(p, "D0120");
    const appt = await appointment(p);
    expect(appt).toMatchObject({ version: 1, procedures: [], production: "0.00" });
    const mark = events.length;
    const r = await attach(appt.id, { procedure_uuids: [fill.id, exam.id.toUpperCase()], base_version: 1 });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toMatchObject({ id: appt.id, version: 2, status: "scheduled" });
    expect(r.body.procedures).toEqual([
      { uuid: fill.id, name: "D2391 #3 MO", procedure_code: "D2391", description: expect.any(String), status: "scheduled", fee: "105.00" },
      { uuid: exam.id, name: "D0120", procedure_code: "D0120", description: "Periodic exam", status: "scheduled", fee: "55.00" },
    ]);
    expect(r.body.production).toBe("160.00");
    // the appointment everywhere it is answered
    expect(await readAppointment(appt.id)).toEqual(r.body);
    expect((await getBody(`/appointments?patient_uuid=${p}`)).items).toEqual([r.body]);
    expect((await getBody(`/patients/${p}/appointments`)).items).toEqual([r.body]);
    // the procedures themselves, through clinical
    expect(await procedure(fill.id)).toMatchObject({ status: "scheduled", appointment: { uuid: appt.id, name: appt.scheduled_start }, version: 2 });
    const list = await getBody(`/appointments/${appt.id}/procedures`);
    expect(list).toMatchObject({ total: 2, production: "160.00" });
    expect(list.items.map((i: { id: string; status: string; effective_fee: string }) => [i.id, i.status, i.effective_fee])).toEqual([
      [fill.id, "scheduled", "105.00"],
      [exam.id, "scheduled", "55.00"],
    ]);
    // the trail: the appointment's entry names the procedures before and after; each procedure's status change
    const audit = await auditOf(t, orgA, appt.id);
    expect(audit.map((x) => x.action)).toEqual(["appointment.created", "appointment.procedures_attached"]);
    expect([audit[1].before.procedure_uuids, audit[1].after.procedure_uuids, audit[1].before.version, audit[1].after.version]).toEqual([
      [],
      [fill.id, exam.id],
      1,
      2,
    ]);
    expect((await auditOf(t, orgA, fill.id)).map((x) => x.action)).toEqual(["charted_procedure.created", "charted_procedure.status_changed"]);
    await busDrained(t.rt.bus);
    const seen = events.slice(mark);
    expect(seen.filter((e) => e.resource_id === appt.id).map((e) => [e.type, e.data])).toEqual([
      ["appointment.procedures_attached", { id: appt.id, procedure_ids: [fill.id, exam.id] }],
    ]);
    expect(seen.find((e) => e.resource_id === fill.id)).toMatchObject({
      type: "charted_procedure.status_changed",
      data: { from_status: "treatment_planned", status: "scheduled", patient_id: p },
    });
  });

  test("one already on it is left alone (no new version); a scheduled procedure on no live appointment can go on", async () => {
    const p = await patient();
    const fill = await filling(p);
    const appt = await appointment(p);
    await ok(attach(appt.id, { procedure_uuids: [fill.id], base_version: 1 }), 200);
    const again = await ok(attach(appt.id, { procedure_uuids: [fill.id, fill.id], base_version: 2 }), 200);
    expect(again).toMatchObject({ version: 2, production: "105.00" });
    expect(again.procedures.map((x: { uuid: string }) => x.uuid)).toEqual([fill.id]);
    // scheduled through PATCH, on no appointment
    const loose = await chart(p, "D0120");
    await ok(t.request("PATCH", `${A}/clinical/procedures/${loose.id}`, { token, body: { base_version: 1, status: "scheduled" } }), 200);
    const r = await ok(attach(appt.id, { procedure_uuids: [loose.id], base_version: 2 }), 200);
    expect(r).toMatchObject({ version: 3, production: "160.00" });
    expect(await procedure(loose.id)).toMatchObject({ status: "scheduled", appointment: { uuid: appt.id } });
  });

  test("401, 403, 404 for a member of another org; a member holding only schedule.appointments.write may", async () => {
    const p = await patient();
    const fill = await filling(p);
    const appt = await appointment(p);
    const path = `${A}/appointments/${appt.id}/procedures`;
    const body = { procedure_uuids: [fill.id], base_version: 1 };
    const same = await unchanged(appt.id, [fill.id]);
    const writer = await expectGuarded(t, orgA, orgB, "POST", path, "schedule.appointments.write", body);
    await same();
    const r = await t.request("POST", path, { token: writer, body });
    expect([r.status, r.body.version]).toEqual([200, 2]);
  });

  test("404: an unknown appointment, another org's appointment; an unknown, deleted or another org's procedure; nothing changes", async () => {
    const p = await patient();
    const fill = await filling(p);
    const gone = await chart(p, "D0120");
    await ok(t.request("DELETE", `${A}/clinical/procedures/${gone.id}?base_version=1`, { token }), 204);
    const appt = await appointment(p);
    const pb = await patient(B, b);
    const theirs = await filling(pb, B);
    const theirAppt = await ok(book(pb, {}, undefined, B, b));
    const same = await unchanged(appt.id, [fill.id]);
    for (const [id, body, what] of [
      [MISSING, { procedure_uuids: [fill.id], base_version: 1 }, "Appointment"],
      [theirAppt.id, { procedure_uuids: [fill.id], base_version: 1 }, "Appointment"],
      [appt.id, { procedure_uuids: [fill.id, MISSING], base_version: 1 }, "Charted procedure"],
      [appt.id, { procedure_uuids: [fill.id, gone.id], base_version: 1 }, "Charted procedure"],
      [appt.id, { procedure_uuids: [fill.id, theirs.id], base_version: 1 }, "Charted procedure"],
    ] as const) {
      const r = await attach(id, body);
      expect([r.status, r.body]).toEqual([404, { detail: `${what} not found`, code: "not_found" }]);
    }
    await same();
    expect((await ok(t.request("GET", `${B}/appointments/${theirAppt.id}`, { token }), 200)).version).toBe(1);
  });

  test("409: a stale base_version; a procedure on another live appointment, named; nothing changes", async () => {
    const p = await patient();
    const fill = await filling(p);
    const exam = await chart(p, "D0120");
    const first = await appointment(p);
    await ok(attach(first.id, { procedure_uuids: [fill.id], base_version: 1 }), 200);
    const second = await appointment(p);
    const same = await unchanged(second.id, [fill.id, exam.id]);
    const stale = await attach(second.id, { procedure_uuids: [exam.id], base_version: 2 });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    const taken = await attach(second.id, { procedure_uuids: [exam.id, fill.id], base_version: 1 });
    expect([taken.status, taken.body.code]).toEqual([409, "procedure_on_appointment"]);
    expect(taken.body.detail).toContain("D2391 #3 MO");
    expect(taken.body.detail).toContain(first.id);
    await same();
    // once that appointment is cancelled, the procedure is free again
    await setStatus(first.id, "cancelled", 2, "Patient called");
    expect((await ok(attach(second.id, { procedure_uuids: [fill.id], base_version: 1 }), 200)).production).toBe("105.00");
  });

  test("422: another patient's procedure; one done or referred; an appointment completed, cancelled or broken; nothing changes", async () => {
    const p = await patient();
    const other = await patient();
    const fill = await filling(p);
    const theirs = await filling(other);
    const done = await chart(p, "D0120", { status: "complete" });
    const referred = await chart(p, "D0120", { status: "referred" });
    const appt = await appointment(p);
    const same = await unchanged(appt.id, [fill.id, theirs.id, done.id, referred.id]);
    for (const [ids, code] of [
      [[fill.id, theirs.id], "procedure_patient_mismatch"],
      [[fill.id, done.id], "procedure_not_plannable"],
      [[fill.id, referred.id], "procedure_not_plannable"],
    ] as const) {
      const r = await attach(appt.id, { procedure_uuids: ids, base_version: 1 });
      expect([r.status, r.body.code, r.body.detail[0].loc]).toEqual([422, code, ["body", "procedure_uuids", 1]]);
    }
    await same();
    const cancelled = await appointment(p);
    await setStatus(cancelled.id, "cancelled", 1);
    const broken = await appointment(p);
    await setStatus(broken.id, "broken", 1, "No-show");
    const completed = await appointment(p);
    await setStatus(completed.id, "arrived", 1);
    await setStatus(completed.id, "completed", 2);
    for (const x of [cancelled, broken, completed]) {
      const r = await attach(x.id, { procedure_uuids: [fill.id], base_version: 2 + (x === completed ? 1 : 0) });
      expect([r.status, r.body.code, r.body.detail[0].loc]).toEqual([422, "invalid_transition", ["path", "appointment_id"]]);
    }
    await same();
  });

  test("422 for bad bodies: missing, empty or too many ids, not uuids, base_version missing or 0, unknown fields, malformed JSON", async () => {
    const p = await patient();
    const fill = await filling(p);
    const appt = await appointment(p);
    const same = await unchanged(appt.id, [fill.id]);
    const many = Array.from({ length: 51 }, () => fill.id);
    await expectValidationCases(t, "POST", `${A}/appointments/${appt.id}/procedures`, token, [
      [{ base_version: 1 }, ["body", "procedure_uuids"], "missing"],
      [{ procedure_uuids: [], base_version: 1 }, ["body", "procedure_uuids"], "out_of_range"],
      [{ procedure_uuids: many, base_version: 1 }, ["body", "procedure_uuids"], "out_of_range"],
      [{ procedure_uuids: ["nope"], base_version: 1 }, ["body", "procedure_uuids", 0], "format"],
      [{ procedure_uuids: fill.id, base_version: 1 }, ["body", "procedure_uuids"], "type_error"],
      [{ procedure_uuids: [fill.id] }, ["body", "base_version"], "missing"],
      [{ procedure_uuids: [fill.id], base_version: 0 }, ["body", "base_version"], "out_of_range"],
      [{ procedure_uuids: [fill.id], base_version: 1, status: "scheduled" }, ["body", "status"], "extra_forbidden"],
    ]);
    const bad = await t.request("POST", `${A}/appointments/${appt.id}/procedures`, {
      token,
      rawBody: "{",
      headers: { "content-type": "application/json" },
    });
    expect([bad.status, bad.body.detail[0].type]).toEqual([422, "json_invalid"]);
    await same();
  });
});

describe("GET /appointments/{id}/procedures", () => {
  test("200: the full records and production; empty for none; 401/403/404", async () => {
    const p = await patient();
    const appt = await appointment(p);
    expect(await getBody(`/appointments/${appt.id}/procedures`)).toEqual({ items: [], total: 0, production: "0.00" });
    const fill = await filling(p);
    await ok(attach(appt.id, { procedure_uuids: [fill.id], base_version: 1 }), 200);
    const path = `${A}/appointments/${appt.id}/procedures`;
    const reader = await expectGuarded(t, orgA, orgB, "GET", path, "schedule.appointments.read");
    const r = await t.request("GET", path, { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ items: [await procedure(fill.id)], total: 1, production: "105.00" });
    expect((await t.request("GET", `${A}/appointments/${MISSING}/procedures`, { token })).status).toBe(404);
    expect((await t.request("GET", `${B}/appointments/${appt.id}/procedures`, { token })).status).toBe(404);
  });

  test("a deleted procedure leaves the appointment and its production", async () => {
    const p = await patient();
    const fill = await filling(p);
    const exam = await chart(p, "D0120");
    const appt = await appointment(p, { procedure_uuids: [fill.id, exam.id] });
    expect(appt.production).toBe("160.00");
    await ok(t.request("DELETE", `${A}/clinical/procedures/${exam.id}?base_version=2`, { token }), 204);
    expect(await readAppointment(appt.id)).toMatchObject({ production: "105.00", procedures: [{ uuid: fill.id }] });
  });
});

describe("DELETE /appointments/{id}/procedures/{procedure_uuid}", () => {
  test("200: the procedure is treatment_planned again and off the appointment; version +1; audit and event", async () => {
    const p = await patient();
    const fill = await filling(p);
    const exam = await chart(p, "D0120");
    const appt = await appointment(p, { procedure_uuids: [fill.id, exam.id] });
    const mark = events.length;
    const r = await detach(appt.id, fill.id, 1);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ version: 2, production: "55.00", procedures: [{ uuid: exam.id, status: "scheduled" }] });
    expect(await procedure(fill.id)).toMatchObject({ status: "treatment_planned", appointment: null });
    const audit = (await auditOf(t, orgA, appt.id)).at(-1);
    expect([audit.action, audit.before.procedure_uuids, audit.after.procedure_uuids]).toEqual([
      "appointment.procedures_detached",
      [fill.id, exam.id],
      [exam.id],
    ]);
    await busDrained(t.rt.bus);
    expect(events.slice(mark).find((e) => e.resource_id === appt.id)).toMatchObject({
      type: "appointment.procedures_detached",
      data: { id: appt.id, procedure_ids: [fill.id] },
    });
    // and it can go on another appointment
    const next = await appointment(p);
    expect((await ok(attach(next.id, { procedure_uuids: [fill.id], base_version: 1 }), 200)).production).toBe("105.00");
  });

  test("401, 403, 404 for another org; 404 for a procedure not on it; 409 stale; 422 a closed appointment, work done, bad base_version; nothing changes", async () => {
    const p = await patient();
    const fill = await filling(p);
    const loose = await chart(p, "D0120");
    const appt = await appointment(p, { procedure_uuids: [fill.id] });
    const same = await unchanged(appt.id, [fill.id, loose.id]);
    const writer = await expectGuarded(
      t,
      orgA,
      orgB,
      "DELETE",
      `${A}/appointments/${appt.id}/procedures/${fill.id}?base_version=1`,
      "schedule.appointments.write",
    );
    for (const [apptId, procId, org] of [
      [MISSING, fill.id, A],
      [appt.id, MISSING, A],
      [appt.id, loose.id, A],
      [appt.id, fill.id, B],
    ] as const) {
      const r = await detach(apptId, procId, 1, org);
      expect([r.status, r.body.code]).toEqual([404, "not_found"]);
    }
    const stale = await detach(appt.id, fill.id, 7);
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    for (const v of ["0", "x", ""]) {
      const r = await detach(appt.id, fill.id, v);
      expect([r.status, r.body.detail[0].loc]).toEqual([422, ["query", "base_version"]]);
    }
    await same();
    // work done stays where it was done
    await ok(t.request("PATCH", `${A}/clinical/procedures/${fill.id}`, { token, body: { base_version: 2, status: "complete" } }), 200);
    const done = await detach(appt.id, fill.id, 1);
    expect([done.status, done.body.code]).toEqual([422, "procedure_completed"]);
    // a completed appointment's procedures no longer change
    await setStatus(appt.id, "arrived", 1);
    await setStatus(appt.id, "completed", 2);
    const closed = await detach(appt.id, fill.id, 3);
    expect([closed.status, closed.body.code]).toEqual([422, "invalid_transition"]);
    expect((await procedure(fill.id)).appointment).toEqual({ uuid: appt.id, name: appt.scheduled_start });
    // a member holding the key may
    const other = await appointment(p, { procedure_uuids: [loose.id] });
    expect((await t.request("DELETE", `${A}/appointments/${other.id}/procedures/${loose.id}?base_version=1`, { token: writer })).status).toBe(200);
  });
});

describe("the appointment's status moves its procedures", () => {
  test("completed: each procedure is complete, dated the appointment's day, and its charge is on the patient's ledger", async () => {
    const p = await patient();
    const fill = await filling(p);
    const exam = await chart(p, "D0120");
    const date = Temporal.PlainDate.from(today()).subtract({ days: 3 }).toString();
    const appt = await appointment(p, { procedure_uuids: [fill.id, exam.id] }, date);
    expect(await ledger(p)).toEqual([]);
    await setStatus(appt.id, "arrived", 1);
    const done = await setStatus(appt.id, "completed", 2);
    expect(done).toMatchObject({ status: "completed", production: "160.00" });
    expect(done.procedures.map((x: { status: string }) => x.status)).toEqual(["complete", "complete"]);
    for (const id of [fill.id, exam.id]) {
      expect(await procedure(id)).toMatchObject({ status: "complete", date_service: date, date_completed: expect.any(String), appointment: { uuid: appt.id } });
    }
    const charges = (await ledger(p)).map((e: { entry_type: string; amount: string; entry_date: string; procedure_uuid: string; source: string }) => [
      e.entry_type,
      e.source,
      e.amount,
      e.entry_date,
      e.procedure_uuid,
    ]);
    expect(charges.sort()).toEqual(
      [
        ["charge", "procedure", "105.00", date, fill.id],
        ["charge", "procedure", "55.00", date, exam.id],
      ].sort(),
    );
    // the same path as PATCH: each procedure's trail is its status change
    expect((await auditOf(t, orgA, fill.id)).map((x) => x.action)).toEqual([
      "charted_procedure.created",
      "charted_procedure.status_changed",
      "charted_procedure.status_changed",
    ]);
  });

  test("completed ahead of its day: the work is dated today (never in the future); work done or referred stays as it is", async () => {
    const p = await patient();
    const fill = await filling(p);
    const appt = await appointment(p, { procedure_uuids: [fill.id] });
    expect(appt.scheduled_start > today()).toBe(true);
    // charted at the appointment as another office's work, and as work done earlier: neither can become complete
    const referred = await chart(p, "D0120", { status: "referred", appointment_uuid: appt.id });
    const existing = await chart(p, "D0120", { status: "existing_other", appointment_uuid: appt.id });
    await setStatus(appt.id, "arrived", 1);
    await setStatus(appt.id, "completed", 2);
    expect(await procedure(fill.id)).toMatchObject({ status: "complete", date_service: today() });
    expect(await procedure(referred.id)).toMatchObject({ status: "referred", version: 1 });
    expect(await procedure(existing.id)).toMatchObject({ status: "existing_other", version: 1 });
    expect((await ledger(p)).map((e: { amount: string; entry_date: string }) => [e.amount, e.entry_date])).toEqual([["105.00", today()]]);
  });

  test("broken or cancelled: planned work is free again (treatment_planned, on no appointment), and may be booked again", async () => {
    for (const [status, reason] of [
      ["broken", "No-show"],
      ["cancelled", undefined],
    ] as const) {
      const p = await patient();
      const fill = await filling(p);
      const exam = await chart(p, "D0120");
      const appt = await appointment(p, { procedure_uuids: [fill.id, exam.id] });
      const mark = events.length;
      const r = await setStatus(appt.id, status, 1, reason);
      expect(r).toMatchObject({ status, version: 2, procedures: [], production: "0.00" });
      for (const id of [fill.id, exam.id]) expect(await procedure(id)).toMatchObject({ status: "treatment_planned", appointment: null });
      expect(await ledger(p)).toEqual([]);
      await busDrained(t.rt.bus);
      expect(
        events
          .slice(mark)
          .filter((e) => e.resource_id === fill.id)
          .map((e) => e.type),
      ).toEqual(["charted_procedure.status_changed"]);
      const again = await appointment(p, { procedure_uuids: [fill.id, exam.id] });
      expect(again.production).toBe("160.00");
    }
  });
});

describe("booking with procedure_uuids", () => {
  test("201: the booking holds them at version 1; the history names them", async () => {
    const p = await patient();
    const fill = await filling(p);
    const r = await book(p, { procedure_uuids: [fill.id] });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      version: 1,
      production: "105.00",
      procedures: [{ uuid: fill.id, name: "D2391 #3 MO", status: "scheduled", fee: "105.00" }],
    });
    expect(await readAppointment(r.body.id)).toEqual(r.body);
    const audit = await auditOf(t, orgA, r.body.id);
    expect(audit.map((x) => [x.action, x.after.version, x.after.procedure_uuids])).toEqual([
      ["appointment.created", 1, undefined],
      ["appointment.procedures_attached", 1, [fill.id]],
    ]);
    // an empty list books without any
    expect((await ok(book(p, { procedure_uuids: [] }))).procedures).toEqual([]);
  });

  test("a procedure refused refuses the booking: 404, 409, 422; nothing is written", async () => {
    const p = await patient();
    const other = await patient();
    const fill = await filling(p);
    const held = await filling(p);
    await appointment(p, { procedure_uuids: [held.id] });
    const theirs = await filling(other);
    const done = await chart(p, "D0120", { status: "complete" });
    const booked = (await appointmentsOf(p)).length;
    const rows = async () => Promise.all([fill.id, held.id, theirs.id, done.id].map(procedureRow));
    const before = await rows();
    for (const [ids, status, code] of [
      [[fill.id, MISSING], 404, "not_found"],
      [[fill.id, held.id], 409, "procedure_on_appointment"],
      [[fill.id, theirs.id], 422, "procedure_patient_mismatch"],
      [[fill.id, done.id], 422, "procedure_not_plannable"],
    ] as const) {
      const r = await book(p, { procedure_uuids: ids });
      expect([r.status, r.body.code]).toEqual([status, code]);
      if (status === 422) expect(r.body.detail[0].loc).toEqual(["body", "procedure_uuids", 1]);
    }
    expect((await appointmentsOf(p)).length).toBe(booked);
    expect(await rows()).toEqual(before);
    await expectValidationCases(t, "POST", `${A}/appointments`, token, [
      [{ ...bodyFor(p), procedure_uuids: ["x"] }, ["body", "procedure_uuids", 0], "format"],
      [{ ...bodyFor(p), procedure_uuids: Array.from({ length: 51 }, () => fill.id) }, ["body", "procedure_uuids"], "out_of_range"],
    ]);
    expect((await appointmentsOf(p)).length).toBe(booked);
  });

  test("PATCH of an appointment cannot name procedure_uuids (read-only there)", async () => {
    const p = await patient();
    const fill = await filling(p);
    const appt = await appointment(p);
    const r = await t.request("PATCH", `${A}/appointments/${appt.id}`, { token, body: { base_version: 1, procedure_uuids: [fill.id] } });
    expect([r.status, r.body.detail[0].loc, r.body.detail[0].type]).toEqual([422, ["body", "procedure_uuids"], "read_only"]);
  });
});

describe("PATCH {P}/clinical/procedures/{id} appointment_uuid", () => {
  test("422 appointment_link_read_only when it would change (the endpoints decide); the same value is no change; 404 for an unknown one", async () => {
    const p = await patient();
    const fill = await filling(p);
    const loose = await filling(p);
    const appt = await appointment(p, { procedure_uuids: [fill.id] });
    const patch = (id: string, body: Record<string, unknown>) => t.request("PATCH", `${A}/clinical/procedures/${id}`, { token, body });
    for (const [id, body] of [
      [loose.id, { base_version: 1, appointment_uuid: appt.id }],
      [fill.id, { base_version: 2, appointment_uuid: null }],
    ] as const) {
      const r = await patch(id, body);
      expect([r.status, r.body.code, r.body.detail[0].loc]).toEqual([422, "appointment_link_read_only", ["body", "appointment_uuid"]]);
    }
    expect((await patch(loose.id, { base_version: 1, appointment_uuid: MISSING })).status).toBe(404);
    const same = await patch(fill.id, { base_version: 2, appointment_uuid: appt.id, note: "kept" });
    expect([same.status, same.body.note, same.body.appointment]).toEqual([200, "kept", { uuid: appt.id, name: appt.scheduled_start }]);
    expect(await procedureRow(loose.id)).toMatchObject({ appointment_id: null, version: 1 });
  });

  test("422 appointment_link_read_only for status treatment_planned while an appointment holds it; after DELETE from the appointment it is treatment_planned", async () => {
    const p = await patient();
    const fill = await filling(p);
    const appt = await appointment(p, { procedure_uuids: [fill.id] });
    const r = await t.request("PATCH", `${A}/clinical/procedures/${fill.id}`, { token, body: { base_version: 2, status: "treatment_planned" } });
    expect([r.status, r.body.code, r.body.detail[0].loc]).toEqual([422, "appointment_link_read_only", ["body", "status"]]);
    expect(await procedureRow(fill.id)).toMatchObject({ status: "scheduled", appointment_id: appt.id, version: 2 });
    const off = await t.request("DELETE", `${A}/appointments/${appt.id}/procedures/${fill.id}?base_version=${appt.version}`, { token });
    expect(off.status).toBe(200);
    expect(await procedureRow(fill.id)).toMatchObject({ status: "treatment_planned", appointment_id: null });
  });
});

describe("lists", () => {
  test("a page of appointments shows each one's own procedures", async () => {
    const p = await patient();
    const fills = [await filling(p), await filling(p), await chart(p, "D0120")];
    const appts = [
      await appointment(p, { procedure_uuids: [fills[0]!.id] }),
      await appointment(p),
      await appointment(p, { procedure_uuids: [fills[1]!.id, fills[2]!.id] }),
    ];
    const page = await getBody(`/appointments?patient_uuid=${p}`);
    expect(
      page.items.map((x: { id: string; production: string; procedures: { uuid: string }[] }) => [x.id, x.production, x.procedures.map((y) => y.uuid)]),
    ).toEqual([
      [appts[0]!.id, "105.00", [fills[0]!.id]],
      [appts[1]!.id, "0.00", []],
      [appts[2]!.id, "160.00", [fills[1]!.id, fills[2]!.id]],
    ]);
  });
});

function bodyFor(patientId: string) {
  const d = Temporal.PlainDate.from("2028-01-03").add({ days: day++ }).toString();
  return {
    patient_uuid: patientId,
    appointment_type_uuid: a.type,
    location_uuid: a.location,
    provider_uuid: a.provider,
    scheduled_start: `${d}T09:00:00`,
    scheduled_end: `${d}T09:30:00`,
  };
}
