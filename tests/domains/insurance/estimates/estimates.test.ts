import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { eq } from "drizzle-orm";
import { procedureEstimates } from "@db/tenant/insurance";
import { run } from "@/platform/db/work";
import { auditOf, expectValidationCases } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { coveredPatient, estimateRows, estimateWorld, eventsOfType, MISSING, setUpOffice, SETUP_TIMEOUT_MS, type Office } from "./fixtures";

// The estimate endpoints over HTTP (docs/insurance/insurance-estimates.md, "Service"),
// with the worked examples' plans A (Delta Dental PPO) and B (Cigna PPO).

let w: Awaited<ReturnType<typeof estimateWorld>>;
let office: Office;
/** A patient and treatment plan in org B (another org's ids). */
let foreign: { patient: string; plan: string; procedure: string; estimate: string };

beforeAll(async () => {
  w = await estimateWorld();
  office = await setUpOffice(w.t, w.admin, w.orgA);
  const officeB = await setUpOffice(w.t, w.admin, w.orgB);
  const b = await coveredPatient(w.t, w.admin, officeB);
  const run = await w.t.request("POST", `${b.P}/estimate`, { token: w.admin });
  foreign = { patient: b.patient, plan: b.plan, procedure: b.procedures[0]!, estimate: run.body.estimates[0].id };
}, SETUP_TIMEOUT_MS);
afterAll(() => w.t.close());

const C = (org?: string) => `/api/v1/${org ?? w.orgA}/clinical`;
const detailPath = (id: string, org?: string) => `${C(org)}/estimates/${id}/detail`;
const overridesPath = (id: string, org?: string) => `${C(org)}/estimates/${id}/overrides`;
const planPath = (patient: string, plan: string, org?: string) => `${C(org)}/patients/${patient}/treatment-plans/${plan}`;
const deletePath = (patient: string, proc: string, est: string, version: number | string, org?: string) =>
  `${C(org)}/patients/${patient}/procedures/${proc}/estimates/${est}?base_version=${version}`;

const post = (path: string, body?: unknown, token = w.admin) => w.t.request("POST", path, { token, body });
const getAs = (path: string, token = w.admin) => w.t.request("GET", path, { token });

/** The figures of an estimate the worked examples state. */
const figures = (e: any) => ({
  ordinal: e.ordinal,
  fee_billed: e.fee_billed,
  allowed_fee: e.allowed_fee,
  write_off_estimate: e.write_off_estimate,
  deductible_applied: e.deductible_applied,
  coverage_percent: e.coverage_percent,
  base_estimate: e.base_estimate,
  insurance_estimate: e.insurance_estimate,
  paid_other_insurance: e.paid_other_insurance,
  patient_estimate: e.patient_estimate,
});

