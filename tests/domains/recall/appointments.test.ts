import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { busDrained } from "@tests/helpers";
import { createType } from "@tests/domains/scheduling/appointments/fixtures";
import { drained, plusMonths, recallQueueWorld, SETUP_TIMEOUT_MS, shift, todayUtc, type RecallQueueWorld as World } from "./fixtures";

// Recalls follow appointments, end to end on the embedded queue with the
// workers running (docs/recall/recall.md, "Kept current"; docs/scheduling/
// appointments.md, "Procedures on appointments"): a trigger procedure put on an
// appointment, the appointment moved, broken, cancelled, booked with it and
// completed each queue the patient's recalls.recompute, and the recall's
// status and dates follow over HTTP. An ordinary booking queues nothing.
// Also: the recall list paged past its end.

let w: World;
let location: string;
let provider: string;
let type: string;

beforeAll(async () => {
  w = await recallQueueWorld();
  // a location in UTC: the appointment's day and the patient's today (no home location: UTC) agree
  location = (await w.post("/locations", { name: "Harbor", timezone: "UTC" })).id;
  provider = (await w.post("/providers", { abbreviation: "HY", first_name: "Hy", last_name: "Gienist" })).id;
  type = (await createType(w.t, w.orgA, { duration_minutes: 30 })).id;
}, SETUP_TIMEOUT_MS);
afterAll(async () => {
  await w.stop();
  await w.t.close();
});

/** What one write queues (once, however many of its moments asked): the patient's recompute, done. */
const job = (created: number, updated: number): [string, unknown][] => [["completed", { patients: 1, created, updated }]];
/** The recompute found the recall changed and wrote it. */
const UPDATED = job(0, 1);

/** Waits until every job sent from index `from` has finished; answers the recall jobs among them. */
const drainedFrom = (from: number) => drained(w, from);

/** Runs a write and waits for the recall jobs it queued; answers the write's answer and those jobs' states and outputs. */
async function andRecomputed<T>(write: () => Promise<T>): Promise<{ out: T; jobs: [string, unknown][] }> {
  const from = w.sent.length;
  const out = await write();
  const jobs = await drainedFrom(from);
  return { out, jobs: jobs.map((j) => [j.state, j.output] as [string, unknown]) };
}

/** The recall jobs queued by a write (after its commit). */
async function recallJobsOf(write: () => Promise<unknown>) {
  const from = w.sent.length;
  await write();
  await busDrained(w.t.rt.bus);
  return w.sent.slice(from).filter((j) => j.name === "recalls.recompute");
}

let slot = 0;
/** POST {P}/appointments for the patient on `date`, a half hour of its own (so bookings never overlap). */
async function book(patientId: string, date: string, extra: Record<string, unknown> = {}) {
  const m = slot++;
  const at = (min: number) => `${date}T${String(8 + Math.floor(min / 60)).padStart(2, "0")}:${String(min % 60).padStart(2, "0")}:00`;
  return w.post("/appointments", {
    patient_uuid: patientId,
    appointment_type_uuid: type,
    location_uuid: location,
    provider_uuid: provider,
    scheduled_start: at((m % 16) * 30),
    scheduled_end: at((m % 16) * 30 + 30),
    ...extra,
  });
}
const setStatus = (id: string, status: string, version: number, reason?: string) =>
  w.post(`/appointments/${id}/status`, { status, base_version: version, ...(reason ? { reason } : {}) }, 200);
const procedure = (id: string) => w.get(`/clinical/procedures/${id}`);

/** The patient's one recall as GET {P}/patients/{id}/recalls answers it: the fields the appointments move. */
async function recallOf(patientId: string) {
  const all = await w.recallsOf(patientId);
  expect(all.length).toBe(1);
  const r = all[0];
  return {
    type: r.recall_type.name,
    status: r.status,
    date_previous: r.date_previous,
    date_due: r.date_due,
    date_scheduled: r.date_scheduled,
    appointment: r.scheduled_appointment?.uuid ?? null,
  };
}

/** A patient whose adult cleaning was done on `done`: the job starts their prophy recall, due six months later. */
async function withProphy(done: string) {
  const p = await w.patient({ first_name: "Recall" });
  const { jobs } = await andRecomputed(() => w.complete(p.id, "D1110", done));
  expect(jobs).toEqual(job(1, 0));
  return p.id;
}

const today = todayUtc();

