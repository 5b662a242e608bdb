import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  type EngineCoverageCategory,
  type EngineOverride,
  type EnginePlan,
  type EngineProcedure,
  EstimateInputError,
  estimateTreatmentPlan,
  type PlanEstimate,
} from "@/domains/insurance/estimates/engine";
import { percentOf } from "@/domains/insurance/estimates/engine/arith";
import { inRange, matchCategory, matchExclusionSpan, parseCodeSpec } from "@/domains/insurance/estimates/engine/codes";
import { addMonths, ageOn, benefitYearOf, parseDate } from "@/domains/insurance/estimates/engine/dates";
import { canonicalJson } from "@/domains/insurance/estimates/engine/hash";

// The engine's pieces one at a time: codes and categories, dates and benefit
// years, rounding, frequency, age, waiting periods, deductibles, write-offs,
// overrides and input checking. The worked examples are in
// estimate-examples.test.ts, the properties in estimate-property.test.ts.

const span = (range: string, is_exclusion = false) => {
  const r = parseCodeSpec(range);
  return { ...r, is_exclusion };
};
const CATEGORIES: EngineCoverageCategory[] = [
  { id: "diagnostic", name: "Diagnostic", spans: [span("D0100-D0999")] },
  { id: "preventive", name: "Preventive", spans: [span("D1000-D1999")] },
  { id: "restorative", name: "Restorative", spans: [span("D2000-D2999")] },
  { id: "major", name: "Major", spans: [span("D2700-D2799"), span("D6000-D6999")] },
  { id: "adjunctive", name: "Adjunctive", spans: [span("D9000-D9999"), span("D9970-D9979", true)] },
];

const plan = (over: Partial<EnginePlan> = {}): EnginePlan => ({
  ordinal: 1,
  plan_id: "plan-1",
  carrier_id: "carrier-1",
  plan_type: "ppo",
  cob_method: "standard",
  benefit_year_start_month: 1,
  effective_date: "2020-01-01",
  annual_max_cents: null,
  deductible_individual_cents: 0,
  deductible_category_ids: [],
  coverage: [
    { category_id: "diagnostic", percent: 100 },
    { category_id: "preventive", percent: 100 },
    { category_id: "restorative", percent: 80 },
    { category_id: "major", percent: 50 },
    { category_id: "adjunctive", percent: 50 },
  ],
  ...over,
});

let seq = 0;
const proc = (code: string, date: string, fee = 100_00, extra: Partial<EngineProcedure> = {}): EngineProcedure => ({
  id: `p${++seq}`,
  code,
  fee_cents: fee,
  date,
  ...extra,
});

function run(plans: EnginePlan[], procedures: EngineProcedure[], extra: { dob?: string | null; overrides?: EngineOverride[] } = {}) {
  return estimateTreatmentPlan({
    as_of: "2026-01-10",
    patient: { date_of_birth: extra.dob === undefined ? "1990-06-15" : extra.dob },
    categories: CATEGORIES,
    plans,
    procedures,
    overrides: extra.overrides,
  });
}
/** The estimates against the plan of `ordinal`, one per procedure. */
const against = (result: ReturnType<typeof run>, ordinal = 1): PlanEstimate[] => result.procedures.map((p) => p.estimates.find((e) => e.ordinal === ordinal)!);
const reasons = (estimates: PlanEstimate[]) => estimates.map((e) => e.exclusion_reason);

