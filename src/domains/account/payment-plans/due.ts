import { and, eq, inArray, ne } from "drizzle-orm";
import { paymentPlans } from "@db/tenant/account";
import { patients } from "@db/tenant/patients";
import { all, run, type Work } from "@/platform/db/work";
import type { TenantDb } from "@/platform/records/context";
import { todayUtc } from "@/platform/time/dates";
import { openDebits } from "@/domains/account/ledger/aging";
import { ledgerInOrder, type OrderedEntry } from "@/domains/account/ledger/entries";

// What a patient owes on their payment plans now (docs/account/payment-plans.md,
// "payment_plan_due"): the installments posted and not yet paid, on their open
// plans. "Paid" is the aging's rule (ledger/aging.ts): credits pay the oldest
// open debits first, so payment_plan_due never disagrees with the balance and
// is never more than it. Kept on the patient row by every ledger post.

export type DueEntry = Omit<OrderedEntry, "patient_id">;

/** An installment: a plan's charge (the plan's other entries, its adjustments, are ordinary amounts). */
const installmentPlan = (e: DueEntry) => (e.source === "payment_plan" && e.entry_type === "charge" ? e.payment_plan_id : null);

/**
 * What is left unpaid of each open plan's installments, by plan id, the
 * patient's entries given in ledger order (entry date, then posting order):
 * what the account's one payment rule (openDebits) leaves open of them.
 */
export function unpaidInstallments(entries: readonly DueEntry[], openPlans: ReadonlySet<string>, today = todayUtc()): Map<string, number> {
  const out = new Map<string, number>();
  for (const { entry, open } of openDebits(entries, today).debits) {
    const plan = entry && installmentPlan(entry);
    if (plan && openPlans.has(plan) && open > 0) out.set(plan, (out.get(plan) ?? 0) + open);
  }
  return out;
}

/** Which of these plans are open. */
export function* openPlansOf(db: TenantDb, planIds: Iterable<string>): Work<Set<string>> {
  const ids = [...new Set(planIds)];
  if (!ids.length) return new Set();
  const rows = yield* all<{ id: string }>(
    db
      .select({ id: paymentPlans.id })
      .from(paymentPlans)
      .where(and(inArray(paymentPlans.id, ids), eq(paymentPlans.status, "open"))),
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * What the patient owes on open plans now, from their entries in ledger order
 * (already read by the caller: reagePatient reads them once for both). A
 * patient without installments costs nothing more.
 */
export function* planDueOf(tx: TenantDb, entries: readonly DueEntry[]): Work<number> {
  const plans = entries.map(installmentPlan).filter((p): p is string => !!p);
  if (!plans.length) return 0;
  const open = yield* openPlansOf(tx, plans);
  let due = 0;
  for (const cents of unpaidInstallments(entries, open).values()) due += cents;
  return due;
}

/**
 * Recompute the patient's payment_plan_due_cents in the caller's write when no
 * entry is posted (a plan closed with nothing to return); every ledger post
 * keeps it through reagePatient. A derived value like the aging buckets: no
 * version, audit or event of the patient's own.
 */
export function* refreshPaymentPlanDue(tx: TenantDb, patientId: string): Work<number> {
  const due = yield* planDueOf(tx, yield* ledgerInOrder(tx, [patientId]));
  yield* run(
    tx
      .update(patients)
      .set({ payment_plan_due_cents: due })
      .where(and(eq(patients.id, patientId), ne(patients.payment_plan_due_cents, due))),
  );
  return due;
}
