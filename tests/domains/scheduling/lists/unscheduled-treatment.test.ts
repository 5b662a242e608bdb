import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, sql } from "drizzle-orm";
import { appointments } from "@db/tenant/appointments";
import { chartedProcedures, unscheduledTreatmentTotals } from "@db/tenant/charted-procedures";
import { all, run } from "@/platform/db/work";
import { patients } from "@db/tenant/patients";
import { expectGuarded, twoOrgApp, type TestApp } from "@tests/helpers";
import { createLocation, createPatient, createProvider, createType, patchRow } from "@tests/domains/scheduling/appointments/fixtures";
import { insertPlan, insertPreference, insertProcedure, insertRow, orgDb, seededCodes, type Code } from "./fixtures";

// GET {P}/schedule/lists/unscheduled-treatment: planned work on no live appointment, per patient.

let t: TestApp;
let admin: string;
let orgA: string;
let orgB: string;
let URL_A: string;
let reader: string;
const MISSING = "01970000-0000-7000-8000-000000000000";

// the org's cast
let L1: { id: string };
let L2: { id: string };
let drA: { id: string };
let drB: { id: string };
let P1: { id: string };
let P2: { id: string };
let P6: { id: string };
const proc: Record<string, { id: string }> = {};
const plans: Record<string, { id: string }> = {};
let codes: Record<string, Code>;

beforeAll(async () => {
  const w = await twoOrgApp({ reader: ["schedule.appointments.read"] });
  ({ t, admin, orgA, orgB } = w);
  reader = w.tokens.reader;
  URL_A = `${w.pathA}/schedule/lists/unscheduled-treatment`;
  codes = await seededCodes(t, orgA, ["D2740", "D2391", "D1110", "D0120"]);
  L1 = await createLocation(t, orgA, "America/New_York", "Uptown");
  L2 = await createLocation(t, orgA, "America/Chicago", "Lakeside");
  drA = await createProvider(t, orgA, { first_name: "Ada", last_name: "Alpha" });
  drB = await createProvider(t, orgA, { first_name: "Bo", last_name: "Beta", abbreviation: "DR2" });
  const type = await createType(t, orgA);
  const patient = (first_name: string, v: Partial<typeof patients.$inferInsert> = {}) =>
    createPatient(t, orgA, { first_name, last_name: "Planned", location_id: L1.id, primary_provider_id: drA.id, ...v });
  P1 = await patient("One", {
    mobile_phone: "+1 212 555 0101",
    home_phone: "+1 212 555 0100",
    email: "one@example.com",
    preferred_name: "Uno",
    preferred_contact_method: "email",
    preferred_confirmation_method: "phone",
    receives_sms: true,
  });
  P2 = await patient("Two", { location_id: L2.id, primary_provider_id: drB.id });
  const P3 = await patient("Three");
  const P4 = await patient("Four", { deleted_at: new Date().toISOString(), status: "archived" });
  const P5 = await patient("Five", { status: "deceased" });
  P6 = await patient("Six");
  await insertPreference(t, orgA, P1.id, { preferred_contact_method: "text" });

  const appt = (patient_id: string, status: string, start: string) =>
    insertRow(t, orgA, appointments, {
      patient_id,
      appointment_type_id: type.id,
      location_id: L2.id,
      provider_id: drB.id,
      status,
      scheduled_start: `${start}T09:00:00`,
      scheduled_end: `${start}T10:00:00`,
      start_utc: `${start}T14:00:00.000Z`,
      end_utc: `${start}T15:00:00.000Z`,
    });
  const cancelled = await appt(P2.id, "cancelled", "2026-02-02");
  const live = await appt(P2.id, "scheduled", "2026-02-03");

  // P1: a crown in an accepted plan (Dr B) and a filling in a draft plan (no provider: Dr A, the primary, stands in)
  proc.c1 = await insertProcedure(t, orgA, P1.id, codes.D2740!, {
    office_fee_cents: 120_000,
    date_treatment_planned: "2026-01-10",
    provider_id: drB.id,
    tooth_number: "30",
  });
  proc.c2 = await insertProcedure(t, orgA, P1.id, codes.D2391!, {
    office_fee_cents: 15_000,
    date_treatment_planned: "2026-02-01",
    tooth_number: "3",
    surfaces: "MO",
  });
  plans.crown = await insertPlan(t, orgA, P1.id, "Crown plan", "accepted", [proc.c1.id]);
  plans.fill = await insertPlan(t, orgA, P1.id, "Fillings", "draft", [proc.c2.id]);
  // P2 (Dr B, at L2): a prophy in no plan, a filling freed by a cancelled appointment; two on the live appointment
  proc.c3 = await insertProcedure(t, orgA, P2.id, codes.D1110!, { office_fee_cents: 9_500, date_treatment_planned: "2025-12-01", provider_id: drB.id });
  proc.c4 = await insertProcedure(t, orgA, P2.id, codes.D2391!, {
    status: "scheduled",
    appointment_id: cancelled.id,
    office_fee_cents: 20_000,
    date_treatment_planned: "2026-03-01",
    provider_id: drB.id,
  });
  await insertProcedure(t, orgA, P2.id, codes.D2391!, { status: "scheduled", appointment_id: live.id, office_fee_cents: 99_900 });
  await insertProcedure(t, orgA, P2.id, codes.D0120!, { appointment_id: live.id, office_fee_cents: 99_900 });
  // P3: completed and deleted work only; P4 archived, P5 deceased: none listed
  await insertProcedure(t, orgA, P3.id, codes.D2391!, { status: "complete", office_fee_cents: 99_900 });
  await insertProcedure(t, orgA, P3.id, codes.D2391!, { deleted_at: new Date().toISOString(), office_fee_cents: 99_900 });
  await insertProcedure(t, orgA, P4.id, codes.D2391!, { office_fee_cents: 99_900 });
  await insertProcedure(t, orgA, P5.id, codes.D2391!, { office_fee_cents: 99_900 });
  // P6: an override below the office fee; planned long ago; a proposed plan
  proc.c9 = await insertProcedure(t, orgA, P6.id, codes.D2740!, {
    office_fee_cents: 80_000,
    fee_override_cents: 50_000,
    date_treatment_planned: "2025-06-01",
    provider_id: drA.id,
  });
  plans.six = await insertPlan(t, orgA, P6.id, "Six's plan", "proposed", [proc.c9.id]);
  // org B's planned work never shows in org A
  const other = await createPatient(t, orgB, { first_name: "Other", last_name: "Org" });
  const codesB = await seededCodes(t, orgB, ["D2740"]);
  await insertProcedure(t, orgB, other.id, codesB.D2740!, { office_fee_cents: 500_000 });
});
afterAll(() => t.close());

