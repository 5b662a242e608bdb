import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import {
  type EngineCoverageCategory,
  type EngineOverride,
  type EnginePlan,
  type EngineProcedure,
  type EstimateInput,
  EstimateInputError,
  estimateInputsFor,
  estimateTreatmentPlan,
  inputsHash,
  type TreatmentPlanEstimate,
} from "@/domains/insurance/estimates/engine";

// Properties of the estimate engine over random plans (1-3, every rule kind),
// treatment plans (1-15 procedures), histories and overrides. Fixed seeds: a
// failure reproduces; fast-check prints the shrunk counterexample.

const SEED = 20260315;
/** Generous: the runs take a few seconds, more on a loaded machine. */
const LONG = 60_000;

// ---------------------------------------------------------------- arbitraries

const CODES = [
  "D0120",
  "D0140",
  "D0150",
  "D0272",
  "D0274",
  "D1110",
  "D1120",
  "D1206",
  "D1208",
  "D1351",
  "D2140",
  "D2150",
  "D2160",
  "D2161",
  "D2391",
  "D2392",
  "D2393",
  "D2394",
  "D2740",
  "D2750",
  "D3310",
  "D3330",
  "D4341",
  "D4910",
  "D5110",
  "D5120",
  "D6010",
  "D7140",
  "D7210",
  "D8080",
  "D9110",
  "D9972",
  "D9999",
];
const CATEGORY_IDS = ["diagnostic", "preventive", "crowns", "restorative", "endodontics", "periodontics", "prosthodontics", "oral_surgery", "adjunctive"];
const CHAPTERS: Record<string, string[]> = {
  diagnostic: ["D0100-D0999"],
  preventive: ["D1000-D1999"],
  crowns: ["D2700-D2799"],
  restorative: ["D2000-D2999"],
  endodontics: ["D3000-D3999"],
  periodontics: ["D4000-D4999"],
  prosthodontics: ["D5000-D5999", "D6000-D6999"],
  oral_surgery: ["D7000-D7999"],
  adjunctive: ["D9000-D9899"], // D8xxx and D99xx fall in no category
};

const DAY = 86_400_000;
const dateBetween = (from: string, to: string) =>
  fc.integer({ min: Date.parse(from) / DAY, max: Date.parse(to) / DAY }).map((d) => new Date(d * DAY).toISOString().slice(0, 10));
const serviceDate = dateBetween("2025-01-01", "2027-12-31");
const code = fc.constantFrom(...CODES);
/** "D2391" or a range between two codes of the universe. */
const codeSpec = fc.oneof(
  code,
  fc.tuple(code, code).map(([a, b]) => (a <= b ? `${a}-${b}` : `${b}-${a}`)),
);
const codeSpecs = fc.array(codeSpec, { minLength: 1, maxLength: 3 });
const cents = (max: number) => fc.integer({ min: 0, max });
const tooth = fc.constantFrom("3", "14", "19", "30", null);
const startOf = (date: string, month: number) => {
  const [y, m] = date.split("-").map(Number);
  return `${m >= month ? y : y - 1}-${String(month).padStart(2, "0")}-01`;
};

const categoriesArb: fc.Arbitrary<EngineCoverageCategory[]> = fc
  .tuple(fc.shuffledSubarray(CATEGORY_IDS, { minLength: CATEGORY_IDS.length }), fc.array(fc.tuple(fc.constantFrom(...CATEGORY_IDS), code), { maxLength: 2 }))
  .map(([order, exclusions]) =>
    order.map((id) => ({
      id,
      name: id.replace("_", " "),
      spans: [
        ...CHAPTERS[id].map((s) => ({ from_code: s.slice(0, 5), to_code: s.slice(6), is_exclusion: false })),
        ...exclusions.filter(([c]) => c === id).map(([, excluded]) => ({ from_code: excluded, to_code: excluded, is_exclusion: true })),
      ],
    })),
  );

