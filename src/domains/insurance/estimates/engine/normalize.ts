import { normalizeCode, parseCodeSpec } from "./codes";
import { benefitYearOf, parseDate } from "./dates";
import type {
  Cents,
  CodeSpec,
  EngineAgeLimit,
  EngineBenefitYearUsage,
  EngineCopay,
  EngineCoverageCategory,
  EngineCoverageRule,
  EngineDowngrade,
  EngineFrequencyLimit,
  EngineOverride,
  EnginePatient,
  EnginePlan,
  EnginePriorProcedure,
  EngineProcedure,
  EngineWaitingPeriod,
  EstimateInput,
  IsoDate,
} from "./types";

// One checked, canonical form of the input: defaults filled in, codes upper
// case, code specs written "Dnnnn-Dnnnn", plans in ordinal order, procedure
// dates resolved, null overrides dropped. The engine and inputsHash both work
// on it, so "absent" and "[]" (or a null override and none) estimate and hash
// alike. A malformed input is a programming error upstream: EstimateInputError.

export class EstimateInputError extends RangeError {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
    this.name = "EstimateInputError";
  }
}

export interface NormalizedFrequencyLimit extends EngineFrequencyLimit {
  per_tooth: boolean;
}

export interface NormalizedAgeLimit extends EngineAgeLimit {
  min_age: number | null;
  max_age: number | null;
}

export interface NormalizedPlan extends EnginePlan {
  effective_date: IsoDate | null;
  deductible_family_cents: Cents | null;
  frequency_limits: NormalizedFrequencyLimit[];
  waiting_periods: EngineWaitingPeriod[];
  age_limits: NormalizedAgeLimit[];
  downgrades: EngineDowngrade[];
  copays: EngineCopay[];
  exclusions: CodeSpec[];
  allowed_fees: Record<string, Cents>;
  ucr_fees: Record<string, Cents>;
  benefits_used: { years: EngineBenefitYearUsage[]; prior_procedures: EnginePriorProcedure[] };
}

export interface NormalizedProcedure extends EngineProcedure {
  date: IsoDate;
  tooth: string | null;
  surfaces: string | null;
}

export type NormalizedOverride = EngineOverride;

export interface NormalizedInput {
  patient: EnginePatient;
  categories: EngineCoverageCategory[];
  plans: NormalizedPlan[];
  procedures: NormalizedProcedure[];
  overrides: NormalizedOverride[];
}

export const OVERRIDE_FIELDS = ["allowed", "copay", "deductible", "insurance_estimate", "percentage", "write_off"] as const;
export type OverrideField = (typeof OVERRIDE_FIELDS)[number];

const PLAN_TYPES = ["ppo", "indemnity", "capitation", "medicaid"];
const COB_METHODS = ["standard", "non_duplication", "carve_out"];

function fail(path: string, message: string): never {
  throw new EstimateInputError(path, message);
}

function date(value: unknown, path: string): IsoDate {
  if (typeof value !== "string" || !parseDate(value)) fail(path, `must be a YYYY-MM-DD date, got ${JSON.stringify(value)}`);
  return value;
}

function optionalDate(value: unknown, path: string): IsoDate | null {
  return value === null || value === undefined ? null : date(value, path);
}

function wholeNumber(value: unknown, path: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > max)
    fail(path, `must be an integer 0-${max}, got ${JSON.stringify(value)}`);
  return value;
}

// Amounts up to ten million dollars keep every product amount * percent exact.
const MAX_CENTS = 1_000_000_000;
const cents = (value: unknown, path: string) => wholeNumber(value, path, MAX_CENTS);
const percent = (value: unknown, path: string) => wholeNumber(value, path, 100);

function text(value: unknown, path: string): string {
  if (typeof value !== "string" || value.trim() === "") fail(path, "must be a non-empty string");
  return value;
}

function code(value: unknown, path: string): string {
  return normalizeCode(text(value, path));
}

function codeSpecs(value: unknown, path: string): CodeSpec[] {
  if (!Array.isArray(value)) fail(path, "must be an array of codes or code ranges");
  return value.map((spec, i) => {
    try {
      const range = parseCodeSpec(text(spec, `${path}[${i}]`));
      return range.from_code === range.to_code ? range.from_code : `${range.from_code}-${range.to_code}`;
    } catch (err) {
      if (err instanceof EstimateInputError) throw err;
      return fail(`${path}[${i}]`, (err as Error).message);
    }
  });
}

function list<T>(value: T[] | undefined | null, path: string): T[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail(path, "must be an array");
  return value;
}

function feeTable(value: Record<string, Cents> | undefined, path: string): Record<string, Cents> {
  const out: Record<string, Cents> = {};
  for (const [k, v] of Object.entries(value ?? {})) out[code(k, path)] = cents(v, `${path}.${k}`);
  return out;
}

/** Source names per code; undefined when there are none, so an input without them hashes as it did before they existed. */
function sourceTable(value: Record<string, string> | undefined, path: string): Record<string, string> | undefined {
  const entries = Object.entries(value ?? {});
  if (!entries.length) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of entries) out[code(k, path)] = text(v, `${path}.${k}`);
  return out;
}