describe("codes and coverage categories", () => {
  test("code specs: one code or an inclusive range of codes of the same length", () => {
    expect(parseCodeSpec("D1206")).toEqual({ from_code: "D1206", to_code: "D1206" });
    expect(parseCodeSpec(" d2391 - D2394 ")).toEqual({ from_code: "D2391", to_code: "D2394" });
    for (const bad of ["", "D2394-D2391", "D239-D2394", "D1-D2-D3", "D2391-"]) expect(() => parseCodeSpec(bad)).toThrow(RangeError);
    expect(inRange("D2392", { from_code: "D2391", to_code: "D2394" })).toBe(true);
    expect(inRange("D2394", { from_code: "D2391", to_code: "D2394" })).toBe(true);
    expect(inRange("D2395", { from_code: "D2391", to_code: "D2394" })).toBe(false);
    expect(inRange("D239", { from_code: "D2000", to_code: "D2999" })).toBe(false);
  });

  test("a code's category is the first category, in their order, that covers it and does not carve it out", () => {
    expect(matchCategory("D2750", CATEGORIES)?.category.id).toBe("restorative");
    const majorFirst = [CATEGORIES[3], ...CATEGORIES.filter((c) => c.id !== "major")];
    expect(matchCategory("D2750", majorFirst)?.category.id).toBe("major");
    expect(matchCategory("D2750", majorFirst)?.span).toMatchObject({ from_code: "D2700", to_code: "D2799" });
    expect(matchCategory("D6010", CATEGORIES)?.category.id).toBe("major");
    expect(matchCategory("D8080", CATEGORIES)).toBeNull();
    // an exclusion span carves the codes out of its category; taken up by no other category, they are not covered
    expect(matchCategory("D9972", CATEGORIES)).toBeNull();
    // ... and taken up by a later category that covers them, they are that category's (implants carved out of prosthodontics)
    const carved = [
      { id: "prostho", name: "Prosthodontics", spans: [span("D5000-D6999"), span("D6010-D6199", true)] },
      { id: "implants", name: "Implants", spans: [span("D6010-D6199")] },
    ];
    expect(matchCategory("D6010", carved)?.category.id).toBe("implants");
    expect(matchCategory("D6240", carved)?.category.id).toBe("prostho");
    expect(matchExclusionSpan("D9972", CATEGORIES)?.span).toMatchObject({ from_code: "D9970", to_code: "D9979", is_exclusion: true });
    expect(matchExclusionSpan("D9110", CATEGORIES)).toBeNull();
  });

  test("not covered: exclusion span, no category, a category the plan lacks, a plan exclusion; the estimate says why", () => {
    const r = against(
      run(
        [plan({ coverage: [{ category_id: "restorative", percent: 80 }], exclusions: ["D2930-D2934"] })],
        [proc("D9972", "2026-03-01"), proc("D8080", "2026-03-01"), proc("D0150", "2026-03-01"), proc("D2931", "2026-03-01"), proc("D2150", "2026-03-01")],
      ),
    );
    expect(reasons(r)).toEqual(["not_covered", "not_covered", "not_covered", "not_covered", null]);
    expect(r[0].detail.benefit_match.excluded_by).toEqual({ source: "category_span", from_code: "D9970", to_code: "D9979", category_id: "adjunctive" });
    expect(r[1].detail.benefit_match).toMatchObject({ category_id: null, span: null });
    expect(r[2].detail.coverage.category_percent).toBeNull();
    expect(r[3].detail.benefit_match.excluded_by).toEqual({ source: "plan_exclusion", from_code: "D2930", to_code: "D2934", category_id: null });
    expect(r.map((e) => e.effective_insurance_estimate)).toEqual([0, 0, 0, 0, 80_00]);
  });
});