const feeTable = fc.dictionary(code, cents(300_000), { maxKeys: 12 });

const planArb = (ordinal: number): fc.Arbitrary<EnginePlan> =>
  fc
    .integer({ min: 1, max: 12 })
    .chain((month) =>
      fc.record({
        ordinal: fc.constant(ordinal),
        plan_id: fc.constant(`plan-${ordinal}`),
        carrier_id: fc.constantFrom("delta", "cigna", "aetna"),
        plan_type: fc.constantFrom("ppo", "ppo", "indemnity", "capitation", "medicaid"),
        cob_method: fc.constantFrom("standard", "non_duplication", "carve_out"),
        benefit_year_start_month: fc.constant(month),
        // mostly in force before the treatment, sometimes starting during it
        effective_date: fc.option(
          fc.oneof({ weight: 3, arbitrary: dateBetween("2020-01-01", "2024-12-31") }, { weight: 1, arbitrary: dateBetween("2025-01-01", "2027-06-30") }),
          {
            nil: null,
          },
        ),
        annual_max_cents: fc.option(fc.oneof(fc.constantFrom(100_000, 150_000, 200_000), cents(300_000)), { nil: null }),
        deductible_individual_cents: cents(20_000),
        deductible_family_cents: fc.option(cents(30_000), { nil: null }),
        deductible_category_ids: fc.subarray(CATEGORY_IDS),
        // most categories covered, at the usual percents or any
        coverage: fc
          .tuple(
            ...CATEGORY_IDS.map((id) =>
              fc
                .option(fc.oneof(fc.constantFrom(50, 80, 100), fc.integer({ min: 0, max: 100 })), { nil: null, freq: 8 })
                .map((percent) => ({ category_id: id, percent })),
            ),
          )
          .map((rules) => rules.filter((r): r is { category_id: string; percent: number } => r.percent !== null)),
        frequency_limits: fc.array(
          fc.record({
            codes: codeSpecs,
            count: fc.integer({ min: 0, max: 3 }),
            period: fc.oneof(
              fc.constant("benefit_year" as const),
              fc.constant("lifetime" as const),
              fc.integer({ min: 1, max: 36 }).map((months) => ({ months })),
            ),
            per_tooth: fc.boolean(),
          }),
          { maxLength: 3 },
        ),
        waiting_periods: fc.array(fc.record({ category_id: fc.constantFrom(...CATEGORY_IDS), months: fc.integer({ min: 0, max: 24 }) }), { maxLength: 2 }),
        age_limits: fc.array(
          fc.record({
            codes: codeSpecs,
            min_age: fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
            max_age: fc.option(fc.integer({ min: 5, max: 80 }), { nil: null }),
          }),
          { maxLength: 2 },
        ),
        downgrades: fc.array(fc.record({ codes: codeSpecs, to_code: code }), { maxLength: 2 }),
        // a capitation plan covers what its copay schedule lists: list most codes
        copays: fc.uniqueArray(fc.record({ code, copay_cents: fc.oneof(fc.constantFrom(0, 5_00, 25_00, 35_00), cents(50_000)) }), {
          selector: (c) => c.code,
          minLength: 12,
          maxLength: 24,
        }),
        exclusions: fc.array(code, { maxLength: 2 }),
        allowed_fees: feeTable,
        ucr_fees: fc.dictionary(code, cents(300_000), { maxKeys: 4 }),
        benefits_used: fc.record({
          years: fc
            .uniqueArray(
              serviceDate.map((d) => startOf(d, month)),
              { maxLength: 2 },
            )
            .chain((starts) =>
              fc.tuple(
                ...starts.map((start) =>
                  fc.record({
                    start: fc.constant(start),
                    deductible_met_cents: cents(30_000),
                    annual_max_used_cents: fc.oneof(fc.constant(0), cents(100_000), cents(300_000)),
                    family_deductible_met_cents: cents(40_000),
                  }),
                ),
              ),
            ),
          prior_procedures: fc.array(fc.record({ code, date: dateBetween("2023-01-01", "2027-12-31"), tooth }), { maxLength: 5 }),
        }),
      }),
    )
    .map((plan) =>
      plan.plan_type === "capitation" || plan.plan_type === "medicaid" ? plan : { ...plan, copays: plan.copays.slice(0, 2) },
    ) as fc.Arbitrary<EnginePlan>;