describe("POST .../estimate", () => {
  test("worked example 8 (standard COB): plan A primary (deductible met) and plan B secondary on a D2740 crown billed 1,300.00: the docs' figures, stored, explained and announced", async () => {
    const p = await coveredPatient(w.t, w.admin, office);
    const from = w.events.length;
    const r = await post(`${p.P}/estimate`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      treatment_plan_uuid: p.plan,
      estimate_count: 2,
      stale_count: 0,
      total_fee_billed: "1300.00",
      total_insurance_estimate: "850.00",
      total_write_off: "400.00",
      total_patient_estimate: "50.00",
    });
    const [a, b] = r.body.estimates;
    // | | Plan A (primary) | Plan B (secondary, standard) |
    expect(figures(a)).toEqual({
      ordinal: 1,
      fee_billed: "1300.00",
      allowed_fee: "900.00",
      write_off_estimate: "400.00",
      deductible_applied: "0.00",
      coverage_percent: 50,
      base_estimate: "450.00",
      insurance_estimate: "450.00",
      paid_other_insurance: "0.00",
      patient_estimate: "450.00",
    });
    expect(figures(b)).toEqual({
      ordinal: 2,
      fee_billed: "1300.00",
      allowed_fee: "850.00",
      write_off_estimate: "0.00",
      deductible_applied: "50.00",
      coverage_percent: 50,
      base_estimate: "400.00",
      insurance_estimate: "400.00",
      paid_other_insurance: "450.00",
      patient_estimate: "50.00",
    });
    expect(a).toMatchObject({
      charted_procedure_uuid: p.procedures[0],
      treatment_plan_uuid: p.plan,
      patient_plan_uuid: p.patientPlans[0],
      estimate_status: "estimate",
      ppo_fee: "900.00",
      copay_amount: "0.00",
      is_excluded: false,
      exclusion_reason: null,
      code_sent: "D2740",
      date_estimated: new Date().toISOString().slice(0, 10),
      is_stale: false,
      effective_allowed_fee: "900.00",
      effective_coverage_percent: "50",
      effective_insurance_estimate: "450.00",
      effective_write_off: "400.00",
      effective_deductible: "0.00",
      effective_copay: "0.00",
      has_allowed_override: false,
      has_percentage_override: false,
      version: 1,
    });
    expect(a.inputs_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(b.patient_plan_uuid).toBe(p.patientPlans[1]);

    // the secondary's waterfall, step by step (docs: example 8)
    const d = await getAs(detailPath(b.id));
    expect(d.status).toBe(200);
    expect(d.body.waterfall.map((s: any) => [s.step, s.amount, s.running])).toEqual([
      ["fee_billed", "1300.00", "1300.00"],
      ["other_plans", "850.00", "450.00"],
      ["allowed_fee", "850.00", "450.00"],
      ["write_off", "0.00", "450.00"],
      ["benefit_base", "850.00", "850.00"],
      ["deductible", "50.00", "800.00"],
      ["coverage_percent", "400.00", "400.00"],
      ["annual_maximum", "1000.00", "400.00"],
      ["coordination", "450.00", "400.00"],
      ["insurance_estimate", "400.00", "50.00"],
      ["patient_portion", "50.00", "50.00"],
    ]);
    expect(d.body).toMatchObject({
      estimate_uuid: b.id,
      has_detail: true,
      is_excluded: false,
      exclusion_reason: null,
      fee_source: "override",
      substitution_code: null,
      warnings: [],
      benefit_match: { code: "D2740", category_id: office.categories.crowns, category_name: "Crowns and onlays" },
      coverage: { category_percent: 50, deductible_applies: true },
      plan_context: { ordinal: 2, cob_method: "standard", sets_write_off: false, annual_max: "1000.00", deductible_remaining_before: "50.00" },
      tracker: { inputs_hash: b.inputs_hash, is_stale: false, calculated_at: b.calculated_at, engine_version: "1" },
    });

    // stored, audited and announced with ids only
    const rows = await estimateRows(w.t, w.orgA, p.patient);
    expect(rows.map((x) => [x.ordinal, x.insurance_estimate_cents, x.write_off_cents, x.patient_estimate_cents, x.deleted_at])).toEqual([
      [1, 45000, 40000, 45000, null],
      [2, 40000, 0, 5000, null],
    ]);
    const audit = await auditOf(w.t, w.orgA, a.id);
    expect(audit.map((e) => e.action)).toEqual(["procedure_estimate.created"]);
    expect(audit[0].after).not.toHaveProperty("detail");
    const created = await eventsOfType(w.t, w.events, "procedure_estimate.", from);
    expect(created.map((e) => [e.type, e.resource_id])).toEqual([
      ["procedure_estimate.created", a.id],
      ["procedure_estimate.created", b.id],
    ]);
    expect(created[0]!.data).toEqual({
      id: a.id,
      charted_procedure_id: p.procedures[0],
      treatment_plan_id: p.plan,
      patient_plan_id: p.patientPlans[0],
      patient_id: p.patient,
    });
  });

  test("a second run of fresh estimates writes nothing: estimate, re-estimate without a body, force false and force true", async () => {
    const p = await coveredPatient(w.t, w.admin, office, {
      procedures: [
        ["D2740", 1300, "3"],
        ["D7140", 200, "30"],
      ],
    });
    expect((await post(`${p.P}/estimate`)).status).toBe(200);
    const before = await estimateRows(w.t, w.orgA, p.patient);
    expect(before).toHaveLength(4);
    const from = w.events.length;
    for (const [path, body] of [
      ["estimate", undefined],
      ["re-estimate", undefined],
      ["re-estimate", { force: false }],
      ["re-estimate", { force: true }],
    ] as const) {
      const r = await post(`${p.P}/${path}`, body);
      expect({ path, body, status: r.status }).toEqual({ path, body, status: 200 });
      expect(r.body.estimates.map((e: any) => [e.version, e.is_stale])).toEqual([
        [1, false],
        [1, false],
        [1, false],
        [1, false],
      ]);
      expect(r.body).toMatchObject({ estimate_count: 4, stale_count: 0, total_fee_billed: "1500.00" });
    }
    expect(await estimateRows(w.t, w.orgA, p.patient)).toEqual(before);
    expect(await eventsOfType(w.t, w.events, "procedure_estimate.", from)).toEqual([]);
  });

  test("a day passing does not make an estimate stale: staleness is judged as of the date it was computed for", async () => {
    const p = await coveredPatient(w.t, w.admin, office, { procedures: [["D2740", 1300, "3"]] });
    const yesterday = new Date(Date.now() - 24 * 3600 * 1000);
    setSystemTime(yesterday);
    try {
      expect((await post(`${p.P}/estimate`)).status).toBe(200);
    } finally {
      setSystemTime();
    }
    const before = await estimateRows(w.t, w.orgA, p.patient);
    expect(before.map((r: any) => r.date_estimated)).toEqual([yesterday.toISOString().slice(0, 10), yesterday.toISOString().slice(0, 10)]);
    const s = await getAs(`${p.P}/staleness`);
    expect([s.body.stale_count, s.body.fresh_count]).toEqual([0, 2]);
    const again = await post(`${p.P}/re-estimate`, { force: false });
    expect([again.status, again.body.stale_count]).toEqual([200, 0]);
    expect(await estimateRows(w.t, w.orgA, p.patient)).toEqual(before);
  });

  test("worked example 7 (downgrade): D2392 billed 250.00 is paid as the amalgam D2150 on D2150's allowed fee", async () => {
    const p = await coveredPatient(w.t, w.admin, office, { secondary: false, procedures: [["D2392", 250, "19/MO"]] });
    const r = await post(`${p.P}/estimate`);
    expect(r.status).toBe(200);
    const [e] = r.body.estimates;
    expect(e).toMatchObject({
      allowed_fee: "160.00",
      write_off_estimate: "90.00",
      substitution_code: "D2150",
      insurance_estimate: "88.00",
      patient_estimate: "72.00",
    });
    const d = (await getAs(detailPath(e.id))).body;
    expect(d.benefit_match).toMatchObject({ code: "D2392", benefit_code: "D2150", category_id: office.categories.restorative });
    expect(d.waterfall.find((s: any) => s.step === "benefit_base").amount).toBe("110.00");
  });

  test("procedures are estimated in plan order (phase, then position): the earlier one uses the deductible", async () => {
    // D2150 is added first but in phase 2; the crown (phase 1) takes plan A's 50.00 deductible
    const p = await coveredPatient(w.t, w.admin, office, {
      secondary: false,
      deductibleMet: false,
      procedures: [
        ["D2150", 180, "30/MO", 2],
        ["D2740", 1300, "3", 1],
      ],
    });
    const r = await post(`${p.P}/estimate`);
    expect(r.status).toBe(200);
    expect(r.body.estimates.map((e: any) => [e.charted_procedure_uuid, e.deductible_applied, e.insurance_estimate, e.patient_estimate])).toEqual([
      [p.procedures[1], "50.00", "425.00", "475.00"], // 50 % × (900.00 - 50.00)
      [p.procedures[0], "0.00", "88.00", "22.00"], // 80 % × 110.00
    ]);
    expect(r.body).toMatchObject({
      total_fee_billed: "1480.00",
      total_insurance_estimate: "513.00",
      total_write_off: "470.00",
      total_patient_estimate: "497.00",
    });
  });

  test("only planned work billed to insurance is estimated; completed work keeps its estimate (never stale); uncovered and dropped estimates are deleted", async () => {
    const p = await coveredPatient(w.t, w.admin, office, {
      procedures: [
        ["D2740", 1300, "3"],
        ["D0150", 110],
        ["D2150", 180, "30/MO"],
      ],
    });
    const first = await post(`${p.P}/estimate`);
    expect(first.body.estimate_count).toBe(6);
    const byProc = (body: any, proc: string) => body.estimates.filter((e: any) => e.charted_procedure_uuid === proc);
    const [crown, exam, filling] = p.procedures as [string, string, string];
    const procPath = (id: string) => `${C()}/procedures/${id}`;
    const version = async (id: string) => (await getAs(procPath(id))).body.version;

    // the exam is no longer billed to insurance; the filling is done
    expect(
      (await w.t.request("PATCH", procPath(exam), { token: w.admin, body: { base_version: await version(exam), do_not_bill_insurance: true } })).status,
    ).toBe(200);
    expect((await w.t.request("PATCH", procPath(filling), { token: w.admin, body: { base_version: await version(filling), status: "complete" } })).status).toBe(
      200,
    );
    const staleness = await getAs(`${p.P}/staleness`);
    expect(staleness.body.estimates.filter((e: any) => e.charted_procedure_uuid === filling).map((e: any) => e.is_stale)).toEqual([false, false]);
    expect(staleness.body.estimates.filter((e: any) => e.charted_procedure_uuid === exam).map((e: any) => e.is_stale)).toEqual([true, true]);

    const from = w.events.length;
    const again = await post(`${p.P}/re-estimate`, { force: false });
    expect(again.status).toBe(200);
    expect(byProc(again.body, exam)).toEqual([]);
    expect(byProc(again.body, filling).map((e: any) => [e.version, e.is_stale])).toEqual([
      [1, false],
      [1, false],
    ]);
    expect(byProc(again.body, crown).map((e: any) => e.is_stale)).toEqual([false, false]);
    const examRows = (await estimateRows(w.t, w.orgA, p.patient)).filter((x) => x.charted_procedure_id === exam);
    expect(examRows.map((x) => x.deleted_at !== null)).toEqual([true, true]);
    const deleted = (await eventsOfType(w.t, w.events, "procedure_estimate.deleted", from)).map((e) => e.resource_id).sort();
    expect(deleted).toEqual(examRows.map((x) => x.id).sort());

    // the secondary stops: its estimates are deleted by the next run, the primary's stay
    const pp2 = (await getAs(`/api/v1/${w.orgA}/insurance/patient-plans/${p.patientPlans[1]}`)).body;
    expect(
      (
        await w.t.request("PATCH", `/api/v1/${w.orgA}/insurance/patient-plans/${pp2.id}`, {
          token: w.admin,
          body: { base_version: pp2.version, is_active: false },
        })
      ).status,
    ).toBe(200);
    const primaryOnly = await post(`${p.P}/re-estimate`);
    expect(byProc(primaryOnly.body, crown).map((e: any) => e.ordinal)).toEqual([1]);
    // completed work keeps both its estimates (what the benefits used count)
    const done = byProc(primaryOnly.body, filling);
    expect(done.map((e: any) => e.ordinal)).toEqual([1, 2]);

    // an override on completed work cannot be recomputed: it is stored as entered (and counts in the benefits used)
    const o = await w.t.request("PATCH", overridesPath(done[0].id), {
      token: w.admin,
      body: { base_version: done[0].version, insurance_estimate_override: 50 },
    });
    expect(o.status).toBe(200);
    expect(o.body).toMatchObject({
      version: done[0].version + 1,
      insurance_estimate: done[0].insurance_estimate,
      effective_insurance_estimate: "50.00",
      has_insurance_estimate_override: true,
      is_stale: false,
    });
    const used = await getAs(`/api/v1/${w.orgA}/insurance/patient-plans/${p.patientPlans[0]}/benefits`);
    expect(used.body.annual_max_used).toBe("50.00");
  });
});

