import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setUpOffice, SETUP_TIMEOUT_MS, type Office } from "@tests/domains/insurance/estimates/fixtures";
import { feeWorld, type FeeWorld } from "./fixtures";

// A PPO plan's fee schedule gives the allowed amounts of its estimates, before
// the estimate book; where the book has no fee for a code, the book's
// allowed_fee_schedule may. The estimate's waterfall names the schedule
// (docs/codes/fee-schedules.md, "Allowed amounts").

let w: FeeWorld;
let office: Office;
let planSchedule: { id: string; name: string };
let bookSchedule: { id: string; name: string };
let plan: string;
let patient: string;
let P: string; // the treatment plan's path
const procs: Record<string, string> = {};

beforeAll(async () => {
  w = await feeWorld();
  office = await setUpOffice(w.t, w.admin, w.orgA);
  const c = office.categories;
  planSchedule = await w.createSchedule({ name: "Acme PPO contract", schedule_type: "ppo" });
  bookSchedule = await w.createSchedule({ name: "Carrier allowed", schedule_type: "allowed" });
  const office2 = await w.createSchedule({ name: "An office schedule" });
  await w.putFees(planSchedule.id, [{ procedure_code_uuid: office.codes.D2740!, amount: 880 }]);
  await w.putFees(bookSchedule.id, [
    { procedure_code_uuid: office.codes.D7140!, amount: 120 },
    { procedure_code_uuid: office.codes.D1110!, amount: 10 },
  ]);
  await w.putFees(office2.id, [{ procedure_code_uuid: office.codes.D2150!, amount: 1 }]);
  plan = (
    await w.call(
      "POST",
      `${w.P()}/insurance/plans`,
      {
        carrier_uuid: office.carriers.delta,
        plan_name: "Acme PPO",
        plan_type: "ppo",
        fee_schedule_uuid: planSchedule.id,
        coverage: [
          { category_uuid: c.crowns, percent: 50 },
          { category_uuid: c.preventive, percent: 100 },
          { category_uuid: c.oralSurgery, percent: 80 },
          { category_uuid: c.restorative, percent: 80 },
        ],
      },
      201,
    )
  ).body.id;
  // the plan's book: its own fee for D1110, the "allowed" schedule behind it; an office schedule is no allowed amount
  const book = (
    await w.call(
      "POST",
      `${w.P()}/insurance/estimate-books`,
      { name: "Acme book", rule_type: "manual_fee_schedule", scope_type: "plan", insurance_plan_uuid: plan, allowed_fee_schedule_uuid: bookSchedule.id },
      201,
    )
  ).body.id;
  await w.call(
    "POST",
    `${w.P()}/insurance/estimate-books/${book}/allowed-fees`,
    {
      allowed_fee: 70,
      computed_at: new Date(Date.now() - 3_600_000).toISOString(),
      procedure_code_uuid: office.codes.D1110,
      resolution_scope_type: "insurance_plan",
    },
    201,
  );
  patient = (await w.createPatient({ first_name: "Alma", date_of_birth: "1980-01-01" })).id;
  const sub = (
    await w.call("POST", `${w.P()}/insurance/subscriptions`, { plan_uuid: plan, subscriber_patient_uuid: patient, effective_date: "2024-01-01" }, 201)
  ).body;
  await w.call("POST", `${w.P()}/insurance/patient-plans`, { patient_uuid: patient, subscription_uuid: sub.id, ordinal: 1 }, 201);
  const tp = (await w.call("POST", `${w.P()}/clinical/patients/${patient}/treatment-plans`, { name: "Plan" }, 201)).body;
  P = `${w.P()}/clinical/patients/${patient}/treatment-plans/${tp.id}`;
  for (const [code, fee, tooth] of [
    ["D2740", 1300, "3"],
    ["D7140", 200, "30"],
    ["D1110", 120, null],
    ["D2150", 180, "19"],
  ] as const) {
    const proc = await w.call(
      "POST",
      `${w.P()}/clinical/patients/${patient}/procedures`,
      { procedure_code_uuid: office.codes[code], fee_override: fee, ...(tooth ? { tooth_number: tooth } : {}), ...(code === "D2150" ? { surfaces: "O" } : {}) },
      201,
    );
    await w.call("POST", `${P}/procedures`, { procedure_uuid: proc.body.id }, 201);
    procs[code] = proc.body.id;
  }
}, SETUP_TIMEOUT_MS);
afterAll(() => w.t.close());

const allowedStep = async (estimateId: string) =>
  (await w.call("GET", `${w.P()}/clinical/estimates/${estimateId}/detail`, undefined, 200)).body.waterfall.find((s: any) => s.step === "allowed_fee");

describe("estimates read a PPO plan's fee schedule", () => {
  test("the plan's schedule first, then the book's fee, then the book's allowed schedule; the waterfall names the schedule", async () => {
    const run = (await w.call("POST", `${P}/estimate`, undefined, 200)).body;
    const byProc = new Map(run.estimates.map((e: any) => [e.charted_procedure_uuid, e]));
    const est = (code: string) => byProc.get(procs[code]!) as any;
    expect([est("D2740").allowed_fee, est("D2740").ppo_fee, est("D2740").write_off_estimate]).toEqual(["880.00", "880.00", "420.00"]);
    expect(await allowedStep(est("D2740").id)).toMatchObject({ amount: "880.00", note: 'the plan\'s allowed fee, from fee schedule "Acme PPO contract"' });
    // the book has no fee for D7140: its allowed schedule does
    expect(est("D7140").allowed_fee).toBe("120.00");
    expect(await allowedStep(est("D7140").id)).toMatchObject({ amount: "120.00", note: 'the plan\'s allowed fee, from fee schedule "Carrier allowed"' });
    // the book's own fee beats its schedule
    expect(est("D1110").allowed_fee).toBe("70.00");
    expect(await allowedStep(est("D1110").id)).toMatchObject({ amount: "70.00", note: "the plan's allowed fee" });
    // nothing for D2150 (an office schedule's fee is no allowed amount): the fee billed
    expect(est("D2150").allowed_fee).toBe("180.00");
    expect((await allowedStep(est("D2150").id)).note).toBe("no allowed fee for the code: the fee billed");
  });

  test("a change to the schedule's fee makes the estimate stale; re-estimating takes the new fee", async () => {
    await w.call("POST", `${P}/estimate`, undefined, 200);
    expect((await w.call("GET", `${P}/staleness`, undefined, 200)).body.stale_count).toBe(0);
    await w.putFees(planSchedule.id, [{ procedure_code_uuid: office.codes.D2740!, amount: 860 }]);
    const stale = (await w.call("GET", `${P}/staleness`, undefined, 200)).body;
    expect(stale.stale_count).toBeGreaterThanOrEqual(1);
    const run = (await w.call("POST", `${P}/re-estimate`, {}, 200)).body;
    const crown = run.estimates.find((e: any) => e.charted_procedure_uuid === procs.D2740);
    expect(crown.allowed_fee).toBe("860.00");
    // an archived schedule gives nothing: the book answers (no fee for D2740 there, nor on its schedule)
    await w.call("POST", `${w.S()}/${planSchedule.id}/archive`, undefined, 200);
    const after = (await w.call("POST", `${P}/re-estimate`, {}, 200)).body;
    expect(after.estimates.find((e: any) => e.charted_procedure_uuid === procs.D2740).allowed_fee).toBe("1300.00");
  });
});
