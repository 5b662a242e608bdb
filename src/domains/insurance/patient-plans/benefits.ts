import { and, asc, eq, gte, isNull, lte, sql } from "drizzle-orm";
import { inJsonList } from "@/platform/db/in-list";
import { benefitAdjustments, insurancePlans, insuranceSubscriptions, patientPlans, procedureEstimates } from "@db/tenant/insurance";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { claimProcedures } from "@db/tenant/claims";
import { patients } from "@db/tenant/patients";
import { allPrepared, getPrepared, prepared, type Work } from "@/platform/db/work";
import { NotFound } from "@/platform/errors";
import type { TenantDb } from "@/platform/records/context";
import type { PlanRow } from "@/domains/insurance/plans/service";
import type { SubscriptionRow } from "@/domains/insurance/subscriptions/service";
import type { PatientPlanRow } from "./records";
import { benefitYearShown } from "@/domains/insurance/estimates/engine/dates";

// What the estimate service reads about a patient's insurance (docs/insurance/insurance.md, "Benefits used"
// and "For the estimate service"): the benefit year, what was used in it, and the plans in force.

export type BenefitYear = { start: string; end: string };

/** The benefit year holding `date` (YYYY-MM-DD) of a plan whose year starts on the first of `startMonth`; `end` is its last day. */
export function benefitYear(startMonth: number, date: string): BenefitYear {
  return benefitYearShown(date, startMonth); // the estimate engine's rule: one definition of a benefit year
}

/** Annual maximum and deductible amounts used, in cents. */
export type UsedCents = { annual_max_used_cents: number; deductible_met_cents: number };

/** A patient plan's benefits in the benefit year holding a date, in cents. */
export type BenefitsUsed = {
  patient_plan_id: string;
  plan_id: string;
  benefit_year: BenefitYear;
  annual_max_cents: number | null;
  /** from_procedures + from_adjustments */
  annual_max_used_cents: number;
  /** annual max less used, not below 0; null without a maximum */
  annual_max_remaining_cents: number | null;
  deductible_individual_cents: number;
  /** this patient's: from_procedures + from_adjustments */
  deductible_met_cents: number;
  deductible_family_cents: number | null;
  /** everyone on the subscription (null without a family deductible) */
  family_deductible_met_cents: number | null;
  /** the individual remainder, capped by the family remainder when there is a family deductible */
  deductible_remaining_cents: number;
  from_procedures: UsedCents;
  from_adjustments: UsedCents;
};

/**
 * What the patient plans used in [start, end]: the effective insurance estimate and deductible
 * (the override when set) of their live estimates whose procedure is complete with date_service
 * in the year (what the carrier paid and applied, once it answered the procedure's claim), plus
 * their live adjustments recorded for a benefit year starting in it.
 */
// Read on every estimate, once per plan: prepared once per connection. The
// patient plans travel as one JSON array of ids (inJsonList).

// A procedure whose claim on the plan the carrier answered counts what the carrier paid and applied
// to the deductible instead of the estimate (docs/insurance/claims.md, "Benefits used").
const usedByProcedures = prepared<{ max: number | null; ded: number | null }>((db) => {
  const e = procedureEstimates;
  const c = chartedProcedures;
  const cp = claimProcedures;
  return db
    .select({
      max: sql<
        number | null
      >`sum(CASE WHEN ${cp.id} IS NULL THEN coalesce(${e.insurance_estimate_override_cents}, ${e.insurance_estimate_cents}) ELSE ${cp.paid_cents} END)`,
      ded: sql<
        number | null
      >`sum(CASE WHEN ${cp.id} IS NULL THEN coalesce(${e.deductible_override_cents}, ${e.deductible_applied_cents}) ELSE ${cp.deductible_cents} END)`,
    })
    .from(e)
    .innerJoin(c, eq(c.id, e.charted_procedure_id))
    .leftJoin(
      cp,
      and(
        eq(cp.procedure_id, e.charted_procedure_id),
        eq(cp.patient_plan_id, e.patient_plan_id),
        eq(cp.live, true),
        eq(cp.kind, "claim"),
        eq(cp.answered, true),
      ),
    )
    .where(
      and(
        inJsonList(e.patient_plan_id, "plans"),
        isNull(e.deleted_at),
        isNull(c.deleted_at),
        eq(c.status, "complete"),
        gte(c.date_service, sql.placeholder("start")),
        lte(c.date_service, sql.placeholder("end")),
      ),
    )
    .prepare();
});

const usedByAdjustments = prepared<{ max: number | null; ded: number | null }>((db) => {
  const a = benefitAdjustments;
  return db
    .select({ max: sql<number | null>`sum(${a.annual_max_used_cents})`, ded: sql<number | null>`sum(${a.deductible_met_cents})` })
    .from(a)
    .where(
      and(
        inJsonList(a.patient_plan_id, "plans"),
        isNull(a.deleted_at),
        gte(a.benefit_year_start, sql.placeholder("start")),
        lte(a.benefit_year_start, sql.placeholder("end")),
      ),
    )
    .prepare();
});

const patientPlanWithPlan = prepared<{ pp: PatientPlanRow; plan: PlanRow }>((db) =>
  db
    .select({ pp: patientPlans, plan: insurancePlans })
    .from(patientPlans)
    .innerJoin(insuranceSubscriptions, eq(insuranceSubscriptions.id, patientPlans.subscription_id))
    .innerJoin(insurancePlans, eq(insurancePlans.id, insuranceSubscriptions.plan_id))
    .where(and(eq(patientPlans.id, sql.placeholder("id")), isNull(patientPlans.deleted_at)))
    .prepare(),
);

const familyOf = prepared<{ id: string }>((db) =>
  db
    .select({ id: patientPlans.id })
    .from(patientPlans)
    .where(and(eq(patientPlans.subscription_id, sql.placeholder("subscription")), isNull(patientPlans.deleted_at)))
    .prepare(),
);

