import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { id, versioned } from "@db/columns";
import { patients } from "./patients";

// The patient ledger (docs/account/account.md): append-only charges, payments and
// adjustments, every amount of the account; the patients.balance_*_cents
// columns are derived from it. A wrong entry is corrected by another entry
// (`reverses_id` names the one it reverses), never edited.

export const ledgerEntries = sqliteTable(
  "ledger_entries",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    // charge | payment | adjustment
    entry_type: text("entry_type").notNull(),
    // charges are positive; payments are positive (a credit) or negative (a void or refund:
    // the credit given back); adjustments are signed (negative = credit)
    amount_cents: integer("amount_cents").notNull(),
    entry_date: text("entry_date").notNull(),
    description: text("description"),
    // what posted it: manual | procedure (a completed procedure's charge and its corrections)
    // | payment (a split) | refund | void | adjustment | payment_plan | insurance
    source: text("source").notNull().default("manual"),
    // patient | insurance: whose money a payment is (collections by payer)
    payer: text("payer").notNull().default("patient"),
    // who produced the charge, or whom a payment split credits; and where
    provider_id: text("provider_id"),
    location_id: text("location_id"),
    procedure_id: text("procedure_id"),
    payment_id: text("payment_id"),
    adjustment_type_id: text("adjustment_type_id"),
    payment_plan_id: text("payment_plan_id"),
    // an insurance payment or write-off of a claim (claims: issue 33)
    claim_id: text("claim_id"),
    // the entry this one reverses (a void, a completion reverted)
    reverses_id: text("reverses_id"),
    ...versioned(),
  },
  (t) => [
    index("ledger_entries_patient_date_idx").on(t.patient_id, t.entry_date, t.id),
    index("ledger_entries_date_idx").on(t.entry_date, t.provider_id),
    index("ledger_entries_procedure_idx").on(t.procedure_id).where(sql`procedure_id IS NOT NULL`),
    index("ledger_entries_payment_idx").on(t.payment_id).where(sql`payment_id IS NOT NULL`),
    // one charge per completed procedure: completing twice posts once
    uniqueIndex("ledger_entries_procedure_charge_uq").on(t.procedure_id).where(sql`source = 'procedure' AND entry_type = 'charge'`),
    // one installment per plan and due date: a job run twice posts once
    uniqueIndex("ledger_entries_plan_installment_uq").on(t.payment_plan_id, t.entry_date).where(sql`source = 'payment_plan' AND entry_type = 'charge'`),
  ],
);

/**
 * Patients whose aging buckets will move on a later day without any new entry:
 * the date their oldest still-moving open charge crosses the next boundary
 * (31, 61 or 91 days). The `ledger.age-balances` job re-ages the due ones.
 */
export const ledgerAging = sqliteTable(
  "ledger_aging",
  {
    patient_id: text("patient_id")
      .primaryKey()
      .references(() => patients.id),
    next_change_on: text("next_change_on").notNull(),
  },
  (t) => [index("ledger_aging_next_idx").on(t.next_change_on)],
);
