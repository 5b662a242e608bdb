import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { benefitAdjustments } from "@db/tenant/insurance";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { run } from "@/platform/db/work";
import type { EventEnvelope } from "@/platform/events/envelope";
import { benefitsUsed, benefitYear, loadCoverage } from "@/domains/insurance/patient-plans/benefits";
import { auditOf, type TestApp } from "@tests/helpers";
import {
  coverageChanges,
  created,
  createPatient,
  insertCarrier,
  insertEstimate,
  MISSING,
  orgDb,
  planWorld,
  storedRow,
  storedRows,
  systemCategories,
} from "@tests/domains/insurance/plans/fixtures";

let t: TestApp;
let admin: string;
let reader: string;
let outsider: string;
let orgA: string;
let orgB: string;
let events: EventEnvelope[];
let P: (org?: string) => string;
let carrier: { id: string; name: string };
let plan: any; // July benefit year, $1,500 max, $50 / $150 deductibles
let location: any;

const pps = (org?: string) => `${P(org)}/patient-plans`;
const benefits = (id: string, qs = "", org?: string) => `${pps(org)}/${id}/benefits${qs}`;
const adjustments = (id: string, org?: string) => `${pps(org)}/${id}/benefit-adjustments`;

const codeIds = new Map<string, string>();
async function codeId(code: string) {
  if (!codeIds.has(code)) {
    const r = await t.request("GET", `/api/v1/${orgA}/codes/procedure-codes?search=${code}`, { token: admin });
    codeIds.set(code, r.body.items.find((c: { code: string }) => c.code === code).id);
  }
  return codeIds.get(code)!;
}
/** A charted procedure through the API: complete on `date` unless another status is given. */
async function chart(patientId: string, date: string, status = "complete", code = "D0120") {
  return created(t, admin, `/api/v1/${orgA}/clinical/patients/${patientId}/procedures`, {
    procedure_code_uuid: await codeId(code),
    status,
    date_service: date,
  });
}

/** A family on one card: the subscriber, a spouse and a child, each with a patient plan. */
async function family(planId = plan.id) {
  const subscriber = await created(t, admin, `/api/v1/${orgA}/patients`, { first_name: "Sub", last_name: "Scriber", location_uuid: location.id });
  const spouse = await createPatient(t, admin, orgA, "Spo");
  const kid = await createPatient(t, admin, orgA, "Kid");
  const subscription = await created(t, admin, `${P()}/subscriptions`, { plan_uuid: planId, subscriber_patient_uuid: subscriber.id });
  const cover = (patientId: string, relationship?: string) =>
    created(t, admin, pps(), { patient_uuid: patientId, subscription_uuid: subscription.id, ...(relationship ? { relationship } : {}) });
  return {
    subscriber,
    spouse,
    kid,
    subscription,
    own: await cover(subscriber.id),
    spousePlan: await cover(spouse.id, "spouse"),
    kidPlan: await cover(kid.id, "child"),
  };
}

beforeAll(async () => {
  ({ t, admin, reader, outsider, orgA, orgB, events, P } = await planWorld());
  carrier = await insertCarrier(t, orgA, "United Concordia");
  const cats = await systemCategories(t, orgA);
  plan = await created(t, admin, `${P()}/plans`, {
    carrier_uuid: carrier.id,
    plan_name: "UCCI PPO",
    benefit_year_start_month: 7,
    annual_max: 1500,
    deductible_individual: 50,
    deductible_family: 150,
    deductible_category_uuids: [cats.restorative!.id],
    coverage: [{ category_uuid: cats.diagnostic!.id, percent: 100 }],
  });
  location = await created(t, admin, `/api/v1/${orgA}/locations`, { name: "Harbor", timezone: "Pacific/Kiritimati" });
});
afterAll(() => t.close());

