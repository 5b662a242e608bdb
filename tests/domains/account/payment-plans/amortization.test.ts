import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { amortize, annuityInstallment, dueDate, FREQUENCIES, MAX_INSTALLMENTS, periodInterest, type Terms } from "@/domains/account/payment-plans/amortization";
import { unpaidInstallments, type DueEntry } from "@/domains/account/payment-plans/due";

// The plan's arithmetic, pure: the annuity installment, each period's interest,
// the last installment's remainder, the count an amount takes, the due dates;
// and what of the installments the aging's FIFO leaves unpaid.

const terms = (financed: number, aprBps: number, frequency: Terms["frequency"] = "monthly", start = "2025-01-15"): Terms => ({
  financed_cents: financed,
  apr_bps: aprBps,
  frequency,
  start_date: start,
});
const rows = (a: ReturnType<typeof amortize>) =>
  a.ok ? a.installments.map((i) => [i.due_date, i.amount_cents, i.principal_cents, i.interest_cents, i.balance_after_cents]) : a;

describe("amortize", () => {
  test("a count: the annuity installment (900.00 at 12 % over 6 months is 155.29), interest on the balance left, the last takes the remainder", () => {
    expect(annuityInstallment(90_000, 1_200, "monthly", 6)).toBe(15_529);
    expect(rows(amortize(terms(90_000, 1_200), { count: 6 }))).toEqual([
      ["2025-01-15", 15_529, 14_629, 900, 75_371],
      ["2025-02-15", 15_529, 14_775, 754, 60_596],
      ["2025-03-15", 15_529, 14_923, 606, 45_673],
      ["2025-04-15", 15_529, 15_072, 457, 30_601],
      ["2025-05-15", 15_529, 15_223, 306, 15_378],
      ["2025-06-15", 15_532, 15_378, 154, 0],
    ]);
  });

  test("no interest: equal installments rounded to the cent, the last one the remainder", () => {
    expect(rows(amortize(terms(100_000, 0, "weekly"), { count: 3 }))).toEqual([
      ["2025-01-15", 33_333, 33_333, 0, 66_667],
      ["2025-01-22", 33_333, 33_333, 0, 33_334],
      ["2025-01-29", 33_334, 33_334, 0, 0],
    ]);
  });

  test("an amount: the count is what it takes, the last installment smaller", () => {
    const a = amortize(terms(100_000, 0, "every_two_weeks"), { amount_cents: 30_000 });
    expect(a).toMatchObject({ ok: true, amount_cents: 30_000, count: 4 });
    expect(rows(a)).toEqual([
      ["2025-01-15", 30_000, 30_000, 0, 70_000],
      ["2025-01-29", 30_000, 30_000, 0, 40_000],
      ["2025-02-12", 30_000, 30_000, 0, 10_000],
      ["2025-02-26", 10_000, 10_000, 0, 0],
    ]);
    // 1,000.00 at 24 % (2 % a month) paid 100.00 a month: 12 installments, the 12th smaller
    const b = amortize(terms(100_000, 2_400), { amount_cents: 10_000 });
    expect(b).toMatchObject({ ok: true, count: 12 });
    if (b.ok) expect(b.installments[11]!.amount_cents).toBeLessThan(10_000);
  });

  test("an amount that does not pay more than a period's interest, or needs more than 360 installments, does not amortize", () => {
    expect(periodInterest(100_000, 2_400, "monthly")).toBe(2_000);
    expect(amortize(terms(100_000, 2_400), { amount_cents: 2_000 })).toMatchObject({
      ok: false,
      field: "installment_amount",
      reason: expect.stringContaining("20.00"),
    });
    expect(amortize(terms(100_000, 2_400), { amount_cents: 2_001 })).toMatchObject({
      ok: false,
      field: "installment_amount",
      reason: expect.stringContaining("360"),
    });
    expect(amortize(terms(100_000, 0), { amount_cents: 277 })).toMatchObject({ ok: false, field: "installment_amount" }); // 361 installments
    expect(amortize(terms(100_000, 0), { amount_cents: 278 })).toMatchObject({ ok: true, count: 360 });
    // two cents over three installments: one would be nothing
    expect(amortize(terms(2, 0), { count: 3 })).toMatchObject({ ok: false, field: "installment_count" });
  });

  test("interest per period is the APR over 52, 26 or 12, rounded half up in integers", () => {
    expect(periodInterest(100_000, 520, "weekly")).toBe(100); // 5.2 % / 52 = 0.1 %
    expect(periodInterest(100_000, 520, "every_two_weeks")).toBe(200);
    expect(periodInterest(50, 1_200, "monthly")).toBe(1); // 0.5 cent rounds up
    expect(periodInterest(49, 1_200, "monthly")).toBe(0);
    expect(periodInterest(100_000_000, 3_000, "weekly")).toBe(576_923); // 1,000,000.00 at 30 % for a week
  });

  test("property: the installments pay the amount financed exactly, with the interest on top", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000_000 }),
        fc.integer({ min: 0, max: 3_000 }),
        fc.constantFrom(...FREQUENCIES),
        fc.oneof(fc.record({ count: fc.integer({ min: 1, max: MAX_INSTALLMENTS }) }), fc.record({ amount_cents: fc.integer({ min: 1, max: 100_000_000 }) })),
        (financed, apr, frequency, given) => {
          const a = amortize(terms(financed, apr, frequency), given);
          if (!a.ok) {
            expect(a.field).toBe("count" in given ? "installment_count" : "installment_amount");
            return;
          }
          const list = a.installments;
          expect(list).toHaveLength(a.count);
          expect(a.count).toBeLessThanOrEqual(MAX_INSTALLMENTS);
          expect(list.reduce((n, i) => n + i.principal_cents, 0)).toBe(financed);
          const interest = list.reduce((n, i) => n + i.interest_cents, 0);
          expect(list.reduce((n, i) => n + i.amount_cents, 0)).toBe(financed + interest);
          expect(list.at(-1)!.balance_after_cents).toBe(0);
          for (const i of list.slice(0, -1)) expect(i.amount_cents).toBe(a.amount_cents);
          for (const i of list) {
            expect(i.principal_cents).toBeGreaterThan(0);
            expect(i.interest_cents).toBe(periodInterest(i.balance_after_cents + i.principal_cents, apr, frequency));
          }
          if (apr === 0) expect(interest).toBe(0);
          if ("amount_cents" in given) expect(list.at(-1)!.amount_cents).toBeLessThanOrEqual(given.amount_cents);
          expect(new Set(list.map((i) => i.due_date)).size).toBe(list.length);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("due dates", () => {
  test("weekly and every two weeks from the start; monthly on the start's day, clamped to the month's end", () => {
    expect([0, 1, 2].map((i) => dueDate("2025-12-25", "weekly", i))).toEqual(["2025-12-25", "2026-01-01", "2026-01-08"]);
    expect([0, 1, 2].map((i) => dueDate("2025-12-25", "every_two_weeks", i))).toEqual(["2025-12-25", "2026-01-08", "2026-01-22"]);
    expect([0, 1, 2, 3].map((i) => dueDate("2024-01-31", "monthly", i))).toEqual(["2024-01-31", "2024-02-29", "2024-03-31", "2024-04-30"]);
    expect(dueDate("2023-01-31", "monthly", 1)).toBe("2023-02-28");
    expect(dueDate("2024-11-15", "monthly", 3)).toBe("2025-02-15");
    expect(dueDate("2024-11-30", "monthly", 15)).toBe("2026-02-28");
  });
});

describe("unpaid installments (the aging's FIFO)", () => {
  const e = (
    entry_type: DueEntry["entry_type"],
    amount_cents: number,
    entry_date: string,
    plan: string | null = null,
    source = plan ? "payment_plan" : "manual",
  ): DueEntry => ({
    entry_type,
    amount_cents,
    entry_date,
    source,
    payment_plan_id: plan,
  });
  const OPEN = new Set(["p1"]);

  test("credits pay the oldest debts first: the debt before the installments, then the installments by date", () => {
    const ledger = [
      e("charge", 120_000, "2025-01-01"),
      e("adjustment", -90_000, "2025-01-10", "p1"),
      e("charge", 15_000, "2025-01-10", "p1"),
      e("charge", 15_000, "2025-02-10", "p1"),
    ];
    expect(unpaidInstallments(ledger, OPEN)).toEqual(new Map([["p1", 30_000]]));
    // 350.00 paid: the 300.00 owed before the plan, then 50.00 of the first installment
    expect(unpaidInstallments([...ledger, e("payment", 35_000, "2025-02-11")], OPEN)).toEqual(new Map([["p1", 25_000]]));
    // a refund gives credit back: the installment is open again
    expect(unpaidInstallments([...ledger, e("payment", 35_000, "2025-02-11"), e("payment", -35_000, "2025-02-12", null, "refund")], OPEN)).toEqual(
      new Map([["p1", 30_000]]),
    );
    // paid in full: nothing
    expect(unpaidInstallments([...ledger, e("payment", 60_000, "2025-02-11")], OPEN)).toEqual(new Map());
  });

  test("a closed plan's installments are ordinary debts; the plan's own adjustments are never installments", () => {
    const ledger = [
      e("adjustment", -10_000, "2025-01-10", "p2"),
      e("charge", 10_000, "2025-01-01"),
      e("charge", 5_000, "2025-01-10", "p2"),
      e("adjustment", 5_000, "2025-02-01", "p2"),
    ];
    expect(unpaidInstallments(ledger, new Set())).toEqual(new Map());
    expect(unpaidInstallments(ledger, new Set(["p2"]))).toEqual(new Map([["p2", 5_000]]));
  });
});
