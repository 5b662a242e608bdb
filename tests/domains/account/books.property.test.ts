import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { accountWorld, type AccountWorld } from "@tests/domains/account/fixtures";

// The books balance (issue 32, "Done when"): random charges (completed
// procedures), payments with and without splits, voids, refunds and
// adjustments, posted over HTTP to a fresh family each run. After every run:
// the account's total equals the ledger's sum, each member's aging buckets sum
// to their total, each provider's collections equal what the payments' splits
// credit them, a voided payment's entries add up to nothing, and the balance is
// what the operations say it must be (nothing created or lost).

let w: AccountWorld;
let cash: string;
let discount: string;

beforeAll(async () => {
  w = await accountWorld();
  cash = await w.paymentType("Cash");
  discount = await w.adjustmentType("Courtesy discount");
});
afterAll(() => w.t.close());

type Op =
  | { kind: "charge"; member: number; cents: number; provider: 0 | 1; daysAgo: number }
  | { kind: "pay"; member: number; cents: number; split: boolean }
  | { kind: "void"; pick: number }
  | { kind: "refund"; pick: number; share: number }
  | { kind: "adjust"; member: number; cents: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("charge" as const),
    member: fc.nat(1),
    cents: fc.integer({ min: 0, max: 50_000 }),
    provider: fc.constantFrom(0 as const, 1 as const),
    daysAgo: fc.nat(120),
  }),
  fc.record({ kind: fc.constant("pay" as const), member: fc.nat(1), cents: fc.integer({ min: 1, max: 60_000 }), split: fc.boolean() }),
  fc.record({ kind: fc.constant("void" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("refund" as const), pick: fc.nat(), share: fc.double({ min: 0.01, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant("adjust" as const), member: fc.nat(1), cents: fc.integer({ min: -20_000, max: 20_000 }).filter((c) => c !== 0) }),
);

const dollars = (cents: number) => cents / 100;
const cents = (money: string) => Math.round(Number(money) * 100);

describe("the books balance", () => {
  test("over random charges, payments (split or not), voids, refunds and adjustments", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 9 }), async (ops) => {
        const guarantor = await w.patient("Prop");
        const members = [guarantor, await w.patient("Kid", guarantor)];
        const providers = [w.drA.id, w.drB.id];
        const paid: { id: string; version: number; amount: number; refunded: number; voided: boolean }[] = [];
        let expected = 0;
        for (const o of ops) {
          if (o.kind === "charge") {
            await w.completed(
              members[o.member]!,
              dollars(o.cents),
              providers[o.provider],
              new Date(Date.now() - o.daysAgo * 86_400_000).toISOString().slice(0, 10),
            );
            expected += o.cents;
          } else if (o.kind === "pay") {
            const splits = o.split
              ? [
                  { provider_uuid: w.drA.id, amount: dollars(Math.floor(o.cents / 2)) },
                  { provider_uuid: w.drB.id, amount: dollars(o.cents - Math.floor(o.cents / 2)) },
                ].filter((s) => s.amount > 0)
              : undefined;
            const p = await w.ok(
              w.post(`/patients/${members[o.member]}/payments`, { amount: dollars(o.cents), payment_type_uuid: cash, ...(splits ? { splits } : {}) }),
            );
            paid.push({ id: p.id, version: p.version, amount: o.cents, refunded: 0, voided: false });
            expected -= o.cents;
          } else if (o.kind === "void" && paid.length) {
            const p = paid[o.pick % paid.length]!;
            if (p.voided) continue;
            const r = await w.ok(w.t.request("POST", `${w.A}/payments/${p.id}/void`, { token: w.token, body: { base_version: p.version } }), 200);
            p.version = r.version;
            p.voided = true;
            expected += p.amount - p.refunded;
          } else if (o.kind === "refund" && paid.length) {
            const p = paid[o.pick % paid.length]!;
            const left = p.amount - p.refunded;
            const take = Math.max(1, Math.floor(left * o.share));
            if (p.voided || left <= 0) continue;
            const r = await w.ok(
              w.t.request("POST", `${w.A}/payments/${p.id}/refund`, {
                token: w.token,
                body: { base_version: p.version, amount: dollars(take), reason: "prop" },
              }),
              200,
            );
            p.version = r.version;
            p.refunded += take;
            expected += take;
          } else if (o.kind === "adjust") {
            await w.ok(w.post(`/patients/${members[o.member]}/adjustments`, { amount: dollars(o.cents), adjustment_type_uuid: discount }));
            expected += o.cents;
          }
        }
        const account = await w.ok(w.t.request("GET", `${w.A}/patients/${guarantor}/account`, { token: w.token }), 200);
        const rows = [...(await w.entries(members[0]!)), ...(await w.entries(members[1]!))];
        const ledgerSum = rows.reduce((n, e) => n + (e.entry_type === "payment" ? -e.amount_cents : e.amount_cents), 0);
        // the account's total is the ledger's sum, and what the operations say
        expect(cents(account.totals.balance_total)).toBe(ledgerSum);
        expect(ledgerSum).toBe(expected);
        // each member's buckets sum to their total
        for (const m of account.members) {
          expect(cents(m.balance_0_30) + cents(m.balance_31_60) + cents(m.balance_61_90) + cents(m.balance_over_90)).toBe(cents(m.balance_total));
        }
        // each provider's collections are what the splits credit them (net of refunds and voids)
        const payments = await Promise.all(paid.map((p) => w.ok(w.t.request("GET", `${w.A}/payments/${p.id}`, { token: w.token }), 200)));
        for (const provider of [...providers, null]) {
          const fromSplits = payments
            .flatMap((p) => p.splits)
            .filter((s: any) => (s.provider?.uuid ?? null) === provider)
            .reduce((n: number, s: any) => n + cents(s.left), 0);
          const fromLedger = rows.filter((e) => e.entry_type === "payment" && e.provider_id === provider).reduce((n, e) => n + e.amount_cents, 0);
          expect(fromSplits).toBe(fromLedger);
        }
        // a void leaves nothing of its payment; a payment's entries never exceed it
        for (const p of paid) {
          const mine = rows.filter((e) => e.payment_id === p.id).reduce((n, e) => n + e.amount_cents, 0);
          expect(mine).toBe(p.voided ? 0 : p.amount - p.refunded);
        }
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