describe("reading estimates", () => {
  let p: Awaited<ReturnType<typeof coveredPatient>>;
  let estimates: any[];
  beforeAll(async () => {
    p = await coveredPatient(w.t, w.admin, office, {
      procedures: [
        ["D2740", 1300, "3"],
        ["D7140", 200, "30"],
      ],
    });
    estimates = (await post(`${p.P}/estimate`)).body.estimates;
  });

  test("GET .../estimates lists the plan's estimates in plan order with effective values; GET .../staleness counts them", async () => {
    const list = await getAs(`${p.P}/estimates`, w.reader);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(4);
    expect(list.body.items).toEqual(estimates);
    expect(list.body.items.map((e: any) => [e.charted_procedure_uuid, e.ordinal, e.effective_insurance_estimate, e.is_stale])).toEqual([
      [p.procedures[0], 1, "450.00", false],
      [p.procedures[0], 2, "400.00", false],
      [p.procedures[1], 1, "104.00", false], // example 1: 80 % × 130.00
      [p.procedures[1], 2, "0.00", false], // plan B does not cover oral surgery
    ]);
    expect(estimates[3]).toMatchObject({ is_excluded: true, exclusion_reason: "not_covered" });
    const s = await getAs(`${p.P}/staleness`, w.reader);
    expect(s.status).toBe(200);
    expect(s.body).toEqual({
      treatment_plan_uuid: p.plan,
      total_estimates: 4,
      fresh_count: 4,
      stale_count: 0,
      estimates: estimates.map((e) => ({
        estimate_uuid: e.id,
        charted_procedure_uuid: e.charted_procedure_uuid,
        ordinal: e.ordinal,
        is_stale: false,
        has_override: false,
        calculated_at: e.calculated_at,
      })),
    });
  });

  test("a plan without estimates lists none", async () => {
    const q = await coveredPatient(w.t, w.admin, office);
    expect((await getAs(`${q.P}/estimates`)).body).toEqual({ items: [], total: 0 });
    expect((await getAs(`${q.P}/staleness`)).body).toEqual({ treatment_plan_uuid: q.plan, total_estimates: 0, fresh_count: 0, stale_count: 0, estimates: [] });
  });

  test("401 without a token, 403 without clinical.read, 404 for a missing patient or plan, another patient's plan and another org's ids", async () => {
    const other = await coveredPatient(w.t, w.admin, office, { primary: false });
    for (const suffix of ["estimates", "staleness"]) {
      expect((await w.t.request("GET", `${p.P}/${suffix}`)).status).toBe(401);
      for (const token of [w.estimator, w.outsider]) expect((await getAs(`${p.P}/${suffix}`, token)).status).toBe(403);
      for (const path of [
        planPath(MISSING, p.plan),
        planPath(p.patient, MISSING),
        planPath(p.patient, other.plan),
        planPath(other.patient, p.plan),
        planPath(foreign.patient, foreign.plan),
        planPath(p.patient, p.plan, w.orgB),
      ]) {
        const r = await getAs(`${path}/${suffix}`);
        expect({ path, status: r.status, code: r.body.code }).toEqual({ path, status: 404, code: "not_found" });
      }
    }
  });

  test("GET /estimates/{id}/detail: 401, 403, 404 (missing, deleted, another org's); has_detail false without a stored explanation", async () => {
    const id = estimates[2].id;
    expect((await w.t.request("GET", detailPath(id))).status).toBe(401);
    expect((await getAs(detailPath(id), w.estimator)).status).toBe(403);
    expect((await getAs(detailPath(id), w.outsider)).status).toBe(403);
    for (const path of [detailPath(MISSING), detailPath(foreign.estimate), detailPath(id, w.orgB)]) expect((await getAs(path)).status).toBe(404);
    expect((await getAs(detailPath(id), w.reader)).body).toMatchObject({ estimate_uuid: id, has_detail: true, fee_source: "override" });

    const db = await orgDb(w.t, w.orgA);
    await db.write((tx) => run(tx.update(procedureEstimates).set({ detail: null }).where(eq(procedureEstimates.id, id))));
    expect((await getAs(detailPath(id))).body).toEqual({
      estimate_uuid: id,
      has_detail: false,
      benefit_match: null,
      coverage: null,
      exclusion_reason: null,
      fee_source: null,
      is_excluded: false,
      plan_context: null,
      substitution_code: null,
      tracker: { inputs_hash: estimates[2].inputs_hash, is_stale: false, calculated_at: estimates[2].calculated_at, engine_version: null },
      warnings: [],
      waterfall: [],
    });
    // force true rewrites an estimate whose figures differ from a recomputation (here its explanation), force false does not
    expect((await post(`${p.P}/re-estimate`)).body.estimates[2].version).toBe(1);
    expect((await post(`${p.P}/re-estimate`, { force: true })).body.estimates[2].version).toBe(2);
    expect((await getAs(detailPath(id))).body.has_detail).toBe(true);

    await db.write((tx) => run(tx.update(procedureEstimates).set({ deleted_at: new Date().toISOString() }).where(eq(procedureEstimates.id, id))));
    expect((await getAs(detailPath(id))).status).toBe(404);
  });
});