describe("dates", () => {
  test("addMonths keeps the day, or the month's last day when it has fewer", () => {
    expect(addMonths("2026-01-31", 1)).toBe("2026-02-28");
    expect(addMonths("2028-01-31", 1)).toBe("2028-02-29");
    expect(addMonths("2026-11-15", 2)).toBe("2027-01-15");
    expect(addMonths("2026-03-31", -1)).toBe("2026-02-28");
    expect(addMonths("2026-01-15", -13)).toBe("2024-12-15");
    expect(addMonths("2024-02-29", 12)).toBe("2025-02-28");
  });

  test("addMonths agrees with Temporal.PlainDate.add (overflow: constrain)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1950, 0, 1) / 86_400_000, max: Date.UTC(2060, 0, 1) / 86_400_000 }),
        fc.integer({ min: -400, max: 400 }),
        (day, months) => {
          const date = new Date(day * 86_400_000).toISOString().slice(0, 10);
          expect(addMonths(date, months)).toBe(Temporal.PlainDate.from(date).add({ months }).toString());
        },
      ),
      { seed: 7, numRuns: 500 },
    );
  });

  test("parseDate accepts real calendar dates only", () => {
    expect(parseDate("2028-02-29")).toEqual({ y: 2028, m: 2, d: 29 });
    for (const bad of ["2026-02-29", "2026-13-01", "2026-00-10", "2026-4-01", "20260401", "2026-04-31"]) expect(parseDate(bad)).toBeNull();
  });

  test("benefit years start on the 1st of the plan's month", () => {
    expect(benefitYearOf("2026-01-01", 1)).toEqual({ start: "2026-01-01", end: "2027-01-01" });
    expect(benefitYearOf("2026-12-31", 1)).toEqual({ start: "2026-01-01", end: "2027-01-01" });
    expect(benefitYearOf("2026-06-30", 7)).toEqual({ start: "2025-07-01", end: "2026-07-01" });
    expect(benefitYearOf("2026-07-01", 7)).toEqual({ start: "2026-07-01", end: "2027-07-01" });
    expect(benefitYearOf("2026-03-15", 12)).toEqual({ start: "2025-12-01", end: "2026-12-01" });
  });

  test("age in whole years on the service date; a Feb 29 birthday is reached on Mar 1 in common years", () => {
    expect(ageOn("2007-09-20", "2026-09-19")).toBe(18);
    expect(ageOn("2007-09-20", "2026-09-20")).toBe(19);
    expect(ageOn("2008-02-29", "2026-02-28")).toBe(17);
    expect(ageOn("2008-02-29", "2026-03-01")).toBe(18);
    expect(ageOn("2008-02-29", "2028-02-29")).toBe(20);
  });
});

describe("rounding", () => {
  test("a percentage is applied once, rounding half up to the cent", () => {
    expect(percentOf(123_45, 50)).toBe(61_73); // 61.725
    expect(percentOf(123_43, 50)).toBe(61_72); // 61.715 -> 61.72: half up, never banker's
    expect(percentOf(3_33, 33)).toBe(1_10); // 1.0989
    expect(percentOf(1, 50)).toBe(1); // half a cent
    expect(percentOf(1, 49)).toBe(0);
    expect(percentOf(999_999_99, 100)).toBe(999_999_99);
    expect(percentOf(0, 80)).toBe(0);
  });

  test("percentOf equals exact rational rounding for every amount and percent", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000_000 }), fc.integer({ min: 0, max: 100 }), (amount, percent) => {
        const exact = (BigInt(amount) * BigInt(percent) * 2n + 100n) / 200n;
        expect(percentOf(amount, percent)).toBe(Number(exact));
      }),
      { seed: 11, numRuns: 2000 },
    );
  });

  test("through the engine: 80% of a 123.45 allowed fee is 98.76, the patient owes the rest", () => {
    const [e] = against(run([plan({ allowed_fees: { D2150: 123_45 } })], [proc("D2150", "2026-03-01", 180_00)]));
    expect([e.base_estimate, e.effective_write_off, e.patient_estimate]).toEqual([98_76, 56_55, 24_69]);
  });
});