const plansArb = fc.integer({ min: 1, max: 3 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => planArb(i + 1))));

const proceduresArb = fc.array(
  fc.record({ code, fee_cents: cents(500_000), date: fc.option(serviceDate, { nil: null }), tooth, surfaces: fc.constantFrom("MO", "O", null) }),
  { minLength: 1, maxLength: 15 },
);

const overrideValue = fc.option(fc.integer({ min: -5_000, max: 600_000 }), { nil: null, freq: 2 });
const overridesArb = (procedures: number, plans: number) =>
  fc.array(
    fc.record({
      index: fc.integer({ min: 0, max: procedures - 1 }),
      ordinal: fc.integer({ min: 1, max: plans }),
      allowed: overrideValue,
      copay: overrideValue,
      deductible: overrideValue,
      insurance_estimate: overrideValue,
      percentage: fc.option(fc.integer({ min: -10, max: 120 }), { nil: null, freq: 2 }),
      write_off: overrideValue,
    }),
    { maxLength: 6 },
  );

const inputArb: fc.Arbitrary<EstimateInput> = fc
  .record({
    as_of: dateBetween("2025-01-01", "2027-12-31"),
    dob: fc.option(dateBetween("1940-01-01", "2025-06-30"), { nil: null, freq: 8 }),
    categories: categoriesArb,
    plans: plansArb,
    procedures: proceduresArb,
  })
  .chain((base) =>
    fc.tuple(fc.constant(base), fc.boolean(), overridesArb(base.procedures.length, base.plans.length)).map(([b, withOverrides, overrides]) => {
      const procedures: EngineProcedure[] = b.procedures.map((p, i) => ({ id: `proc-${i}`, ...p }));
      return {
        as_of: b.as_of,
        patient: { date_of_birth: b.dob },
        categories: b.categories,
        plans: b.plans,
        procedures,
        overrides: withOverrides ? overrides.map(({ index, ...o }): EngineOverride => ({ procedure_id: `proc-${index}`, ...o })) : [],
      };
    }),
  );

/** Inputs without overrides: the arithmetic alone. */
const plainInputArb = inputArb.map((input) => ({ ...input, overrides: [] }));

// ---------------------------------------------------------------- helpers

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/** The same data with every object's keys in reverse order. */
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (value && typeof value === "object")
    return Object.fromEntries(
      Object.entries(value)
        .reverse()
        .map(([k, v]) => [k, reverseKeys(v)]),
    );
  return value;
}

const MONEY_FIELDS = [
  "fee_billed",
  "allowed_fee",
  "write_off_estimate",
  "copay_amount",
  "deductible_applied",
  "base_estimate",
  "insurance_estimate",
  "paid_other_insurance",
  "patient_estimate",
  "effective_allowed_fee",
  "effective_copay",
  "effective_deductible",
  "effective_insurance_estimate",
  "effective_write_off",
] as const;

/** A failed check throws with what failed; fast-check then shrinks and prints the input. (Cheaper than expect in these loops.) */
function ok(condition: boolean, what: () => string): void {
  if (!condition) throw new Error(what());
}

const isCents = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= 0;

