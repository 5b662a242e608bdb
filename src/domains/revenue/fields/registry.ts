import { sql, type SQL } from "drizzle-orm";
import { createHash } from "node:crypto";
import { GENDERS, PATIENT_STATUSES } from "@/domains/patients/record/schemas";

// The filter-field registry of smart lists (docs/revenue/revenue.md): every field a
// filter may name, its type, the operators it allows, and how it reads from
// the org database. Expressions are SQL over the patient's row of
// `patient_filter_facts`, aliased `pf` (the live patients' filtered columns,
// kept by triggers; db/tenant/revenue.ts), and the org's other tables by
// `pf.id`; values never appear in them (the compiler binds them).

export const FIELD_TYPES = ["string", "number", "money", "date", "boolean", "enum", "uuid"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const OPERATORS = [
  "eq",
  "neq",
  "in",
  "not_in",
  "gt",
  "gte",
  "lt",
  "lte",
  "between",
  "contains",
  "starts_with",
  "is_null",
  "is_not_null",
  "in_last_days",
  "more_than_days_ago",
  "in_next_days",
  "in_last_months",
  "more_than_months_ago",
] as const;
export type Operator = (typeof OPERATORS)[number];

const BY_TYPE: Record<FieldType, readonly Operator[]> = {
  string: ["eq", "neq", "in", "not_in", "contains", "starts_with", "is_null", "is_not_null"],
  number: ["eq", "neq", "gt", "gte", "lt", "lte", "between", "is_null", "is_not_null"],
  money: ["eq", "neq", "gt", "gte", "lt", "lte", "between", "is_null", "is_not_null"],
  date: [
    "eq",
    "neq",
    "gt",
    "gte",
    "lt",
    "lte",
    "between",
    "is_null",
    "is_not_null",
    "in_last_days",
    "more_than_days_ago",
    "in_next_days",
    "in_last_months",
    "more_than_months_ago",
  ],
  boolean: ["eq"],
  enum: ["eq", "neq", "in", "not_in", "is_null", "is_not_null"],
  uuid: ["eq", "neq", "in", "not_in", "is_null", "is_not_null"],
};
/** A "has any of" field (tags, codes, carriers): membership of a set, not a value of the row. */
const SET_OPERATORS: readonly Operator[] = ["in", "not_in", "is_null", "is_not_null"];

export const SCOPES = ["organization", "location", "personal"] as const;

/** `today` is bound once per query (UTC date, YYYY-MM-DD). */
export type Today = SQL;

type Common = { key: string; label: string; category: string; type: FieldType; values?: readonly string[]; description?: string; sortable?: boolean };
/**
 * A filter is one scan of the facts' short rows (docs/revenue/revenue.md). Columns are
 * written `+pf.x`: SQLite's unary plus keeps the value and stops the planner
 * from walking an index for a condition most patients meet.
 */
/** A value of the patient (a column, or an aggregate over their appointments, procedures, ...). */
export type ValueField = Common & {
  kind: "value";
  expr: (today: Today) => SQL;
  /** Whole years since this date column (an age): comparisons compile to a range of the date, which needs no arithmetic per row. */
  yearsSince?: SQL;
};
/** A set the patient has members of: `has(values)` is true when one of them matches, `any` when there is any. */
export type SetField = Common & { kind: "set"; has: (values: SQL) => SQL; any: SQL };
export type FieldDef = (ValueField | SetField) & { operators: readonly Operator[] };

/** The facts row of the patient being filtered (see FACTS_ALIAS users in query/service.ts). */
export const FACTS_ALIAS = "pf";
const P = sql.raw(FACTS_ALIAS);
const value = (f: Omit<ValueField, "kind">): FieldDef => ({ ...f, kind: "value", operators: BY_TYPE[f.type] });
const set = (f: Omit<SetField, "kind">): FieldDef => ({ ...f, kind: "set", operators: SET_OPERATORS });
const column = (name: string) => sql.raw(`+${FACTS_ALIAS}.${name}`);

// aggregates over the patient's rows, by index (patient_id first)
const liveAppointments = sql`FROM appointments a WHERE a.patient_id = ${P}.id AND a.deleted_at IS NULL`;
const lastVisit = sql`(SELECT max(substr(a.scheduled_start, 1, 10)) ${liveAppointments} AND a.status = 'completed')`;
// planned work with no live booking: never booked, or booked on an appointment since cancelled, broken or deleted
const unscheduledTreatment = sql`FROM charted_procedures cp WHERE cp.patient_id = ${P}.id AND cp.deleted_at IS NULL AND cp.status = 'treatment_planned' AND (cp.appointment_id IS NULL OR NOT EXISTS (SELECT 1 FROM appointments ba WHERE ba.id = cp.appointment_id AND ba.deleted_at IS NULL AND ba.status NOT IN ('cancelled', 'broken')))`;
const COMPLETE = sql`('complete', 'complete_referred')`;
/** The earliest due date of the patient's live, enabled recalls (of types not archived): what the recall list calls them for. */
const nextRecallDue = sql`(SELECT min(rc.date_due) FROM patient_recalls rc JOIN recall_types rct ON rct.id = rc.recall_type_id AND rct.archived_at IS NULL WHERE rc.patient_id = ${P}.id AND rc.deleted_at IS NULL AND rc.status <> 'disabled')`;
/** The codes of the patient's charted procedures in these statuses, matched in any case. */
const procedureCodes = (key: string, label: string, statuses: SQL): FieldDef => {
  const rows = sql`FROM charted_procedures cp WHERE cp.patient_id = ${P}.id AND cp.deleted_at IS NULL AND cp.status IN ${statuses}`;
  return set({
    key,
    label,
    category: "treatment",
    type: "string",
    has: (values) => sql`EXISTS (SELECT 1 ${rows} AND upper(cp.procedure_code) IN (SELECT upper(value) FROM json_each(${values})))`,
    any: sql`EXISTS (SELECT 1 ${rows})`,
  });
};
const activePlans = sql`FROM patient_plans pp WHERE pp.patient_id = ${P}.id AND pp.deleted_at IS NULL AND pp.is_active = 1`;
/**
 * The annual maximum left on the patient's primary active plan (lowest
 * ordinal) in the benefit year holding today: the maximum less the insurance
 * estimates (override first) of completed procedures served in that year and
 * the benefit adjustments recorded for it, not below 0. The same rule as
 * insurance/patient-plans/benefits.ts, in SQL; NULL when the plan has no maximum.
 */
function annualMaxRemaining(today: Today): SQL {
  const start = sql`printf('%04d-%02d-01', CAST(substr(${today}, 1, 4) AS INTEGER) - (CAST(substr(${today}, 6, 2) AS INTEGER) < ip.benefit_year_start_month), ip.benefit_year_start_month)`;
  const end = sql`date(${start}, '+1 year', '-1 day')`;
  const fromProcedures = sql`(SELECT sum(coalesce(e.insurance_estimate_override_cents, e.insurance_estimate_cents)) FROM procedure_estimates e JOIN charted_procedures c ON c.id = e.charted_procedure_id WHERE e.patient_plan_id = pp.id AND e.deleted_at IS NULL AND c.deleted_at IS NULL AND c.status = 'complete' AND c.date_service BETWEEN ${start} AND ${end})`;
  const fromAdjustments = sql`(SELECT sum(a.annual_max_used_cents) FROM insurance_benefit_adjustments a WHERE a.patient_plan_id = pp.id AND a.deleted_at IS NULL AND a.benefit_year_start BETWEEN ${start} AND ${end})`;
  return sql`(SELECT max(0, ip.annual_max_cents - coalesce(${fromProcedures}, 0) - coalesce(${fromAdjustments}, 0)) FROM patient_plans pp JOIN insurance_subscriptions s ON s.id = pp.subscription_id JOIN insurance_plans ip ON ip.id = s.plan_id WHERE pp.patient_id = ${P}.id AND pp.deleted_at IS NULL AND pp.is_active = 1 ORDER BY pp.ordinal LIMIT 1)`;
}

export const FIELDS: readonly FieldDef[] = [
  // ---- demographics ----
  value({ key: "first_name", label: "First name", category: "demographics", type: "string", expr: () => column("first_name"), sortable: true }),
  value({ key: "last_name", label: "Last name", category: "demographics", type: "string", expr: () => column("last_name"), sortable: true }),
  value({
    key: "age",
    label: "Age (years)",
    category: "demographics",
    type: "number",
    sortable: true,
    yearsSince: column("date_of_birth"),
    expr: (today) =>
      sql`(CASE WHEN ${P}.date_of_birth IS NULL THEN NULL ELSE CAST(substr(${today}, 1, 4) AS INTEGER) - CAST(substr(${P}.date_of_birth, 1, 4) AS INTEGER) - (substr(${today}, 6, 5) < substr(${P}.date_of_birth, 6, 5)) END)`,
  }),
  value({ key: "date_of_birth", label: "Date of birth", category: "demographics", type: "date", expr: () => column("date_of_birth"), sortable: true }),
  value({
    key: "birthday_month",
    label: "Birthday month (1-12)",
    category: "demographics",
    type: "number",
    expr: () => sql`CAST(substr(${P}.date_of_birth, 6, 2) AS INTEGER)`,
  }),
  value({ key: "gender", label: "Gender", category: "demographics", type: "enum", values: GENDERS, expr: () => column("gender") }),
  value({ key: "status", label: "Patient status", category: "demographics", type: "enum", values: PATIENT_STATUSES, expr: () => column("status") }),
  value({ key: "location", label: "Home location", category: "demographics", type: "uuid", expr: () => column("location_id") }),
  value({ key: "primary_provider", label: "Primary provider", category: "demographics", type: "uuid", expr: () => column("primary_provider_id") }),
  value({ key: "preferred_language", label: "Preferred language", category: "demographics", type: "string", expr: () => column("preferred_language") }),
  value({
    key: "has_email",
    label: "Has an email address",
    category: "demographics",
    type: "boolean",
    expr: () => column("has_email"),
  }),
  value({
    key: "has_mobile_phone",
    label: "Has a mobile phone",
    category: "demographics",
    type: "boolean",
    expr: () => column("has_mobile_phone"),
  }),
  value({ key: "consents_to_sms", label: "Consents to text messages", category: "demographics", type: "boolean", expr: () => column("receives_sms") }),
  value({ key: "consents_to_email", label: "Consents to email", category: "demographics", type: "boolean", expr: () => column("receives_email") }),
  value({ key: "created_at", label: "Added on", category: "demographics", type: "date", expr: () => column("created_on"), sortable: true }),
  // ---- visits ----
  value({ key: "last_visit_date", label: "Last visit (completed appointment)", category: "visits", type: "date", expr: () => lastVisit, sortable: true }),
  value({
    key: "next_appointment_date",
    label: "Next appointment",
    category: "visits",
    type: "date",
    sortable: true,
    expr: (today) =>
      sql`(SELECT min(substr(a.scheduled_start, 1, 10)) ${liveAppointments} AND a.status IN ('scheduled', 'confirmed') AND substr(a.scheduled_start, 1, 10) >= ${today})`,
  }),
  value({
    key: "no_show_count",
    label: "No-shows",
    category: "visits",
    type: "number",
    expr: () => sql`(SELECT count(*) ${liveAppointments} AND a.status = 'broken')`,
  }),
  value({
    key: "cancellation_count",
    label: "Cancellations",
    category: "visits",
    type: "number",
    expr: () => sql`(SELECT count(*) ${liveAppointments} AND a.status = 'cancelled')`,
  }),
  // ---- treatment ----
  value({
    key: "has_unscheduled_treatment",
    label: "Has unscheduled treatment-planned procedures",
    category: "treatment",
    type: "boolean",
    expr: () => sql`EXISTS (SELECT 1 ${unscheduledTreatment})`,
  }),
  value({
    key: "unscheduled_treatment_fee",
    label: "Fee of unscheduled treatment",
    category: "treatment",
    type: "money",
    sortable: true,
    expr: () => sql`(SELECT coalesce(sum(coalesce(cp.fee_override_cents, cp.office_fee_cents)), 0) ${unscheduledTreatment})`,
  }),
  procedureCodes("planned_procedure_code", "Procedure codes planned", sql`('treatment_planned', 'scheduled')`),
  procedureCodes("completed_procedure_code", "Procedure codes completed", COMPLETE),
  value({
    key: "last_completed_procedure_date",
    label: "Last completed procedure",
    category: "treatment",
    type: "date",
    expr: () =>
      sql`(SELECT max(substr(cp.date_completed, 1, 10)) FROM charted_procedures cp WHERE cp.patient_id = ${P}.id AND cp.deleted_at IS NULL AND cp.status IN ${COMPLETE})`,
  }),
  // ---- recall: the patient's recalls (docs/recall/recall.md), kept current by the job recalls.recompute ----
  value({
    key: "recall_due_date",
    label: "Recall due",
    category: "recall",
    type: "date",
    sortable: true,
    description:
      "The earliest due date of the patient's live recalls that are not disabled (recall types that are not archived); null without one (docs/recall/recall.md).",
    expr: () => nextRecallDue,
  }),
  value({
    key: "recall_overdue",
    label: "Recall overdue",
    category: "recall",
    type: "boolean",
    description: "recall_due_date is before today.",
    expr: (today) => sql`coalesce(${nextRecallDue} < ${today}, 0)`,
  }),
  // ---- balances ----
  value({ key: "balance_0_30", label: "Balance 0-30 days", category: "balances", type: "money", expr: () => column("balance_0_30_cents") }),
  value({ key: "balance_31_60", label: "Balance 31-60 days", category: "balances", type: "money", expr: () => column("balance_31_60_cents") }),
  value({ key: "balance_61_90", label: "Balance 61-90 days", category: "balances", type: "money", expr: () => column("balance_61_90_cents") }),
  value({
    key: "balance_over_90",
    label: "Balance over 90 days",
    category: "balances",
    type: "money",
    sortable: true,
    expr: () => column("balance_over_90_cents"),
  }),
  value({
    key: "total_balance",
    label: "Total balance",
    category: "balances",
    type: "money",
    sortable: true,
    expr: () => sql`(${P}.balance_0_30_cents + ${P}.balance_31_60_cents + ${P}.balance_61_90_cents + ${P}.balance_over_90_cents)`,
  }),
  value({
    key: "payment_plan_due",
    label: "Payment plan due",
    category: "balances",
    type: "money",
    sortable: true,
    description:
      "Installments of the patient's open payment plans posted and not yet paid: the patient record's payment_plan_due, kept on the patient row by every ledger post (docs/account/payment-plans.md).",
    expr: () => sql`(SELECT pp_due.payment_plan_due_cents FROM patients pp_due WHERE pp_due.id = ${P}.id)`,
  }),
  value({
    key: "insurance_estimate",
    label: "Estimated insurance portion",
    category: "balances",
    type: "money",
    expr: () => column("insurance_estimate_cents"),
  }),
  // ---- insurance ----
  value({
    key: "has_active_insurance",
    label: "Has an active insurance plan",
    category: "insurance",
    type: "boolean",
    expr: () => sql`EXISTS (SELECT 1 ${activePlans})`,
  }),
  value({
    key: "annual_max_remaining",
    label: "Annual maximum remaining (primary plan, this benefit year)",
    category: "insurance",
    type: "money",
    sortable: true,
    description:
      "What the primary active plan's annual maximum has left in the benefit year holding today, as GET .../benefits computes it; null without an active plan or for a plan with no maximum.",
    expr: annualMaxRemaining,
  }),
  set({
    key: "insurance_carrier",
    label: "Insurance carrier of an active plan",
    category: "insurance",
    type: "uuid",
    has: (values) =>
      sql`EXISTS (SELECT 1 FROM patient_plans pp JOIN insurance_subscriptions s ON s.id = pp.subscription_id JOIN insurance_plans ip ON ip.id = s.plan_id WHERE pp.patient_id = ${P}.id AND pp.deleted_at IS NULL AND pp.is_active = 1 AND ip.carrier_id IN (SELECT value FROM json_each(${values})))`,
    any: sql`EXISTS (SELECT 1 ${activePlans})`,
  }),
  // ---- tags and referrals ----
  set({
    key: "tag",
    label: "Tags",
    category: "tags",
    type: "uuid",
    has: (values) =>
      sql`EXISTS (SELECT 1 FROM patient_tags pt WHERE pt.patient_id = ${P}.id AND pt.tag_definition_id IN (SELECT value FROM json_each(${values})))`,
    any: sql`EXISTS (SELECT 1 FROM patient_tags pt WHERE pt.patient_id = ${P}.id)`,
  }),
  set({
    key: "referral_source",
    label: "Referral source",
    category: "referrals",
    type: "uuid",
    has: (values) =>
      sql`EXISTS (SELECT 1 FROM referral_attributions ra WHERE ra.patient_id = ${P}.id AND ra.deleted_at IS NULL AND ra.referral_source_id IN (SELECT value FROM json_each(${values})))`,
    any: sql`EXISTS (SELECT 1 FROM referral_attributions ra WHERE ra.patient_id = ${P}.id AND ra.deleted_at IS NULL AND ra.referral_source_id IS NOT NULL)`,
  }),
];

export const FIELD_BY_KEY = new Map(FIELDS.map((f) => [f.key, f]));
export const CATEGORIES = ["demographics", "visits", "treatment", "recall", "balances", "insurance", "tags", "referrals"] as const;

/** Bumped by hand whenever FIELDS changes (a test pins the hash to it). */
export const SOURCE_VERSION = 4;

/** What clients see of a field (and what the snapshot hash covers). */
export const publicField = (f: FieldDef) => ({
  key: f.key,
  label: f.label,
  type: f.type,
  operators: [...f.operators],
  values: f.values ? [...f.values] : null,
  multi_valued: f.kind === "set",
  sortable: !!f.sortable,
  scopes: [...SCOPES],
});

/** A stable hash of the registry: the same on every instance and restart, changed only when a field is. */
export const SNAPSHOT_HASH = createHash("sha256")
  .update(JSON.stringify(CATEGORIES.map((c) => [c, FIELDS.filter((f) => f.category === c).map(publicField)])))
  .digest("hex");
