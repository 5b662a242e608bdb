import { clamp, dollars, percentOf } from "./arith";
import { coordinate } from "./cob";
import { findRange, matchCategory, matchExclusionSpan } from "./codes";
import { benefitYearOf, dayBefore } from "./dates";
import type { PlanLedger } from "./ledger";
import type { NormalizedInput, NormalizedOverride, NormalizedPlan, NormalizedProcedure, OverrideField } from "./normalize";
import { checkAge, checkFrequency, checkWaitingPeriod, findDowngrade, periodLabel } from "./rules";
import type { BenefitMatch, Cents, CoverageDetail, EngineWarning, ExclusionReason, PlanEstimate, WaterfallStep, WaterfallStepName } from "./types";

// One procedure against one plan: the waterfall of docs/insurance/insurance-estimates.md.
//   allowed fee -> write-off -> benefit base -> (exclusion) -> copay ->
//   deductible -> percent -> annual maximum -> coordination -> insurance
// Every step uses the effective value of the steps before it (an override
// replaces the calculated value at its step). The ledger is updated with what
// the estimate uses, for the procedures after it.

export interface PlanStepInput {
  input: NormalizedInput;
  proc: NormalizedProcedure;
  plan: NormalizedPlan;
  ledger: PlanLedger;
  /** This plan's contract sets the write-off (the first plan that is not indemnity). */
  setsWriteOff: boolean;
  /** No plan comes before this one. */
  isFirst: boolean;
  /** What the patient owes before this plan. */
  balanceBefore: Cents;
  /** Effective insurance of the plans before this one. */
  paidOther: Cents;
  /** Effective write-off of the plans before this one. */
  writeOffOther: Cents;
  override: NormalizedOverride | undefined;
  /** Ordinal of an earlier plan from the same carrier, if any. */
  sameCarrierAs: number | null;
}

/** Plans whose contract caps what the practice collects (everything but indemnity). */
export const isContracted = (plan: NormalizedPlan) => plan.plan_type !== "indemnity";

