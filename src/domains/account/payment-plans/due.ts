import { and, asc, eq, inArray, ne } from "drizzle-orm";
import { paymentPlans } from "@db/tenant/account";
import { ledgerEntries } from "@db/tenant/ledger";
import { patients } from "@db/tenant/patients";
import { all, run, type Work } from "@/platform/db/work";
import type { TenantDb } from "@/platform/records/context";

// What a patient owes on their payment plans now (docs/account/payment-plans.md,
// "payment_plan_due"): the installments posted and not yet paid, on their open
// plans. "Paid" is the aging's rule (ledger/aging.ts): credits pay the oldest
// open debits first, so payment_plan_due never disagrees with the balance and
// is never more than it. Kept on the patient row by every ledger post.

export type DueEntry = { entry_type: string; amount_cents: number; entry_date: string; source: string; payment_plan_id: string | null };

/** An installment: a plan's charge (the plan's other entries, its adjustments, are ordinary amounts). */
const installmentPlan = (e: DueEntry) => (e.source === "payment_plan" && e.entry_type === "charge" ? e.payment_plan_id : null);

/**
 * What is left unpaid of each open plan's installments, by plan id, the
 * patient's entries given in ledger order (entry date, then posting order):
 * the credits (payments, negative adjustments) pay the debits (charges,
 * positive adjustments) oldest first, as ageBalances does.
 */
export function unpaidInstallments(entries: readonly DueEntry[], openPlans: ReadonlySet<string>): Map<string, number> {
  const debits: { date: string; open: number; plan: string | null }[] = [];
  let credit = 0;
  for (const e of entries) {
    if (e.entry_type === "payment") credit += e.amount_cents;
    else if (e.entry_type === "charge" || e.amount_cents > 0) debits.push({ date: e.entry_date, open: Math.abs(e.amount_cents), plan: installmentPlan(e) });
    else credit -= e.amount_cents;
  }
  debits.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0)); // stable: ties keep posting order
  const out = new Map<string, number>();
  credit = Math.max(credit, 0); // more given back than paid is owed from today: it pays no installment
  for (const d of debits) {
    const applied = Math.min(credit, d.open);
    credit -= applied;
    if (d.plan && openPlans.has(d.plan) && d.open > applied) out.set(d.plan, (out.get(d.plan) ?? 0) + d.open - applied);
  }
  return out;
}

/** The patient's entries in ledger order, with what unpaidInstallments reads. */
export function* dueEntries(db: TenantDb, patientIds: string[]): Work<(DueEntry & { patient_id: string })[]> {
  if (!patientIds.length) return [];
  const L = ledgerEntries;
  return yield* all(
    db
      .select({
        patient_id: L.patient_id,
        entry_type: L.entry_type,
        amount_cents: L.amount_cents,
        entry_date: L.entry_date,
        source: L.source,
        payment_plan_id: L.payment_plan_id,
      })
      .from(L)
      .where(patientIds.length === 1 ? eq(L.patient_id, patientIds[0]!) : inArray(L.patient_id, patientIds))
      .orderBy(asc(L.entry_date), asc(L.id)),
  );
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
 * Recompute the patient's payment_plan_due_cents from their ledger, in the
 * caller's write: a derived value like the aging buckets (no version, audit or
 * event of the patient's own). Called by every ledger post (postEntries) and by
 * the plan writes; a patient without installments costs one read of their
 * entries and no write.
 */
export function* refreshPaymentPlanDue(tx: TenantDb, patientId: string): Work<number> {
  const entries = yield* dueEntries(tx, [patientId]);
  const plans = entries.map(installmentPlan).filter((p): p is string => !!p);
  const open = yield* openPlansOf(tx, plans);
  let due = 0;
  for (const cents of unpaidInstallments(entries, open).values()) due += cents;
  yield* run(
    tx
      .update(patients)
      .set({ payment_plan_due_cents: due })
      .where(and(eq(patients.id, patientId), ne(patients.payment_plan_due_cents, due))),
  );
  return due;
}
