import { describe, expect, test } from "bun:test";
import { ageBalances, type AgingEntry } from "@/domains/account/ledger/aging";
import { addDays } from "@/platform/time/dates";

// The aging rule, table-driven with a fixed "today".
const TODAY = "2025-06-30";
const ago = (days: number) => addDays(TODAY, -days);
const charge = (cents: number, days: number): AgingEntry => ({ entry_type: "charge", amount_cents: cents, entry_date: ago(days) });
const payment = (cents: number, days: number): AgingEntry => ({ entry_type: "payment", amount_cents: cents, entry_date: ago(days) });
const adjustment = (cents: number, days: number): AgingEntry => ({ entry_type: "adjustment", amount_cents: cents, entry_date: ago(days) });

type Row = [name: string, entries: AgingEntry[], buckets: [number, number, number, number], next: string | null];

const CASES: Row[] = [
  ["no entries", [], [0, 0, 0, 0], null],
  ["a charge today", [charge(10_000, 0)], [10_000, 0, 0, 0], ago(-31)],
  ["age 30 is still 0-30", [charge(100, 30)], [100, 0, 0, 0], ago(-1)],
  ["age 31 is 31-60", [charge(100, 31)], [0, 100, 0, 0], ago(-30)],
  ["age 60 is 31-60", [charge(100, 60)], [0, 100, 0, 0], ago(-1)],
  ["age 61 is 61-90", [charge(100, 61)], [0, 0, 100, 0], ago(-30)],
  ["age 90 is 61-90", [charge(100, 90)], [0, 0, 100, 0], ago(-1)],
  ["age 91 is over 90 and never moves again", [charge(100, 91)], [0, 0, 0, 100], null],
  ["a future-dated charge counts as 0-30", [charge(100, -1)], [100, 0, 0, 0], ago(-32)],
  ["one charge per bucket", [charge(100, 5), charge(200, 45), charge(300, 75), charge(400, 400)], [100, 200, 300, 400], ago(-16)],
  ["a payment pays the oldest charge first", [charge(100, 5), charge(200, 45), charge(300, 120), payment(350, 1)], [100, 150, 0, 0], ago(-16)],
  [
    "a payment older than the charges still pays the oldest (FIFO by charge date)",
    [payment(150, 200), charge(100, 100), charge(100, 10)],
    [50, 0, 0, 0],
    ago(-21),
  ],
  ["payments covering everything leave zero", [charge(100, 10), charge(100, 50), payment(200, 0)], [0, 0, 0, 0], null],
  ["an overpayment is a credit in 0-30", [charge(100, 50), payment(250, 0)], [-150, 0, 0, 0], null],
  ["a payment without charges is a credit", [payment(500, 3)], [-500, 0, 0, 0], null],
  ["a positive adjustment ages like a charge", [adjustment(300, 70)], [0, 0, 300, 0], ago(-21)],
  ["a negative adjustment is a credit applied FIFO", [charge(100, 100), charge(100, 40), adjustment(-150, 0)], [0, 50, 0, 0], ago(-21)],
  ["same-day debits are paid in posting order", [charge(100, 10), adjustment(200, 10), payment(100, 0)], [200, 0, 0, 0], ago(-21)],
  ["a partly paid old charge keeps its age", [charge(1_000, 95), payment(400, 1)], [0, 0, 0, 600], null],
  ["next change is the earliest boundary among open charges", [charge(100, 20), charge(100, 59), charge(100, 85)], [100, 100, 100, 0], ago(-2)],
  ["paid-off charges do not set the next change", [charge(100, 29), charge(100, 10), payment(100, 0)], [100, 0, 0, 0], ago(-21)],
];

describe("ageBalances", () => {
  test.each(CASES)("%s", (_name, entries, [b0, b31, b61, b91], next) => {
    const { buckets, next_change_on } = ageBalances(entries, TODAY);
    expect(buckets).toEqual({ balance_0_30_cents: b0, balance_31_60_cents: b31, balance_61_90_cents: b61, balance_over_90_cents: b91 });
    expect(next_change_on).toBe(next);
  });

  test("the total never depends on the day; the split does", () => {
    const entries = [charge(100, 5), charge(200, 45), payment(50, 0), adjustment(-25, 0), adjustment(10, 2)];
    const total = (d: string) => Object.values(ageBalances(entries, d).buckets).reduce((s, x) => s + x, 0);
    for (const d of [TODAY, addDays(TODAY, 30), addDays(TODAY, 365)]) expect(total(d)).toBe(235);
    expect(ageBalances(entries, addDays(TODAY, 365)).buckets.balance_over_90_cents).toBe(235);
  });

  test("re-aging on the next-change date moves the bucket (what the job relies on)", () => {
    const entries = [charge(100, 30)];
    const { next_change_on } = ageBalances(entries, TODAY);
    expect(ageBalances(entries, next_change_on!).buckets.balance_31_60_cents).toBe(100);
    expect(ageBalances(entries, addDays(next_change_on!, -1)).buckets.balance_0_30_cents).toBe(100);
  });
});
