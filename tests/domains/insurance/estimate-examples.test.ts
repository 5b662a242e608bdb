import { describe, expect, test } from "bun:test";
import {
  type EngineCoverageCategory,
  type EngineOverride,
  type EnginePlan,
  type EngineProcedure,
  type ExclusionReason,
  estimateTreatmentPlan,
} from "@/domains/insurance/estimates/engine";

// The worked examples of docs/insurance/insurance-estimates.md, one row each: the same
// plans, fees and figures as the document, every money figure asserted.
// Amounts are cents written 130_00 for 130.00 dollars.

const cat = (id: string, name: string, spans: string[], exclusions: string[] = []): EngineCoverageCategory => ({
  id,
  name,
  spans: [
    ...spans.map((s) => ({ from_code: s.split("-")[0], to_code: s.split("-")[1], is_exclusion: false })),
    ...exclusions.map((s) => ({ from_code: s.split("-")[0], to_code: s.split("-")[1], is_exclusion: true })),
  ],
});

/** The office's categories: crowns listed before restorative, so D2740 is a crown (first match wins). */
const CATEGORIES = [
  cat("diagnostic", "Diagnostic", ["D0100-D0999"]),
  cat("preventive", "Preventive", ["D1000-D1999"]),
  cat("crowns", "Crowns and onlays", ["D2700-D2799"]),
  cat("restorative", "Restorative", ["D2000-D2999"]),
  cat("endodontics", "Endodontics", ["D3000-D3999"]),
  cat("periodontics", "Periodontics", ["D4000-D4999"]),
  cat("prosthodontics", "Prosthodontics", ["D5000-D5999", "D6000-D6999"]),
  cat("oral_surgery", "Oral surgery", ["D7000-D7999"]),
  cat("orthodontics", "Orthodontics", ["D8000-D8999"]),
  cat("adjunctive", "Adjunctive", ["D9000-D9999"], ["D9970-D9979"]),
];

/** The office's fees. */
const FEE: Record<string, number> = {
  D0120: 65_00,
  D0150: 110_00,
  D0274: 85_00,
  D1110: 120_00,
  D1206: 45_00,
  D2150: 180_00,
  D2392: 250_00,
  D2740: 1300_00,
  D3330: 1400_00,
  D4341: 300_00,
  D5110: 1800_00,
  D5120: 1800_00,
  D7140: 200_00,
  D8080: 5500_00,
  D9972: 400_00,
};

const BASIC_AND_MAJOR = ["restorative", "crowns", "endodontics", "periodontics", "prosthodontics", "oral_surgery"];

/** Plan A: a Delta Dental PPO, 100/80/50, 50.00 deductible on basic and major, 1,500.00 maximum. */
const deltaPpo = (over: Partial<EnginePlan> = {}): EnginePlan => ({
  ordinal: 1,
  plan_id: "delta-ppo",
  carrier_id: "delta",
  plan_type: "ppo",
  cob_method: "standard",
  benefit_year_start_month: 1,
  effective_date: "2025-01-01",
  annual_max_cents: 1500_00,
  deductible_individual_cents: 50_00,
  deductible_category_ids: BASIC_AND_MAJOR,
  coverage: [
    { category_id: "diagnostic", percent: 100 },
    { category_id: "preventive", percent: 100 },
    { category_id: "restorative", percent: 80 },
    { category_id: "crowns", percent: 50 },
    { category_id: "endodontics", percent: 80 },
    { category_id: "periodontics", percent: 80 },
    { category_id: "prosthodontics", percent: 50 },
    { category_id: "oral_surgery", percent: 80 },
    { category_id: "adjunctive", percent: 50 },
  ],
  frequency_limits: [
    { codes: ["D0120", "D0140", "D0150"], count: 2, period: "benefit_year" },
    { codes: ["D0272-D0274"], count: 1, period: { months: 12 } },
    { codes: ["D1110-D1120"], count: 2, period: "benefit_year" },
  ],
  age_limits: [{ codes: ["D1206-D1208"], max_age: 18 }],
  waiting_periods: [{ category_id: "prosthodontics", months: 12 }],
  downgrades: [
    { codes: ["D2391"], to_code: "D2140" },
    { codes: ["D2392"], to_code: "D2150" },
    { codes: ["D2393"], to_code: "D2160" },
    { codes: ["D2394"], to_code: "D2161" },
  ],
  allowed_fees: {
    D0120: 42_00,
    D0150: 75_00,
    D0274: 55_00,
    D1110: 80_00,
    D1206: 30_00,
    D2140: 95_00,
    D2150: 110_00,
    D2160: 135_00,
    D2161: 150_00,
    D2392: 160_00,
    D2740: 900_00,
    D3330: 950_00,
    D4341: 190_00,
    D5110: 1250_00,
    D5120: 1250_00,
    D7140: 130_00,
  },
  ...over,
});