describe("refusals of POST .../estimate and .../re-estimate change nothing", () => {
  test("401, 403, 404 (missing, another patient's plan, a deleted plan, another org's ids), 422 no_active_insurance and validation", async () => {
    const p = await coveredPatient(w.t, w.admin, office);
    const uninsured = await coveredPatient(w.t, w.admin, office, { primary: false });
    const gone = await coveredPatient(w.t, w.admin, office);
    expect((await w.t.request("DELETE", `${planPath(gone.patient, gone.plan)}?base_version=2`, { token: w.admin })).status).toBe(204);
    const before = await estimateRows(w.t, w.orgA);
    const beforeB = await estimateRows(w.t, w.orgB);

    for (const suffix of ["estimate", "re-estimate"]) {
      expect((await w.t.request("POST", `${p.P}/${suffix}`)).status).toBe(401);
      for (const token of [w.reader, w.outsider]) expect((await post(`${p.P}/${suffix}`, undefined, token)).status).toBe(403);
      for (const path of [
        planPath(MISSING, p.plan),
        planPath(p.patient, MISSING),
        planPath(p.patient, uninsured.plan),
        planPath(gone.patient, gone.plan),
        planPath(foreign.patient, foreign.plan),
        planPath(p.patient, p.plan, w.orgB),
      ]) {
        const r = await post(`${path}/${suffix}`);
        expect({ path, status: r.status }).toEqual({ path, status: 404 });
      }
      const r = await post(`${uninsured.P}/${suffix}`);
      expect(r.status).toBe(422);
      expect(r.body).toMatchObject({ code: "no_active_insurance", detail: [{ loc: ["path", "patient_uuid"], type: "value_error" }] });
    }
    await expectValidationCases(w.t, "POST", `${p.P}/re-estimate`, w.admin, [
      [{ force: "yes" }, ["body", "force"], "type_error"],
      [{ force: true, everything: true }, ["body", "everything"], "extra_forbidden"],
    ]);
    expect(await estimateRows(w.t, w.orgA)).toEqual(before);
    expect(await estimateRows(w.t, w.orgB)).toEqual(beforeB);
  });
});

