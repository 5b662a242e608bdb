import { formatCents } from "@/platform/money";
import { addDays } from "@/platform/time/dates";

// The arithmetic of a payment plan (docs/account/payment-plans.md,
// "Amortization"), pure so it can be tested with any numbers: the annuity
// installment, each period's interest on the balance left, the due dates. Only
// the level installment comes from floating point (the annuity formula, rounded
// to the cent); every figure after it is integer cents.

export const FREQUENCIES = ["weekly", "every_two_weeks", "monthly"] as const;
export type Frequency = (typeof FREQUENCIES)[number];

/** Installments a year: the period rate is the APR divided by this. */
export const PERIODS_PER_YEAR: Record<Frequency, number> = { weekly: 52, every_two_weeks: 26, monthly: 12 };

/** The longest plan: 360 installments (30 years monthly, about 7 years weekly). */
export const MAX_INSTALLMENTS = 360;

/** The highest APR a plan may carry: 30 % (3,000 basis points). */
export const MAX_APR_BPS = 3_000;

export type Installment = {
  /** 1-based */
  number: number;
  due_date: string;
  amount_cents: number;
  principal_cents: number;
  interest_cents: number;
  /** principal still owed after this installment */
  balance_after_cents: number;
};

export type Terms = { financed_cents: number; apr_bps: number; frequency: Frequency; start_date: string };

/** One period's interest on `balance` cents, rounded half up to the cent, in integers (balance × bps stays far below 2^53). */
export function periodInterest(balance: number, aprBps: number, frequency: Frequency): number {
  const den = 10_000 * PERIODS_PER_YEAR[frequency];
  return Math.floor((2 * balance * aprBps + den) / (2 * den));
}

/** The level installment that pays `financed` off in `count` periods (the annuity formula), rounded to the cent. */
export function annuityInstallment(financed: number, aprBps: number, frequency: Frequency, count: number): number {
  if (aprBps === 0) return Math.round(financed / count);
  const r = aprBps / 10_000 / PERIODS_PER_YEAR[frequency];
  return Math.round((financed * r) / (1 - (1 + r) ** -count));
}

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * The due date of installment `index` (0-based): the start date, then every 7 or
 * 14 days, or monthly on the start's day of the month, clamped to the month's
 * last day (a plan starting on the 31st is due on Feb 28 or 29, then Mar 31).
 */
export function dueDate(start: string, frequency: Frequency, index: number): string {
  if (frequency === "weekly") return addDays(start, 7 * index);
  if (frequency === "every_two_weeks") return addDays(start, 14 * index);
  const [y, m, d] = start.split("-").map(Number) as [number, number, number];
  const months = y * 12 + (m - 1) + index;
  const year = Math.floor(months / 12);
  const month = (months % 12) + 1;
  const day = Math.min(d, daysInMonth(year, month));
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}

/**
 * The schedule of `count` installments of `amount` cents: each pays the
 * period's interest on the balance left and the rest off the principal; the
 * last pays whatever principal is left with its interest (the rounding
 * remainder). Null when it does not amortize: an installment that does not pay
 * more than its interest, or a balance paid off before the last installment.
 */
export function scheduleOf(terms: Terms, amount: number, count: number): Installment[] | null {
  const out: Installment[] = [];
  let balance = terms.financed_cents;
  for (let i = 0; i < count; i++) {
    const interest = periodInterest(balance, terms.apr_bps, terms.frequency);
    const last = i === count - 1;
    const principal = last ? balance : amount - interest;
    if (principal <= 0 || (!last && principal >= balance)) return null;
    balance -= principal;
    out.push({
      number: i + 1,
      due_date: dueDate(terms.start_date, terms.frequency, i),
      amount_cents: principal + interest,
      principal_cents: principal,
      interest_cents: interest,
      balance_after_cents: balance,
    });
  }
  return out;
}

export type Amortized =
  | { ok: true; amount_cents: number; count: number; installments: Installment[] }
  | { ok: false; field: "installment_amount" | "installment_count"; reason: string };

/**
 * The plan's installments from what the caller gave: with a count, the amount
 * comes from the annuity formula; with an amount, the count is the number of
 * installments it takes (the last one smaller), refused when the amount does
 * not pay more than a period's interest or needs more than MAX_INSTALLMENTS.
 */
export function amortize(terms: Terms, given: { amount_cents: number } | { count: number }): Amortized {
  if ("count" in given) {
    const amount = annuityInstallment(terms.financed_cents, terms.apr_bps, terms.frequency, given.count);
    const installments = scheduleOf(terms, amount, given.count);
    if (!installments)
      return { ok: false, field: "installment_count", reason: "Too many installments for the amount financed: they would not each pay off some of it" };
    return { ok: true, amount_cents: amount, count: given.count, installments };
  }
  const amount = given.amount_cents;
  let balance = terms.financed_cents;
  let count = 0;
  while (balance > 0) {
    const interest = periodInterest(balance, terms.apr_bps, terms.frequency);
    if (amount <= interest)
      return {
        ok: false,
        field: "installment_amount",
        reason: `Must be more than a period's interest on the amount financed (${formatCents(interest)}), or the plan is never paid off`,
      };
    count++;
    if (count > MAX_INSTALLMENTS)
      return { ok: false, field: "installment_amount", reason: `Too small: the plan would need more than ${MAX_INSTALLMENTS} installments` };
    balance -= Math.min(balance, amount - interest);
  }
  return { ok: true, amount_cents: amount, count, installments: scheduleOf(terms, amount, count)! };
}
