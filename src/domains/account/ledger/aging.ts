import { addDays, epochDay } from "@/platform/time/dates";

// Aging of a patient's balance (docs/account/account.md), as a pure function of the
// ledger and "today" so it can be tested with a fixed date.

export type EntryType = "charge" | "payment" | "adjustment";
export type AgingEntry = { entry_type: EntryType; amount_cents: number; entry_date: string };
export type Buckets = { balance_0_30_cents: number; balance_31_60_cents: number; balance_61_90_cents: number; balance_over_90_cents: number };
export type Aging = { buckets: Buckets; next_change_on: string | null };

/** Ages at which an open amount moves to the next bucket. */
const BOUNDARIES = [31, 61, 91] as const;

/**
 * Debits (charges, positive adjustments) age from their entry_date; credits
 * (payments, negative adjustments) pay off the oldest open debits first (FIFO),
 * whatever their own date. A negative payment (a void or a refund) takes its
 * credit back: the debits it had paid are open again at their own dates. Ages
 * 0-30 days (and future dates), 31-60, 61-90, 91+. Credit left over once every
 * debit is paid shows as a negative 0-30 bucket. Also returns the next date a
 * bucket will move without any new entry. `entries` must be in ledger order
 * (entry_date, then posting order).
 */
export function ageBalances(entries: readonly AgingEntry[], today: string): Aging {
  const debits: { date: string; open: number }[] = [];
  let credit = 0;
  for (const e of entries) {
    if (e.entry_type === "payment") credit += e.amount_cents;
    else if (e.entry_type === "charge" || e.amount_cents > 0) debits.push({ date: e.entry_date, open: Math.abs(e.amount_cents) });
    else credit -= e.amount_cents;
  }
  // more given back than paid (never by the account's own rules): owed from today
  if (credit < 0) {
    debits.push({ date: today, open: -credit });
    credit = 0;
  }
  debits.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)); // stable: ties keep posting order
  const buckets: Buckets = { balance_0_30_cents: 0, balance_31_60_cents: 0, balance_61_90_cents: 0, balance_over_90_cents: 0 };
  let next: string | null = null;
  const now = epochDay(today);
  for (const d of debits) {
    const applied = Math.min(credit, d.open);
    credit -= applied;
    const open = d.open - applied;
    if (!open) continue;
    const age = now - epochDay(d.date);
    if (age <= 30) buckets.balance_0_30_cents += open;
    else if (age <= 60) buckets.balance_31_60_cents += open;
    else if (age <= 90) buckets.balance_61_90_cents += open;
    else buckets.balance_over_90_cents += open;
    const boundary = BOUNDARIES.find((b) => age < b);
    if (boundary !== undefined) {
      const on = addDays(d.date, boundary);
      if (next === null || on < next) next = on;
    }
  }
  buckets.balance_0_30_cents -= credit;
  return { buckets, next_change_on: next };
}

export const totalOf = (b: Buckets) => b.balance_0_30_cents + b.balance_31_60_cents + b.balance_61_90_cents + b.balance_over_90_cents;
