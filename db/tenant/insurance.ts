import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id, json, softDelete, timestamps, versioned } from "@db/columns";
import { patients } from "./patients";
import { procedureCodes } from "./codes";
import { chartedProcedures, treatmentPlans } from "./charted-procedures";

// Insurance (docs/insurance/insurance.md): carriers, coverage categories, plans with their
// benefit rules, subscriptions and patient plans, computed procedure estimates,
// estimate books with allowed fees, and imported drafts. Money is integer cents.

export const insuranceCarriers = sqliteTable(
  "insurance_carriers",
  {
    id: id(),
    carrier_name: text("carrier_name").notNull(),
    carrier_group_name: text("carrier_group_name"),
    address_line1: text("address_line1"),
    address_line2: text("address_line2"),
    city: text("city"),
    state: text("state"),
    zip_code: text("zip_code"),
    phone: text("phone"),
    notes: text("notes"),
    electronic_id: text("electronic_id"),
    electronic_filing_type: text("electronic_filing_type").notNull().default("send_electronically"),
    era_automation_override: text("era_automation_override"),
    cob_insurance_paid_behavior_override: text("cob_insurance_paid_behavior_override"),
    trust_level: text("trust_level").notNull().default("standard"),
    is_hidden: bool("is_hidden").notNull().default(false),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    index("insurance_carriers_name_idx").on(t.carrier_name),
    index("insurance_carriers_electronic_id_idx").on(t.electronic_id),
    index("insurance_carriers_group_idx").on(t.carrier_group_name),
  ],
);

/** A named group of CDT code ranges a plan covers at one percentage (preventive, basic, major...). */
export const coverageCategories = sqliteTable(
  "coverage_categories",
  {
    id: id(),
    category_name: text("category_name").notNull(),
    description: text("description"),
    is_hidden: bool("is_hidden").notNull().default(false),
    /** Seeded for every org and protected from archiving; `system_key` names it for rules (e.g. "preventive"). */
    is_system: bool("is_system").notNull().default(false),
    system_key: text("system_key"),
    item_order: integer("item_order").notNull().default(0),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("coverage_categories_order_idx").on(t.item_order)],
);

/** An inclusive range of CDT codes (`D0100`..`D0999`); an exclusion span marks codes the category does not cover. */
export const coverageSpans = sqliteTable(
  "coverage_spans",
  {
    id: id(),
    category_id: text("category_id")
      .notNull()
      .references(() => coverageCategories.id),
    from_code: text("from_code").notNull(),
    to_code: text("to_code").notNull(),
    is_exclusion: bool("is_exclusion").notNull().default(false),
    item_order: integer("item_order").notNull().default(0),
    ...timestamps(),
  },
  (t) => [index("coverage_spans_category_idx").on(t.category_id, t.item_order)],
);

/** Benefit rules of a plan, as JSON columns read whole by the estimate engine (docs/insurance/insurance.md). */
export type CoverageRule = { category_id: string; percent: number };
export type FrequencyRule = { codes: string[]; count: number; period: "benefit_year" | "lifetime" | { months: number } };
export type WaitingPeriodRule = { category_id: string; months: number };
export type AgeLimitRule = { codes: string[]; min_age?: number | null; max_age?: number | null };
export type DowngradeRule = { codes: string[]; to_code: string };
export type CopayRule = { code: string; copay_cents: number };

