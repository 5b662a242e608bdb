import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { plusMonths, recallWorld, SETUP_TIMEOUT_MS, todayUtc, type RecallWorld } from "./fixtures";

// A patient walked through two years of visits, charted over HTTP, every recall
// date checked after each step (docs/recall/recall.md): cleanings on time, one
// missed (overdue), a perio diagnosis and perio maintenance (the prophy recall
// disabled, perio due three months after D4910), bitewings yearly, a pano due
// three years after it was taken, and the perio maintenance booked ahead.

let w: RecallWorld;
beforeAll(async () => {
  w = await recallWorld();
}, SETUP_TIMEOUT_MS);
afterAll(() => w.t.close());

const T = todayUtc(); // the patient has no home location: today is UTC's
// the first visit: the 5th of the month two years ago (a day every month has)
const S = `${plusMonths(T, -24).slice(0, 7)}-05`;
const at = (months: number) => plusMonths(S, months);
/** What a recall due on `due` (and not scheduled or disabled) is today. */
const dueOrOverdue = (due: string) => (due < T ? "overdue" : "due");

type Expected = Record<string, { previous: string | null; due: string; status: string; scheduled?: string | null }>;
type Step = { what: string; on?: string; codes?: [string, Record<string, unknown>?][]; then?: (patientId: string) => Promise<void>; expect: Expected };

describe("two years of a patient's visits", () => {
  test(
    "every recall date after each visit",
    async () => {
      const p = await w.patient({ first_name: "Walker", date_of_birth: "1980-04-02" });
      const prophy = await w.typeOf("prophy");
      const pano = await w.typeOf("pano");
      const bitewings = await w.typeOf("bitewings");
      const steps: Step[] = [
        {
          what: "first visit: comprehensive exam, bitewings, pano, adult cleaning: the prophy recall starts by itself",
          on: at(0),
          codes: [["D0150"], ["D0274"], ["D0330"], ["D1110"]],
          expect: { Prophy: { previous: at(0), due: at(6), status: dueOrOverdue(at(6)) } },
        },
        {
          what: "the front desk adds the pano and bitewings recalls (they do not start by themselves)",
          then: async (id) => {
            await w.post(`/patients/${id}/recalls`, { recall_type_uuid: pano.id });
            await w.post(`/patients/${id}/recalls`, { recall_type_uuid: bitewings.id });
          },
          expect: {
            Prophy: { previous: at(0), due: at(6), status: dueOrOverdue(at(6)) },
            "Panoramic X-ray": { previous: at(0), due: at(36), status: "due" },
            Bitewings: { previous: at(0), due: at(12), status: dueOrOverdue(at(12)) },
          },
        },
        {
          what: "six months later, on time: periodic exam and cleaning",
          on: at(6),
          codes: [["D0120"], ["D1110"]],
          expect: {
            Prophy: { previous: at(6), due: at(12), status: dueOrOverdue(at(12)) },
            "Panoramic X-ray": { previous: at(0), due: at(36), status: "due" },
            Bitewings: { previous: at(0), due: at(12), status: dueOrOverdue(at(12)) },
          },
        },
        {
          what: "a year in, on time: exam, cleaning and bitewings",
          on: at(12),
          codes: [["D0120"], ["D1110"], ["D0274"]],
          expect: {
            Prophy: { previous: at(12), due: at(18), status: dueOrOverdue(at(18)) },
            "Panoramic X-ray": { previous: at(0), due: at(36), status: "due" },
            Bitewings: { previous: at(12), due: at(24), status: dueOrOverdue(at(24)) },
          },
        },
        {
          what: "the 18-month cleaning is missed: the prophy recall stays due at 18 months, overdue",
          expect: {
            Prophy: { previous: at(12), due: at(18), status: "overdue" },
            "Panoramic X-ray": { previous: at(0), due: at(36), status: "due" },
            Bitewings: { previous: at(12), due: at(24), status: dueOrOverdue(at(24)) },
          },
        },
        {
          what: "20 months: a perio evaluation and scaling in four quadrants (nothing a recall counts)",
          on: at(20),
          codes: [["D0180"], ["D4341", { quadrant: "UR" }], ["D4341", { quadrant: "UL" }], ["D4341", { quadrant: "LR" }], ["D4341", { quadrant: "LL" }]],
          expect: {
            Prophy: { previous: at(12), due: at(18), status: "overdue" },
            "Panoramic X-ray": { previous: at(0), due: at(36), status: "due" },
            Bitewings: { previous: at(12), due: at(24), status: dueOrOverdue(at(24)) },
          },
        },
        {
          what: "22 months: perio maintenance: the perio recall starts, due three months later; the prophy one is disabled",
          on: at(22),
          codes: [["D4910"]],
          expect: {
            Prophy: { previous: at(12), due: at(18), status: "disabled" },
            "Perio maintenance": { previous: at(22), due: at(25), status: "due" },
            "Panoramic X-ray": { previous: at(0), due: at(36), status: "due" },
            Bitewings: { previous: at(12), due: at(24), status: dueOrOverdue(at(24)) },
          },
        },
        {
          what: "the next perio maintenance is booked: an appointment holding a D4910 at 25 months",
          then: async (id) => {
            const appointment = await bookAt(id, at(25));
            await w.plan(id, "D4910", { appointment_uuid: appointment });
          },
          expect: {
            Prophy: { previous: at(12), due: at(18), status: "disabled" },
            "Perio maintenance": { previous: at(22), due: at(25), status: "scheduled", scheduled: at(25) },
            "Panoramic X-ray": { previous: at(0), due: at(36), status: "due" },
            Bitewings: { previous: at(12), due: at(24), status: dueOrOverdue(at(24)) },
          },
        },
      ];
      for (const step of steps) {
        for (const [code, extra] of step.codes ?? []) await w.complete(p.id, code, step.on!, extra);
        await step.then?.(p.id);
        await w.recompute([p.id]);
        const got = await w.byType(p.id);
        const seen = Object.fromEntries(
          Object.entries(got).map(([name, r]) => [
            name,
            { previous: r.date_previous, due: r.date_due, status: r.status, ...(r.date_scheduled ? { scheduled: r.date_scheduled } : {}) },
          ]),
        );
        expect({ step: step.what, recalls: seen }).toEqual({ step: step.what, recalls: step.expect });
      }
      // the recompute is idempotent: once more writes nothing
      expect(await w.recompute([p.id])).toEqual({ patients: 1, created: 0, updated: 0 });
      expect((await w.recallsOf(p.id)).map((r) => r.recall_type.uuid).sort()).toEqual([prophy.id, pano.id, bitewings.id, (await w.typeOf("perio")).id].sort());
    },
    SETUP_TIMEOUT_MS,
  );
});

/** A booked appointment of the patient on `date` at 09:00 (a location, provider and type of its own). */
async function bookAt(patientId: string, date: string) {
  const location = await w.post("/locations", { name: `Walk ${date}`, timezone: "UTC" });
  const provider = await w.post("/providers", { abbreviation: "PM", first_name: "Perry", last_name: "Odont" });
  const type = await w.post("/appointment-types", { code: `PM${date.replaceAll("-", "")}`, name: "Perio maintenance", duration_minutes: 60, color: "#336699" });
  const appt = await w.post("/appointments", {
    patient_uuid: patientId,
    appointment_type_uuid: type.id,
    location_uuid: location.id,
    provider_uuid: provider.id,
    scheduled_start: `${date}T09:00:00`,
    scheduled_end: `${date}T10:00:00`,
    override_scheduling_restriction: true, // the visits' charges are owed
  });
  return appt.id as string;
}