describe("frequency limits", () => {
  test("per benefit year: counted in the plan's benefit year, so a July plan resets on July 1", () => {
    const limit = { codes: ["D0120", "D0150"], count: 1, period: "benefit_year" as const };
    const july = plan({ benefit_year_start_month: 7, frequency_limits: [limit] });
    const r = against(run([july], [proc("D0120", "2026-06-20"), proc("D0120", "2026-07-01"), proc("D0150", "2026-12-01")]));
    expect(reasons(r)).toEqual([null, null, "frequency"]);
    expect(r[2].detail.coverage.frequency).toEqual([{ codes: ["D0120", "D0150"], count: 1, period: "benefit_year", used: 1 }]);
    const january = plan({ frequency_limits: [limit] });
    expect(reasons(against(run([january], [proc("D0120", "2026-06-20"), proc("D0120", "2026-07-01")])))).toEqual([null, "frequency"]);
  });

  test("rolling months: a service closer than N months to a counted one is excluded, either side; N months later is fine", () => {
    const bw = plan({
      frequency_limits: [{ codes: ["D0272-D0274"], count: 1, period: { months: 12 } }],
      benefits_used: { prior_procedures: [{ code: "D0274", date: "2025-03-31" }] },
    });
    expect(reasons(against(run([bw], [proc("D0274", "2026-03-30")])))).toEqual(["frequency"]);
    expect(reasons(against(run([bw], [proc("D0274", "2026-03-31")])))).toEqual([null]);
    // the later-dated procedure listed first is counted against the earlier one
    expect(reasons(against(run([bw], [proc("D0274", "2027-01-10"), proc("D0272", "2026-06-01")])))).toEqual([null, "frequency"]);
    // month ends: Jan 31 + 1 month is Feb 28, so Feb 28 is already allowed
    const monthly = plan({ frequency_limits: [{ codes: ["D1110"], count: 1, period: { months: 1 } }] });
    expect(reasons(against(run([monthly], [proc("D1110", "2026-01-31"), proc("D1110", "2026-02-27"), proc("D1110", "2026-02-28")])))).toEqual([
      null,
      "frequency",
      null,
    ]);
  });

  test("lifetime, per tooth, counts above one, and excluded services do not count", () => {
    const sealants = plan({
      frequency_limits: [{ codes: ["D1351"], count: 1, period: "lifetime", per_tooth: true }],
      benefits_used: { prior_procedures: [{ code: "D1351", date: "2019-05-01", tooth: "3" }] },
    });
    const r = against(
      run(
        [sealants],
        [
          proc("D1351", "2026-03-01", 50_00, { tooth: "3" }),
          proc("D1351", "2026-03-01", 50_00, { tooth: "14" }),
          proc("D1351", "2026-04-01", 50_00, { tooth: "14" }),
        ],
      ),
    );
    expect(reasons(r)).toEqual(["frequency", null, "frequency"]);

    const prophy = plan({
      frequency_limits: [{ codes: ["D1110-D1120"], count: 2, period: "benefit_year" }],
      age_limits: [{ codes: ["D1120"], max_age: 13 }],
    });
    // the child prophy is excluded by age, so it does not use one of the two cleanings
    expect(
      reasons(against(run([prophy], [proc("D1120", "2026-02-01"), proc("D1110", "2026-03-01"), proc("D1110", "2026-09-01"), proc("D1110", "2026-10-01")]))),
    ).toEqual(["age", null, null, "frequency"]);
  });
});

describe("age limits, waiting periods, coverage dates", () => {
  const fluoride = plan({ age_limits: [{ codes: ["D1206-D1208"], max_age: 18 }] });

  test("age is taken on the service date", () => {
    const r = against(run([fluoride], [proc("D1206", "2026-09-19"), proc("D1206", "2026-09-20")], { dob: "2007-09-20" }));
    expect(reasons(r)).toEqual([null, "age"]);
    expect(r[1].detail.coverage.age).toEqual({ age: 19, min_age: null, max_age: 18 });
    const sealantsFrom6 = plan({ age_limits: [{ codes: ["D1351"], min_age: 6, max_age: 14 }] });
    expect(reasons(against(run([sealantsFrom6], [proc("D1351", "2026-02-28"), proc("D1351", "2026-03-01")], { dob: "2020-03-01" })))).toEqual(["age", null]);
  });

  test("without a date of birth the age limit is not checked, with a warning", () => {
    const [e] = against(run([fluoride], [proc("D1206", "2026-03-01")], { dob: null }));
    expect(e.is_excluded).toBe(false);
    expect(e.detail.warnings.map((w) => w.code)).toContain("no_date_of_birth");
  });

  test("a waiting period counts whole months from the effective date; before the effective date nothing is covered", () => {
    const waits = plan({ effective_date: "2026-01-31", waiting_periods: [{ category_id: "major", months: 6 }] });
    const r = against(run([waits], [proc("D2750", "2026-07-30"), proc("D2750", "2026-07-31"), proc("D2150", "2026-01-30"), proc("D2150", "2026-01-31")]));
    // D2750 is restorative here (categories order): major's waiting period does not apply; D6010 is major
    expect(reasons(r)).toEqual([null, null, "not_covered", null]);
    const implants = against(run([waits], [proc("D6010", "2026-07-30"), proc("D6010", "2026-07-31")]));
    expect(reasons(implants)).toEqual(["waiting_period", null]);
    expect(implants[0].detail.coverage.waiting_period).toEqual({ months: 6, covered_from: "2026-07-31" });
  });

  test("the longest waiting period of a category applies; without an effective date it is not checked (warning)", () => {
    const two = plan({
      effective_date: "2026-01-01",
      waiting_periods: [
        { category_id: "major", months: 6 },
        { category_id: "major", months: 12 },
      ],
    });
    expect(reasons(against(run([two], [proc("D6010", "2026-09-01")])))).toEqual(["waiting_period"]);
    const [e] = against(run([{ ...two, effective_date: null }], [proc("D6010", "2026-09-01")]));
    expect(e.is_excluded).toBe(false);
    expect(e.detail.warnings.map((w) => w.code)).toContain("no_effective_date");
  });

  test("the first reason wins: not covered, then waiting period, then age, then frequency", () => {
    const all = plan({
      effective_date: "2026-01-01",
      waiting_periods: [{ category_id: "preventive", months: 3 }],
      age_limits: [{ codes: ["D1206"], max_age: 18 }],
      frequency_limits: [{ codes: ["D1206"], count: 0, period: "lifetime" }],
    });
    expect(reasons(against(run([all], [proc("D1206", "2026-02-01"), proc("D1206", "2026-05-01")])))).toEqual(["waiting_period", "age"]);
    expect(reasons(against(run([all], [proc("D1206", "2026-05-01")], { dob: "2015-01-01" })))).toEqual(["frequency"]);
  });
});

