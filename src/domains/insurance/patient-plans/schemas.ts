import { z } from "zod";
import { BaseVersion, DateOnly, DateTime, QueryBool, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { Amount, Money } from "@/domains/insurance/plans/schemas";

// Patient plans (a patient covered by a subscription, in coordination-of-benefits order),
// their benefits used in a benefit year, and adjustments for benefits used elsewhere (docs/insurance/insurance.md).

export const RELATIONSHIPS = ["self", "spouse", "child", "other"] as const;
export const MAX_ORDINAL = 4;

const Ordinal = z.number().int().min(1).max(MAX_ORDINAL).describe("Coordination-of-benefits order: 1 primary, 2 secondary, 3, 4");
const DERIVED = ["patient", "subscription", "plan", "carrier", "subscriber"];

export const PatientPlanCreate = z
  .strictObject({
    patient_uuid: Uuid.describe("The covered patient (404 when missing; 422 patient_archived when archived)"),
    subscription_uuid: Uuid.describe("The subscription (card) covering the patient (404 when missing or archived)"),
    relationship: z
      .enum(RELATIONSHIPS)
      .optional()
      .describe(
        "The patient's relationship to the subscriber. Default self when the patient is the subscriber; required otherwise. self if and only if the patient is the subscriber",
      ),
    ordinal: Ordinal.optional().describe("Default: the lowest ordinal (1-4) no active plan of the patient holds"),
    is_active: z.boolean().optional().describe("Default true; inactive plans keep their place in the record but are not estimated"),
  })
  .meta({ readOnly: DERIVED });
export type PatientPlanCreate = z.infer<typeof PatientPlanCreate>;

export const PatientPlanPatch = z
  .strictObject({
    base_version: BaseVersion,
    relationship: z.enum(RELATIONSHIPS).optional(),
    ordinal: Ordinal.optional().describe("Moving an active plan onto the ordinal of another active plan of the patient swaps the two"),
    is_active: z.boolean().optional(),
  })
  .meta({ readOnly: [...DERIVED, "patient_uuid", "subscription_uuid"] });
export type PatientPlanPatch = z.infer<typeof PatientPlanPatch>;

export const PatientPlanListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  patient_uuid: Uuid.optional().describe("The patient's plans (404 when the patient does not exist)"),
  subscription_uuid: Uuid.optional().describe("Everyone a subscription covers"),
  is_active: QueryBool.optional().describe("Omitted: active and inactive plans"),
});
export type PatientPlanListQuery = z.infer<typeof PatientPlanListQuery>;

export const PatientPlan = z
  .object({
    ...RecordMeta,
    patient: Ref.describe('name is "First Last"'),
    subscription: Ref.describe("name is the subscriber's member id"),
    plan: Ref.describe("The subscription's plan (read-only)"),
    carrier: Ref.describe("The plan's carrier (read-only)"),
    subscriber: Ref.describe("The subscriber patient (read-only)"),
    relationship: z.enum(RELATIONSHIPS),
    ordinal: z.number().int(),
    is_active: z.boolean(),
    deleted_at: DateTime.nullable().describe("Set only on the answer of archive"),
  })
  .meta({ id: "PatientPlan" });
export type PatientPlan = z.infer<typeof PatientPlan>;

// ---- benefits -------------------------------------------------------------------------

export const BenefitsQuery = z.strictObject({
  as_of: DateOnly.optional().describe("A date in the benefit year wanted; default today in the patient's practice time zone"),
});
export type BenefitsQuery = z.infer<typeof BenefitsQuery>;

const Used = z.object({ annual_max_used: Money, deductible_met: Money });

export const Benefits = z
  .object({
    patient_plan_uuid: z.string(),
    plan: Ref,
    as_of: z.string().describe("YYYY-MM-DD"),
    benefit_year_start: z.string().describe("YYYY-MM-DD: the first day of the benefit year holding as_of (the plan's benefit_year_start_month)"),
    benefit_year_end: z.string().describe("YYYY-MM-DD: its last day"),
    annual_max: Money.nullable().describe("null: the plan has no annual maximum"),
    annual_max_used: Money.describe("from_procedures plus from_adjustments"),
    annual_max_remaining: Money.nullable().describe("annual_max less annual_max_used, not below 0; null without a maximum"),
    deductible_individual: Money,
    deductible_met: Money.describe("This patient's deductible met: from_procedures plus from_adjustments"),
    deductible_family: Money.nullable(),
    family_deductible_met: Money.nullable().describe("Deductible met by everyone the subscription covers; null without a family deductible"),
    deductible_remaining: Money.describe(
      "What this patient may still be charged as deductible: the individual remainder, capped by the family remainder when the plan has a family deductible",
    ),
    from_procedures: Used.describe("Sums over the estimates of this patient plan whose procedures are complete with date_service in the benefit year"),
    from_adjustments: Used.describe("Sums of the benefit adjustments recorded for the benefit year"),
  })
  .meta({ id: "PatientPlanBenefits" });
export type Benefits = z.infer<typeof Benefits>;

export const BenefitAdjustmentCreate = z
  .strictObject({
    as_of: DateOnly.optional().describe("A date in the benefit year the benefits were used in; default today in the patient's practice time zone"),
    annual_max_used: Amount.optional().describe("Dollars of the annual maximum used elsewhere; default 0"),
    deductible_met: Amount.optional().describe("Dollars of deductible met elsewhere; default 0"),
    note: z.string().trim().max(2000).nullable().optional().describe("e.g. where the benefits were used"),
  })
  .superRefine((v, c) => {
    if (!v.annual_max_used && !v.deductible_met)
      c.addIssue({ code: "custom", path: ["annual_max_used"], message: "Give annual_max_used or deductible_met above 0" });
  })
  .meta({ readOnly: ["patient_plan", "benefit_year_start", "benefit_year_end"] });
export type BenefitAdjustmentCreate = z.infer<typeof BenefitAdjustmentCreate>;

export const BenefitAdjustment = z
  .object({
    ...RecordMeta,
    patient_plan: Ref.describe("name is the plan's name"),
    benefit_year_start: z.string().describe("YYYY-MM-DD"),
    benefit_year_end: z.string().describe("YYYY-MM-DD"),
    annual_max_used: Money,
    deductible_met: Money,
    note: z.string().nullable(),
    deleted_at: DateTime.nullable().describe("Set only on the answer of archive"),
  })
  .meta({ id: "BenefitAdjustment" });
export type BenefitAdjustment = z.infer<typeof BenefitAdjustment>;

export const BenefitAdjustmentListQuery = z.strictObject({ ...pagingQuery(50, 200) });
