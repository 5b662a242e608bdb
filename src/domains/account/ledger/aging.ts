import { addDays, epochDay } from "@/platform/time/dates";

// Aging of a patient's balance (docs/account/account.md), as a pure function of the
// ledger and "today" so it can be tested with a fixed date.

export type EntryType = "charge" | "payment" | "adjustment";
export type AgingEntry = { entry_type: EntryType; amount_cents: number; entry_date: string };
export type Buckets = { balance_0_30_cents: number; balance_31_60_cents: number; balance_61_90_cents: number; balance_over_90_cents: number };
export type Aging = { buckets: Buckets; next_change_on: string | null };

/** Ages at which an open amount moves to the next bucket. */
const BOUNDARIES = [31, 61, 91] as const;

/** A debit of the ledger and what of it the credits have not paid. */
export type OpenDebit<E> = { entry: E | null; date: string; open: number };

/**
 * The account's one payment rule. Debits (charges, positive adjustments) are
 * owed from their entry_date; credits (payments, negative adjustments) pay off
 * the oldest open debits first (FIFO), whatever their own date. A negative
 * payment (a void or a refund) takes its credit back: the debits it had paid
 * are open again. More given back than paid (never by the account's own rules)
 * is a debit of today (`entry` null). Returns every debit with what is still
 * open of it, oldest first, and the credit left over once every debit is paid.
 * `entries` must be in ledger order (entry_date, then posting order).
 */
export function openDebits<E extends AgingEntry>(entries: readonly E[], today: string): { debits: OpenDebit<E>[]; credit: number } {
  const debits: OpenDebit<E>[] = [];
  let credit = 0;
  for (const e of entries) {
    if (e.entry_type === "payment") credit += e.amount_cents;
    else if (e.entry_type === "charge" || e.amount_cents > 0) debits.push({ entry: e, date: e.entry_date, open: Math.abs(e.amount_cents) });
    else credit -= e.amount_cents;
  }
  if (credit < 0) {
    debits.push({ entry: null, date: today, open: -credit });
    credit = 0;
  }
  debits.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)); // stable: ties keep posting order
  for (const d of debits) {
    const applied = Math.min(credit, d.open);
    credit -= applied;
    d.open -= applied;
  }
  return { debits, credit };
}

/**
 * The aging of what openDebits leaves open: ages 0-30 days (and future
 * dates), 31-60, 61-90, 91+. Credit left over shows as a negative 0-30 bucket.
 * Also returns the next date a bucket will move without any new entry.
 */
export function ageBalances(entries: readonly AgingEntry[], today: string): Aging {
  const { debits, credit } = openDebits(entries, today);
  const buckets: Buckets = { balance_0_30_cents: 0, balance_31_60_cents: 0, balance_61_90_cents: 0, balance_over_90_cents: 0 };
  let next: string | null = null;
  const now = epochDay(today);
  for (const { date, open } of debits) {
    if (!open) continue;
    const age = now - epochDay(date);
    if (age <= 30) buckets.balance_0_30_cents += open;
    else if (age <= 60) buckets.balance_31_60_cents += open;
    else if (age <= 90) buckets.balance_61_90_cents += open;
    else buckets.balance_over_90_cents += open;
    const boundary = BOUNDARIES.find((b) => age < b);
    if (boundary !== undefined) {
      const on = addDays(date, boundary);
      if (next === null || on < next) next = on;
    }
  }
  buckets.balance_0_30_cents -= credit;
  return { buckets, next_change_on: next };
}

export const totalOf = (b: Buckets) => b.balance_0_30_cents + b.balance_31_60_cents + b.balance_61_90_cents + b.balance_over_90_cents;