function normalizeCategories(categories: EngineCoverageCategory[]): EngineCoverageCategory[] {
  const seen = new Set<string>();
  return list(categories, "categories").map((c, i) => {
    const path = `categories[${i}]`;
    const id = text(c.id, `${path}.id`);
    if (seen.has(id)) fail(`${path}.id`, `duplicate category id ${id}`);
    seen.add(id);
    return {
      id,
      name: typeof c.name === "string" ? c.name : id,
      spans: list(c.spans, `${path}.spans`).map((s, j) => {
        const [spec] = codeSpecs([`${s.from_code}-${s.to_code}`], `${path}.spans[${j}]`);
        const range = parseCodeSpec(spec);
        return { from_code: range.from_code, to_code: range.to_code, is_exclusion: s.is_exclusion === true };
      }),
    };
  });
}

function normalizeFrequency(limit: EngineFrequencyLimit, path: string): NormalizedFrequencyLimit {
  const period = limit.period;
  let normalized: NormalizedFrequencyLimit["period"];
  if (period === "benefit_year" || period === "lifetime") normalized = period;
  else if (period && typeof period === "object") normalized = { months: wholeNumber(period.months, `${path}.period.months`, 1200) };
  else fail(`${path}.period`, 'must be "benefit_year", "lifetime" or { months }');
  if (typeof normalized === "object" && normalized.months === 0) fail(`${path}.period.months`, "must be at least 1");
  return {
    codes: codeSpecs(limit.codes, `${path}.codes`),
    count: wholeNumber(limit.count, `${path}.count`, 1000),
    period: normalized,
    per_tooth: limit.per_tooth === true,
  };
}

function normalizePlan(plan: EnginePlan, i: number): NormalizedPlan {
  const path = `plans[${i}]`;
  if (!PLAN_TYPES.includes(plan.plan_type)) fail(`${path}.plan_type`, `must be one of ${PLAN_TYPES.join(", ")}`);
  if (!COB_METHODS.includes(plan.cob_method)) fail(`${path}.cob_method`, `must be one of ${COB_METHODS.join(", ")}`);
  const month = wholeNumber(plan.benefit_year_start_month, `${path}.benefit_year_start_month`, 12);
  if (month < 1) fail(`${path}.benefit_year_start_month`, "must be 1-12");
  const used = plan.benefits_used ?? {};
  const years = list(used.years, `${path}.benefits_used.years`).map((y, j) => {
    const p = `${path}.benefits_used.years[${j}]`;
    const start = date(y.start, `${p}.start`);
    if (benefitYearOf(start, month).start !== start) fail(`${p}.start`, `must be the first day of a benefit year starting in month ${month}`);
    const out: EngineBenefitYearUsage = {
      start,
      deductible_met_cents: cents(y.deductible_met_cents, `${p}.deductible_met_cents`),
      annual_max_used_cents: cents(y.annual_max_used_cents, `${p}.annual_max_used_cents`),
    };
    if (y.family_deductible_met_cents !== undefined && y.family_deductible_met_cents !== null) {
      out.family_deductible_met_cents = cents(y.family_deductible_met_cents, `${p}.family_deductible_met_cents`);
    }
    return out;
  });
  if (new Set(years.map((y) => y.start)).size !== years.length) fail(`${path}.benefits_used.years`, "one entry per benefit year");
  return {
    ordinal: wholeNumber(plan.ordinal, `${path}.ordinal`),
    plan_id: text(plan.plan_id, `${path}.plan_id`),
    carrier_id: text(plan.carrier_id, `${path}.carrier_id`),
    plan_type: plan.plan_type,
    cob_method: plan.cob_method,
    benefit_year_start_month: month,
    effective_date: optionalDate(plan.effective_date, `${path}.effective_date`),
    annual_max_cents: plan.annual_max_cents === null ? null : cents(plan.annual_max_cents, `${path}.annual_max_cents`),
    deductible_individual_cents: cents(plan.deductible_individual_cents, `${path}.deductible_individual_cents`),
    deductible_family_cents:
      plan.deductible_family_cents === null || plan.deductible_family_cents === undefined
        ? null
        : cents(plan.deductible_family_cents, `${path}.deductible_family_cents`),
    deductible_category_ids: list(plan.deductible_category_ids, `${path}.deductible_category_ids`).map((c, j) =>
      text(c, `${path}.deductible_category_ids[${j}]`),
    ),
    coverage: list(plan.coverage, `${path}.coverage`).map(
      (r: EngineCoverageRule, j): EngineCoverageRule => ({
        category_id: text(r.category_id, `${path}.coverage[${j}].category_id`),
        percent: percent(r.percent, `${path}.coverage[${j}].percent`),
      }),
    ),
    frequency_limits: list(plan.frequency_limits, `${path}.frequency_limits`).map((f, j) => normalizeFrequency(f, `${path}.frequency_limits[${j}]`)),
    waiting_periods: list(plan.waiting_periods, `${path}.waiting_periods`).map((w, j) => ({
      category_id: text(w.category_id, `${path}.waiting_periods[${j}].category_id`),
      months: wholeNumber(w.months, `${path}.waiting_periods[${j}].months`, 1200),
    })),
    age_limits: list(plan.age_limits, `${path}.age_limits`).map((a, j) => ({
      codes: codeSpecs(a.codes, `${path}.age_limits[${j}].codes`),
      min_age: a.min_age === null || a.min_age === undefined ? null : wholeNumber(a.min_age, `${path}.age_limits[${j}].min_age`, 200),
      max_age: a.max_age === null || a.max_age === undefined ? null : wholeNumber(a.max_age, `${path}.age_limits[${j}].max_age`, 200),
    })),
    downgrades: list(plan.downgrades, `${path}.downgrades`).map((d, j) => ({
      codes: codeSpecs(d.codes, `${path}.downgrades[${j}].codes`),
      to_code: code(d.to_code, `${path}.downgrades[${j}].to_code`),
    })),
    copays: list(plan.copays, `${path}.copays`).map((c, j) => ({
      code: code(c.code, `${path}.copays[${j}].code`),
      copay_cents: cents(c.copay_cents, `${path}.copays[${j}].copay_cents`),
    })),
    exclusions: codeSpecs(plan.exclusions ?? [], `${path}.exclusions`),
    allowed_fees: feeTable(plan.allowed_fees, `${path}.allowed_fees`),
    allowed_fee_sources: sourceTable(plan.allowed_fee_sources, `${path}.allowed_fee_sources`),
    ucr_fees: feeTable(plan.ucr_fees, `${path}.ucr_fees`),
    benefits_used: {
      years: [...years].sort((a, b) => (a.start < b.start ? -1 : 1)),
      prior_procedures: list(used.prior_procedures, `${path}.benefits_used.prior_procedures`).map((p, j) => ({
        code: code(p.code, `${path}.benefits_used.prior_procedures[${j}].code`),
        date: date(p.date, `${path}.benefits_used.prior_procedures[${j}].date`),
        tooth: p.tooth ?? null,
      })),
    },
  };
}