describe("staleness", () => {
  test("changing a plan's coverage percent makes the estimates computed from it stale; re-estimate (force false) rewrites only those", async () => {
    const office2 = await setUpOffice(w.t, w.admin, w.orgA);
    const p = await coveredPatient(w.t, w.admin, office2, {
      procedures: [
        ["D2740", 1300, "3"],
        ["D7140", 200, "30"],
      ],
    });
    const first = (await post(`${p.P}/estimate`)).body.estimates;
    const planUrl = (id: string) => `/api/v1/${w.orgA}/insurance/plans/${id}`;
    const setCrowns = async (planId: string, percent: number, others: Record<string, number>) => {
      const plan = (await getAs(planUrl(planId))).body;
      const coverage = plan.coverage.map((c: any) => ({
        category_uuid: c.category.uuid,
        percent: c.category.uuid === office2.categories.crowns ? percent : (others[c.category.uuid] ?? c.percent),
      }));
      const r = await w.t.request("PATCH", planUrl(planId), { token: w.admin, body: { base_version: plan.version, coverage } });
      expect(r.status).toBe(200);
    };

    // plan B (the secondary) pays crowns at 60 %: the secondary's estimates are stale, the primary's are not
    await setCrowns(office2.planB, 60, {});
    const s1 = (await getAs(`${p.P}/staleness`)).body;
    expect(s1).toMatchObject({ total_estimates: 4, fresh_count: 2, stale_count: 2 });
    expect(s1.estimates.map((e: any) => [e.ordinal, e.is_stale])).toEqual([
      [1, false],
      [2, true],
      [1, false],
      [2, true],
    ]);
    expect((await getAs(`${p.P}/estimates`)).body.items.map((e: any) => e.is_stale)).toEqual([false, true, false, true]);
    expect((await getAs(detailPath(first[1].id))).body.tracker.is_stale).toBe(true);

    const from = w.events.length;
    const r = await post(`${p.P}/re-estimate`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      stale_count: 2,
      estimate_count: 4,
      total_insurance_estimate: "1004.00",
      total_write_off: "470.00",
      total_patient_estimate: "26.00",
    });
    expect(r.body.estimates.map((e: any) => [e.ordinal, e.version, e.is_stale])).toEqual([
      [1, 1, false],
      [2, 2, false],
      [1, 1, false],
      [2, 2, false],
    ]);
    // 60 % × (850.00 - 50.00) = 480.00, limited to the balance 450.00: the patient owes nothing for the crown
    expect(figures(r.body.estimates[1])).toMatchObject({ base_estimate: "480.00", insurance_estimate: "450.00", patient_estimate: "0.00" });
    const updated = await eventsOfType(w.t, w.events, "procedure_estimate.", from);
    expect(updated.map((e) => [e.type, e.resource_id])).toEqual([
      ["procedure_estimate.updated", first[1].id],
      ["procedure_estimate.updated", first[3].id],
    ]);
    expect(updated[0]!.data.changed_fields).toEqual(
      expect.arrayContaining(["base_estimate", "insurance_estimate", "patient_estimate", "inputs_hash", "detail"]),
    );
    expect((await getAs(`${p.P}/staleness`)).body).toMatchObject({ fresh_count: 4, stale_count: 0 });

    // plan A (the primary) changes: every estimate is stale (a secondary pays after the primary)
    await setCrowns(office2.planA, 60, {});
    expect((await getAs(`${p.P}/staleness`)).body).toMatchObject({ fresh_count: 0, stale_count: 4 });
    const r2 = await post(`${p.P}/re-estimate`, { force: false });
    expect(r2.body.stale_count).toBe(4);
    expect(figures(r2.body.estimates[0])).toMatchObject({ insurance_estimate: "540.00", patient_estimate: "360.00" });
    expect(figures(r2.body.estimates[1])).toMatchObject({ insurance_estimate: "360.00", patient_estimate: "0.00" });
    expect((await getAs(`${p.P}/staleness`)).body.stale_count).toBe(0);

    // no active insurance now: every estimate is stale, and the estimate is refused with nothing written
    for (const id of p.patientPlans) {
      const pp = (await getAs(`/api/v1/${w.orgA}/insurance/patient-plans/${id}`)).body;
      await w.t.request("PATCH", `/api/v1/${w.orgA}/insurance/patient-plans/${id}`, { token: w.admin, body: { base_version: pp.version, is_active: false } });
    }
    const rows = await estimateRows(w.t, w.orgA, p.patient);
    expect((await getAs(`${p.P}/staleness`)).body).toMatchObject({ total_estimates: 4, fresh_count: 0, stale_count: 4 });
    expect((await post(`${p.P}/re-estimate`)).body.code).toBe("no_active_insurance");
    expect(await estimateRows(w.t, w.orgA, p.patient)).toEqual(rows);
  });
});