describe("recalls follow the appointments that hold a trigger procedure", () => {
  test(
    "a planned D1110 put on a future appointment schedules the recall; moving it moves date_scheduled; breaking it frees the procedure and the recall is due again",
    async () => {
      const done = plusMonths(today, -2);
      const due = plusMonths(done, 6);
      const p = await withProphy(done);
      expect(await recallOf(p)).toEqual({ type: "Prophy", status: "due", date_previous: done, date_due: due, date_scheduled: null, appointment: null });

      const cleaning = await w.plan(p, "D1110");
      expect(cleaning.status).toBe("treatment_planned");
      const day1 = shift(today, 10);
      // the booking holds nothing yet: no recompute
      let appt: any;
      expect(
        await recallJobsOf(async () => {
          appt = await book(p, day1);
        }),
      ).toEqual([]);
      expect(appt).toMatchObject({ version: 1, procedures: [] });

      // 1. put on the appointment: procedure.scheduled queues the recompute
      const attached = await andRecomputed(() => w.post(`/appointments/${appt.id}/procedures`, { procedure_uuids: [cleaning.id], base_version: 1 }, 200));
      expect(attached.out).toMatchObject({ version: 2, procedures: [{ uuid: cleaning.id, status: "scheduled" }] });
      expect(attached.jobs).toEqual(UPDATED);
      expect(await recallOf(p)).toEqual({
        type: "Prophy",
        status: "scheduled",
        date_previous: done,
        date_due: due,
        date_scheduled: day1,
        appointment: appt.id,
      });

      // 2. moved to another day (PATCH with base_version): appointment.moved
      const day2 = shift(today, 17);
      const moved = await andRecomputed(() =>
        w.ok(
          w.t.request("PATCH", `${w.A}/appointments/${appt.id}`, {
            token: w.token,
            body: { base_version: 2, scheduled_start: `${day2}T13:00:00`, scheduled_end: `${day2}T13:30:00` },
          }),
        ),
      );
      expect(moved.out).toMatchObject({ version: 3, scheduled_start: `${day2}T13:00:00` });
      expect(moved.jobs).toEqual(UPDATED);
      expect(await recallOf(p)).toEqual({
        type: "Prophy",
        status: "scheduled",
        date_previous: done,
        date_due: due,
        date_scheduled: day2,
        appointment: appt.id,
      });

      // 3. broken: the cleaning is free again (treatment_planned, on no appointment) and the recall is due, scheduled nowhere
      const broken = await andRecomputed(() => setStatus(appt.id, "broken", 3, "No-show"));
      expect(broken.out).toMatchObject({ status: "broken", version: 4, procedures: [] });
      expect(broken.jobs).toEqual(UPDATED);
      expect(await procedure(cleaning.id)).toMatchObject({ status: "treatment_planned", appointment: null });
      expect(await recallOf(p)).toEqual({ type: "Prophy", status: "due", date_previous: done, date_due: due, date_scheduled: null, appointment: null });
    },
    SETUP_TIMEOUT_MS,
  );

  test(
    "cancelling the second appointment that holds the cleaning: the overdue recall is overdue again, date_scheduled null",
    async () => {
      const done = plusMonths(today, -8);
      const due = plusMonths(done, 6);
      const p = await withProphy(done);
      expect(await recallOf(p)).toEqual({ type: "Prophy", status: "overdue", date_previous: done, date_due: due, date_scheduled: null, appointment: null });
      const cleaning = await w.plan(p, "D1110");
      const first = await andRecomputed(() => book(p, shift(today, 3), { procedure_uuids: [cleaning.id] }));
      expect(first.jobs).toEqual(UPDATED);
      expect(await recallOf(p)).toMatchObject({ status: "scheduled", date_scheduled: shift(today, 3), appointment: first.out.id });
      await andRecomputed(() => setStatus(first.out.id, "broken", 1, "Car trouble"));
      expect(await recallOf(p)).toMatchObject({ status: "overdue", date_scheduled: null });

      // rebooked on a second appointment, then cancelled
      const day = shift(today, 21);
      const second = await andRecomputed(() => book(p, day, { procedure_uuids: [cleaning.id] }));
      expect(second.out).toMatchObject({ version: 1, procedures: [{ uuid: cleaning.id, status: "scheduled" }] });
      expect(await recallOf(p)).toEqual({
        type: "Prophy",
        status: "scheduled",
        date_previous: done,
        date_due: due,
        date_scheduled: day,
        appointment: second.out.id,
      });
      const cancelled = await andRecomputed(() => setStatus(second.out.id, "cancelled", 1));
      expect(cancelled.out).toMatchObject({ status: "cancelled", procedures: [] });
      expect(cancelled.jobs).toEqual(UPDATED);
      expect(await procedure(cleaning.id)).toMatchObject({ status: "treatment_planned", appointment: null });
      expect(await recallOf(p)).toEqual({ type: "Prophy", status: "overdue", date_previous: done, date_due: due, date_scheduled: null, appointment: null });
    },
    SETUP_TIMEOUT_MS,
  );

  test(
    "booked with procedure_uuids [a planned D1110] today: scheduled; checked in and completed, the cleaning is done that day and the recall is due six months later",
    async () => {
      const done = plusMonths(today, -7);
      const p = await withProphy(done);
      expect(await recallOf(p)).toMatchObject({ status: "overdue", date_due: plusMonths(done, 6) });
      const cleaning = await w.plan(p, "D1110");
      const exam = await w.plan(p, "D0120");

      // 4. booked with the procedures: scheduled for today
      const booked = await andRecomputed(() => book(p, today, { procedure_uuids: [exam.id, cleaning.id] }));
      expect(booked.out).toMatchObject({ version: 1, status: "scheduled" });
      expect(booked.jobs).toEqual(UPDATED);
      expect(await recallOf(p)).toEqual({
        type: "Prophy",
        status: "scheduled",
        date_previous: done,
        date_due: plusMonths(done, 6),
        date_scheduled: today,
        appointment: booked.out.id,
      });

      // 5. checked in (arrived), then completed: the cleaning is complete, dated the appointment's day
      const arrived = await w.post(`/appointments/${booked.out.id}/check-in`, { base_version: 1 }, 200);
      expect(arrived).toMatchObject({ status: "arrived", version: 2 });
      const completed = await andRecomputed(() => setStatus(booked.out.id, "completed", 2));
      expect(completed.out).toMatchObject({ status: "completed", version: 3 });
      expect(completed.jobs).toEqual(UPDATED);
      expect(await procedure(cleaning.id)).toMatchObject({ status: "complete", date_service: today, appointment: { uuid: booked.out.id } });
      expect(await recallOf(p)).toEqual({
        type: "Prophy",
        status: "due",
        date_previous: today,
        date_due: plusMonths(today, 6),
        date_scheduled: null,
        appointment: null,
      });
    },
    SETUP_TIMEOUT_MS,
  );

  test(
    "an appointment of three days ago holding the cleaning does not schedule the recall; completed, the recall's previous date is that day",
    async () => {
      const done = plusMonths(today, -9);
      const p = await withProphy(done);
      const cleaning = await w.plan(p, "D1110");
      const day = shift(today, -3);
      const booked = await andRecomputed(() => book(p, day, { procedure_uuids: [cleaning.id] }));
      // queued (the appointment holds a cleaning), but a visit in the past changes nothing
      expect(booked.jobs).toEqual(job(0, 0));
      // a visit in the past is not the next one: the recall stays overdue
      expect(await recallOf(p)).toEqual({
        type: "Prophy",
        status: "overdue",
        date_previous: done,
        date_due: plusMonths(done, 6),
        date_scheduled: null,
        appointment: null,
      });
      await setStatus(booked.out.id, "arrived", 1);
      const completed = await andRecomputed(() => setStatus(booked.out.id, "completed", 2));
      expect(completed.jobs).toEqual(UPDATED);
      expect(await procedure(cleaning.id)).toMatchObject({ status: "complete", date_service: day });
      expect(await recallOf(p)).toEqual({
        type: "Prophy",
        status: "due",
        date_previous: day,
        date_due: plusMonths(day, 6),
        date_scheduled: null,
        appointment: null,
      });
    },
    SETUP_TIMEOUT_MS,
  );

  test(
    "taken off the appointment (DELETE …/procedures/{id}), or the appointment moved into the past: the recall is no longer scheduled",
    async () => {
      const done = plusMonths(today, -3);
      const p = await withProphy(done);
      const unscheduled = { type: "Prophy", status: "due", date_previous: done, date_due: plusMonths(done, 6), date_scheduled: null, appointment: null };
      const cleaning = await w.plan(p, "D1110");
      const day = shift(today, 30);
      const appt = (await andRecomputed(() => book(p, day, { procedure_uuids: [cleaning.id] }))).out;
      expect(await recallOf(p)).toMatchObject({ status: "scheduled", date_scheduled: day, appointment: appt.id });
      const off = await andRecomputed(() =>
        w.ok(w.t.request("DELETE", `${w.A}/appointments/${appt.id}/procedures/${cleaning.id}?base_version=1`, { token: w.token })),
      );
      expect(off.out).toMatchObject({ version: 2, procedures: [] });
      expect(off.jobs).toEqual(UPDATED);
      expect(await recallOf(p)).toEqual(unscheduled);

      // put back on, then the visit moved to yesterday: not the next one any more
      await andRecomputed(() => w.post(`/appointments/${appt.id}/procedures`, { procedure_uuids: [cleaning.id], base_version: 2 }, 200));
      expect(await recallOf(p)).toMatchObject({ status: "scheduled", date_scheduled: day });
      const yesterday = shift(today, -1);
      const moved = await andRecomputed(() =>
        w.ok(
          w.t.request("PATCH", `${w.A}/appointments/${appt.id}`, {
            token: w.token,
            body: { base_version: 3, scheduled_start: `${yesterday}T16:00:00`, scheduled_end: `${yesterday}T16:30:00` },
          }),
        ),
      );
      expect(moved.jobs).toEqual(UPDATED);
      expect(await recallOf(p)).toEqual(unscheduled);
    },
    SETUP_TIMEOUT_MS,
  );

  test(
    "an ordinary booking queues no recompute: no procedures, or a filling; moved, broken or cancelled, still none; the recall is unchanged",
    async () => {
      const done = plusMonths(today, -1);
      const p = await withProphy(done);
      const before = await w.recallsOf(p);
      const filling = await w.plan(p, "D2391", { tooth_number: "3", surfaces: "O" });
      let plain: any;
      let withFilling: any;
      expect(
        await recallJobsOf(async () => {
          plain = await book(p, shift(today, 5));
          withFilling = await book(p, shift(today, 6), { procedure_uuids: [filling.id] });
        }),
      ).toEqual([]);
      expect(withFilling).toMatchObject({ procedures: [{ uuid: filling.id, status: "scheduled" }] });
      expect(
        await recallJobsOf(async () => {
          await w.ok(
            w.t.request("PATCH", `${w.A}/appointments/${plain.id}`, {
              token: w.token,
              body: { base_version: 1, scheduled_start: `${shift(today, 8)}T15:00:00`, scheduled_end: `${shift(today, 8)}T15:30:00` },
            }),
          );
          await setStatus(plain.id, "broken", 2, "No-show");
          await setStatus(withFilling.id, "cancelled", 1);
        }),
      ).toEqual([]);
      expect(await procedure(filling.id)).toMatchObject({ status: "treatment_planned", appointment: null });
      expect(await w.recallsOf(p)).toEqual(before);
      expect(before[0]).toMatchObject({ status: "due", date_previous: done, date_due: plusMonths(done, 6), date_scheduled: null, version: 1 });
    },
    SETUP_TIMEOUT_MS,
  );
});

