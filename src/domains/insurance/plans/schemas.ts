import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, DollarsInput, QueryBool, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { findRange, normalizeCode } from "@/domains/insurance/estimates/engine/codes";

// Insurance plans and their benefit rules (docs/insurance/insurance.md, "Plans").

export const PLAN_TYPES = ["ppo", "indemnity", "capitation", "medicaid"] as const;
export const COB_METHODS = ["standard", "non_duplication", "carve_out"] as const;
export const FREQUENCY_PERIODS = ["benefit_year", "lifetime", "months"] as const;

/** 1,000,000.00: far above any dental benefit, low enough that cents stay exact integers. */
/** A money amount in a request: dollars as a number, 0 to 1,000,000, at most two decimals (stored as cents). */
export const Amount = DollarsInput();
/** A money amount in an answer: dollars, two decimals. */
export const Money = z.string().describe("Dollars, two decimals");

const CODE = /^[Dd]\d{4}$/;
const RANGE = /^([Dd]\d{4})-([Dd]\d{4})$/;

/** One CDT code, `D` and four digits (any case in, upper-case out). */
export const CdtCode = z
  .string()
  .regex(CODE, "Must be a CDT code: D and four digits, e.g. D0120")
  .transform((c) => c.toUpperCase());

/** A CDT code or an inclusive range `Dnnnn-Dnnnn` whose first code is not after its last. */
export const CdtPattern = z
  .string()
  .refine((p) => CODE.test(p) || RANGE.test(p), { message: "Must be a CDT code (D0120) or an inclusive range (D2391-D2394)", abort: true })
  .refine((p) => {
    const m = RANGE.exec(p);
    return !m || m[1]!.toUpperCase() <= m[2]!.toUpperCase();
  }, "The range's first code must not be after its last")
  .transform((p) => p.toUpperCase());

const Codes = z.array(CdtPattern).min(1).max(50).describe('CDT codes and inclusive ranges, e.g. ["D0120", "D0150"] or ["D2391-D2394"]');
const Percent = z.number().int().min(0).max(100);
const Age = z.number().int().min(0).max(130);
const uniqueBy = <T>(items: readonly T[], key: (t: T) => string) => new Set(items.map(key)).size === items.length;

// ---- rules as requests send them ----------------------------------------------------

export const CoverageRuleIn = z.strictObject({
  category_uuid: Uuid.describe("A coverage category"),
  percent: Percent.describe("What the plan pays of the (allowed) fee, 0-100"),
});

export const FrequencyRuleIn = z
  .strictObject({
    codes: Codes,
    count: z.number().int().min(1).max(99).describe("How many of these codes (together) the plan pays per period"),
    period: z.enum(FREQUENCY_PERIODS).describe("benefit_year, lifetime, or months (a rolling window of `months` before the date of service)"),
    months: z.number().int().min(1).max(120).nullable().optional().describe("Required when period is months; null or left out otherwise"),
  })
  .superRefine((r, c) => {
    if (r.period === "months" && r.months == null) c.addIssue({ code: "custom", path: ["months"], message: "Required when period is months" });
    if (r.period !== "months" && r.months != null) c.addIssue({ code: "custom", path: ["months"], message: "Only allowed when period is months" });
  });

export const WaitingPeriodRuleIn = z.strictObject({
  category_uuid: Uuid.describe("A coverage category"),
  months: z.number().int().min(1).max(60).describe("Months from the subscription's effective date before the category is covered"),
});

export const AgeLimitRuleIn = z
  .strictObject({
    codes: Codes,
    min_age: Age.nullable().optional().describe("Covered from this age in whole years on the date of service (inclusive)"),
    max_age: Age.nullable().optional().describe("Covered up to this age (inclusive): fluoride under 19 is max_age 18"),
  })
  .superRefine((r, c) => {
    if (r.min_age == null && r.max_age == null) c.addIssue({ code: "custom", path: ["max_age"], message: "Give min_age, max_age or both" });
    if (r.min_age != null && r.max_age != null && r.min_age > r.max_age)
      c.addIssue({ code: "custom", path: ["max_age"], message: "Must not be below min_age" });
  });

export const DowngradeRuleIn = z
  .strictObject({
    codes: Codes.describe('The codes paid as to_code, e.g. ["D2391"] (a one-surface posterior composite)'),
    to_code: CdtCode.describe("The code whose fee the plan pays instead, e.g. D2140 (a one-surface amalgam)"),
  })
  .superRefine((r, c) => {
    if (r.codes.some((p) => patternCovers(p, r.to_code))) c.addIssue({ code: "custom", path: ["to_code"], message: "Must not be one of the downgraded codes" });
  });

export const CopayRuleIn = z.strictObject({
  code: CdtCode,
  copay: Amount.describe("Dollars the patient pays for the code (capitation and Medicaid schedules)"),
});

/** True when a stored pattern (`D0120` or `D2391-D2394`) covers the code: the estimate engine's rule, so validation and estimates agree. */
export function patternCovers(pattern: string, code: string): boolean {
  try {
    return findRange(normalizeCode(code), [pattern]) !== null;
  } catch {
    return false; // not a pattern: its own validation reports it
  }
}

// ---- plan requests ------------------------------------------------------------------

const text = (max: number) => z.string().trim().max(max);