describe("benefitYear", () => {
  test("the year holding a date, from the plan's start month", () => {
    expect(benefitYear(1, "2025-01-01")).toEqual({ start: "2025-01-01", end: "2025-12-31" });
    expect(benefitYear(1, "2025-12-31")).toEqual({ start: "2025-01-01", end: "2025-12-31" });
    expect(benefitYear(7, "2025-06-30")).toEqual({ start: "2024-07-01", end: "2025-06-30" });
    expect(benefitYear(7, "2025-07-01")).toEqual({ start: "2025-07-01", end: "2026-06-30" });
    expect(benefitYear(3, "2024-02-29")).toEqual({ start: "2023-03-01", end: "2024-02-29" });
    expect(benefitYear(3, "2024-03-01")).toEqual({ start: "2024-03-01", end: "2025-02-28" });
    expect(benefitYear(12, "2025-11-30")).toEqual({ start: "2024-12-01", end: "2025-11-30" });
  });

  test("the last years a date can name: a year starting in 9999 ends in 9999 or 10000 without a 500 (found by the fuzz test)", () => {
    expect(benefitYear(1, "9999-12-31")).toEqual({ start: "9999-01-01", end: "9999-12-31" });
    expect(benefitYear(7, "9999-12-31")).toEqual({ start: "9999-07-01", end: "10000-06-30" });
  });
});

