import { beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { systemActor } from "@/platform/auth/actor";
import { importEra } from "@/domains/insurance/claims/eras/import";
import { balancedClaim, balancedEra, build835 } from "@tests/support/era835";
import { claimsWorld, type ClaimsWorld } from "./fixtures";

// The books of claim postings balance, whatever is posted and voided
// (docs/insurance/claims.md, "Posting"): for every answered claim procedure,
// paid + write-off + patient portion = fee billed (a primary claim: nothing
// prior), none of them negative; the patient's ledger balance is the fee less
// every standing payment and write-off; benefits used are what was paid.

let w: ClaimsWorld;
beforeAll(async () => {
  w = await claimsWorld();
}, 60_000);

const cents = (money: string) => Math.round(Number(money) * 100);
const dollars = (c: number) => c / 100;

/** One carrier answer for one procedure: what of its fee was paid and written off, in cents. */
const answerOf = (fee: number) =>
  fc
    .record({ allowedShare: fc.integer({ min: 0, max: 100 }), paidShare: fc.integer({ min: 0, max: 100 }), voided: fc.boolean() })
    .map(({ allowedShare, paidShare, voided }) => {
      const allowed = Math.floor((fee * allowedShare) / 100);
      return { allowed, paid: Math.floor((allowed * paidShare) / 100), write_off: fee - allowed, voided };
    });

const scenario = fc
  .array(fc.integer({ min: 1, max: 400_000 }), { minLength: 1, maxLength: 3 })
  .chain((fees) => fc.tuple(fc.constant(fees), fc.tuple(...fees.map((f) => fc.array(answerOf(f), { minLength: 1, maxLength: 3 })))));

describe("claim postings", () => {
  test("paid + write-off + patient portion = fee billed, never negative; the ledger and benefits used agree", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async ([fees, answers]) => {
        const p = await w.patientWith(
          fees.map((f, i) => ["D1110", dollars(f), undefined, i === 0 ? "complete" : "complete"] as [string, number, undefined, string]),
          { secondary: false },
        );
        const claim = await w.claimFor(p);
        await w.move(claim, "sent");
        const standing = fees.map(() => ({ paid: 0, write_off: 0 }));
        // each answer is one check; a later answer takes only what is still open (the service refuses more)
        for (let round = 0; round < 3; round++) {
          for (const [i, list] of answers.entries()) {
            const a = list[round];
            if (!a) continue;
            const open = fees[i]! - standing[i]!.paid - standing[i]!.write_off;
            const paid = Math.min(a.paid, open);
            const writeOff = Math.min(a.write_off, open - paid);
            const payment = await w.ok(
              w.post("/insurance/claim-payments", {
                carrier_uuid: w.office.carriers.delta,
                payment_date: "2025-04-01",
                amount: dollars(paid),
                splits: [
                  { claim_uuid: claim.id, procedure_uuid: p.procedures[i], paid: dollars(paid), allowed: dollars(a.allowed), write_off: dollars(writeOff) },
                ],
              }),
            );
            if (a.voided) await w.ok(w.post(`/insurance/claim-payments/${payment.id}/void`, { base_version: payment.version }), 200);
            else {
              standing[i]!.paid += paid;
              standing[i]!.write_off += writeOff;
            }
          }
        }
        const now = await w.ok(w.get(`/insurance/claims/${claim.id}`), 200);
        for (const [i, proc] of now.procedures.entries()) {
          const figures = [cents(proc.insurance_paid), cents(proc.write_off), cents(proc.patient_portion)];
          expect(figures.every((x) => x >= 0)).toBe(true);
          if (proc.status !== "estimate") expect(figures[0]! + figures[1]! + figures[2]!).toBe(fees[i]!);
          expect([figures[0], figures[1]]).toEqual([standing[i]!.paid, standing[i]!.write_off]);
        }
        const ledger = await w.ledgerOf(p.patient);
        const balance = ledger.reduce((n, e) => n + (e.entry_type === "payment" ? -e.amount_cents : e.amount_cents), 0);
        const total = (k: "paid" | "write_off") => standing.reduce((n, s) => n + s[k], 0);
        expect(balance).toBe(fees.reduce((n, f) => n + f, 0) - total("paid") - total("write_off"));
        const used = (await w.ok(w.get(`/insurance/patient-plans/${p.primary}/benefits?as_of=2025-03-05`), 200)).from_procedures;
        // an answered procedure counts what was paid; one whose every answer was voided counts its estimate again
        const estimates = now.procedures.filter((x: any) => x.status === "estimate").reduce((n: number, x: any) => n + cents(x.insurance_estimate), 0);
        expect(cents(used.annual_max_used)).toBe(total("paid") + estimates);
      }),
      { numRuns: 12, seed: 33 },
    );
  }, 120_000);
});

describe("ERA postings", () => {
  let trace = 0;
  test("every claim an ERA answers: paid + write-off + patient portion = fee billed, never negative; the ledger agrees", async () => {
    const ctx = (await w.t.rt.orgs.openOrgForJob(w.orgA, { actor: systemActor("claims.era-import"), requestId: null }))!;
    const line = fc.integer({ min: 1, max: 300_000 }).chain((fee) =>
      fc
        .record({
          allowedShare: fc.integer({ min: 0, max: 100 }),
          paidShare: fc.integer({ min: 0, max: 100 }),
          deductibleShare: fc.integer({ min: 0, max: 100 }),
        })
        .map((r) => {
          const allowed = Math.floor((fee * r.allowedShare) / 100);
          const paid = Math.floor((allowed * r.paidShare) / 100);
          return { fee, allowed, paid, deductible: Math.floor(((allowed - paid) * r.deductibleShare) / 100) };
        }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(line, { minLength: 1, maxLength: 4 }), async (lines) => {
        const sent = [];
        for (const l of lines) {
          const p = await w.patientWith([["D1110", dollars(l.fee)]], { secondary: false });
          const claim = await w.claimFor(p);
          await w.move(claim, "sent");
          sent.push({ p, claim, l });
        }
        const text = build835(
          balancedEra(
            sent.map(({ p, claim, l }) =>
              balancedClaim(claim.claim_number, [
                { code: "D1110", billed: l.fee, allowed: l.allowed, paid: l.paid, deductible: l.deductible, line_control: p.procedures[0], date: "2025-03-05" },
              ]),
            ),
            { payer: { name: "DELTA DENTAL", id: "CDCA1" }, trace_number: `PROP${++trace}`, payment_date: "2025-04-01" },
          ),
        );
        const upload = await w.t.request("POST", `${w.A}/insurance/eras`, { token: w.token, rawBody: text, headers: { "content-type": "text/plain" } });
        expect((await importEra(w.t.rt, ctx, upload.body.id, { post: false })).outcome).toBe("posted");
        for (const { p, claim, l } of sent) {
          const now = await w.ok(w.get(`/insurance/claims/${claim.id}`), 200);
          const proc = now.procedures[0];
          const figures = [cents(proc.insurance_paid), cents(proc.write_off), cents(proc.patient_portion)];
          expect(figures.every((x) => x >= 0)).toBe(true);
          expect(figures).toEqual([l.paid, l.fee - l.allowed, l.allowed - l.paid]);
          expect(cents(proc.deductible_applied)).toBe(l.deductible);
          const ledger = await w.ledgerOf(p.patient);
          expect(ledger.reduce((n, e) => n + (e.entry_type === "payment" ? -e.amount_cents : e.amount_cents), 0)).toBe(l.allowed - l.paid);
        }
      }),
      { numRuns: 8, seed: 835 },
    );
  }, 120_000);
});
