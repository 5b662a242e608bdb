import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { id, versioned } from "@db/columns";
import { patients } from "./patients";

// The patient ledger (docs/patients/ledger.md): append-only charges, payments and
// adjustments; the patients.balance_*_cents columns are derived from it.

export const ledgerEntries = sqliteTable(
  "ledger_entries",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    // charge | payment | adjustment
    entry_type: text("entry_type").notNull(),
    // charges and payments are positive; adjustments are signed (negative = credit)
    amount_cents: integer("amount_cents").notNull(),
    entry_date: text("entry_date").notNull(),
    description: text("description"),
    ...versioned(),
  },
  (t) => [index("ledger_entries_patient_date_idx").on(t.patient_id, t.entry_date, t.id)],
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