describe("GET /insurance/patient-plans/{patient_plan_uuid}/benefits", () => {
  test("as_of on the last day a date can name answers its benefit year (was a 500)", async () => {
    const f = await family();
    const r = await t.request("GET", benefits(f.own.id, "?as_of=9999-12-31"), { token: reader });
    expect(r.status).toBe(200);
    expect([r.body.benefit_year_start, r.body.benefit_year_end]).toEqual(["9999-07-01", "10000-06-30"]);
  });

  test("a plan with nothing used: the whole maximum and deductible remain", async () => {
    const f = await family();
    const r = await t.request("GET", benefits(f.own.id, "?as_of=2025-09-01"), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      patient_plan_uuid: f.own.id,
      plan: { uuid: plan.id, name: "UCCI PPO" },
      as_of: "2025-09-01",
      benefit_year_start: "2025-07-01",
      benefit_year_end: "2026-06-30",
      annual_max: "1500.00",
      annual_max_used: "0.00",
      annual_max_remaining: "1500.00",
      deductible_individual: "50.00",
      deductible_met: "0.00",
      deductible_family: "150.00",
      family_deductible_met: "0.00",
      deductible_remaining: "50.00",
      from_procedures: { annual_max_used: "0.00", deductible_met: "0.00" },
      from_adjustments: { annual_max_used: "0.00", deductible_met: "0.00" },
    });
  });

  test("used = estimates of completed procedures dated in the year (overrides win) + adjustments of the year; the family deductible caps what remains", async () => {
    const f = await family();
    const pe = (chartedProcedureId: string, patientId: string, patientPlanId: string, v: Record<string, unknown>) =>
      insertEstimate(t, orgA, { chartedProcedureId, patientId, patientPlanId, insurance: 0, deductible: 0, ...v });
    const s = f.subscriber.id;
    // counted: complete, in the year
    await pe((await chart(s, "2025-07-01")).id, s, f.own.id, { insurance: 20000, deductible: 2000 });
    await pe((await chart(s, "2026-06-30")).id, s, f.own.id, { insurance: 10000, deductible: 0, insuranceOverride: 7550, deductibleOverride: 1000 });
    // not counted: before / after the year, not complete, an archived estimate, a deleted procedure
    await pe((await chart(s, "2025-06-30")).id, s, f.own.id, { insurance: 99900, deductible: 5000 });
    await pe((await chart(s, "2026-07-01", "treatment_planned")).id, s, f.own.id, { insurance: 99900, deductible: 5000 });
    await pe((await chart(s, "2025-08-01", "treatment_planned")).id, s, f.own.id, { insurance: 99900, deductible: 5000 });
    await pe((await chart(s, "2025-08-02")).id, s, f.own.id, { insurance: 99900, deductible: 5000, deleted: true });
    const deleted = await chart(s, "2025-08-03");
    await pe(deleted.id, s, f.own.id, { insurance: 99900, deductible: 5000 });
    // completed work cannot be deleted through the API; a deleted row must still not count
    await (await orgDb(t, orgA)).write((tx) =>
      run(tx.update(chartedProcedures).set({ deleted_at: new Date().toISOString() }).where(eq(chartedProcedures.id, deleted.id))),
    );
    // another patient's plan on the card: only the family deductible sees it
    await pe((await chart(f.kid.id, "2025-09-15")).id, f.kid.id, f.kidPlan.id, { insurance: 5000, deductible: 5000 });
    // adjustments: this year (as_of in the year), last year
    await created(t, admin, adjustments(f.own.id), { as_of: "2026-01-15", annual_max_used: 100, deductible_met: 10, note: "Other office" });
    await created(t, admin, adjustments(f.own.id), { as_of: "2025-06-01", annual_max_used: 500 });
    await created(t, admin, adjustments(f.spousePlan.id), { as_of: "2025-12-01", deductible_met: 40 });

    const r = await t.request("GET", benefits(f.own.id, "?as_of=2025-12-24"), { token: reader });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      benefit_year_start: "2025-07-01",
      benefit_year_end: "2026-06-30",
      // 200.00 + 75.50 from procedures, 100.00 adjusted
      annual_max_used: "375.50",
      annual_max_remaining: "1124.50",
      // 20.00 + 10.00 from procedures, 10.00 adjusted
      deductible_met: "40.00",
      // family: 40.00 (subscriber) + 50.00 (child) + 40.00 (spouse's adjustment)
      family_deductible_met: "130.00",
      // individual 10.00 left, family 20.00 left
      deductible_remaining: "10.00",
      from_procedures: { annual_max_used: "275.50", deductible_met: "30.00" },
      from_adjustments: { annual_max_used: "100.00", deductible_met: "10.00" },
    });
    // the spouse met 40.00 of 50.00 (10.00 left); the family has 20.00 left
    expect((await t.request("GET", benefits(f.spousePlan.id, "?as_of=2025-12-24"), { token: reader })).body).toMatchObject({
      deductible_met: "40.00",
      family_deductible_met: "130.00",
      deductible_remaining: "10.00",
    });
    // the child met the whole individual deductible
    expect((await t.request("GET", benefits(f.kidPlan.id, "?as_of=2025-12-24"), { token: reader })).body).toMatchObject({
      deductible_met: "50.00",
      deductible_remaining: "0.00",
      annual_max_used: "50.00",
    });
    // the previous benefit year holds only the 500.00 adjustment and the June procedure
    expect((await t.request("GET", benefits(f.own.id, "?as_of=2025-06-30"), { token: reader })).body).toMatchObject({
      benefit_year_start: "2024-07-01",
      annual_max_used: "1499.00",
      annual_max_remaining: "1.00",
      deductible_met: "50.00",
      deductible_remaining: "0.00",
    });
    // benefitsUsed gives the estimate service the same numbers in cents
    const used = await (await orgDb(t, orgA)).read((db) => benefitsUsed(db, f.own.id, "2025-12-24"));
    expect(used).toEqual({
      patient_plan_id: f.own.id,
      plan_id: plan.id,
      benefit_year: { start: "2025-07-01", end: "2026-06-30" },
      annual_max_cents: 150000,
      annual_max_used_cents: 37550,
      annual_max_remaining_cents: 112450,
      deductible_individual_cents: 5000,
      deductible_met_cents: 4000,
      deductible_family_cents: 15000,
      family_deductible_met_cents: 13000,
      deductible_remaining_cents: 1000,
      from_procedures: { annual_max_used_cents: 27550, deductible_met_cents: 3000 },
      from_adjustments: { annual_max_used_cents: 10000, deductible_met_cents: 1000 },
    });
  });

  test("an exhausted maximum remains 0; a plan without a maximum or family deductible answers null; as_of defaults to today in the patient's practice", async () => {
    const f = await family();
    await created(t, admin, adjustments(f.own.id), { as_of: "2025-08-01", annual_max_used: 2000 });
    expect((await t.request("GET", benefits(f.own.id, "?as_of=2025-08-01"), { token: reader })).body).toMatchObject({
      annual_max_used: "2000.00",
      annual_max_remaining: "0.00",
    });
    const open = await created(t, admin, `${P()}/plans`, { carrier_uuid: carrier.id, deductible_individual: 25 });
    const g = await family(open.id);
    const r = await t.request("GET", benefits(g.own.id), { token: reader });
    const today = Temporal.Now.plainDateISO("Pacific/Kiritimati").toString();
    expect(r.body).toMatchObject({
      as_of: today,
      benefit_year_start: `${today.slice(0, 4)}-01-01`,
      annual_max: null,
      annual_max_remaining: null,
      deductible_family: null,
      family_deductible_met: null,
      deductible_remaining: "25.00",
    });
  });

  test("404 missing, archived or another org's; 422 bad as_of; 401; 403; 404 for a non-member org", async () => {
    const f = await family();
    await t.request("POST", `${pps()}/${f.kidPlan.id}/archive?base_version=1`, { token: admin });
    for (const id of [MISSING, f.kidPlan.id]) {
      const r = await t.request("GET", benefits(id), { token: reader });
      expect([r.status, r.body]).toEqual([404, { detail: "Patient plan not found", code: "not_found" }]);
    }
    expect((await t.request("GET", benefits(f.own.id, "", orgB), { token: admin })).status).toBe(404);
    for (const qs of ["?as_of=2025-13-01", "?as_of=today", "?date=2025-01-01"]) {
      const r = await t.request("GET", benefits(f.own.id, qs), { token: reader });
      expect([qs, r.status, r.body.detail[0].loc[0]]).toEqual([qs, 422, "query"]);
    }
    expect((await t.request("GET", benefits(f.own.id))).status).toBe(401);
    expect((await t.request("GET", benefits(f.own.id), { token: outsider })).status).toBe(403);
    expect((await t.request("GET", benefits(f.own.id, "", orgB), { token: reader })).status).toBe(404);
  });
});