describe("deductibles and maximums", () => {
  test("the deductible applies to the plan's categories only, per benefit year, from the usage reported for that year", () => {
    const p = plan({
      benefit_year_start_month: 7,
      deductible_individual_cents: 50_00,
      deductible_category_ids: ["restorative"],
      benefits_used: { years: [{ start: "2025-07-01", deductible_met_cents: 30_00, annual_max_used_cents: 0 }] },
    });
    const r = against(run([p], [proc("D0150", "2026-03-01"), proc("D2150", "2026-03-01"), proc("D2150", "2026-06-30"), proc("D2150", "2026-07-01")]));
    expect(r.map((e) => e.deductible_applied)).toEqual([0, 20_00, 0, 50_00]);
    expect(r[1].detail.plan_context).toMatchObject({
      deductible_remaining_before_cents: 20_00,
      deductible_remaining_after_cents: 0,
      benefit_year: { start: "2025-07-01" },
    });
  });

  test("a family deductible closer to met limits the individual one", () => {
    const p = plan({
      deductible_individual_cents: 50_00,
      deductible_family_cents: 150_00,
      deductible_category_ids: ["restorative"],
      benefits_used: { years: [{ start: "2026-01-01", deductible_met_cents: 0, annual_max_used_cents: 0, family_deductible_met_cents: 130_00 }] },
    });
    expect(against(run([p], [proc("D2150", "2026-03-01"), proc("D2150", "2026-04-01")])).map((e) => e.deductible_applied)).toEqual([20_00, 0]);
  });

  test("a deductible larger than the benefit base takes the whole base and carries over", () => {
    const p = plan({ deductible_individual_cents: 100_00, deductible_category_ids: ["restorative"], allowed_fees: { D2150: 60_00 } });
    const r = against(run([p], [proc("D2150", "2026-03-01", 90_00), proc("D2150", "2026-04-01", 90_00)]));
    expect(r.map((e) => [e.deductible_applied, e.base_estimate, e.patient_estimate])).toEqual([
      [60_00, 0, 60_00],
      [40_00, 16_00, 44_00],
    ]);
  });

  test("the annual maximum of each benefit year is separate, and what was used there counts", () => {
    const p = plan({
      annual_max_cents: 100_00,
      benefits_used: { years: [{ start: "2026-01-01", deductible_met_cents: 0, annual_max_used_cents: 70_00 }] },
    });
    const r = against(run([p], [proc("D2150", "2026-03-01"), proc("D2150", "2026-12-31"), proc("D2150", "2027-01-01")]));
    expect(r.map((e) => e.effective_insurance_estimate)).toEqual([30_00, 0, 80_00]);
    expect(r.map((e) => e.detail.plan_context.annual_max_remaining_after_cents)).toEqual([0, 0, 20_00]);
  });

  test("benefits used must name the first day of a benefit year", () => {
    const bad = plan({ benefit_year_start_month: 7, benefits_used: { years: [{ start: "2026-01-01", deductible_met_cents: 0, annual_max_used_cents: 0 }] } });
    expect(() => run([bad], [proc("D2150", "2026-03-01")])).toThrow(EstimateInputError);
  });
});