describe("PATCH /estimates/{id}/overrides", () => {
  test("an override replaces its step, later estimates follow in the same request, only fields present change, null clears", async () => {
    const p = await coveredPatient(w.t, w.admin, office, {
      procedures: [
        ["D2740", 1300, "3"],
        ["D7140", 200, "30"],
      ],
    });
    const [crownA, , extA] = (await post(`${p.P}/estimate`)).body.estimates;
    const from = w.events.length;

    // example 12's first row: percentage 60 on the crown (plan A)
    const r = await w.t.request("PATCH", overridesPath(crownA.id), { token: w.estimator, body: { base_version: 1, percentage_override: 60 } });
    expect(r.status).toBe(200);
    expect(r.headers.get("etag")).toBe('"2"');
    expect(r.body).toMatchObject({
      id: crownA.id,
      version: 2,
      coverage_percent: 50,
      base_estimate: "540.00",
      insurance_estimate: "540.00",
      effective_coverage_percent: "60",
      effective_insurance_estimate: "540.00",
      patient_estimate: "360.00",
      has_percentage_override: true,
      has_allowed_override: false,
      is_stale: false,
    });
    const list = (await getAs(`${p.P}/estimates`)).body.items;
    // the secondary pays what is left (360.00); the extraction sees 540.00 of the maximum used
    expect(list.map((e: any) => [e.version, e.effective_insurance_estimate, e.patient_estimate, e.is_stale])).toEqual([
      [2, "540.00", "360.00", false],
      [2, "360.00", "0.00", false],
      [2, "104.00", "26.00", false],
      [2, "0.00", "26.00", false],
    ]);
    const extDetail = (await getAs(detailPath(extA.id))).body;
    expect(extDetail.plan_context.annual_max_remaining_before).toBe("960.00");
    // each estimate written once
    const written = await eventsOfType(w.t, w.events, "procedure_estimate.", from);
    expect(written.map((e) => e.type)).toEqual(Array(4).fill("procedure_estimate.updated"));
    expect(new Set(written.map((e) => e.resource_id)).size).toBe(4);
    expect((await auditOf(w.t, w.orgA, crownA.id)).map((e) => e.action)).toEqual(["procedure_estimate.created", "procedure_estimate.updated"]);

    // only the fields present change
    const r2 = await w.t.request("PATCH", overridesPath(crownA.id), { token: w.admin, body: { base_version: 2, allowed_override: 1000 } });
    expect(r2.body).toMatchObject({
      version: 3,
      allowed_fee: "900.00",
      effective_allowed_fee: "1000.00",
      effective_write_off: "300.00",
      effective_coverage_percent: "60",
      effective_insurance_estimate: "600.00",
      has_allowed_override: true,
      has_percentage_override: true,
    });
    expect((await getAs(`${p.P}/staleness`)).body.estimates[0].has_override).toBe(true);

    // null clears: back to the calculated values
    const r3 = await w.t.request("PATCH", overridesPath(crownA.id), {
      token: w.admin,
      body: { base_version: 3, allowed_override: null, percentage_override: null },
    });
    expect(r3.body).toMatchObject({
      version: 4,
      effective_allowed_fee: "900.00",
      effective_insurance_estimate: "450.00",
      has_allowed_override: false,
      has_percentage_override: false,
    });
    expect((await getAs(`${p.P}/estimates`)).body.items[1]).toMatchObject({ effective_insurance_estimate: "400.00", patient_estimate: "50.00" });

    // an override beyond what can be paid is clamped, with a warning (the balance after the write-off is 900.00)
    const r4 = await w.t.request("PATCH", overridesPath(crownA.id), { token: w.admin, body: { base_version: 4, insurance_estimate_override: 2000 } });
    expect(r4.body).toMatchObject({
      insurance_estimate: "450.00",
      effective_insurance_estimate: "900.00",
      patient_estimate: "0.00",
      has_insurance_estimate_override: true,
    });
    expect((await getAs(detailPath(crownA.id))).body.warnings.map((x: any) => x.code)).toContain("override_clamped");

    // the same values again change nothing
    const same = await w.t.request("PATCH", overridesPath(crownA.id), { token: w.admin, body: { base_version: 5, insurance_estimate_override: 2000 } });
    expect(same.body.version).toBe(5);
  });

  test("401, 403, 404 (missing, another org's), 409 stale base_version and 422 validation change nothing", async () => {
    const p = await coveredPatient(w.t, w.admin, office);
    const [est] = (await post(`${p.P}/estimate`)).body.estimates;
    const before = await estimateRows(w.t, w.orgA, p.patient);
    const patch = (path: string, body: unknown, token?: string) => w.t.request("PATCH", path, { token, body });
    expect((await patch(overridesPath(est.id), { base_version: 1, percentage_override: 60 })).status).toBe(401);
    expect((await patch(overridesPath(est.id), { base_version: 1, percentage_override: 60 }, w.reader)).status).toBe(403);
    for (const path of [overridesPath(MISSING), overridesPath(foreign.estimate), overridesPath(est.id, w.orgB)]) {
      expect((await patch(path, { base_version: 1, percentage_override: 60 }, w.admin)).status).toBe(404);
    }
    const stale = await patch(overridesPath(est.id), { base_version: 7, percentage_override: 60 }, w.admin);
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    await expectValidationCases(w.t, "PATCH", overridesPath(est.id), w.admin, [
      [{ percentage_override: 60 }, ["body", "base_version"], "missing"],
      [{ base_version: 1, percentage_override: 101 }, ["body", "percentage_override"], "out_of_range"],
      [{ base_version: 1, percentage_override: 12.5 }, ["body", "percentage_override"], "type_error"],
      [{ base_version: 1, allowed_override: -1 }, ["body", "allowed_override"], "out_of_range"],
      [{ base_version: 1, copay_override: 10.005 }, ["body", "copay_override"], "value_error"],
      [{ base_version: 1, write_off_override: "10" }, ["body", "write_off_override"], "type_error"],
      [{ base_version: 1, fee_override: 10 }, ["body", "fee_override"], "extra_forbidden"],
    ]);
    expect(await estimateRows(w.t, w.orgA, p.patient)).toEqual(before);
  });
});