/** Benefits used in 2026 before the treatment plan. */
const used2026 = (deductible: number, max: number) => ({ years: [{ start: "2026-01-01", deductible_met_cents: deductible, annual_max_used_cents: max }] });

/** Plan B: a Cigna PPO as secondary: 50% crowns, its own 50.00 deductible and schedule. */
const cignaPpo = (over: Partial<EnginePlan> = {}): EnginePlan => ({
  ordinal: 2,
  plan_id: "cigna-ppo",
  carrier_id: "cigna",
  plan_type: "ppo",
  cob_method: "standard",
  benefit_year_start_month: 1,
  effective_date: "2024-06-01",
  annual_max_cents: 1000_00,
  deductible_individual_cents: 50_00,
  deductible_category_ids: BASIC_AND_MAJOR,
  coverage: [
    { category_id: "diagnostic", percent: 100 },
    { category_id: "preventive", percent: 100 },
    { category_id: "restorative", percent: 80 },
    { category_id: "crowns", percent: 50 },
    { category_id: "endodontics", percent: 80 },
  ],
  allowed_fees: { D2740: 850_00 },
  ...over,
});

/** Plan C: an Aetna indemnity plan: pays 80% of its maximum allowance for endodontics; no contract, no write-off. */
const aetnaIndemnity = (over: Partial<EnginePlan> = {}): EnginePlan => ({
  ordinal: 2,
  plan_id: "aetna-indemnity",
  carrier_id: "aetna",
  plan_type: "indemnity",
  cob_method: "carve_out",
  benefit_year_start_month: 1,
  effective_date: "2020-01-01",
  annual_max_cents: 2000_00,
  deductible_individual_cents: 50_00,
  deductible_category_ids: ["endodontics"],
  coverage: [{ category_id: "endodontics", percent: 80 }],
  allowed_fees: { D3330: 1200_00 },
  ...over,
});

let seq = 0;
const proc = (code: string, date: string, extra: Partial<EngineProcedure> = {}): EngineProcedure => ({
  id: `p${++seq}`,
  code,
  fee_cents: FEE[code],
  date,
  ...extra,
});

/** Expected figures of one estimate. Effective values; `calc` gives calculated values where an override makes them differ. */
interface Row {
  allowed: number;
  ppo?: number;
  write_off: number;
  copay?: number;
  deductible: number;
  percent: number;
  base: number;
  insurance: number;
  other?: number;
  patient: number;
  excluded?: ExclusionReason;
  sub?: string;
  calc?: Partial<{ allowed: number; write_off: number; percent: number; insurance: number }>;
  overrides?: string[];
}

interface Example {
  name: string;
  dob?: string;
  plans: EnginePlan[];
  procedures: EngineProcedure[];
  overrides?: EngineOverride[];
  /** Per procedure, one row per plan in ordinal order. */
  rows: Row[][];
  totals: { insurance: number; write_off: number; patient: number };
  warnings?: string[][][];
}