describe("benefit adjustments", () => {
  test("POST 201 records the benefit year holding as_of; audited; created event without the note; a coverage change for the whole card", async () => {
    const f = await family();
    const before = events.length;
    const r = await t.request("POST", adjustments(f.own.id), {
      token: admin,
      body: { as_of: "2026-02-10", annual_max_used: 312.4, deductible_met: 50, note: "Used at Dr. Smith's office" },
    });
    expect(r.status).toBe(201);
    expect(r.headers.get("etag")).toBe('"1"');
    expect(r.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      patient_plan: { uuid: f.own.id, name: "UCCI PPO" },
      benefit_year_start: "2025-07-01",
      benefit_year_end: "2026-06-30",
      annual_max_used: "312.40",
      deductible_met: "50.00",
      note: "Used at Dr. Smith's office",
      version: 1,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
      deleted_at: null,
    });
    expect((await auditOf(t, orgA, r.body.id)).map((a) => a.action)).toEqual(["insurance_benefit_adjustment.created"]);
    const mine = events.slice(before);
    expect(mine.map((e) => [e.type, e.practice_id, e.data])).toEqual([
      [
        "insurance_benefit_adjustment.created",
        location.id,
        { id: r.body.id, patient_plan_id: f.own.id, benefit_year_start: "2025-07-01", patient_id: f.subscriber.id },
      ],
      ["insurance.coverage_changed", null, { patient_ids: [f.subscriber.id, f.spouse.id, f.kid.id], plan_ids: [] }],
    ]);
    expect(JSON.stringify(mine)).not.toContain("Smith");
    // only one amount is fine; as_of defaults to today
    const one = await created(t, admin, adjustments(f.own.id), { deductible_met: 5 });
    expect([one.annual_max_used, one.benefit_year_start <= Temporal.Now.plainDateISO("Pacific/Kiritimati").toString()]).toEqual(["0.00", true]);
  });

  test("POST 422 when nothing is used, for negative or over-precise amounts, bad dates and fields; 422 patient_archived; 404; 401; 403; nothing is written", async () => {
    const f = await family();
    const n = (await storedRows(t, orgA, benefitAdjustments)).length;
    const cases: [Record<string, unknown>, unknown[], string][] = [
      [{}, ["body", "annual_max_used"], "value_error"],
      [{ annual_max_used: 0, deductible_met: 0 }, ["body", "annual_max_used"], "value_error"],
      [{ annual_max_used: -10 }, ["body", "annual_max_used"], "out_of_range"],
      [{ deductible_met: 1.005 }, ["body", "deductible_met"], "value_error"],
      [{ deductible_met: "5" }, ["body", "deductible_met"], "type_error"],
      [{ deductible_met: 5, as_of: "2025-02-30" }, ["body", "as_of"], "format"],
      [{ deductible_met: 5, benefit_year_start: "2025-07-01" }, ["body", "benefit_year_start"], "read_only"],
      [{ deductible_met: 5, patient_plan_uuid: f.own.id }, ["body", "patient_plan_uuid"], "extra_forbidden"],
    ];
    for (const [body, loc, type] of cases) {
      const r = await t.request("POST", adjustments(f.own.id), { token: admin, body });
      expect([JSON.stringify(body), r.status, r.body.detail[0]]).toEqual([JSON.stringify(body), 422, { loc, msg: expect.any(String), type }]);
    }
    const body = { deductible_met: 5 };
    expect((await t.request("POST", adjustments(MISSING), { token: admin, body })).status).toBe(404);
    expect((await t.request("POST", adjustments(f.own.id, orgB), { token: admin, body })).status).toBe(404);
    expect((await t.request("POST", adjustments(f.own.id), { body })).status).toBe(401);
    expect((await t.request("POST", adjustments(f.own.id), { token: reader, body })).status).toBe(403);
    expect((await t.request("POST", adjustments(f.own.id, orgB), { token: reader, body })).status).toBe(404);
    await t.request("POST", `/api/v1/${orgA}/patients/${f.kid.id}/archive`, { token: admin });
    const archived = await t.request("POST", adjustments(f.kidPlan.id), { token: admin, body });
    expect([archived.status, archived.body.code]).toEqual([422, "patient_archived"]);
    expect((await storedRows(t, orgA, benefitAdjustments)).length).toBe(n);
  });

  test("GET lists the latest benefit year first, archived left out; 404; 401; 403", async () => {
    const f = await family();
    const older = await created(t, admin, adjustments(f.own.id), { as_of: "2024-08-01", annual_max_used: 1 });
    const newer = await created(t, admin, adjustments(f.own.id), { as_of: "2025-08-01", annual_max_used: 2 });
    const gone = await created(t, admin, adjustments(f.own.id), { as_of: "2025-09-01", annual_max_used: 3 });
    await t.request("POST", `${adjustments(f.own.id)}/${gone.id}/archive?base_version=1`, { token: admin });
    await created(t, admin, adjustments(f.kidPlan.id), { annual_max_used: 4 });
    const r = await t.request("GET", adjustments(f.own.id), { token: reader });
    expect([r.status, r.body]).toEqual([200, { items: [newer, older], page: 1, page_size: 50, total: 2 }]);
    expect((await t.request("GET", `${adjustments(f.own.id)}?page_size=1&page=2`, { token: reader })).body.items).toEqual([older]);
    expect((await t.request("GET", `${adjustments(f.own.id)}?page_size=0`, { token: reader })).status).toBe(422);
    expect((await t.request("GET", adjustments(MISSING), { token: reader })).status).toBe(404);
    expect((await t.request("GET", adjustments(f.own.id))).status).toBe(401);
    expect((await t.request("GET", adjustments(f.own.id), { token: outsider })).status).toBe(403);
    expect((await t.request("GET", adjustments(f.own.id, orgB), { token: reader })).status).toBe(404);
  });

  test("archive: 200 answers the archived adjustment and the benefits drop it; 404 through another patient plan; 409 stale; 401; 403; nothing changes on refusal", async () => {
    const f = await family();
    const adj = await created(t, admin, adjustments(f.own.id), { as_of: "2025-08-01", annual_max_used: 100 });
    const at = (ppId: string, qs = "?base_version=1", org?: string) => `${adjustments(ppId, org)}/${adj.id}/archive${qs}`;
    expect((await t.request("POST", at(f.kidPlan.id), { token: admin })).status).toBe(404);
    expect((await t.request("POST", `${adjustments(f.own.id)}/${MISSING}/archive?base_version=1`, { token: admin })).status).toBe(404);
    const stale = await t.request("POST", at(f.own.id, "?base_version=2"), { token: admin });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    expect((await t.request("POST", at(f.own.id, ""), { token: admin })).status).toBe(422);
    expect((await t.request("POST", at(f.own.id))).status).toBe(401);
    expect((await t.request("POST", at(f.own.id), { token: reader })).status).toBe(403);
    expect((await t.request("POST", at(f.own.id, "?base_version=1", orgB), { token: reader })).status).toBe(404);
    expect((await storedRow(t, orgA, benefitAdjustments, adj.id)).deleted_at).toBeNull();
    const before = events.length;
    const r = await t.request("POST", at(f.own.id), { token: admin });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...adj, version: 2, updated_at: expect.any(String), deleted_at: expect.stringMatching(/Z$/) });
    expect(events.slice(before).map((e) => e.type)).toEqual(["insurance_benefit_adjustment.archived", "insurance.coverage_changed"]);
    expect(coverageChanges(events, before)[0]!.data.patient_ids).toEqual([f.subscriber.id, f.spouse.id, f.kid.id]);
    expect((await t.request("GET", benefits(f.own.id, "?as_of=2025-08-01"), { token: reader })).body.annual_max_used).toBe("0.00");
  });
});

