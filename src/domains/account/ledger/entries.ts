import { asc, eq, inArray, sql } from "drizzle-orm";
import { ledgerEntries } from "@db/tenant/ledger";
import { all, type Work } from "@/platform/db/work";
import type { TenantDb } from "@/platform/records/context";
import type { EntryType } from "./aging";

// The sign of an entry on what is owed: a payment (and a negative one, a void
// or refund) lowers it by its amount; charges and adjustments count as signed.
/** An entry's effect on the balance, in SQL (for sums over the ledger). */
export const BALANCE_EFFECT = sql<number>`CASE WHEN ${ledgerEntries.entry_type} = 'payment' THEN -${ledgerEntries.amount_cents} ELSE ${ledgerEntries.amount_cents} END`;
/** The same, of an entry in hand. */
export const balanceEffectOf = (e: { entry_type: string; amount_cents: number }) => (e.entry_type === "payment" ? -e.amount_cents : e.amount_cents);

/** What the account's derived figures (aging, payment_plan_due) read of an entry. */
export type OrderedEntry = {
  patient_id: string;
  entry_type: EntryType;
  amount_cents: number;
  entry_date: string;
  source: string;
  payment_plan_id: string | null;
};

/** The patients' entries in ledger order (entry_date, then posting order): what openDebits reads. */
export function* ledgerInOrder(db: TenantDb, patientIds: string[]): Work<OrderedEntry[]> {
  if (!patientIds.length) return [];
  const L = ledgerEntries;
  return (yield* all(
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
  )) as OrderedEntry[]; // entry_type: only the API's enum and postEntries (an EntryType) write it
}
