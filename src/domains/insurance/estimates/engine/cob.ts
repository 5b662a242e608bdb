import { dollars } from "./arith";
import type { Cents, CobMethod } from "./types";

// Coordination of benefits: what a plan pays after the plans before it.
// `normal` is the plan's own benefit (after its deductible, percent and
// annual maximum); `balance` is what the patient still owes once this plan's
// write-off is taken. Whatever the method, a plan never pays more than the
// balance, so the plans together never pay more than can be collected.

export function coordinate(method: CobMethod | "primary", normal: Cents, paidOther: Cents, balance: Cents): { amount: Cents; note: string } {
  switch (method) {
    case "primary":
      return { amount: Math.min(normal, balance), note: `primary: its benefit ${dollars(normal)}, at most the balance ${dollars(balance)}` };
    case "standard":
      // Traditional COB: up to the normal benefit, the plans together up to 100% of what can be collected.
      return { amount: Math.min(normal, balance), note: `standard: the lesser of its benefit ${dollars(normal)} and the balance ${dollars(balance)}` };
    case "non_duplication":
    case "carve_out": {
      // Pays only what its own benefit adds to what the earlier plans paid.
      // (The two differ in the benefit base: see benefitBaseCap in plan-estimate.ts.)
      const amount = Math.min(Math.max(0, normal - paidOther), balance);
      return {
        amount,
        note: `${method}: its benefit ${dollars(normal)} less ${dollars(paidOther)} paid by earlier plans, at most the balance ${dollars(balance)}`,
      };
    }
  }
}