describe("allowed fees and write-offs", () => {
  test("the allowed fee: the schedule, capped by UCR and by the fee billed; absent, the fee billed (with a warning for PPO)", () => {
    const p = plan({ allowed_fees: { D2150: 110_00, D2140: 250_00, D2160: 140_00 }, ucr_fees: { D2160: 120_00 } });
    const r = against(
      run(
        [p],
        [proc("D2150", "2026-03-01", 180_00), proc("D2140", "2026-03-01", 200_00), proc("D2160", "2026-03-01", 200_00), proc("D2161", "2026-03-01", 200_00)],
      ),
    );
    expect(r.map((e) => [e.allowed_fee, e.ppo_fee, e.effective_write_off])).toEqual([
      [110_00, 110_00, 70_00],
      [200_00, 250_00, 0],
      [120_00, 140_00, 80_00],
      [200_00, null, 0],
    ]);
    expect(r[3].detail.warnings.map((w) => w.code)).toEqual(["allowed_fee_missing"]);
  });

  test("two PPOs: the primary's contract sets the write-off, the secondary works from what is left", () => {
    const primary = plan({ allowed_fees: { D2150: 110_00 } });
    const secondary = plan({ ordinal: 2, plan_id: "plan-2", carrier_id: "carrier-2", allowed_fees: { D2150: 90_00 } });
    const [p] = run([primary, secondary], [proc("D2150", "2026-03-01", 180_00)]).procedures;
    expect(p.estimates.map((e) => [e.effective_write_off, e.effective_insurance_estimate, e.patient_estimate, e.detail.plan_context.sets_write_off])).toEqual([
      [70_00, 88_00, 22_00, true],
      [0, 22_00, 0, false],
    ]);
  });

  test("an indemnity primary leaves the write-off to a contracted secondary", () => {
    const indemnity = plan({ plan_type: "indemnity", allowed_fees: { D2150: 150_00 } });
    const ppo = plan({ ordinal: 2, plan_id: "plan-2", carrier_id: "carrier-2", allowed_fees: { D2150: 110_00 } });
    const [p] = run([indemnity, ppo], [proc("D2150", "2026-03-01", 180_00)]).procedures;
    // indemnity pays 80% of 150.00 = 120.00; the PPO writes off 70.00 of the 60.00 left: limited to 60.00
    expect(p.estimates.map((e) => [e.write_off_estimate, e.effective_insurance_estimate, e.patient_estimate])).toEqual([
      [0, 120_00, 60_00],
      [60_00, 0, 0],
    ]);
    expect(p.estimates[1].detail.waterfall.find((s) => s.step === "write_off")?.note).toBe("limited to the balance left by the plans before");
  });

  test("a third plan coordinates against both plans before it", () => {
    const mk = (ordinal: number, percent: number) =>
      plan({
        ordinal,
        plan_id: `plan-${ordinal}`,
        carrier_id: `carrier-${ordinal}`,
        coverage: [{ category_id: "major", percent }],
        allowed_fees: { D6010: 2000_00 },
      });
    const [p] = run([mk(1, 50), mk(2, 30), mk(3, 50)], [proc("D6010", "2026-03-01", 2500_00)]).procedures;
    expect(p.estimates.map((e) => [e.paid_other_insurance, e.effective_insurance_estimate, e.patient_estimate])).toEqual([
      [0, 1000_00, 1000_00],
      [1000_00, 600_00, 400_00],
      [1600_00, 400_00, 0],
    ]);
  });
});

