import { findRange } from "./codes";
import { addMonths, ageOn, benefitYearOf } from "./dates";
import type { NormalizedAgeLimit, NormalizedFrequencyLimit, NormalizedPlan, NormalizedProcedure } from "./normalize";
import type { EngineDowngrade, EnginePriorProcedure, EngineWaitingPeriod, IsoDate } from "./types";

// The plan's limitations, each a pure question about one procedure: is it
// downgraded, within its waiting period, outside its ages, over its frequency?

export function findDowngrade(plan: NormalizedPlan, code: string): EngineDowngrade | null {
  return plan.downgrades.find((d) => d.to_code !== code && findRange(code, d.codes) !== null) ?? null;
}

export interface WaitingCheck {
  rule: EngineWaitingPeriod;
  /** First covered date, or null when the plan has no effective date to count from. */
  coveredFrom: IsoDate | null;
  waiting: boolean;
}

/** The category's waiting periods (the longest decides), counted from the subscription's effective date. */
export function checkWaitingPeriod(plan: NormalizedPlan, categoryId: string | null, date: IsoDate): WaitingCheck | null {
  const rules = plan.waiting_periods.filter((w) => w.category_id === categoryId);
  if (rules.length === 0) return null;
  const rule = rules.reduce((a, b) => (b.months > a.months ? b : a));
  if (plan.effective_date === null) return { rule, coveredFrom: null, waiting: false };
  const coveredFrom = addMonths(plan.effective_date, rule.months);
  return { rule, coveredFrom, waiting: date < coveredFrom };
}

export interface AgeCheck {
  rule: NormalizedAgeLimit;
  age: number | null;
  /** False when a date of birth is known and the age is outside the rule. */
  ok: boolean;
}

/** The first age limit of the code that the patient fails, else the first one that applies. */
export function checkAge(plan: NormalizedPlan, code: string, dateOfBirth: IsoDate | null, date: IsoDate): AgeCheck | null {
  const rules = plan.age_limits.filter((a) => findRange(code, a.codes) !== null);
  if (rules.length === 0) return null;
  const age = dateOfBirth === null ? null : ageOn(dateOfBirth, date);
  const checks = rules.map((rule) => ({
    rule,
    age,
    ok: age === null || ((rule.min_age === null || age >= rule.min_age) && (rule.max_age === null || age <= rule.max_age)),
  }));
  return checks.find((c) => !c.ok) ?? checks[0];
}

export const periodLabel = (period: NormalizedFrequencyLimit["period"]) => (typeof period === "object" ? `months:${period.months}` : period);

/**
 * Whether a service on `use` falls in the same frequency window as one on
 * `date`. Rolling windows look both ways: two services closer than N months
 * apart conflict whichever was planned first ("once per 12 months" allows the
 * next service on the same day 12 months later).
 */
export function inWindow(limit: NormalizedFrequencyLimit, year: { start: IsoDate; end: IsoDate }, use: IsoDate, date: IsoDate): boolean {
  const period = limit.period;
  if (period === "lifetime") return true;
  if (period === "benefit_year") return use >= year.start && use < year.end;
  const [early, late] = use <= date ? [use, date] : [date, use];
  return addMonths(early, period.months) > late;
}

export interface FrequencyCheck {
  limit: NormalizedFrequencyLimit;
  used: number;
  exceeded: boolean;
}

/** Every frequency limit covering the code, with the services already counted in its window. */
export function checkFrequency(plan: NormalizedPlan, uses: EnginePriorProcedure[], proc: NormalizedProcedure): FrequencyCheck[] {
  const limits = plan.frequency_limits.filter((limit) => findRange(proc.code, limit.codes) !== null);
  if (limits.length === 0) return [];
  const year = benefitYearOf(proc.date, plan.benefit_year_start_month);
  return limits.map((limit) => {
    const used = uses.filter(
      (u) => (!limit.per_tooth || (u.tooth ?? null) === proc.tooth) && findRange(u.code, limit.codes) !== null && inWindow(limit, year, u.date, proc.date),
    ).length;
    return { limit, used, exceeded: used >= limit.count };
  });
}