describe("DELETE /patients/{p}/procedures/{proc}/estimates/{id}", () => {
  test("204 soft delete with an event; then 404; the next run computes it again", async () => {
    const p = await coveredPatient(w.t, w.admin, office);
    const [a, b] = (await post(`${p.P}/estimate`)).body.estimates;
    const from = w.events.length;
    const r = await w.t.request("DELETE", deletePath(p.patient, p.procedures[0]!, b.id, 1), { token: w.estimator });
    expect(r.status).toBe(204);
    expect((await getAs(`${p.P}/estimates`)).body.items.map((e: any) => e.id)).toEqual([a.id]);
    const row = (await estimateRows(w.t, w.orgA, p.patient)).find((x) => x.id === b.id);
    expect(row.deleted_at).not.toBeNull();
    expect(row.version).toBe(2);
    const events = await eventsOfType(w.t, w.events, "procedure_estimate.", from);
    expect(events.map((e) => [e.type, e.resource_id, e.data])).toEqual([
      ["procedure_estimate.deleted", b.id, { id: b.id, charted_procedure_id: p.procedures[0], treatment_plan_id: p.plan, patient_id: p.patient }],
    ]);
    expect((await w.t.request("DELETE", deletePath(p.patient, p.procedures[0]!, b.id, 2), { token: w.admin })).status).toBe(404);
    const again = await post(`${p.P}/re-estimate`);
    expect(again.body.estimates.map((e: any) => e.ordinal)).toEqual([1, 2]);
    expect(again.body.estimates[1].id).not.toBe(b.id);
  });

  test("401, 403, 404 (missing, another procedure's, another patient's, another org's), 409 stale change nothing", async () => {
    const p = await coveredPatient(w.t, w.admin, office, {
      procedures: [
        ["D2740", 1300, "3"],
        ["D7140", 200, "30"],
      ],
    });
    const other = await coveredPatient(w.t, w.admin, office);
    const [est] = (await post(`${p.P}/estimate`)).body.estimates;
    const before = await estimateRows(w.t, w.orgA);
    const del = (path: string, token?: string) => w.t.request("DELETE", path, { token });
    const path = deletePath(p.patient, p.procedures[0]!, est.id, 1);
    expect((await del(path)).status).toBe(401);
    expect((await del(path, w.reader)).status).toBe(403);
    for (const bad of [
      deletePath(p.patient, p.procedures[0]!, MISSING, 1),
      deletePath(p.patient, p.procedures[1]!, est.id, 1),
      deletePath(other.patient, other.procedures[0]!, est.id, 1),
      deletePath(other.patient, p.procedures[0]!, est.id, 1),
      deletePath(MISSING, p.procedures[0]!, est.id, 1),
      deletePath(foreign.patient, foreign.procedure, foreign.estimate, 1),
      deletePath(p.patient, p.procedures[0]!, est.id, 1, w.orgB),
    ]) {
      const r = await del(bad, w.admin);
      expect({ bad, status: r.status }).toEqual({ bad, status: 404 });
    }
    const stale = await del(deletePath(p.patient, p.procedures[0]!, est.id, 3), w.admin);
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe("version_conflict");
    expect((await del(`${C()}/patients/${p.patient}/procedures/${p.procedures[0]}/estimates/${est.id}`, w.admin)).status).toBe(422);
    expect(await estimateRows(w.t, w.orgA)).toEqual(before);
  });
});
