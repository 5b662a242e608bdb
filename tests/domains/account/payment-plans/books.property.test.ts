import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { FREQUENCIES } from "@/domains/account/payment-plans/amortization";
import { unpaidInstallments, type DueEntry } from "@/domains/account/payment-plans/due";
import { postDueInstallments } from "@/domains/account/payment-plans/service";
import { addDays } from "@/platform/time/dates";
import { cents, day, effect, planWorld, TODAY, type PlanWorld } from "./fixtures";

// The books balance with payment plans (issue 32, "every posting path has a
// property test"): a fresh family each run, random debts, a random plan
// (principal, down payment, APR, frequency, amount or count, start), then
// random nights of the job (some run twice, most skip days: missed nights),
// payments by the patient or the guarantor, and maybe a close. After every step:
// - what the family owes (its ledger plus the principal the plan still holds)
//   is what it owed before the plan, less its payments, plus the interest of
//   the installments posted: the plan never creates or loses money;
// - the installments posted are exactly those due by the latest night (or by
//   the close), each once, at the schedule's amounts, and the schedule adds up
//   to the amount financed plus its interest;
// - payment_plan_due is the aging's FIFO over the ledger, never above the balance.

let w: PlanWorld;
beforeAll(async () => {
  w = await planWorld();
});
afterAll(() => w.t.close());

type Step = { kind: "night"; days: number; twice: boolean } | { kind: "pay"; guarantor: boolean; cents: number } | { kind: "close" };

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("night" as const), days: fc.integer({ min: 1, max: 75 }), twice: fc.boolean() }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant("pay" as const), guarantor: fc.boolean(), cents: fc.integer({ min: 1, max: 80_000 }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("close" as const) }), weight: 1 },
);

const scenario = fc.record({
  debts: fc.array(fc.record({ cents: fc.integer({ min: 5_000, max: 300_000 }), daysAgo: fc.integer({ min: 0, max: 120 }) }), { minLength: 1, maxLength: 3 }),
  principalShare: fc.double({ min: 0.05, max: 1, noNaN: true }),
  downShare: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 0.5, noNaN: true })),
  aprBps: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 3_000 })),
  frequency: fc.constantFrom(...FREQUENCIES),
  given: fc.oneof(fc.record({ count: fc.integer({ min: 1, max: 24 }) }), fc.record({ share: fc.double({ min: 0.05, max: 0.6, noNaN: true }) })),
  startIn: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40 })),
  steps: fc.array(step, { minLength: 1, maxLength: 8 }),
});

const dollars = (c: number) => c / 100;
const sum = (xs: number[]) => xs.reduce((n, x) => n + x, 0);

describe("the books balance with payment plans", () => {
  test("over random plans, nights of the job (repeated, missed), payments and closes", async () => {
    const ctx = await w.jobContext("req-property");
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const guarantor = await w.patient("Gia");
        const kid = await w.patient("Kip", guarantor);
        for (const d of s.debts) await w.charge(kid, dollars(d.cents), day(-d.daysAgo));
        const owed = sum(s.debts.map((d) => d.cents));
        const familySum = async () => sum((await w.entries(kid)).map(effect)) + sum((await w.entries(guarantor)).map(effect));
        const before = await familySum();
        expect(before).toBe(owed);

        const principal = Math.max(100, Math.floor(owed * s.principalShare));
        const down = Math.min(principal - 1, Math.floor(principal * s.downShare));
        const financed = principal - down;
        const body = {
          guarantor_uuid: guarantor,
          patient_uuid: kid,
          principal: dollars(principal),
          down_payment: dollars(down),
          apr: s.aprBps / 100,
          frequency: s.frequency,
          start_date: day(s.startIn),
          ...("count" in s.given ? { installment_count: s.given.count } : { installment_amount: dollars(Math.max(1, Math.floor(financed * s.given.share))) }),
        };
        const created = await w.createPlan(body);
        if (created.status === 422) {
          // an installment too small to amortize: refused, and nothing written
          expect(created.body.code).toBe("installment_too_small");
          expect(await familySum()).toBe(before);
          return;
        }
        expect(created.status).toBe(201);
        const plan = created.body;
        const schedule = plan.schedule.map((i: any) => ({
          due: i.due_date as string,
          amount: cents(i.amount),
          principal: cents(i.principal),
          interest: cents(i.interest),
        }));
        // the schedule pays the amount financed exactly, with its interest on top
        expect(sum(schedule.map((i: any) => i.principal))).toBe(financed);
        expect(sum(schedule.map((i: any) => i.amount))).toBe(financed + sum(schedule.map((i: any) => i.interest)));
        expect(cents(plan.total_of_installments)).toBe(sum(schedule.map((i: any) => i.amount)));

        let asOf = TODAY;
        let postedBy = TODAY; // installments due by this date are posted (the latest night, or the close)
        let open = true;
        let paid = 0;
        const check = async () => {
          const kidEntries = await w.entries(kid);
          const installments = kidEntries.filter((e) => e.payment_plan_id === plan.id && e.entry_type === "charge");
          const expected = schedule.filter((i: any) => i.due <= postedBy);
          // each installment due, once, at the schedule's amount; nothing not yet due
          expect(installments.map((e) => [e.entry_date, e.amount_cents]).sort()).toEqual(expected.map((i: any) => [i.due, i.amount]).sort());
          const view = await w.readPlan(plan.id);
          const holds = open ? financed - sum(expected.map((i: any) => i.principal)) : 0;
          expect(cents(view.principal_remaining)).toBe(holds);
          // the family owes what it did, less what it paid, plus the interest posted: never counted twice
          expect((await familySum()) + holds).toBe(before - paid + sum(expected.map((i: any) => i.interest)));
          // payment_plan_due: the FIFO of the kid's ledger over this (open) plan's installments
          const kidRow = await w.readPatient(kid);
          const reference = sum([
            ...unpaidInstallments(
              kidEntries.sort((a, b) => (a.entry_date + a.id < b.entry_date + b.id ? -1 : 1)) as DueEntry[],
              new Set(open ? [plan.id] : []),
            ).values(),
          ]);
          expect(cents(kidRow.payment_plan_due)).toBe(reference);
          expect(cents(view.due)).toBe(reference);
          expect(reference).toBeLessThanOrEqual(Math.max(0, cents(kidRow.balance_total)));
        };
        await check();

        for (const st of s.steps) {
          if (st.kind === "night") {
            asOf = addDays(asOf, st.days);
            await postDueInstallments(ctx, { asOf });
            if (open) postedBy = asOf;
            await check();
            if (st.twice) {
              const again = (await w.entries(kid)).length;
              await postDueInstallments(ctx, { asOf });
              expect((await w.entries(kid)).length).toBe(again);
            }
          } else if (st.kind === "pay") {
            await w.pay(st.guarantor ? guarantor : kid, dollars(st.cents));
            paid += st.cents;
          } else if (open) {
            const version = (await w.readPlan(plan.id)).version;
            await w.ok(w.post(`/payment-plans/${plan.id}/close`, { base_version: version }), 200);
            open = false;
          }
          await check();
        }
      }),
      { numRuns: 40 },
    );
  }, 180_000);
});
