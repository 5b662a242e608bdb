import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, DollarsInput, RecordMeta } from "@/platform/records/fields";

// Procedure estimates (spec.md "Procedure estimate"): money is rendered as
// two-decimal strings, like every amount the service returns; overrides are
// written as numbers (dollars, or a percent 0-100).

export const ESTIMATE_STATUSES = ["estimate", "preauth", "preauth_received"] as const;
export const EXCLUSION_REASONS = ["frequency", "age", "waiting_period", "not_covered"] as const;

const MoneyText = z.string().describe("Dollars, two decimals");

export const ProcedureEstimate = z.object({
  ...RecordMeta,
  charted_procedure_uuid: z.string(),
  treatment_plan_uuid: z.string().nullable(),
  patient_plan_uuid: z.string(),
  ordinal: z.number().int().describe("1 primary, 2 secondary, ..."),
  estimate_status: z.enum(ESTIMATE_STATUSES),
  fee_billed: MoneyText,
  allowed_fee: MoneyText.nullable(),
  ppo_fee: MoneyText.nullable(),
  write_off_estimate: MoneyText,
  deductible_applied: MoneyText,
  coverage_percent: z.number().int().min(0).max(100),
  base_estimate: MoneyText.describe("What the plan would pay before the annual maximum and coordination"),
  insurance_estimate: MoneyText,
  paid_other_insurance: MoneyText,
  patient_estimate: MoneyText,
  copay_amount: MoneyText,
  is_excluded: z.boolean(),
  exclusion_reason: z.enum(EXCLUSION_REASONS).nullable(),
  substitution_code: z.string().nullable(),
  estimate_note: z.string(),
  code_sent: z.string().nullable(),
  date_estimated: z.string().describe("YYYY-MM-DD"),
  calculated_at: DateTime.nullable(),
  inputs_hash: z.string().nullable(),
  is_stale: z.boolean().describe("True when anything the estimate was computed from has changed since"),
  preauth_amount: MoneyText.nullable(),
  preauth_date: z.string().nullable(),
  preauth_number: z.string().nullable(),
  effective_allowed_fee: MoneyText.nullable(),
  effective_copay: MoneyText,
  effective_coverage_percent: z.string().describe("Percent, as a string"),
  effective_deductible: MoneyText,
  effective_insurance_estimate: MoneyText,
  effective_write_off: MoneyText,
  has_allowed_override: z.boolean(),
  has_copay_override: z.boolean(),
  has_deductible_override: z.boolean(),
  has_insurance_estimate_override: z.boolean(),
  has_percentage_override: z.boolean(),
  has_write_off_override: z.boolean(),
});
export type ProcedureEstimateOut = z.infer<typeof ProcedureEstimate>;

export const EstimateRun = z.object({
  treatment_plan_uuid: z.string(),
  estimate_count: z.number().int(),
  stale_count: z.number().int(),
  total_fee_billed: MoneyText,
  total_insurance_estimate: MoneyText,
  total_patient_estimate: MoneyText,
  total_write_off: MoneyText,
  estimates: z.array(ProcedureEstimate),
});
export type EstimateRunOut = z.infer<typeof EstimateRun>;

export const PlanEstimates = z.object({ items: z.array(ProcedureEstimate), total: z.number().int() });
export type PlanEstimatesOut = z.infer<typeof PlanEstimates>;

export const Staleness = z.object({
  treatment_plan_uuid: z.string(),
  total_estimates: z.number().int(),
  fresh_count: z.number().int(),
  stale_count: z.number().int(),
  estimates: z.array(
    z.object({
      estimate_uuid: z.string(),
      charted_procedure_uuid: z.string(),
      ordinal: z.number().int(),
      is_stale: z.boolean(),
      has_override: z.boolean(),
      calculated_at: DateTime.nullable(),
    }),
  ),
});
export type StalenessOut = z.infer<typeof Staleness>;

const WaterfallStep = z.object({ step: z.string(), label: z.string(), amount: MoneyText, running: MoneyText, note: z.string().nullable() });

export const EstimateDetail = z.object({
  estimate_uuid: z.string(),
  has_detail: z.boolean().describe("False for estimates stored without an explanation"),
  benefit_match: z.record(z.string(), z.unknown()).nullable(),
  coverage: z.record(z.string(), z.unknown()).nullable(),
  exclusion_reason: z.enum(EXCLUSION_REASONS).nullable(),
  fee_source: z.enum(["fee_schedule", "override"]).nullable(),
  is_excluded: z.boolean(),
  plan_context: z.record(z.string(), z.unknown()).nullable(),
  substitution_code: z.string().nullable(),
  tracker: z.object({ inputs_hash: z.string().nullable(), is_stale: z.boolean(), calculated_at: DateTime.nullable(), engine_version: z.string().nullable() }),
  warnings: z.array(z.object({ code: z.string(), message: z.string() })),
  waterfall: z.array(WaterfallStep),
});
export type EstimateDetailOut = z.infer<typeof EstimateDetail>;

export const ReEstimateBody = z.strictObject({ force: z.boolean().default(false).describe("false: only stale estimates; true: all") }).optional();

const OverrideMoney = DollarsInput().nullable();

export const OverridesBody = z.strictObject({
  base_version: BaseVersion,
  allowed_override: OverrideMoney.optional(),
  copay_override: OverrideMoney.optional(),
  deductible_override: OverrideMoney.optional(),
  insurance_estimate_override: OverrideMoney.optional(),
  percentage_override: z.number().int().min(0).max(100).nullable().optional(),
  write_off_override: OverrideMoney.optional(),
});
export type OverridesInput = z.infer<typeof OverridesBody>;

export const DeleteEstimateQuery = z.strictObject({ base_version: BaseVersionQuery });