const EXAMPLES: Example[] = [
  {
    name: "1. PPO primary with a write-off",
    plans: [deltaPpo({ benefits_used: used2026(50_00, 0) })],
    procedures: [proc("D7140", "2026-03-10")],
    rows: [[{ allowed: 130_00, ppo: 130_00, write_off: 70_00, deductible: 0, percent: 80, base: 104_00, insurance: 104_00, patient: 26_00 }]],
    totals: { insurance: 104_00, write_off: 70_00, patient: 26_00 },
  },
  {
    name: "2. deductible: once per benefit year, not on diagnostic",
    plans: [deltaPpo()],
    procedures: [
      proc("D0150", "2026-03-10"),
      proc("D2150", "2026-03-10", { tooth: "30" }),
      proc("D2150", "2026-04-14", { tooth: "19" }),
      proc("D2150", "2027-02-01", { tooth: "3" }),
    ],
    rows: [
      [{ allowed: 75_00, ppo: 75_00, write_off: 35_00, deductible: 0, percent: 100, base: 75_00, insurance: 75_00, patient: 0 }],
      [{ allowed: 110_00, ppo: 110_00, write_off: 70_00, deductible: 50_00, percent: 80, base: 48_00, insurance: 48_00, patient: 62_00 }],
      [{ allowed: 110_00, ppo: 110_00, write_off: 70_00, deductible: 0, percent: 80, base: 88_00, insurance: 88_00, patient: 22_00 }],
      [{ allowed: 110_00, ppo: 110_00, write_off: 70_00, deductible: 50_00, percent: 80, base: 48_00, insurance: 48_00, patient: 62_00 }],
    ],
    totals: { insurance: 259_00, write_off: 245_00, patient: 146_00 },
  },
  {
    name: "3. annual maximum exhausted",
    plans: [deltaPpo({ benefits_used: used2026(50_00, 1320_00) })],
    procedures: [proc("D3330", "2026-05-05", { tooth: "19" }), proc("D2740", "2026-06-02", { tooth: "19" })],
    rows: [
      [{ allowed: 950_00, ppo: 950_00, write_off: 450_00, deductible: 0, percent: 80, base: 760_00, insurance: 180_00, patient: 770_00 }],
      [{ allowed: 900_00, ppo: 900_00, write_off: 400_00, deductible: 0, percent: 50, base: 450_00, insurance: 0, patient: 900_00 }],
    ],
    totals: { insurance: 180_00, write_off: 850_00, patient: 1670_00 },
    warnings: [[["annual_max_reached"]], [["annual_max_reached"]]],
  },
  {
    name: "4. frequency: exams 2 per benefit year, bitewings once per 12 months",
    plans: [
      deltaPpo({
        benefits_used: {
          prior_procedures: [
            { code: "D0150", date: "2026-02-03" },
            { code: "D0274", date: "2025-09-15" },
          ],
        },
      }),
    ],
    procedures: [proc("D0120", "2026-08-04"), proc("D0274", "2026-08-04"), proc("D0120", "2026-11-10"), proc("D0274", "2026-09-15")],
    rows: [
      [{ allowed: 42_00, ppo: 42_00, write_off: 23_00, deductible: 0, percent: 100, base: 42_00, insurance: 42_00, patient: 0 }],
      [{ allowed: 55_00, ppo: 55_00, write_off: 30_00, deductible: 0, percent: 100, base: 0, insurance: 0, patient: 55_00, excluded: "frequency" }],
      [{ allowed: 42_00, ppo: 42_00, write_off: 23_00, deductible: 0, percent: 100, base: 0, insurance: 0, patient: 42_00, excluded: "frequency" }],
      [{ allowed: 55_00, ppo: 55_00, write_off: 30_00, deductible: 0, percent: 100, base: 55_00, insurance: 55_00, patient: 0 }],
    ],
    totals: { insurance: 97_00, write_off: 106_00, patient: 97_00 },
  },
  {
    name: "5. waiting period: prosthodontics 12 months from the effective date",
    plans: [deltaPpo({ effective_date: "2026-01-01" })],
    procedures: [proc("D5110", "2026-09-10"), proc("D5120", "2027-01-04")],
    rows: [
      [{ allowed: 1250_00, ppo: 1250_00, write_off: 550_00, deductible: 0, percent: 50, base: 0, insurance: 0, patient: 1250_00, excluded: "waiting_period" }],
      [{ allowed: 1250_00, ppo: 1250_00, write_off: 550_00, deductible: 50_00, percent: 50, base: 600_00, insurance: 600_00, patient: 650_00 }],
    ],
    totals: { insurance: 600_00, write_off: 1100_00, patient: 1900_00 },
  },
  {
    name: "6. age limit: fluoride through age 18",
    dob: "2007-09-20",
    plans: [deltaPpo()],
    procedures: [proc("D1206", "2026-06-01"), proc("D1206", "2026-12-01")],
    rows: [
      [{ allowed: 30_00, ppo: 30_00, write_off: 15_00, deductible: 0, percent: 100, base: 30_00, insurance: 30_00, patient: 0 }],
      [{ allowed: 30_00, ppo: 30_00, write_off: 15_00, deductible: 0, percent: 100, base: 0, insurance: 0, patient: 30_00, excluded: "age" }],
    ],
    totals: { insurance: 30_00, write_off: 30_00, patient: 30_00 },
  },
  {
    name: "7. downgrade: posterior composite paid as amalgam",
    plans: [deltaPpo({ benefits_used: used2026(50_00, 0) })],
    procedures: [proc("D2392", "2026-03-10", { tooth: "19", surfaces: "MO" })],
    rows: [[{ allowed: 160_00, ppo: 160_00, write_off: 90_00, deductible: 0, percent: 80, base: 88_00, insurance: 88_00, patient: 72_00, sub: "D2150" }]],
    totals: { insurance: 88_00, write_off: 90_00, patient: 72_00 },
  },
  {
    name: "8. standard COB: PPO primary, PPO secondary",
    plans: [deltaPpo({ benefits_used: used2026(50_00, 0) }), cignaPpo()],
    procedures: [proc("D2740", "2026-04-07", { tooth: "30" })],
    rows: [
      [
        { allowed: 900_00, ppo: 900_00, write_off: 400_00, deductible: 0, percent: 50, base: 450_00, insurance: 450_00, patient: 450_00 },
        { allowed: 850_00, ppo: 850_00, write_off: 0, deductible: 50_00, percent: 50, base: 400_00, insurance: 400_00, other: 450_00, patient: 50_00 },
      ],
    ],
    totals: { insurance: 850_00, write_off: 400_00, patient: 50_00 },
  },
  {
    name: "9. non-duplication: the secondary pays only what its benefit adds",
    plans: [
      deltaPpo({ benefits_used: used2026(50_00, 0) }),
      cignaPpo({
        cob_method: "non_duplication",
        coverage: [{ category_id: "crowns", percent: 60 }],
      }),
    ],
    procedures: [proc("D2740", "2026-04-07", { tooth: "30" })],
    rows: [
      [
        { allowed: 900_00, ppo: 900_00, write_off: 400_00, deductible: 0, percent: 50, base: 450_00, insurance: 450_00, patient: 450_00 },
        { allowed: 850_00, ppo: 850_00, write_off: 0, deductible: 50_00, percent: 60, base: 480_00, insurance: 30_00, other: 450_00, patient: 420_00 },
      ],
    ],
    totals: { insurance: 480_00, write_off: 400_00, patient: 420_00 },
  },
  {
    name: "10. carve-out: an indemnity secondary computes as if primary",
    plans: [deltaPpo({ benefits_used: used2026(50_00, 0) }), aetnaIndemnity()],
    procedures: [proc("D3330", "2026-05-05", { tooth: "19" })],
    rows: [
      [
        { allowed: 950_00, ppo: 950_00, write_off: 450_00, deductible: 0, percent: 80, base: 760_00, insurance: 760_00, patient: 190_00 },
        { allowed: 1200_00, write_off: 0, deductible: 50_00, percent: 80, base: 920_00, insurance: 160_00, other: 760_00, patient: 30_00 },
      ],
    ],
    totals: { insurance: 920_00, write_off: 450_00, patient: 30_00 },
  },
  {
    name: "10b. the same secondary under standard COB",
    plans: [deltaPpo({ benefits_used: used2026(50_00, 0) }), aetnaIndemnity({ cob_method: "standard" })],
    procedures: [proc("D3330", "2026-05-05", { tooth: "19" })],
    rows: [
      [
        { allowed: 950_00, ppo: 950_00, write_off: 450_00, deductible: 0, percent: 80, base: 760_00, insurance: 760_00, patient: 190_00 },
        { allowed: 1200_00, write_off: 0, deductible: 50_00, percent: 80, base: 720_00, insurance: 190_00, other: 760_00, patient: 0 },
      ],
    ],
    totals: { insurance: 950_00, write_off: 450_00, patient: 0 },
  },
  {
    name: "10c. the same secondary under non-duplication",
    plans: [deltaPpo({ benefits_used: used2026(50_00, 0) }), aetnaIndemnity({ cob_method: "non_duplication" })],
    procedures: [proc("D3330", "2026-05-05", { tooth: "19" })],
    rows: [
      [
        { allowed: 950_00, ppo: 950_00, write_off: 450_00, deductible: 0, percent: 80, base: 760_00, insurance: 760_00, patient: 190_00 },
        { allowed: 1200_00, write_off: 0, deductible: 50_00, percent: 80, base: 720_00, insurance: 0, other: 760_00, patient: 190_00 },
      ],
    ],
    totals: { insurance: 760_00, write_off: 450_00, patient: 190_00 },
  },
  {
    name: "11. two plans from the same carrier keep separate books",
    plans: [
      deltaPpo(),
      deltaPpo({
        ordinal: 2,
        plan_id: "delta-ppo-spouse",
        deductible_individual_cents: 25_00,
        annual_max_cents: 1000_00,
        benefits_used: used2026(0, 950_00),
        allowed_fees: { D2150: 100_00, D4341: 180_00 },
      }),
    ],
    procedures: [proc("D2150", "2026-03-10", { tooth: "30" }), proc("D4341", "2026-03-24")],
    rows: [
      [
        { allowed: 110_00, ppo: 110_00, write_off: 70_00, deductible: 50_00, percent: 80, base: 48_00, insurance: 48_00, patient: 62_00 },
        { allowed: 100_00, ppo: 100_00, write_off: 0, deductible: 25_00, percent: 80, base: 60_00, insurance: 50_00, other: 48_00, patient: 12_00 },
      ],
      [
        { allowed: 190_00, ppo: 190_00, write_off: 110_00, deductible: 0, percent: 80, base: 152_00, insurance: 152_00, patient: 38_00 },
        { allowed: 180_00, ppo: 180_00, write_off: 0, deductible: 0, percent: 80, base: 144_00, insurance: 0, other: 152_00, patient: 38_00 },
      ],
    ],
    totals: { insurance: 250_00, write_off: 180_00, patient: 50_00 },
    warnings: [
      [[], ["same_carrier", "annual_max_reached"]],
      [[], ["same_carrier", "annual_max_reached"]],
    ],
  },
  {
    name: "12. overrides: percentage, allowed fee, and an insurance estimate clamped to the balance",
    plans: [deltaPpo({ benefits_used: used2026(50_00, 0) })],
    procedures: [proc("D2740", "2026-04-07", { id: "crown" }), proc("D3330", "2026-05-05", { id: "rct" }), proc("D7140", "2026-05-05", { id: "ext" })],
    overrides: [
      { procedure_id: "crown", ordinal: 1, percentage: 60, write_off: null },
      { procedure_id: "rct", ordinal: 1, allowed: 1000_00 },
      { procedure_id: "ext", ordinal: 1, insurance_estimate: 150_00 },
    ],
    rows: [
      [
        {
          allowed: 900_00,
          ppo: 900_00,
          write_off: 400_00,
          deductible: 0,
          percent: 60,
          base: 540_00,
          insurance: 540_00,
          patient: 360_00,
          calc: { percent: 50 },
          overrides: ["percentage"],
        },
      ],
      [
        {
          allowed: 1000_00,
          ppo: 950_00,
          write_off: 400_00,
          deductible: 0,
          percent: 80,
          base: 800_00,
          insurance: 800_00,
          patient: 200_00,
          calc: { allowed: 950_00 },
          overrides: ["allowed"],
        },
      ],
      [
        {
          allowed: 130_00,
          ppo: 130_00,
          write_off: 70_00,
          deductible: 0,
          percent: 80,
          base: 104_00,
          insurance: 130_00,
          patient: 0,
          calc: { insurance: 104_00 },
          overrides: ["insurance_estimate"],
        },
      ],
    ],
    totals: { insurance: 1470_00, write_off: 870_00, patient: 560_00 },
    warnings: [[[]], [[]], [["override_clamped"]]],
  },
  {
    name: "13. capitation (DHMO): the patient pays the copay, the rest is written off",
    plans: [
      {
        ordinal: 1,
        plan_id: "dhmo",
        carrier_id: "united",
        plan_type: "capitation",
        cob_method: "standard",
        benefit_year_start_month: 1,
        annual_max_cents: null,
        deductible_individual_cents: 0,
        deductible_category_ids: [],
        coverage: [],
        copays: [
          { code: "D1110", copay_cents: 0 },
          { code: "D2150", copay_cents: 35_00 },
          { code: "D2740", copay_cents: 395_00 },
        ],
      },
    ],
    procedures: [proc("D2150", "2026-03-10", { tooth: "30" }), proc("D9972", "2026-03-10")],
    rows: [
      [{ allowed: 180_00, write_off: 145_00, copay: 35_00, deductible: 0, percent: 0, base: 0, insurance: 0, patient: 35_00 }],
      [{ allowed: 400_00, write_off: 0, deductible: 0, percent: 0, base: 0, insurance: 0, patient: 400_00, excluded: "not_covered" }],
    ],
    totals: { insurance: 0, write_off: 145_00, patient: 435_00 },
  },
  {
    name: "14. Medicaid with a copay",
    plans: [
      {
        ordinal: 1,
        plan_id: "medicaid",
        carrier_id: "state-medicaid",
        plan_type: "medicaid",
        cob_method: "standard",
        benefit_year_start_month: 7,
        annual_max_cents: null,
        deductible_individual_cents: 0,
        deductible_category_ids: [],
        coverage: [
          { category_id: "preventive", percent: 100 },
          { category_id: "restorative", percent: 100 },
        ],
        copays: [{ code: "D2150", copay_cents: 3_00 }],
        allowed_fees: { D2150: 62_00 },
      },
    ],
    procedures: [proc("D2150", "2026-03-10", { tooth: "30" })],
    rows: [[{ allowed: 62_00, write_off: 118_00, copay: 3_00, deductible: 0, percent: 100, base: 59_00, insurance: 59_00, patient: 3_00 }]],
    totals: { insurance: 59_00, write_off: 118_00, patient: 3_00 },
  },
  {
    name: "15. indemnity primary: no write-off, the patient owes the balance",
    plans: [aetnaIndemnity({ ordinal: 1 })],
    procedures: [proc("D3330", "2026-05-05", { tooth: "19" })],
    rows: [[{ allowed: 1200_00, write_off: 0, deductible: 50_00, percent: 80, base: 920_00, insurance: 920_00, patient: 480_00 }]],
    totals: { insurance: 920_00, write_off: 0, patient: 480_00 },
  },
  {
    name: "16. not covered: an exclusion span and a category the plan does not cover",
    plans: [deltaPpo()],
    procedures: [proc("D9972", "2026-03-10"), proc("D8080", "2026-03-10")],
    rows: [
      [{ allowed: 400_00, write_off: 0, deductible: 0, percent: 0, base: 0, insurance: 0, patient: 400_00, excluded: "not_covered" }],
      [{ allowed: 5500_00, write_off: 0, deductible: 0, percent: 0, base: 0, insurance: 0, patient: 5500_00, excluded: "not_covered" }],
    ],
    totals: { insurance: 0, write_off: 0, patient: 5900_00 },
  },
];