function checkInvariants(input: EstimateInput, result: TreatmentPlanEstimate) {
  const plans = [...input.plans].sort((a, b) => a.ordinal - b.ordinal);
  // insurance paid per plan and benefit year, checked against the maximum independently of the engine's ledger
  const paid = new Map<string, number>();
  for (const p of result.procedures) {
    const at = (e?: { ordinal: number }) => `procedure ${p.procedure_id}${e ? ` ordinal ${e.ordinal}` : ""}`;
    ok(p.patient_estimate + p.insurance_estimate + p.write_off === p.fee_billed, () => `${at()}: patient + insurance + write-off != fee billed`);
    ok([p.patient_estimate, p.insurance_estimate, p.write_off].every(isCents), () => `${at()}: negative or fractional total`);
    let balance = p.fee_billed;
    let other = 0;
    p.estimates.forEach((e, k) => {
      for (const f of MONEY_FIELDS) ok(isCents(e[f]), () => `${at(e)}: ${f} = ${e[f]}`);
      ok(e.ppo_fee === null || isCents(e.ppo_fee), () => `${at(e)}: ppo_fee`);
      for (const pct of [e.coverage_percent, e.effective_coverage_percent])
        ok(Number.isInteger(pct) && pct >= 0 && pct <= 100, () => `${at(e)}: percent ${pct}`);
      ok(e.ordinal === plans[k].ordinal, () => `${at(e)}: out of ordinal order`);
      ok(e.paid_other_insurance === other, () => `${at(e)}: paid_other_insurance`);
      balance -= e.effective_write_off + e.effective_insurance_estimate;
      other += e.effective_insurance_estimate;
      ok(e.patient_estimate === balance, () => `${at(e)}: patient_estimate is not the running balance`);
      ok(e.effective_allowed_fee <= e.fee_billed, () => `${at(e)}: allowed above the fee`);
      if (e.is_excluded) {
        ok(e.exclusion_reason !== null && e.base_estimate === 0, () => `${at(e)}: excluded with a reason and no benefit`);
        ok(e.has_insurance_estimate_override || e.effective_insurance_estimate === 0, () => `${at(e)}: excluded but insured`);
      } else ok(e.exclusion_reason === null, () => `${at(e)}: reason without exclusion`);
      if (plans[k].plan_type === "indemnity") ok(e.has_write_off_override || e.effective_write_off === 0, () => `${at(e)}: indemnity write-off`);
      const ctx = e.detail.plan_context;
      if (ctx.annual_max_remaining_before_cents !== null) {
        ok(e.effective_insurance_estimate <= ctx.annual_max_remaining_before_cents, () => `${at(e)}: beyond the remaining maximum`);
        const max = plans[k].annual_max_cents as number;
        const start = ctx.benefit_year.start;
        const used = plans[k].benefits_used?.years?.find((y) => y.start === start)?.annual_max_used_cents ?? 0;
        const key = `${e.ordinal}/${start}`;
        paid.set(key, (paid.get(key) ?? 0) + e.effective_insurance_estimate);
        ok((paid.get(key) as number) <= Math.max(0, max - used), () => `${at(e)}: plan paid beyond its annual maximum in ${start}`);
      } else ok(plans[k].annual_max_cents === null, () => `${at(e)}: maximum not reported`);
      // the waterfall starts at the fee and ends on the patient's portion
      const steps = e.detail.waterfall;
      ok(steps[0].step === "fee_billed" && steps[0].amount_cents === e.fee_billed, () => `${at(e)}: waterfall start`);
      ok(steps[steps.length - 1].step === "patient_portion" && steps[steps.length - 1].amount_cents === e.patient_estimate, () => `${at(e)}: waterfall end`);
      ok(
        steps.every((s) => isCents(s.amount_cents) && isCents(s.running_cents)),
        () => `${at(e)}: waterfall amounts`,
      );
    });
    ok(p.patient_estimate === balance, () => `${at()}: patient_estimate is not the last balance`);
  }
  const sum = (f: (p: TreatmentPlanEstimate["procedures"][number]) => number) => result.procedures.reduce((s, p) => s + f(p), 0);
  expect(result.totals).toEqual({
    fee_billed: sum((p) => p.fee_billed),
    insurance_estimate: sum((p) => p.insurance_estimate),
    write_off: sum((p) => p.write_off),
    patient_estimate: sum((p) => p.patient_estimate),
  });
}

