// Inputs and outputs of the estimate engine (docs/insurance/insurance-estimates.md).
// Money is integer cents, percentages are integers 0-100, dates are
// "YYYY-MM-DD". The plan rule shapes are those of db/tenant/insurance.ts, so a
// plan row's JSON columns can be passed through unchanged.

export type Cents = number;
/** "YYYY-MM-DD" */
export type IsoDate = string;

export type PlanType = "ppo" | "indemnity" | "capitation" | "medicaid";
export type CobMethod = "standard" | "non_duplication" | "carve_out";
export type ExclusionReason = "frequency" | "age" | "waiting_period" | "not_covered";

/** A code list entry: one code ("D1206") or an inclusive range ("D2391-D2394"). */
export type CodeSpec = string;

// ---------------------------------------------------------------- inputs

export interface EngineCoverageSpan {
  from_code: string;
  to_code: string;
  /** Codes in an exclusion span are not covered by any plan. */
  is_exclusion: boolean;
}

/** Coverage categories in their display order (item_order); spans in theirs. */
export interface EngineCoverageCategory {
  id: string;
  name: string;
  spans: EngineCoverageSpan[];
}

export interface EngineCoverageRule {
  category_id: string;
  /** 0-100 */
  percent: number;
}

export interface EngineFrequencyLimit {
  codes: CodeSpec[];
  /** How many services the period allows. */
  count: number;
  /** The plan's benefit year, the patient's lifetime, or a rolling window of N months. */
  period: "benefit_year" | "lifetime" | { months: number };
  /** Count services on the same tooth only (sealants: 1 per tooth per 36 months). */
  per_tooth?: boolean;
}

export interface EngineWaitingPeriod {
  category_id: string;
  /** Months from the subscription's effective date before the category is covered. */
  months: number;
}

/** Covered only from min_age to max_age, both inclusive, on the service date ("fluoride under 19" is max_age 18). */
export interface EngineAgeLimit {
  codes: CodeSpec[];
  min_age?: number | null;
  max_age?: number | null;
}

/** The plan pays a performed code as if it were `to_code` (alternate benefit: posterior composite paid as amalgam). */
export interface EngineDowngrade {
  codes: CodeSpec[];
  to_code: string;
}

export interface EngineCopay {
  code: string;
  copay_cents: Cents;
}

/** What one benefit year of a plan has already used (completed work, other offices, adjustments). */
export interface EngineBenefitYearUsage {
  /** First day of the benefit year (see benefitYearOf). */
  start: IsoDate;
  deductible_met_cents: Cents;
  annual_max_used_cents: Cents;
  /** Only read when the plan has a family deductible. */
  family_deductible_met_cents?: Cents;
}

export interface EnginePriorProcedure {
  code: string;
  date: IsoDate;
  tooth?: string | null;
}

export interface EngineBenefitsUsed {
  /** Benefit years not listed have used nothing. */
  years?: EngineBenefitYearUsage[];
  /** Services that count toward frequency limits (completed or paid work). */
  prior_procedures?: EnginePriorProcedure[];
}

export interface EnginePlan {
  /** Coordination-of-benefits order: 1 primary, 2 secondary, ... (unique). */
  ordinal: number;
  /** The patient plan (or plan) id: reported back and hashed. */
  plan_id: string;
  carrier_id: string;
  plan_type: PlanType;
  /** How this plan pays when it is not primary. */
  cob_method: CobMethod;
  /** 1-12 */
  benefit_year_start_month: number;
  /** The subscription's effective date: waiting periods count from it; nothing before it is covered. */
  effective_date?: IsoDate | null;
  /** null: no annual maximum. */
  annual_max_cents: Cents | null;
  deductible_individual_cents: Cents;
  deductible_family_cents?: Cents | null;
  /** Categories the deductible applies to (typically basic and major, not diagnostic or preventive). */
  deductible_category_ids: string[];
  coverage: EngineCoverageRule[];
  frequency_limits?: EngineFrequencyLimit[];
  waiting_periods?: EngineWaitingPeriod[];
  age_limits?: EngineAgeLimit[];
  downgrades?: EngineDowngrade[];
  /** Fixed patient copay per code (capitation, medicaid; honoured for every plan type). */
  copays?: EngineCopay[];
  /** Codes this plan does not cover, besides the categories' exclusion spans. */
  exclusions?: CodeSpec[];
  /** Allowed fee per code (PPO fee schedule, estimate book; for indemnity the carrier's maximum allowance). Absent: the fee billed. */
  allowed_fees?: Record<string, Cents>;
  /** Where allowed fees come from, per code, when it is worth naming (a fee schedule): the waterfall's allowed_fee step says so. Absent: "the plan's allowed fee". */
  allowed_fee_sources?: Record<string, string>;
  /** UCR per code: caps the allowed fee (estimate book exclude_over_ucr). */
  ucr_fees?: Record<string, Cents>;
  benefits_used?: EngineBenefitsUsed;
}

export interface EngineProcedure {
  /** Unique within the input (the charted procedure id). */
  id: string;
  code: string;
  fee_cents: Cents;
  /** Service or planned date; absent: the estimate's as_of date. */
  date?: IsoDate | null;
  tooth?: string | null;
  surfaces?: string | null;
}

export interface EnginePatient {
  date_of_birth: IsoDate | null;
}

/** Overrides of one procedure's estimate against one plan. Absent or null: no override. */
export interface EngineOverride {
  procedure_id: string;
  ordinal: number;
  allowed?: Cents | null;
  copay?: Cents | null;
  deductible?: Cents | null;
  insurance_estimate?: Cents | null;
  /** 0-100 */
  percentage?: number | null;
  write_off?: Cents | null;
}