const planFields = {
  carrier_uuid: Uuid.describe("The carrier (404 when missing or archived)"),
  plan_name: text(200).nullable().describe('How the office names the plan, e.g. "Acme Corp Dental PPO"'),
  group_name: text(200).nullable().describe("The employer or group, as on the card"),
  group_number: text(50).nullable().describe("The group number, as on the card"),
  plan_type: z
    .enum(PLAN_TYPES)
    .describe("Default ppo. ppo: write-offs down to the allowed fee; indemnity: percentages of the office fee; capitation and medicaid: copays per code"),
  estimate_book_uuid: Uuid.nullable().describe("The estimate book whose allowed fees apply (404 when missing or archived); null: none"),
  fee_schedule_uuid: Uuid.nullable().describe(
    "The plan's fee schedule (404 when missing or archived); null: none. A ppo or allowed schedule gives the plan's allowed fees in estimates, before any estimate book",
  ),
  cob_method: z.enum(COB_METHODS).describe("Default standard. How this plan pays as secondary: standard, non_duplication or carve_out"),
  benefit_year_start_month: z.number().int().min(1).max(12).describe("Default 1 (calendar year); 7 means July 1 to June 30"),
  annual_max: Amount.nullable().describe("Dollars per patient per benefit year; null: no maximum"),
  deductible_individual: Amount.describe("Dollars per patient per benefit year; default 0"),
  deductible_family: Amount.nullable().describe(
    "Dollars per subscription per benefit year (met by the family together); null: none. Not below deductible_individual",
  ),
  deductible_category_uuids: z
    .array(Uuid)
    .max(50)
    .describe("The coverage categories the deductible applies to (repeats are dropped); default none: the deductible applies to nothing"),
  coverage: z
    .array(CoverageRuleIn)
    .max(50)
    .refine((l) => uniqueBy(l, (r) => r.category_uuid), "A category may appear once")
    .describe("Coverage percentage per category; a category left out is not covered"),
  frequency_limits: z
    .array(FrequencyRuleIn)
    .max(100)
    .describe('e.g. two exams per benefit year: {codes: ["D0120", "D0150"], count: 2, period: "benefit_year"}'),
  waiting_periods: z
    .array(WaitingPeriodRuleIn)
    .max(50)
    .refine((l) => uniqueBy(l, (r) => r.category_uuid), "A category may appear once")
    .describe("Months before a category is covered"),
  age_limits: z.array(AgeLimitRuleIn).max(100).describe('e.g. fluoride under 19: {codes: ["D1206", "D1208"], max_age: 18}'),
  downgrades: z.array(DowngradeRuleIn).max(100).describe('e.g. a posterior composite paid as an amalgam: {codes: ["D2391"], to_code: "D2140"}'),
  copays: z
    .array(CopayRuleIn)
    .max(1000)
    .refine((l) => uniqueBy(l, (r) => r.code.toUpperCase()), "A code may appear once")
    .describe("Fixed patient copays per code"),
  is_hidden: z.boolean().describe("Default false; hidden plans leave the list unless include_hidden=true and stay usable"),
  notes: text(4000).nullable(),
};

const optional = <T extends Record<string, z.ZodType>>(shape: T) =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as { [K in keyof T]: z.ZodOptional<T[K]> };

const READ_ONLY = ["carrier", "estimate_book", "fee_schedule", "deductible_categories"];

export const PlanCreate = z.strictObject({ ...optional(planFields), carrier_uuid: planFields.carrier_uuid }).meta({ readOnly: READ_ONLY });
export type PlanCreate = z.infer<typeof PlanCreate>;

export const PlanPatch = z.strictObject({ base_version: BaseVersion, ...optional(planFields) }).meta({ readOnly: READ_ONLY });
export type PlanPatch = z.infer<typeof PlanPatch>;

export const PlanListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  carrier_uuid: Uuid.optional(),
  plan_type: z.enum(PLAN_TYPES).optional(),
  search: z.string().trim().max(200).optional().describe("Case-insensitive substring of the plan name, group name or group number"),
  include_hidden: QueryBool.default(false).describe("Default false: hidden plans are left out"),
});
export type PlanListQuery = z.infer<typeof PlanListQuery>;

export const ArchiveQuery = z.strictObject({ base_version: BaseVersionQuery });
export type ArchiveQuery = z.infer<typeof ArchiveQuery>;

// ---- plan answers -------------------------------------------------------------------

export const Plan = z
  .object({
    ...RecordMeta,
    carrier: Ref.describe("name is the carrier_name"),
    plan_name: z.string().nullable(),
    group_name: z.string().nullable(),
    group_number: z.string().nullable(),
    plan_type: z.enum(PLAN_TYPES),
    estimate_book: Ref.nullable(),
    fee_schedule: Ref.nullable().describe("name is the schedule's"),
    cob_method: z.enum(COB_METHODS),
    benefit_year_start_month: z.number().int(),
    annual_max: Money.nullable(),
    deductible_individual: Money,
    deductible_family: Money.nullable(),
    deductible_categories: z.array(Ref),
    coverage: z.array(z.object({ category: Ref, percent: z.number().int() })),
    frequency_limits: z.array(
      z.object({ codes: z.array(z.string()), count: z.number().int(), period: z.enum(FREQUENCY_PERIODS), months: z.number().int().nullable() }),
    ),
    waiting_periods: z.array(z.object({ category: Ref, months: z.number().int() })),
    age_limits: z.array(z.object({ codes: z.array(z.string()), min_age: z.number().int().nullable(), max_age: z.number().int().nullable() })),
    downgrades: z.array(z.object({ codes: z.array(z.string()), to_code: z.string() })),
    copays: z.array(z.object({ code: z.string(), copay: Money })),
    is_hidden: z.boolean(),
    notes: z.string().nullable(),
    deleted_at: DateTime.nullable().describe("Set only on the answer of archive"),
  })
  .meta({ id: "InsurancePlan" });
export type Plan = z.infer<typeof Plan>;