export const insurancePlans = sqliteTable(
  "insurance_plans",
  {
    id: id(),
    carrier_id: text("carrier_id")
      .notNull()
      .references(() => insuranceCarriers.id),
    plan_name: text("plan_name"),
    group_name: text("group_name"),
    group_number: text("group_number"),
    plan_type: text("plan_type").notNull().default("ppo"),
    estimate_book_id: text("estimate_book_id"),
    cob_method: text("cob_method").notNull().default("standard"),
    benefit_year_start_month: integer("benefit_year_start_month").notNull().default(1),
    annual_max_cents: integer("annual_max_cents"),
    deductible_individual_cents: integer("deductible_individual_cents").notNull().default(0),
    deductible_family_cents: integer("deductible_family_cents"),
    deductible_category_ids: json<string[]>("deductible_category_ids").notNull(),
    coverage: json<CoverageRule[]>("coverage").notNull(),
    frequency_limits: json<FrequencyRule[]>("frequency_limits").notNull(),
    waiting_periods: json<WaitingPeriodRule[]>("waiting_periods").notNull(),
    age_limits: json<AgeLimitRule[]>("age_limits").notNull(),
    downgrades: json<DowngradeRule[]>("downgrades").notNull(),
    copays: json<CopayRule[]>("copays").notNull(),
    is_hidden: bool("is_hidden").notNull().default(false),
    notes: text("notes"),
    // the plan's fee schedule: for a PPO, what it allows (estimates' allowed amounts)
    fee_schedule_id: text("fee_schedule_id"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("insurance_plans_carrier_idx").on(t.carrier_id), index("insurance_plans_group_number_idx").on(t.group_number)],
);

/** A subscriber's enrolment in a plan (the card: member id, dates). */
export const insuranceSubscriptions = sqliteTable(
  "insurance_subscriptions",
  {
    id: id(),
    plan_id: text("plan_id")
      .notNull()
      .references(() => insurancePlans.id),
    subscriber_patient_id: text("subscriber_patient_id")
      .notNull()
      .references(() => patients.id),
    subscriber_id: text("subscriber_id"),
    effective_date: text("effective_date"),
    termination_date: text("termination_date"),
    notes: text("notes"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("insurance_subscriptions_subscriber_idx").on(t.subscriber_patient_id), index("insurance_subscriptions_plan_idx").on(t.plan_id)],
);

/** A patient covered by a subscription, in coordination-of-benefits order (ordinal 1 = primary). */
export const patientPlans = sqliteTable(
  "patient_plans",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    subscription_id: text("subscription_id")
      .notNull()
      .references(() => insuranceSubscriptions.id),
    relationship: text("relationship").notNull().default("self"),
    ordinal: integer("ordinal").notNull(),
    is_active: bool("is_active").notNull().default(true),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    index("patient_plans_patient_idx").on(t.patient_id, t.ordinal),
    uniqueIndex("patient_plans_live_ordinal_idx").on(t.patient_id, t.ordinal).where(sql`deleted_at IS NULL AND is_active = 1`),
  ],
);

/** Benefits used outside this system in a benefit year (another office, before go-live): added to what completed estimates used. */
export const benefitAdjustments = sqliteTable(
  "insurance_benefit_adjustments",
  {
    id: id(),
    patient_plan_id: text("patient_plan_id")
      .notNull()
      .references(() => patientPlans.id),
    benefit_year_start: text("benefit_year_start").notNull(),
    deductible_met_cents: integer("deductible_met_cents").notNull().default(0),
    annual_max_used_cents: integer("annual_max_used_cents").notNull().default(0),
    note: text("note"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("insurance_benefit_adjustments_plan_idx").on(t.patient_plan_id, t.benefit_year_start)],
);

/** One procedure's estimate against one patient plan, computed (never typed in) and explained in `detail`. */
export const procedureEstimates = sqliteTable(
  "procedure_estimates",
  {
    id: id(),
    charted_procedure_id: text("charted_procedure_id")
      .notNull()
      .references(() => chartedProcedures.id),
    treatment_plan_id: text("treatment_plan_id").references(() => treatmentPlans.id),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    patient_plan_id: text("patient_plan_id")
      .notNull()
      .references(() => patientPlans.id),
    ordinal: integer("ordinal").notNull(),
    estimate_status: text("estimate_status").notNull().default("estimate"),
    fee_billed_cents: integer("fee_billed_cents").notNull(),
    allowed_fee_cents: integer("allowed_fee_cents"),
    ppo_fee_cents: integer("ppo_fee_cents"),
    write_off_cents: integer("write_off_cents").notNull(),
    deductible_applied_cents: integer("deductible_applied_cents").notNull(),
    coverage_percent: integer("coverage_percent").notNull(),
    base_estimate_cents: integer("base_estimate_cents").notNull(),
    insurance_estimate_cents: integer("insurance_estimate_cents").notNull(),
    paid_other_insurance_cents: integer("paid_other_insurance_cents").notNull(),
    patient_estimate_cents: integer("patient_estimate_cents").notNull(),
    copay_cents: integer("copay_cents").notNull(),
    is_excluded: bool("is_excluded").notNull().default(false),
    exclusion_reason: text("exclusion_reason"),
    substitution_code: text("substitution_code"),
    estimate_note: text("estimate_note").notNull().default(""),
    code_sent: text("code_sent"),
    date_estimated: text("date_estimated").notNull(),
    calculated_at: text("calculated_at"),
    inputs_hash: text("inputs_hash"),
    preauth_amount_cents: integer("preauth_amount_cents"),
    preauth_date: text("preauth_date"),
    preauth_number: text("preauth_number"),
    allowed_override_cents: integer("allowed_override_cents"),
    copay_override_cents: integer("copay_override_cents"),
    deductible_override_cents: integer("deductible_override_cents"),
    insurance_estimate_override_cents: integer("insurance_estimate_override_cents"),
    percentage_override: integer("percentage_override"),
    write_off_override_cents: integer("write_off_override_cents"),
    detail: json<Record<string, unknown>>("detail"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    uniqueIndex("procedure_estimates_live_idx").on(t.charted_procedure_id, t.ordinal).where(sql`deleted_at IS NULL`),
    index("procedure_estimates_plan_idx").on(t.treatment_plan_id),
    index("procedure_estimates_patient_plan_idx").on(t.patient_plan_id),
  ],
);

export const estimateBooks = sqliteTable(
  "estimate_books",
  {
    id: id(),
    name: text("name").notNull(),
    rule_type: text("rule_type").notNull(),
    scope_type: text("scope_type").notNull().default("tenant"),
    status: text("status").notNull().default("active"),
    allowed_fee_schedule_id: text("allowed_fee_schedule_id"),
    carrier_id: text("carrier_id").references(() => insuranceCarriers.id),
    insurance_plan_id: text("insurance_plan_id").references(() => insurancePlans.id),
    claim_match_method: text("claim_match_method"),
    exclude_over_ucr: bool("exclude_over_ucr").notNull().default(false),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("estimate_books_scope_idx").on(t.scope_type, t.status)],
);

/** A computation of a book's allowed fees (from claims, when claims exist); referenced by fees and logs. */
export const estimateBookRuns = sqliteTable("estimate_book_runs", {
  id: id(),
  estimate_book_id: text("estimate_book_id")
    .notNull()
    .references(() => estimateBooks.id),
  status: text("status").notNull().default("completed"),
  started_at: text("started_at").notNull(),
  finished_at: text("finished_at"),
  ...timestamps(),
});

export const allowedFees = sqliteTable(
  "estimate_book_allowed_fees",
  {
    id: id(),
    estimate_book_id: text("estimate_book_id")
      .notNull()
      .references(() => estimateBooks.id),
    procedure_code_id: text("procedure_code_id")
      .notNull()
      .references(() => procedureCodes.id),
    estimate_book_rule_step_id: text("estimate_book_rule_step_id"),
    estimate_book_run_id: text("estimate_book_run_id").references(() => estimateBookRuns.id),
    allowed_fee_cents: integer("allowed_fee_cents").notNull(),
    computed_at: text("computed_at").notNull(),
    confidence: real("confidence"),
    expires_at: text("expires_at"),
    group_number: text("group_number"),
    resolution_scope_type: text("resolution_scope_type").notNull(),
    resolution_scope_identifier: integer("resolution_scope_identifier"),
    sample_count: integer("sample_count").notNull().default(0),
    ...timestamps(),
  },
  (t) => [index("estimate_book_allowed_fees_code_idx").on(t.estimate_book_id, t.procedure_code_id, t.computed_at)],
);

export const adjustmentLogs = sqliteTable(
  "estimate_book_adjustment_logs",
  {
    id: id(),
    estimate_book_id: text("estimate_book_id")
      .notNull()
      .references(() => estimateBooks.id),
    estimate_book_run_id: text("estimate_book_run_id").references(() => estimateBookRuns.id),
    procedure_code_id: text("procedure_code_id")
      .notNull()
      .references(() => procedureCodes.id),
    change_reason: text("change_reason").notNull(),
    description: text("description").notNull(),
    new_allowed_fee_cents: integer("new_allowed_fee_cents").notNull(),
    previous_allowed_fee_cents: integer("previous_allowed_fee_cents"),
    delta_allowed_fee_cents: integer("delta_allowed_fee_cents"),
    insurance_claim_procedure_identifier: integer("insurance_claim_procedure_identifier"),
    insurance_procedure_estimate_id: integer("insurance_procedure_estimate_id"),
    created_at: text("created_at").notNull(),
  },
  (t) => [index("estimate_book_adjustment_logs_book_idx").on(t.estimate_book_id, t.created_at)],
);

/** What carriers paid for a code (from claims and EOBs, when those exist): the evidence allowed fees are derived from. */
export const claimPaymentEvidence = sqliteTable(
  "estimate_book_evidence",
  {
    id: id(),
    estimate_book_id: text("estimate_book_id")
      .notNull()
      .references(() => estimateBooks.id),
    procedure_code_id: text("procedure_code_id")
      .notNull()
      .references(() => procedureCodes.id),
    carrier_id: text("carrier_id").references(() => insuranceCarriers.id),
    group_number: text("group_number"),
    fee_billed_cents: integer("fee_billed_cents").notNull(),
    allowed_cents: integer("allowed_cents"),
    paid_cents: integer("paid_cents").notNull(),
    date_paid: text("date_paid").notNull(),
    source_ref: text("source_ref"),
    created_at: text("created_at").notNull(),
  },
  (t) => [index("estimate_book_evidence_book_idx").on(t.estimate_book_id, t.date_paid)],
);

export type DraftCandidates = {
  carriers: { id: string; name: string; reason: string }[];
  plans: { id: string; name: string; reason: string }[];
  patients: { id: string; name: string; reason: string }[];
};

/** One imported row of insurance data (a scanned card, an eligibility file) awaiting review. */
export const insuranceDrafts = sqliteTable(
  "insurance_drafts",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    subscriber_patient_id: text("subscriber_patient_id").references(() => patients.id),
    matched_carrier_id: text("matched_carrier_id").references(() => insuranceCarriers.id),
    matched_plan_id: text("matched_plan_id").references(() => insurancePlans.id),
    converted_subscription_id: text("converted_subscription_id").references(() => insuranceSubscriptions.id),
    converted_patient_plan_id: text("converted_patient_plan_id").references(() => patientPlans.id),
    raw_data_json: json<Record<string, unknown>>("raw_data_json").notNull(),
    review_status: text("review_status").notNull().default("pending"),
    /** False until the matching job has looked at the row (or a rematch asked for it again). */
    match_attempted: bool("match_attempted").notNull().default(false),
    candidates: json<DraftCandidates>("candidates"),
    conversion_error: text("conversion_error"),
    reject_reason: text("reject_reason"),
    reviewed_at: text("reviewed_at"),
    reviewed_by_user_uuid: text("reviewed_by_user_uuid"),
    source_ref: text("source_ref"),
    source_system: text("source_system"),
    import_id: text("import_id"),
    ...versioned(),
  },
  (t) => [
    index("insurance_drafts_patient_idx").on(t.patient_id, t.created_at),
    index("insurance_drafts_status_idx").on(t.review_status, t.created_at),
    index("insurance_drafts_unmatched_idx").on(t.match_attempted).where(sql`match_attempted = 0`),
    index("insurance_drafts_import_idx").on(t.import_id, t.id),
  ],
);