const list = async (query = "", token = admin) => {
  const r = await t.request("GET", `${URL_A}${query}`, { token });
  if (r.status !== 200) throw new Error(`${r.status} ${r.text}`);
  return r.body;
};
/** [first name, total, procedure codes] of each row. */
const summary = (body: any) => body.items.map((i: any) => [i.patient.first_name, i.total_fee, i.procedures.map((p: any) => p.code)]);

describe("GET /schedule/lists/unscheduled-treatment", () => {
  test("200: one row per patient with planned work on no live appointment, largest total first, every field", async () => {
    const body = await list("", reader);
    expect(body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(summary(body)).toEqual([
      ["One", "1350.00", ["D2740", "D2391"]],
      ["Six", "500.00", ["D2740"]],
      ["Two", "295.00", ["D1110", "D2391"]],
    ]);
    expect(body.items[0]).toEqual({
      patient: {
        uuid: P1.id,
        first_name: "One",
        last_name: "Planned",
        preferred_name: "Uno",
        home_phone: "+1 212 555 0100",
        mobile_phone: "+1 212 555 0101",
        work_phone: null,
        email: "one@example.com",
        receives_sms: true,
        receives_email: false,
        preferred_contact_method: "text", // the scheduling preference wins over the record's "email"
        preferred_confirmation_method: "phone",
      },
      location_uuid: L1.id,
      primary_provider_uuid: drA.id,
      procedures: [
        {
          uuid: proc.c1!.id,
          code: "D2740",
          label: codes.D2740!.short_name,
          tooth_number: "30",
          surfaces: null,
          status: "treatment_planned",
          fee: "1200.00",
          date_treatment_planned: "2026-01-10",
          provider_uuid: drB.id,
          treatment_plan: { uuid: plans.crown!.id, name: "Crown plan", status: "accepted" },
        },
        {
          uuid: proc.c2!.id,
          code: "D2391",
          label: codes.D2391!.short_name,
          tooth_number: "3",
          surfaces: "MO",
          status: "treatment_planned",
          fee: "150.00",
          date_treatment_planned: "2026-02-01",
          provider_uuid: null,
          treatment_plan: { uuid: plans.fill!.id, name: "Fillings", status: "draft" },
        },
      ],
      procedure_count: 2,
      total_fee: "1350.00",
      oldest_date_treatment_planned: "2026-01-10",
    });
    // P2's filling freed by the cancelled appointment is listed as scheduled, in no plan
    expect(body.items[2].procedures[1]).toMatchObject({ uuid: proc.c4!.id, status: "scheduled", fee: "200.00", treatment_plan: null });
    expect(body.items[1].procedures[0]).toMatchObject({ fee: "500.00", treatment_plan: { uuid: plans.six!.id, status: "proposed" } });
  });

  test("sort=date: the oldest planned work first", async () => {
    const body = await list("?sort=date");
    expect(body.items.map((i: any) => [i.patient.first_name, i.oldest_date_treatment_planned])).toEqual([
      ["Six", "2025-06-01"],
      ["Two", "2025-12-01"],
      ["One", "2026-01-10"],
    ]);
  });

  test("provider_uuid: the procedure's provider, else the patient's primary; totals count the matching procedures", async () => {
    expect(summary(await list(`?provider_uuid=${drA.id}`))).toEqual([
      ["Six", "500.00", ["D2740"]],
      ["One", "150.00", ["D2391"]],
    ]);
    expect(summary(await list(`?provider_uuid=${drB.id}`))).toEqual([
      ["One", "1200.00", ["D2740"]],
      ["Two", "295.00", ["D1110", "D2391"]],
    ]);
    expect((await list(`?provider_uuid=${MISSING}`)).total).toBe(0);
  });

  test("location_uuid: the patient's home location", async () => {
    expect(summary(await list(`?location_uuid=${L2.id}`))).toEqual([["Two", "295.00", ["D1110", "D2391"]]]);
    expect(summary(await list(`?location_uuid=${L1.id}`)).map((r: any) => r[0])).toEqual(["One", "Six"]);
  });

  test("plan_status: repeated or comma separated; none is work in no plan", async () => {
    expect(summary(await list("?plan_status=accepted"))).toEqual([["One", "1200.00", ["D2740"]]]);
    expect(summary(await list("?plan_status=none"))).toEqual([["Two", "295.00", ["D1110", "D2391"]]]);
    expect(summary(await list("?plan_status=draft&plan_status=proposed"))).toEqual([
      ["Six", "500.00", ["D2740"]],
      ["One", "150.00", ["D2391"]],
    ]);
    expect(summary(await list("?plan_status=accepted,none")).map((r: any) => r[1])).toEqual(["1200.00", "295.00"]);
    expect((await list("?plan_status=rejected")).total).toBe(0);
  });

  test("min_amount / max_amount on the patient's total (both ends included)", async () => {
    expect(summary(await list("?min_amount=500")).map((r: any) => r[0])).toEqual(["One", "Six"]);
    expect(summary(await list("?max_amount=295")).map((r: any) => r[0])).toEqual(["Two"]);
    expect(summary(await list("?min_amount=300&max_amount=600.5")).map((r: any) => r[0])).toEqual(["Six"]);
    // with a provider filter the total is the provider's share: One has 150.00 of Dr A's work
    expect(summary(await list(`?provider_uuid=${drA.id}&max_amount=200`)).map((r: any) => r[0])).toEqual(["One"]);
  });

  test("paging: total counts every patient, a page past the end is empty with the total", async () => {
    const first = await list("?page_size=2");
    expect([first.total, first.items.map((i: any) => i.patient.first_name)]).toEqual([3, ["One", "Six"]]);
    const second = await list("?page_size=2&page=2");
    expect([second.total, second.page, second.items.map((i: any) => i.patient.first_name)]).toEqual([3, 2, ["Two"]]);
    const past = await list("?page_size=2&page=3");
    expect([past.total, past.items]).toEqual([3, []]);
    const filteredPast = await list(`?page=2&location_uuid=${L2.id}`);
    expect([filteredPast.total, filteredPast.items]).toEqual([1, []]);
  });

  test("booking the work takes it off the list (an appointment that is live again holds it)", async () => {
    const org = (await t.createOrg()).id;
    const P = `/api/v1/${org}/schedule/lists/unscheduled-treatment`;
    const c = await seededCodes(t, org, ["D1110"]);
    const pat = await createPatient(t, org);
    const loc = await createLocation(t, org);
    const dr = await createProvider(t, org);
    const type = await createType(t, org);
    const a = await insertRow(t, org, appointments, {
      patient_id: pat.id,
      appointment_type_id: type.id,
      location_id: loc.id,
      provider_id: dr.id,
      status: "broken",
      scheduled_start: "2026-05-04T09:00:00",
      scheduled_end: "2026-05-04T10:00:00",
      start_utc: "2026-05-04T13:00:00.000Z",
      end_utc: "2026-05-04T14:00:00.000Z",
    });
    await insertProcedure(t, org, pat.id, c.D1110!, { status: "scheduled", appointment_id: a.id, office_fee_cents: 9_000 });
    // read twice: the second answer is kept (a kept read) until the database changes
    for (let i = 0; i < 2; i++) {
      const before = await t.request("GET", P, { token: admin });
      expect([before.body.total, before.body.items[0].total_fee]).toEqual([1, "90.00"]);
    }
    await patchRow(t, org, appointments, a.id, { status: "scheduled" });
    expect((await t.request("GET", P, { token: admin })).body.total).toBe(0);
    await patchRow(t, org, appointments, a.id, { deleted_at: new Date().toISOString() });
    expect((await t.request("GET", P, { token: admin })).body.total).toBe(1);
  });

  test("422: unknown parameters, paging out of range, bad values, max_amount below min_amount", async () => {
    const cases: [string, unknown[], string][] = [
      ["?page_size=0", ["query", "page_size"], "out_of_range"],
      ["?page_size=201", ["query", "page_size"], "out_of_range"],
      ["?page=0", ["query", "page"], "out_of_range"],
      ["?sort=name", ["query", "sort"], "enum"],
      ["?plan_status=signed", ["query", "plan_status", 0], "enum"],
      ["?min_amount=-1", ["query", "min_amount"], "out_of_range"],
      ["?min_amount=abc", ["query", "min_amount"], "type_error"],
      ["?max_amount=1.234", ["query", "max_amount"], "value_error"],
      ["?provider_uuid=42", ["query", "provider_uuid"], "format"],
      ["?status=planned", ["query", "status"], "extra_forbidden"],
    ];
    for (const [query, loc, type] of cases) {
      const r = await t.request("GET", `${URL_A}${query}`, { token: admin });
      expect({ query, status: r.status, first: r.body.detail?.[0] }).toEqual({ query, status: 422, first: { loc, msg: expect.any(String), type } });
    }
    const r = await t.request("GET", `${URL_A}?min_amount=500&max_amount=100`, { token: admin });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ detail: [{ loc: ["query", "max_amount"], msg: "Must not be below min_amount", type: "value_error" }], code: "invalid_range" });
  });

  test("401, 403 without schedule.appointments.read, 404 for a member of another org", async () => {
    const token = await expectGuarded(t, orgA, orgB, "GET", URL_A, "schedule.appointments.read");
    expect((await list("", token)).total).toBe(3);
  });
});