export interface EstimateInput {
  /** The estimate date: used for procedures without a date. The engine reads no clock. */
  as_of: IsoDate;
  patient: EnginePatient;
  categories: EngineCoverageCategory[];
  /** Active plans; estimated in ordinal order whatever the array order. */
  plans: EnginePlan[];
  /** Estimated in this order: earlier procedures use deductible, maximum and frequency first. */
  procedures: EngineProcedure[];
  overrides?: EngineOverride[];
}

// ---------------------------------------------------------------- outputs

export interface EngineWarning {
  code: string;
  message: string;
}

export type WaterfallStepName =
  | "fee_billed"
  | "other_plans"
  | "allowed_fee"
  | "write_off"
  | "benefit_base"
  | "exclusion"
  | "copay"
  | "deductible"
  | "coverage_percent"
  | "annual_maximum"
  | "coordination"
  | "insurance_estimate"
  | "patient_portion";

/**
 * One line of the explanation. `amount_cents` is the figure the step is about;
 * `running_cents` is what the patient still owes for the balance steps
 * (fee_billed, other_plans, allowed_fee, write_off, insurance_estimate,
 * patient_portion) and the benefit being worked out for the others.
 */
export interface WaterfallStep {
  step: WaterfallStepName;
  label: string;
  amount_cents: Cents;
  running_cents: Cents;
  note: string | null;
}

export interface BenefitMatch {
  code: string;
  /** The code the plan pays on: the substitution code after a downgrade, else the code. */
  benefit_code: string;
  category_id: string | null;
  category_name: string | null;
  span: { from_code: string; to_code: string } | null;
  /** The exclusion span or plan exclusion that makes the code not covered. */
  excluded_by: { source: "category_span" | "plan_exclusion"; from_code: string; to_code: string; category_id: string | null } | null;
}

export interface CoverageDetail {
  /** The plan's percent for the category (null: the plan does not cover it). */
  category_percent: number | null;
  deductible_applies: boolean;
  copay_cents: Cents | null;
  waiting_period: { months: number; covered_from: IsoDate | null } | null;
  age: { age: number | null; min_age: number | null; max_age: number | null } | null;
  frequency: { codes: CodeSpec[]; count: number; period: string; used: number }[];
}

export interface PlanContext {
  ordinal: number;
  plan_id: string;
  carrier_id: string;
  plan_type: PlanType;
  cob_method: CobMethod;
  /** True for the plan whose contract sets the write-off (the first contracted plan). */
  sets_write_off: boolean;
  benefit_year: { start: IsoDate; end: IsoDate };
  annual_max_cents: Cents | null;
  annual_max_remaining_before_cents: Cents | null;
  annual_max_remaining_after_cents: Cents | null;
  deductible_individual_cents: Cents;
  deductible_remaining_before_cents: Cents;
  deductible_remaining_after_cents: Cents;
}

export interface EstimateDetail {
  benefit_match: BenefitMatch;
  coverage: CoverageDetail;
  plan_context: PlanContext;
  substitution_code: string | null;
  warnings: EngineWarning[];
  waterfall: WaterfallStep[];
}

/**
 * One procedure against one plan. Money in integer cents. The plain fields
 * are calculated (from the effective values of earlier steps); effective_*
 * is the value used: the override when set (clamped when it would break the
 * invariant), else the calculated value.
 */
export interface PlanEstimate {
  procedure_id: string;
  ordinal: number;
  plan_id: string;
  carrier_id: string;
  code_sent: string;
  fee_billed: Cents;
  allowed_fee: Cents;
  /** The PPO fee schedule's amount for the code (PPO plans with a scheduled fee), else null. */
  ppo_fee: Cents | null;
  write_off_estimate: Cents;
  copay_amount: Cents;
  deductible_applied: Cents;
  coverage_percent: number;
  /** Percent of (benefit base - copay - deductible), before the annual maximum and COB. */
  base_estimate: Cents;
  insurance_estimate: Cents;
  /** What the plans before this one pay for the procedure (effective). */
  paid_other_insurance: Cents;
  /** What the patient still owes after this plan and the ones before it. */
  patient_estimate: Cents;
  is_excluded: boolean;
  exclusion_reason: ExclusionReason | null;
  substitution_code: string | null;
  effective_allowed_fee: Cents;
  effective_copay: Cents;
  effective_coverage_percent: number;
  effective_deductible: Cents;
  effective_insurance_estimate: Cents;
  effective_write_off: Cents;
  has_allowed_override: boolean;
  has_copay_override: boolean;
  has_deductible_override: boolean;
  has_insurance_estimate_override: boolean;
  has_percentage_override: boolean;
  has_write_off_override: boolean;
  /** inputsHash(input, procedure_id, ordinal) */
  inputs_hash: string;
  detail: EstimateDetail;
}

/** patient_estimate + insurance_estimate + write_off = fee_billed, all from effective values. */
export interface ProcedureEstimate {
  procedure_id: string;
  code: string;
  date: IsoDate;
  fee_billed: Cents;
  insurance_estimate: Cents;
  write_off: Cents;
  patient_estimate: Cents;
  /** One per plan, in ordinal order. */
  estimates: PlanEstimate[];
}

export interface TreatmentPlanEstimate {
  engine_version: number;
  procedures: ProcedureEstimate[];
  totals: { fee_billed: Cents; insurance_estimate: Cents; write_off: Cents; patient_estimate: Cents };
}