describe("GET {P}/recalls paged past its end", () => {
  test(
    "a page beyond the last answers items [] with the true total (filtered or not); the last page holds the rest",
    async () => {
      // an org of its own: its list holds exactly these recalls
      const org = (await w.t.createOrg(w.admin)).id;
      const P = `/api/v1/${org}`;
      const prophy = (await w.typeOf("prophy", P)).id;
      const dues = ["2031-05-03", "2031-05-10", "2031-05-17", "2020-01-10"];
      const names = ["Ada", "Ben", "Cy", "Dot"];
      for (const [i, due] of dues.entries()) {
        const p = await w.patient({ first_name: names[i], last_name: "Paging" }, P);
        await w.post(`/patients/${p.id}/recalls`, { recall_type_uuid: prophy, date_due_override: due }, 201, P);
      }
      const list = async (q: string) => {
        const r = await w.get(`/recalls?${q}`, P);
        return { rows: r.items.map((x: any) => `${x.patient.first_name}:${x.recall.date_due}`), total: r.total, page: r.page, page_size: r.page_size };
      };
      // the earliest due first: the overdue one, then May's
      expect(await list("page_size=3")).toEqual({ rows: ["Dot:2020-01-10", "Ada:2031-05-03", "Ben:2031-05-10"], total: 4, page: 1, page_size: 3 });
      expect(await list("page_size=3&page=2")).toEqual({ rows: ["Cy:2031-05-17"], total: 4, page: 2, page_size: 3 });
      for (const page of [3, 50]) expect(await list(`page_size=3&page=${page}`)).toEqual({ rows: [], total: 4, page, page_size: 3 });
      // past the end of a filtered list, the total is the filtered count
      expect(await list("status=overdue&page=2&page_size=1")).toEqual({ rows: [], total: 1, page: 2, page_size: 1 });
      expect(await list("due_from=2031-05-10&page=1&page_size=2")).toEqual({ rows: ["Ben:2031-05-10", "Cy:2031-05-17"], total: 2, page: 1, page_size: 2 });
      expect(await list("due_from=2031-05-10&page=2&page_size=2")).toEqual({ rows: [], total: 2, page: 2, page_size: 2 });
      expect(await list("sort=last_name&include_family=true&page=9&page_size=2")).toEqual({ rows: [], total: 4, page: 9, page_size: 2 });
    },
    SETUP_TIMEOUT_MS,
  );
});