describe("overrides", () => {
  const base = plan({
    deductible_individual_cents: 50_00,
    deductible_category_ids: ["restorative"],
    allowed_fees: { D2150: 110_00 },
    annual_max_cents: 1000_00,
  });
  const one = (o: Omit<EngineOverride, "procedure_id" | "ordinal">) => {
    const p = proc("D2150", "2026-03-01", 180_00);
    return against(run([base], [p, proc("D2150", "2026-04-01", 180_00)], { overrides: [{ procedure_id: p.id, ordinal: 1, ...o }] }));
  };

  test("each override replaces its step and later steps use it", () => {
    // no override: 70.00 write-off, 50.00 deductible, 80% of 60.00 = 48.00
    expect(one({}).map((e) => [e.effective_write_off, e.effective_deductible, e.effective_insurance_estimate, e.patient_estimate])).toEqual([
      [70_00, 50_00, 48_00, 62_00],
      [70_00, 0, 88_00, 22_00],
    ]);
    const [deductible, next] = one({ deductible: 20_00 });
    expect([deductible.deductible_applied, deductible.effective_deductible, deductible.effective_insurance_estimate, next.effective_deductible]).toEqual([
      50_00, 20_00, 72_00, 30_00,
    ]);
    const [copay] = one({ copay: 10_00 });
    expect([copay.copay_amount, copay.effective_copay, copay.effective_insurance_estimate, copay.patient_estimate]).toEqual([0, 10_00, 40_00, 70_00]);
    const [writeOff] = one({ write_off: 100_00 });
    // write-off 100.00 leaves 80.00 collectable: the benefit base falls to 80.00
    expect([writeOff.write_off_estimate, writeOff.effective_write_off, writeOff.effective_insurance_estimate, writeOff.patient_estimate]).toEqual([
      70_00, 100_00, 24_00, 56_00,
    ]);
  });

  test("an override that would break the invariant is clamped, with a warning", () => {
    const [allowed] = one({ allowed: 500_00 });
    expect([allowed.effective_allowed_fee, allowed.effective_write_off]).toEqual([180_00, 0]);
    const [percent] = one({ percentage: 150 });
    expect(percent.effective_coverage_percent).toBe(100);
    const [negative] = one({ insurance_estimate: -5_00 });
    expect(negative.effective_insurance_estimate).toBe(0);
    for (const e of [allowed, percent, negative]) expect(e.detail.warnings.map((w) => w.code)).toEqual(["override_clamped"]);
  });

  test("an insurance estimate override never exceeds the annual maximum left", () => {
    const p = proc("D2150", "2026-03-01", 180_00);
    const capped = plan({ ...base, annual_max_cents: 50_00 });
    const [e] = against(run([capped], [p], { overrides: [{ procedure_id: p.id, ordinal: 1, insurance_estimate: 100_00 }] }));
    expect([e.insurance_estimate, e.effective_insurance_estimate, e.patient_estimate]).toEqual([48_00, 50_00, 60_00]);
  });

  test("null clears: a null override is no override; overrides of other procedures or plans are ignored", () => {
    const p = proc("D2150", "2026-03-01", 180_00);
    const [e] = against(
      run([base], [p], {
        overrides: [
          { procedure_id: p.id, ordinal: 1, percentage: null, write_off: null },
          { procedure_id: "elsewhere", ordinal: 1, percentage: 10 },
          { procedure_id: p.id, ordinal: 2, percentage: 10 },
        ],
      }),
    );
    expect([e.has_percentage_override, e.has_write_off_override, e.effective_coverage_percent]).toEqual([false, false, 80]);
  });

  test("an insurance estimate override on an excluded procedure is used, with a warning", () => {
    const p = proc("D9972", "2026-03-01", 400_00);
    const [e] = against(run([base], [p], { overrides: [{ procedure_id: p.id, ordinal: 1, insurance_estimate: 100_00 }] }));
    expect([e.is_excluded, e.effective_insurance_estimate, e.patient_estimate]).toEqual([true, 100_00, 300_00]);
    expect(e.detail.warnings.map((w) => w.code)).toContain("override_on_excluded");
  });
});