function overrideValue(value: unknown, field: OverrideField, path: string): number | null {
  if (value === null || value === undefined) return null;
  // Negative or too-large values are clamped (with a warning) by the engine; only non-numbers are rejected.
  if (typeof value !== "number" || !Number.isInteger(value)) fail(`${path}.${field}`, "must be an integer (cents, or percent for percentage)");
  return value;
}

export function normalizeInput(input: EstimateInput): NormalizedInput {
  const asOf = date(input.as_of, "as_of");
  const dob = optionalDate(input.patient?.date_of_birth, "patient.date_of_birth");
  const categories = normalizeCategories(input.categories);
  const plans = list(input.plans, "plans").map(normalizePlan);
  plans.sort((a, b) => a.ordinal - b.ordinal);
  for (let i = 1; i < plans.length; i++) if (plans[i].ordinal === plans[i - 1].ordinal) fail("plans", `duplicate ordinal ${plans[i].ordinal}`);

  const ids = new Set<string>();
  const procedures = list(input.procedures, "procedures").map((p, i): NormalizedProcedure => {
    const path = `procedures[${i}]`;
    const id = text(p.id, `${path}.id`);
    if (ids.has(id)) fail(`${path}.id`, `duplicate procedure id ${id}`);
    ids.add(id);
    return {
      id,
      code: code(p.code, `${path}.code`),
      fee_cents: cents(p.fee_cents, `${path}.fee_cents`),
      date: optionalDate(p.date, `${path}.date`) ?? asOf,
      tooth: p.tooth ?? null,
      surfaces: p.surfaces ?? null,
    };
  });

  // One override record per (procedure, plan), null fields dropped; overrides of
  // procedures or plans not in the input are ignored (they estimate nothing).
  const ordinals = new Set(plans.map((p) => p.ordinal));
  const merged = new Map<string, NormalizedOverride>();
  list(input.overrides, "overrides").forEach((o, i) => {
    if (!ids.has(o.procedure_id) || !ordinals.has(o.ordinal)) return;
    const key = `${o.procedure_id}\u0000${o.ordinal}`;
    const entry = merged.get(key) ?? { procedure_id: o.procedure_id, ordinal: o.ordinal };
    for (const field of OVERRIDE_FIELDS) {
      const value = overrideValue(o[field], field, `overrides[${i}]`);
      if (value !== null) entry[field] = value;
    }
    merged.set(key, entry);
  });
  const order = new Map(procedures.map((p, i) => [p.id, i]));
  const overrides = [...merged.values()]
    .filter((o) => OVERRIDE_FIELDS.some((f) => o[f] !== undefined))
    .sort((a, b) => order.get(a.procedure_id)! - order.get(b.procedure_id)! || a.ordinal - b.ordinal);

  return { patient: { date_of_birth: dob }, categories, plans, procedures, overrides };
}