describe("loadCoverage", () => {
  test("the patient's active plans in force on the date, primary first, with subscription, plan rules, carrier and subscriber", async () => {
    const kid = await createPatient(t, admin, orgA, "Cov");
    const parent = await created(t, admin, `/api/v1/${orgA}/patients`, { first_name: "Par", last_name: "Ent", date_of_birth: "1980-05-06" });
    const card = async (body: Record<string, unknown> = {}) =>
      created(t, admin, `${P()}/subscriptions`, { plan_uuid: plan.id, subscriber_patient_uuid: parent.id, ...body });
    const cover = async (subscriptionId: string, body: Record<string, unknown>) =>
      created(t, admin, pps(), { patient_uuid: kid.id, subscription_uuid: subscriptionId, relationship: "child", ...body });
    const secondary = await cover((await card({ effective_date: "2025-01-01" })).id, { ordinal: 2 });
    const primarySub = await card({ termination_date: "2025-12-31", subscriber_id: "P-1" });
    const primary = await cover(primarySub.id, { ordinal: 1 });
    await cover((await card()).id, { ordinal: 3, is_active: false });
    await cover((await card({ effective_date: "2026-01-01" })).id, { ordinal: 3 });
    const gone = await cover((await card()).id, { ordinal: 4 });
    await t.request("POST", `${pps()}/${gone.id}/archive?base_version=1`, { token: admin });

    const db = await orgDb(t, orgA);
    const on = (date: string) => db.read((d) => loadCoverage(d, kid.id, date));
    const june = await on("2025-06-15");
    expect(june.map((c) => c.patientPlan.id)).toEqual([primary.id, secondary.id]);
    expect(june[0]).toMatchObject({
      patientPlan: { id: primary.id, ordinal: 1, relationship: "child", is_active: true },
      subscription: { id: primarySub.id, subscriber_id: "P-1", termination_date: "2025-12-31" },
      plan: { id: plan.id, benefit_year_start_month: 7, deductible_individual_cents: 5000, coverage: [{ percent: 100 }] },
      carrierId: carrier.id,
      subscriber: { id: parent.id, first_name: "Par", last_name: "Ent", date_of_birth: "1980-05-06" },
    });
    // the termination date is the last covered day; the effective date the first
    expect((await on("2025-12-31")).map((c) => c.patientPlan.id)).toEqual([primary.id, secondary.id]);
    expect((await on("2026-01-01")).map((c) => c.patientPlan.ordinal)).toEqual([2, 3]);
    expect((await on("2024-12-31")).map((c) => c.patientPlan.id)).toEqual([primary.id]);
    expect(await db.read((d) => loadCoverage(d, MISSING, "2025-06-15"))).toEqual([]);
  });
});