describe("downgrades", () => {
  test("the plan pays on the substitution's allowed fee and category, never above the performed code's", () => {
    const p = plan({
      downgrades: [{ codes: ["D2391-D2394"], to_code: "D2150" }],
      allowed_fees: { D2392: 160_00, D2393: 100_00, D2150: 110_00 },
    });
    const r = against(run([p], [proc("D2392", "2026-03-01", 250_00), proc("D2393", "2026-03-01", 250_00), proc("D2394", "2026-03-01", 250_00)]));
    expect(r.map((e) => [e.substitution_code, e.effective_allowed_fee, e.base_estimate, e.patient_estimate])).toEqual([
      ["D2150", 160_00, 88_00, 72_00],
      ["D2150", 100_00, 80_00, 20_00], // the substitution's 110.00 is above D2393's allowed 100.00
      ["D2150", 250_00, 88_00, 162_00], // no PPO fee for D2394: no write-off
    ]);
    expect(r[1].detail.benefit_match).toMatchObject({ code: "D2393", benefit_code: "D2150", category_id: "restorative" });
  });

  test("a substitution without an allowed fee pays on the performed code, with a warning", () => {
    const p = plan({ downgrades: [{ codes: ["D2740"], to_code: "D2791" }], allowed_fees: { D2740: 900_00 } });
    const [e] = against(run([p], [proc("D2740", "2026-03-01", 1300_00)]));
    expect([e.substitution_code, e.base_estimate]).toEqual(["D2791", 720_00]);
    expect(e.detail.warnings.map((w) => w.code)).toEqual(["substitution_fee_missing"]);
  });
});

describe("input checking", () => {
  const good = () => ({
    as_of: "2026-01-10",
    patient: { date_of_birth: null },
    categories: CATEGORIES,
    plans: [plan()],
    procedures: [proc("D2150", "2026-03-01")],
  });

  test("malformed inputs throw EstimateInputError naming the field", () => {
    const cases: [string, (i: ReturnType<typeof good>) => unknown][] = [
      ["as_of", (i) => ({ ...i, as_of: "2026-02-30" })],
      ["plans", (i) => ({ ...i, plans: [plan(), plan()] })],
      ["plans[0].coverage[0].percent", (i) => ({ ...i, plans: [plan({ coverage: [{ category_id: "major", percent: 101 }] })] })],
      ["plans[0].benefit_year_start_month", (i) => ({ ...i, plans: [plan({ benefit_year_start_month: 13 })] })],
      [
        "plans[0].frequency_limits[0].codes[0]",
        (i) => ({ ...i, plans: [plan({ frequency_limits: [{ codes: ["D0150-D0120"], count: 1, period: "benefit_year" }] })] }),
      ],
      ["procedures[1].id", (i) => ({ ...i, procedures: [...i.procedures, { ...i.procedures[0] }] })],
      ["procedures[0].fee_cents", (i) => ({ ...i, procedures: [{ ...i.procedures[0], fee_cents: 12.5 }] })],
      ["overrides[0].allowed", (i) => ({ ...i, overrides: [{ procedure_id: i.procedures[0].id, ordinal: 1, allowed: 1.5 }] })],
    ];
    for (const [path, make] of cases) {
      let error: unknown;
      try {
        estimateTreatmentPlan(make(good()) as never);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(EstimateInputError);
      expect((error as EstimateInputError).path).toBe(path);
    }
  });

  test("a procedure without a date is estimated on the as_of date", () => {
    const [p] = estimateTreatmentPlan({ ...good(), procedures: [{ id: "x", code: "d2150", fee_cents: 100_00 }] }).procedures;
    expect([p.date, p.code]).toEqual(["2026-01-10", "D2150"]);
  });
});

describe("canonical JSON", () => {
  /** Reference: the obvious recursive version (objects cannot hold sorted integer-like keys, so build the text). */
  const reference = (v: unknown): string =>
    Array.isArray(v)
      ? `[${v.map(reference).join(",")}]`
      : v && typeof v === "object"
        ? `{${Object.keys(v)
            .sort()
            .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
            .map((k) => `${JSON.stringify(k)}:${reference((v as Record<string, unknown>)[k])}`)
            .join(",")}}`
        : JSON.stringify(v);

  test("equals the sorted-key reference, escaping included, and parses back to the same value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = canonicalJson(v);
        expect(text).toBe(reference(v));
        expect(JSON.parse(text)).toEqual(v as never);
      }),
      { seed: 13, numRuns: 1000 },
    );
    expect(canonicalJson({ b: 1, a: [{ d: undefined, c: 'x"y' }], e: "é\n" })).toBe('{"a":[{"c":"x\\"y"}],"b":1,"e":"é\\n"}');
  });
});