export function estimateForPlan(a: PlanStepInput): Omit<PlanEstimate, "inputs_hash"> {
  const { proc, plan, ledger, override } = a;
  const fee = proc.fee_cents;
  const code = proc.code;
  const year = benefitYearOf(proc.date, plan.benefit_year_start_month);
  const warnings: EngineWarning[] = [];
  const warn = (code: string, message: string) => warnings.push({ code, message });
  const waterfall: WaterfallStep[] = [];
  const step = (step: WaterfallStepName, label: string, amount: Cents, running: Cents, note: string | null = null) =>
    waterfall.push({ step, label, amount_cents: amount, running_cents: running, note });

  /** The override of `field` when set, clamped to [low, high] with a warning, else the calculated value. */
  const effective = (field: OverrideField, calculated: number, low: number, high: number, why: string) => {
    const value = override?.[field];
    if (value === undefined || value === null) return calculated;
    const used = clamp(value, low, high);
    if (used !== value) {
      const show = (n: number) => (field === "percentage" ? `${n}%` : dollars(n));
      warn("override_clamped", `The ${field.replace("_", " ")} override ${show(value)} was clamped to ${show(used)}: ${why}`);
    }
    return used;
  };

  if (a.sameCarrierAs !== null) {
    warn(
      "same_carrier",
      `Plan ${a.sameCarrierAs} is from the same carrier; each plan keeps its own deductible, maximum and history here, check how the carrier coordinates its own plans`,
    );
  }

  const balanceBefore = a.balanceBefore;
  step("fee_billed", "Fee billed", fee, fee);
  if (!a.isFirst) {
    step(
      "other_plans",
      "Settled by the plans before",
      fee - balanceBefore,
      balanceBefore,
      `insurance ${dollars(a.paidOther)}, write-off ${dollars(a.writeOffOther)}`,
    );
  }

  // --- what the plan pays on: the code, or its substitution after a downgrade
  const downgrade = findDowngrade(plan, code);
  const substitution = downgrade?.to_code ?? null;
  let match = matchCategory(substitution ?? code, a.input.categories);
  if (!match && substitution) {
    match = matchCategory(code, a.input.categories);
    warn("substitution_category_missing", `${substitution} is in no coverage category; ${code}'s category is used`);
  }
  const category = match?.category ?? null;
  const categoryPercent = category ? (plan.coverage.find((r) => r.category_id === category.id)?.percent ?? null) : null;
  // carved out of a category and taken up by none
  const exclusionSpan = matchCategory(code, a.input.categories) ? null : matchExclusionSpan(code, a.input.categories);
  const planExclusion = findRange(code, plan.exclusions);
  const copayRule = plan.copays.find((c) => c.code === code) ?? null;

  // --- allowed fee: the plan's schedule, capped at UCR and at the fee billed
  const scheduled = plan.allowed_fees[code];
  let allowedCalc = scheduled ?? fee;
  const source = scheduled !== undefined ? plan.allowed_fee_sources?.[code] : undefined;
  let allowedNote =
    scheduled === undefined ? "no allowed fee for the code: the fee billed" : source ? `the plan's allowed fee, from ${source}` : "the plan's allowed fee";
  if (scheduled === undefined && (plan.plan_type === "ppo" || plan.plan_type === "medicaid")) {
    warn("allowed_fee_missing", `No allowed fee for ${code} on this plan's schedule; the fee billed is used, so there is no write-off`);
  }
  const ucr = plan.ucr_fees[code];
  if (ucr !== undefined && ucr < allowedCalc) {
    allowedCalc = ucr;
    allowedNote = `capped at the UCR fee ${dollars(ucr)}`;
  }
  if (allowedCalc > fee) {
    allowedCalc = fee;
    allowedNote = "capped at the fee billed";
  }
  const allowed = effective("allowed", allowedCalc, 0, fee, "the allowed fee is between 0 and the fee billed");
  if (override?.allowed !== undefined) allowedNote = "override";
  step("allowed_fee", "Allowed fee", allowed, balanceBefore, allowedNote);

  // --- coverage: the first reason found excludes the procedure for this plan
  const coverage: CoverageDetail = {
    category_percent: categoryPercent,
    deductible_applies: false,
    copay_cents: copayRule?.copay_cents ?? null,
    waiting_period: null,
    age: null,
    frequency: [],
  };
  let exclusion: { reason: ExclusionReason; note: string } | null = null;
  const exclude = (reason: ExclusionReason, note: string) => {
    exclusion ??= { reason, note };
  };
  if (plan.effective_date !== null && proc.date < plan.effective_date) exclude("not_covered", `before the coverage starts on ${plan.effective_date}`);
  if (exclusionSpan) {
    exclude("not_covered", `${code} is excluded (${exclusionSpan.span.from_code}-${exclusionSpan.span.to_code} in ${exclusionSpan.category.name})`);
  }
  if (planExclusion) exclude("not_covered", `the plan excludes ${planExclusion.from_code}-${planExclusion.to_code}`);
  if (plan.plan_type === "capitation") {
    if (!copayRule) exclude("not_covered", `${code} is not on the capitation copay schedule`);
  } else if (!category) {
    exclude("not_covered", `${code} is in no coverage category`);
  } else if (categoryPercent === null) {
    exclude("not_covered", `the plan does not cover ${category.name}`);
  }
  const waiting = checkWaitingPeriod(plan, category?.id ?? null, proc.date);
  if (waiting) {
    coverage.waiting_period = { months: waiting.rule.months, covered_from: waiting.coveredFrom };
    if (waiting.coveredFrom === null) warn("no_effective_date", "The plan has no effective date: its waiting period was not checked");
    if (waiting.waiting) exclude("waiting_period", `${category?.name} waits ${waiting.rule.months} months: covered from ${waiting.coveredFrom}`);
  }
  const age = checkAge(plan, code, a.input.patient.date_of_birth, proc.date);
  if (age) {
    coverage.age = { age: age.age, min_age: age.rule.min_age, max_age: age.rule.max_age };
    if (age.age === null) warn("no_date_of_birth", "The patient has no date of birth: the age limit was not checked");
    if (!age.ok) exclude("age", `covered from age ${age.rule.min_age ?? 0} to ${age.rule.max_age ?? "any age"}; the patient is ${age.age}`);
  }
  const frequency = checkFrequency(plan, ledger.uses, proc);
  coverage.frequency = frequency.map((f) => ({ codes: f.limit.codes, count: f.limit.count, period: periodLabel(f.limit.period), used: f.used }));
  const hit = frequency.find((f) => f.exceeded);
  if (hit) exclude("frequency", `${hit.limit.count} per ${periodLabel(hit.limit.period)} (${hit.limit.codes.join(", ")}): ${hit.used} already`);
  const excluded = exclusion as { reason: ExclusionReason; note: string } | null;

  // --- copay (the patient's fixed share, never more than the allowed fee)
  const copayCalc = Math.min(copayRule?.copay_cents ?? 0, allowed);
  const copay = effective("copay", copayCalc, 0, allowed, "a copay is between 0 and the allowed fee");

  // --- write-off: the contracting plan writes off what its contract does not let the practice collect
  let writeOffCalc = 0;
  let writeOffNote = "no write-off: an indemnity plan's patient owes the balance";
  if (a.setsWriteOff) {
    const collectable = plan.plan_type === "capitation" && !excluded ? copay : allowed;
    writeOffCalc = fee - collectable;
    writeOffNote = plan.plan_type === "capitation" && !excluded ? "capitation: all but the copay" : "fee billed less the allowed fee";
  } else if (isContracted(plan)) {
    writeOffNote = "no write-off: the primary contract sets the write-off";
  }
  if (writeOffCalc > balanceBefore) {
    writeOffCalc = balanceBefore;
    writeOffNote = "limited to the balance left by the plans before";
  }
  const writeOff = effective("write_off", writeOffCalc, 0, balanceBefore, "a write-off is between 0 and the balance");
  if (override?.write_off !== undefined) writeOffNote = "override";
  const balanceAfterWriteOff = balanceBefore - writeOff;
  step("write_off", "Write-off", writeOff, balanceAfterWriteOff, writeOffNote);

  // --- benefit base: the allowed fee, the substitution's when lower, and no
  // more than can be collected (carve-out secondaries work "as if primary":
  // only their own write-off limits them)
  let benefitBase = allowed;
  let baseNote = "the allowed fee";
  if (substitution) {
    const subScheduled = plan.allowed_fees[substitution];
    if (subScheduled === undefined) {
      warn("substitution_fee_missing", `No allowed fee for the substitution code ${substitution}; ${code}'s allowed fee is used`);
    } else {
      const subAllowed = Math.min(subScheduled, plan.ucr_fees[substitution] ?? subScheduled);
      if (subAllowed < benefitBase) {
        benefitBase = subAllowed;
        baseNote = `downgraded to ${substitution}: its allowed fee`;
      }
    }
  }
  const asIfPrimary = !a.isFirst && plan.cob_method === "carve_out";
  const collectableCap = fee - writeOff - (asIfPrimary ? 0 : a.writeOffOther);
  if (collectableCap < benefitBase) {
    benefitBase = collectableCap;
    baseNote = "what can be collected (fee billed less write-offs)";
  }
  step("benefit_base", "Benefit base", benefitBase, benefitBase, baseNote);

  // --- deductible, percent, maximum
  const payable = Math.max(0, benefitBase - copay);
  const deductibleApplies = category !== null && plan.plan_type !== "capitation" && plan.deductible_category_ids.includes(category.id);
  coverage.deductible_applies = deductibleApplies;
  const deductibleBefore = ledger.deductibleRemaining(year.start);
  const deductibleCalc = !excluded && deductibleApplies ? Math.min(deductibleBefore, payable) : 0;
  const deductible = effective("deductible", deductibleCalc, 0, payable, "a deductible is between 0 and the benefit base less the copay");
  const percentCalc = plan.plan_type === "capitation" ? 0 : (categoryPercent ?? 0);
  const percent = effective("percentage", percentCalc, 0, 100, "a percentage is between 0 and 100");
  const maxBefore = ledger.maxRemaining(year.start);

  let baseEstimate = 0;
  let normal = 0;
  if (excluded) {
    step("exclusion", "Not covered", 0, 0, `${excluded.reason}: ${excluded.note}`);
  } else {
    ledger.useDeductible(year.start, deductible);
    if (copay > 0 || copayRule)
      step("copay", "Copay", copay, payable, plan.plan_type === "capitation" ? "capitation: the plan pays nothing per procedure" : null);
    if (deductibleApplies || deductible > 0) {
      step("deductible", "Deductible", deductible, payable - deductible, `${dollars(deductibleBefore)} left this benefit year before this procedure`);
    }
    baseEstimate = percentOf(payable - deductible, percent);
    step("coverage_percent", "Coverage percent", baseEstimate, baseEstimate, `${percent}% of ${dollars(payable - deductible)}`);
    normal = maxBefore === null ? baseEstimate : Math.min(baseEstimate, maxBefore);
    if (maxBefore !== null) {
      step("annual_maximum", "Annual maximum remaining", maxBefore, normal, normal < baseEstimate ? "the annual maximum limits the benefit" : null);
      if (normal < baseEstimate) warn("annual_max_reached", `The annual maximum leaves ${dollars(maxBefore)} of a ${dollars(baseEstimate)} benefit`);
    }
  }

  // --- coordination of benefits and the insurance estimate
  const cob = coordinate(a.isFirst ? "primary" : plan.cob_method, normal, a.paidOther, balanceAfterWriteOff);
  if (!a.isFirst) step("coordination", "Coordination of benefits", a.paidOther, cob.amount, cob.note);
  const insuranceHigh = maxBefore === null ? balanceAfterWriteOff : Math.min(balanceAfterWriteOff, maxBefore);
  const insurance = effective("insurance_estimate", cob.amount, 0, insuranceHigh, "insurance is at most the balance and the annual maximum left");
  if (excluded && override?.insurance_estimate !== undefined) {
    warn("override_on_excluded", `The procedure is excluded (${excluded.reason}) but the insurance estimate override is used`);
  }
  ledger.useMax(year.start, insurance);
  if (!excluded) ledger.addUse({ code, date: proc.date, tooth: proc.tooth });
  const balanceAfter = balanceAfterWriteOff - insurance;
  step("insurance_estimate", "Insurance estimate", insurance, balanceAfter, override?.insurance_estimate !== undefined ? "override" : null);
  step("patient_portion", "Patient portion", balanceAfter, balanceAfter);

  const benefitMatch: BenefitMatch = {
    code,
    benefit_code: substitution ?? code,
    category_id: category?.id ?? null,
    category_name: category?.name ?? null,
    span: match ? { from_code: match.span.from_code, to_code: match.span.to_code } : null,
    excluded_by: exclusionSpan
      ? { source: "category_span", from_code: exclusionSpan.span.from_code, to_code: exclusionSpan.span.to_code, category_id: exclusionSpan.category.id }
      : planExclusion
        ? { source: "plan_exclusion", from_code: planExclusion.from_code, to_code: planExclusion.to_code, category_id: null }
        : null,
  };
  const has = (field: OverrideField) => override?.[field] !== undefined && override[field] !== null;

  return {
    procedure_id: proc.id,
    ordinal: plan.ordinal,
    plan_id: plan.plan_id,
    carrier_id: plan.carrier_id,
    code_sent: code,
    fee_billed: fee,
    allowed_fee: allowedCalc,
    ppo_fee: plan.plan_type === "ppo" ? (scheduled ?? null) : null,
    write_off_estimate: writeOffCalc,
    copay_amount: copayCalc,
    deductible_applied: deductibleCalc,
    coverage_percent: percentCalc,
    base_estimate: baseEstimate,
    insurance_estimate: cob.amount,
    paid_other_insurance: a.paidOther,
    patient_estimate: balanceAfter,
    is_excluded: excluded !== null,
    exclusion_reason: excluded?.reason ?? null,
    substitution_code: substitution,
    effective_allowed_fee: allowed,
    effective_copay: copay,
    effective_coverage_percent: percent,
    effective_deductible: deductible,
    effective_insurance_estimate: insurance,
    effective_write_off: writeOff,
    has_allowed_override: has("allowed"),
    has_copay_override: has("copay"),
    has_deductible_override: has("deductible"),
    has_insurance_estimate_override: has("insurance_estimate"),
    has_percentage_override: has("percentage"),
    has_write_off_override: has("write_off"),
    detail: {
      benefit_match: benefitMatch,
      coverage,
      plan_context: {
        ordinal: plan.ordinal,
        plan_id: plan.plan_id,
        carrier_id: plan.carrier_id,
        plan_type: plan.plan_type,
        cob_method: plan.cob_method,
        sets_write_off: a.setsWriteOff,
        benefit_year: { start: year.start, end: dayBefore(year.end) }, // shown with its last day, as the benefits endpoint does
        annual_max_cents: plan.annual_max_cents,
        annual_max_remaining_before_cents: maxBefore,
        annual_max_remaining_after_cents: ledger.maxRemaining(year.start),
        deductible_individual_cents: plan.deductible_individual_cents,
        deductible_remaining_before_cents: deductibleBefore,
        deductible_remaining_after_cents: ledger.deductibleRemaining(year.start),
      },
      substitution_code: substitution,
      warnings,
      waterfall,
    },
  };
}