/**
 * What the patient plans used in [start, end]: the effective insurance estimate and deductible
 * (the override when set) of their live estimates whose procedure is complete with date_service
 * in the year (what the carrier paid and applied, once it answered the procedure's claim), plus
 * their live adjustments recorded for a benefit year starting in it.
 */
function* usedBy(db: TenantDb, patientPlanIds: string[], year: BenefitYear): Work<{ procedures: UsedCents; adjustments: UsedCents }> {
  const args = { plans: JSON.stringify(patientPlanIds), start: year.start, end: year.end };
  const fromProcedures = yield* getPrepared(db, usedByProcedures, args);
  const fromAdjustments = yield* getPrepared(db, usedByAdjustments, args);
  const cents = (r: { max: number | null; ded: number | null } | undefined): UsedCents => ({
    annual_max_used_cents: Number(r?.max ?? 0),
    deductible_met_cents: Number(r?.ded ?? 0),
  });
  return { procedures: cents(fromProcedures), adjustments: cents(fromAdjustments) };
}

/**
 * The benefits a patient plan used in the benefit year holding `onDate` (YYYY-MM-DD), and what
 * remains of the annual maximum and the deductible. 404 "Patient plan" when it is missing or
 * archived (or its subscription or plan is gone). For the estimate service and GET .../benefits.
 */
export function* benefitsUsed(db: TenantDb, patientPlanId: string, onDate: string): Work<BenefitsUsed> {
  const row = yield* getPrepared(db, patientPlanWithPlan, { id: patientPlanId });
  if (!row) throw new NotFound("Patient plan");
  const { pp, plan } = row;
  const year = benefitYear(plan.benefit_year_start_month, onDate);
  const own = yield* usedBy(db, [pp.id], year);
  const maxUsed = own.procedures.annual_max_used_cents + own.adjustments.annual_max_used_cents;
  const dedMet = own.procedures.deductible_met_cents + own.adjustments.deductible_met_cents;
  let dedRemaining = Math.max(0, plan.deductible_individual_cents - dedMet);
  let familyMet: number | null = null;
  if (plan.deductible_family_cents !== null) {
    // the family deductible is met by everyone the card covers, this patient included
    const family = yield* allPrepared(db, familyOf, { subscription: pp.subscription_id });
    const together = yield* usedBy(
      db,
      family.map((f) => f.id),
      year,
    );
    familyMet = together.procedures.deductible_met_cents + together.adjustments.deductible_met_cents;
    dedRemaining = Math.min(dedRemaining, Math.max(0, plan.deductible_family_cents - familyMet));
  }
  return {
    patient_plan_id: pp.id,
    plan_id: plan.id,
    benefit_year: year,
    annual_max_cents: plan.annual_max_cents,
    annual_max_used_cents: maxUsed,
    annual_max_remaining_cents: plan.annual_max_cents === null ? null : Math.max(0, plan.annual_max_cents - maxUsed),
    deductible_individual_cents: plan.deductible_individual_cents,
    deductible_met_cents: dedMet,
    deductible_family_cents: plan.deductible_family_cents,
    family_deductible_met_cents: familyMet,
    deductible_remaining_cents: dedRemaining,
    from_procedures: own.procedures,
    from_adjustments: own.adjustments,
  };
}

/** The subscriber as the estimate service needs them (age and birthday rules). */
export type Subscriber = { id: string; first_name: string; last_name: string; date_of_birth: string | null };

/** One plan covering the patient, with everything an estimate is computed from. */
export type Coverage = {
  patientPlan: PatientPlanRow;
  subscription: SubscriptionRow;
  /** The plan with its benefit rules (db/tenant/insurance.ts types). */
  plan: PlanRow;
  carrierId: string;
  subscriber: Subscriber;
};

const coverageOn = prepared<{ patientPlan: PatientPlanRow; subscription: SubscriptionRow; plan: PlanRow; subscriber: Subscriber }>((db) => {
  const pp = patientPlans;
  const s = insuranceSubscriptions;
  const p = insurancePlans;
  const on = sql.placeholder("on");
  return db
    .select({
      patientPlan: pp,
      subscription: s,
      plan: p,
      subscriber: { id: patients.id, first_name: patients.first_name, last_name: patients.last_name, date_of_birth: patients.date_of_birth },
    })
    .from(pp)
    .innerJoin(s, eq(s.id, pp.subscription_id))
    .innerJoin(p, eq(p.id, s.plan_id))
    .innerJoin(patients, eq(patients.id, s.subscriber_patient_id))
    .where(
      and(
        eq(pp.patient_id, sql.placeholder("patient")),
        eq(pp.is_active, true),
        isNull(pp.deleted_at),
        isNull(s.deleted_at),
        isNull(p.deleted_at),
        sql`(${s.effective_date} IS NULL OR ${s.effective_date} <= ${on})`,
        sql`(${s.termination_date} IS NULL OR ${s.termination_date} >= ${on})`,
      ),
    )
    .orderBy(asc(pp.ordinal), asc(pp.id))
    .prepare();
});

/**
 * The patient's active patient plans whose subscription is in force on `onDate` (YYYY-MM-DD),
 * in coordination-of-benefits order (ordinal, then id): the first is primary. Archived patient
 * plans, subscriptions and plans are left out. An empty list means no insurance on that date;
 * the estimate service answers that with its 422.
 */
export function* loadCoverage(db: TenantDb, patientId: string, onDate: string): Work<Coverage[]> {
  const rows = yield* allPrepared(db, coverageOn, { patient: patientId, on: onDate });
  return rows.map((r) => ({ ...r, carrierId: r.plan.carrier_id }));
}