describe("the kept per-patient totals (unscheduled_treatment_totals, kept by triggers)", () => {
  const ALL_PLAN_STATUSES = "?plan_status=draft&plan_status=proposed&plan_status=accepted&plan_status=rejected&plan_status=completed&plan_status=none";
  /** The totals table as the triggers left it, and as grouping every planned procedure afresh gives it. */
  async function keptAndFresh() {
    const db = await orgDb(t, orgA);
    const kept = await db.read(function* (tx) {
      return yield* all(tx.select().from(unscheduledTreatmentTotals).orderBy(unscheduledTreatmentTotals.patient_id));
    });
    const fresh = await db.read(function* (tx) {
      const cp = chartedProcedures;
      return yield* all(
        tx
          .select({
            patient_id: patients.id,
            total_cents: sql<number>`sum(coalesce(${cp.fee_override_cents}, ${cp.office_fee_cents}))`,
            procedure_count: sql<number>`count(*)`,
            oldest_planned: sql<string>`min(coalesce(${cp.date_treatment_planned}, ${cp.date_service}))`,
            location_id: patients.location_id,
            callable: sql<number>`(${patients.deleted_at} IS NULL AND ${patients.status} NOT IN ('deceased', 'archived'))`,
          })
          .from(cp)
          .innerJoin(patients, eq(patients.id, cp.patient_id))
          .where(
            sql`${cp.deleted_at} IS NULL AND ${cp.status} IN ('treatment_planned', 'scheduled')
              AND (${cp.appointment_id} IS NULL OR NOT EXISTS (SELECT 1 FROM appointments a WHERE a.id = ${cp.appointment_id} AND a.deleted_at IS NULL AND a.status NOT IN ('cancelled', 'broken')))`,
          )
          .groupBy(patients.id)
          .orderBy(patients.id),
      );
    });
    return {
      kept: kept.map((r: any) => ({ ...r, callable: Boolean(r.callable) })),
      fresh: (fresh as any[]).map((r) => ({ ...r, callable: Boolean(r.callable) })),
    };
  }

  test("the fast page (no per-procedure filter) and the grouped one answer alike, and the totals follow every kind of write", async () => {
    const same = async () => {
      const [fast, grouped] = [await list("?page_size=200"), await list(`${ALL_PLAN_STATUSES}&page_size=200`)];
      expect(grouped).toEqual(fast);
      for (const sort of ["?sort=date", "?min_amount=300", "?max_amount=600", `?location_uuid=${L2.id}`]) {
        expect(await list(`${ALL_PLAN_STATUSES}&${sort.slice(1)}`)).toEqual(await list(sort));
      }
      const { kept, fresh } = await keptAndFresh();
      expect(kept).toEqual(fresh);
    };
    await same();
    const db = await orgDb(t, orgA);
    const update = (table: any, id: string, v: Record<string, unknown>) =>
      db.write(function* (tx) {
        yield* run(tx.update(table).set(v).where(eq(table.id, id)));
      });
    // an override, a completion, a delete, a patient moved, archived and restored, an appointment broken and restored
    await update(chartedProcedures, proc.c2!.id, { fee_override_cents: 12_345 });
    await same();
    await update(chartedProcedures, proc.c3!.id, { status: "complete" });
    await same();
    await update(chartedProcedures, proc.c9!.id, { deleted_at: new Date().toISOString() });
    await same();
    await update(patients, P1.id, { location_id: L2.id });
    await same();
    await update(patients, P1.id, { status: "archived", deleted_at: new Date().toISOString() });
    await same();
    expect((await list()).items.map((i: any) => i.patient.first_name)).toEqual(["Two"]);
    await update(patients, P1.id, { status: "active", deleted_at: null, location_id: L1.id });
    const heldBy = (await keptAndFresh()).kept.find((r: any) => r.patient_id === P2.id) as any;
    const live = (await db.read(function* (tx) {
      return yield* all(
        tx
          .select()
          .from(appointments)
          .where(and(eq(appointments.patient_id, P2.id), eq(appointments.status, "scheduled"))),
      );
    })) as any[];
    await update(appointments, live[0].id, { status: "broken" });
    await same();
    // the live appointment's two procedures (999.00 each) are free now
    const after = (await keptAndFresh()).kept.find((r: any) => r.patient_id === P2.id) as any;
    expect(after.total_cents - heldBy.total_cents).toBe(199_800);
    await update(appointments, live[0].id, { status: "scheduled" });
    await same();
    expect(((await keptAndFresh()).kept.find((r: any) => r.patient_id === P2.id) as any).total_cents).toBe(heldBy.total_cents);
  });
});