// ---------------------------------------------------------------- properties

describe("estimate engine properties", () => {
  test(
    "invariant: patient + insurance + write-off = fee billed, nothing negative, no plan beyond its annual maximum",
    () => {
      fc.assert(
        fc.property(inputArb, (input) => {
          checkInvariants(input, estimateTreatmentPlan(input));
        }),
        { seed: SEED, numRuns: 2000 },
      );
    },
    LONG,
  );

  test(
    "deterministic, and the input is not modified",
    () => {
      fc.assert(
        fc.property(inputArb, (input) => {
          const copy = structuredClone(input);
          const first = estimateTreatmentPlan(deepFreeze(input));
          expect(estimateTreatmentPlan(input)).toEqual(first);
          expect(estimateTreatmentPlan(copy)).toEqual(first);
          expect(input).toEqual(copy);
        }),
        { seed: SEED + 1, numRuns: 200 },
      );
    },
    LONG,
  );

  test(
    "order of benefits: a plan never changes the plans before it, and adding a plan never raises what the patient pays",
    () => {
      fc.assert(
        fc.property(
          inputArb.filter((i) => i.plans.length >= 2),
          (input) => {
            const all = estimateTreatmentPlan(input);
            const lastOrdinal = Math.max(...input.plans.map((p) => p.ordinal));
            const fewer = estimateTreatmentPlan({ ...input, plans: input.plans.filter((p) => p.ordinal !== lastOrdinal) });
            all.procedures.forEach((p, i) => {
              // the earlier plans' estimates are identical, inputs_hash included
              expect(p.estimates.slice(0, -1)).toEqual(fewer.procedures[i].estimates);
              expect(p.patient_estimate).toBeLessThanOrEqual(fewer.procedures[i].patient_estimate);
            });
          },
        ),
        { seed: SEED + 2, numRuns: 300 },
      );
    },
    LONG,
  );

  test(
    "procedures are estimated in order: a later procedure never changes an earlier one",
    () => {
      fc.assert(
        fc.property(inputArb, fc.nat(), (input, cut) => {
          const keep = 1 + (cut % input.procedures.length);
          const all = estimateTreatmentPlan(input);
          const prefix = estimateTreatmentPlan({ ...input, procedures: input.procedures.slice(0, keep) });
          expect(prefix.procedures).toEqual(all.procedures.slice(0, keep));
        }),
        { seed: SEED + 3, numRuns: 300 },
      );
    },
    LONG,
  );

  test(
    "COB methods on one procedure: non-duplication never pays more than standard or carve-out",
    () => {
      fc.assert(
        fc.property(
          plainInputArb.filter((i) => i.plans.length >= 2),
          (input) => {
            const one = { ...input, procedures: input.procedures.slice(0, 1) };
            const secondaryPays = (method: EnginePlan["cob_method"]) =>
              estimateTreatmentPlan({ ...one, plans: one.plans.map((p) => (p.ordinal === 2 ? { ...p, cob_method: method } : p)) }).procedures[0].estimates[1]
                .effective_insurance_estimate;
            const nonDup = secondaryPays("non_duplication");
            expect(nonDup).toBeLessThanOrEqual(secondaryPays("standard"));
            expect(nonDup).toBeLessThanOrEqual(secondaryPays("carve_out"));
          },
        ),
        { seed: SEED + 4, numRuns: 300 },
      );
    },
    LONG,
  );

  test(
    "inputsHash: equal to each estimate's inputs_hash, and stable under key order, [] versus absent and null overrides",
    () => {
      fc.assert(
        fc.property(inputArb, fc.nat(), (input, pick) => {
          const result = estimateTreatmentPlan(input);
          const same: EstimateInput = {
            ...(reverseKeys(input) as EstimateInput),
            overrides: [...(input.overrides ?? []), { procedure_id: input.procedures[0].id, ordinal: 1, percentage: null, allowed: null }],
            plans: input.plans.map((p) => ({ ...(reverseKeys(p) as EnginePlan), waiting_periods: p.waiting_periods?.length ? p.waiting_periods : undefined })),
          };
          expect(estimateTreatmentPlan(same).procedures.map((p) => p.estimates.map((e) => e.inputs_hash))).toEqual(
            result.procedures.map((p) => p.estimates.map((e) => e.inputs_hash)),
          );
          // the service's own call gives the stored hash (one procedure per run: each call normalizes the input)
          const p = result.procedures[pick % result.procedures.length];
          for (const e of p.estimates) expect(inputsHash(input, p.procedure_id, e.ordinal)).toBe(e.inputs_hash);
        }),
        { seed: SEED + 5, numRuns: 300 },
      );
    },
    LONG,
  );

  test(
    "inputsHash covers everything an estimate reads: the estimate recomputed from its hashed inputs alone is the same",
    () => {
      fc.assert(
        fc.property(inputArb, fc.nat(), fc.nat(), (input, pi, ki) => {
          const result = estimateTreatmentPlan(input);
          const p = result.procedures[pi % result.procedures.length];
          const e = p.estimates[ki % p.estimates.length];
          const hashed = estimateInputsFor(input, p.procedure_id, e.ordinal);
          // as_of only supplies missing dates, and the hashed inputs have every date resolved
          const again = estimateTreatmentPlan({ as_of: "1999-01-01", ...hashed });
          const mine = again.procedures.at(-1)!;
          expect(mine.procedure_id).toBe(p.procedure_id);
          expect(mine.estimates.at(-1)).toEqual(e);
        }),
        { seed: SEED + 6, numRuns: 300 },
      );
    },
    LONG,
  );

  test(
    "inputsHash is sensitive to every value it covers",
    () => {
      /** [path, value] of every leaf. */
      const leaves = (value: unknown, path: (string | number)[] = []): [(string | number)[], unknown][] =>
        value !== null && typeof value === "object"
          ? Object.entries(value).flatMap(([k, v]) => leaves(v, [...path, Array.isArray(value) ? Number(k) : k]))
          : [[path, value]];
      const changed = (v: unknown): unknown => {
        if (typeof v === "boolean") return !v;
        if (typeof v === "number") return v === 0 ? 1 : v - 1;
        if (v === null) return "19";
        const s = String(v);
        if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return new Date(Date.parse(s) + DAY).toISOString().slice(0, 10);
        if (/^D\d{4}$/.test(s)) return s === "D0120" ? "D0140" : "D0120";
        return `${s}x`;
      };
      let checked = 0;
      fc.assert(
        fc.property(inputArb, fc.nat(), fc.nat(), fc.nat(), (input, pi, ki, li) => {
          const p = input.procedures[pi % input.procedures.length];
          const ordinal = input.plans[ki % input.plans.length].ordinal;
          const { engine_version: _, ...hashed } = estimateInputsFor(input, p.id, ordinal);
          const all = leaves(hashed);
          const [path, value] = all[li % all.length];
          const mutated = structuredClone(hashed) as Record<string, unknown>;
          let parent: any = mutated;
          for (const key of path.slice(0, -1)) parent = parent[key];
          parent[path.at(-1)!] = changed(value);
          let other: string;
          try {
            other = inputsHash({ as_of: "2026-01-01", ...(mutated as Omit<EstimateInput, "as_of">) }, p.id, ordinal);
          } catch (err) {
            if (err instanceof EstimateInputError) return; // the change made the input invalid (a month of 0, a duplicate ordinal...)
            throw err;
          }
          checked++;
          expect(other).not.toBe(inputsHash(input, p.id, ordinal));
        }),
        { seed: SEED + 7, numRuns: 600 },
      );
      expect(checked).toBeGreaterThan(400);
    },
    LONG,
  );
});