describe("worked examples (docs/insurance/insurance-estimates.md)", () => {
  for (const ex of EXAMPLES) {
    test(ex.name, () => {
      const result = estimateTreatmentPlan({
        as_of: "2026-03-01",
        patient: { date_of_birth: ex.dob ?? "1985-04-12" },
        categories: CATEGORIES,
        plans: ex.plans,
        procedures: ex.procedures,
        overrides: ex.overrides,
      });
      expect(result.procedures.length).toBe(ex.rows.length);
      result.procedures.forEach((p, i) => {
        const rows = ex.rows[i];
        expect(p.estimates.length).toBe(rows.length);
        p.estimates.forEach((e, k) => {
          const row = rows[k];
          const label = `${ex.name}: procedure ${i + 1} (${p.code}), ordinal ${e.ordinal}`;
          const actual = {
            allowed_fee: e.allowed_fee,
            effective_allowed_fee: e.effective_allowed_fee,
            ppo_fee: e.ppo_fee,
            write_off_estimate: e.write_off_estimate,
            effective_write_off: e.effective_write_off,
            copay_amount: e.copay_amount,
            effective_copay: e.effective_copay,
            deductible_applied: e.deductible_applied,
            effective_deductible: e.effective_deductible,
            coverage_percent: e.coverage_percent,
            effective_coverage_percent: e.effective_coverage_percent,
            base_estimate: e.base_estimate,
            insurance_estimate: e.insurance_estimate,
            effective_insurance_estimate: e.effective_insurance_estimate,
            paid_other_insurance: e.paid_other_insurance,
            patient_estimate: e.patient_estimate,
            is_excluded: e.is_excluded,
            exclusion_reason: e.exclusion_reason,
            substitution_code: e.substitution_code,
            overrides: [
              e.has_allowed_override && "allowed",
              e.has_copay_override && "copay",
              e.has_deductible_override && "deductible",
              e.has_insurance_estimate_override && "insurance_estimate",
              e.has_percentage_override && "percentage",
              e.has_write_off_override && "write_off",
            ].filter(Boolean),
          };
          const expected = {
            allowed_fee: row.calc?.allowed ?? row.allowed,
            effective_allowed_fee: row.allowed,
            ppo_fee: row.ppo ?? null,
            write_off_estimate: row.calc?.write_off ?? row.write_off,
            effective_write_off: row.write_off,
            copay_amount: row.copay ?? 0,
            effective_copay: row.copay ?? 0,
            deductible_applied: row.deductible,
            effective_deductible: row.deductible,
            coverage_percent: row.calc?.percent ?? row.percent,
            effective_coverage_percent: row.percent,
            base_estimate: row.base,
            insurance_estimate: row.calc?.insurance ?? row.insurance,
            effective_insurance_estimate: row.insurance,
            paid_other_insurance: row.other ?? 0,
            patient_estimate: row.patient,
            is_excluded: row.excluded !== undefined,
            exclusion_reason: row.excluded ?? null,
            substitution_code: row.sub ?? null,
            overrides: row.overrides ?? [],
          };
          expect({ label, ...actual }).toEqual({ label, ...expected });
          if (ex.warnings) expect(e.detail.warnings.map((w) => w.code)).toEqual(ex.warnings[i][k]);
        });
        // the procedure's portions add up to the fee billed
        const last = rows[rows.length - 1];
        expect(p.patient_estimate).toBe(last.patient);
        expect(p.insurance_estimate).toBe(rows.reduce((s, r) => s + r.insurance, 0));
        expect(p.write_off).toBe(rows.reduce((s, r) => s + r.write_off, 0));
        expect(p.patient_estimate + p.insurance_estimate + p.write_off).toBe(p.fee_billed);
      });
      const fee = ex.procedures.reduce((s, p) => s + p.fee_cents, 0);
      expect(result.totals).toEqual({
        fee_billed: fee,
        insurance_estimate: ex.totals.insurance,
        write_off: ex.totals.write_off,
        patient_estimate: ex.totals.patient,
      });
      expect(ex.totals.insurance + ex.totals.write_off + ex.totals.patient).toBe(fee);
    });
  }

  test("the waterfall of example 8's secondary, step by step", () => {
    const result = estimateTreatmentPlan({
      as_of: "2026-03-01",
      patient: { date_of_birth: "1985-04-12" },
      categories: CATEGORIES,
      plans: [deltaPpo({ benefits_used: used2026(50_00, 0) }), cignaPpo()],
      procedures: [proc("D2740", "2026-04-07", { tooth: "30" })],
    });
    const secondary = result.procedures[0].estimates[1];
    expect(secondary.detail.waterfall.map((s) => [s.step, s.amount_cents, s.running_cents])).toEqual([
      ["fee_billed", 1300_00, 1300_00],
      ["other_plans", 850_00, 450_00],
      ["allowed_fee", 850_00, 450_00],
      ["write_off", 0, 450_00],
      ["benefit_base", 850_00, 850_00],
      ["deductible", 50_00, 800_00],
      ["coverage_percent", 400_00, 400_00],
      ["annual_maximum", 1000_00, 400_00],
      ["coordination", 450_00, 400_00],
      ["insurance_estimate", 400_00, 50_00],
      ["patient_portion", 50_00, 50_00],
    ]);
    expect(secondary.detail.benefit_match).toMatchObject({ code: "D2740", category_id: "crowns", span: { from_code: "D2700", to_code: "D2799" } });
    expect(secondary.detail.plan_context).toMatchObject({
      ordinal: 2,
      sets_write_off: false,
      benefit_year: { start: "2026-01-01", end: "2026-12-31" },
      annual_max_remaining_before_cents: 1000_00,
      annual_max_remaining_after_cents: 600_00,
      deductible_remaining_before_cents: 50_00,
      deductible_remaining_after_cents: 0,
    });
  });
});
