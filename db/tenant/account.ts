import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { id, json, versioned } from "@db/columns";
import { patients } from "./patients";
import { locations } from "./practice";

// The patient account (docs/account/account.md) beside the ledger
// (db/tenant/ledger.ts, whose entries hold every amount): payments, payment
// plans and statements. A payment's splits, a plan's installments and a
// statement's figures are ledger entries or read from them: never a second copy.

export const payments = sqliteTable(
  "payments",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    amount_cents: integer("amount_cents").notNull(),
    payment_type_id: text("payment_type_id").notNull(),
    payment_date: text("payment_date").notNull(),
    check_number: text("check_number"),
    note: text("note"),
    // the patient's location when paid: the deposit list filters on it
    location_id: text("location_id").references(() => locations.id),
    // active | voided
    status: text("status").notNull(),
    refunded_cents: integer("refunded_cents").notNull().default(0),
    voided_at: text("voided_at"),
    void_reason: text("void_reason"),
    ...versioned(),
  },
  (t) => [index("payments_date_idx").on(t.payment_date, t.id), index("payments_patient_idx").on(t.patient_id, t.payment_date)],
);

export const paymentPlans = sqliteTable(
  "payment_plans",
  {
    id: id(),
    guarantor_id: text("guarantor_id")
      .notNull()
      .references(() => patients.id),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    principal_cents: integer("principal_cents").notNull(),
    down_payment_cents: integer("down_payment_cents").notNull().default(0),
    // annual percentage rate in basis points (0 to 3000: 0 % to 30 %)
    apr_bps: integer("apr_bps").notNull().default(0),
    // weekly | every_two_weeks | monthly
    frequency: text("frequency").notNull(),
    installment_amount_cents: integer("installment_amount_cents").notNull(),
    installment_count: integer("installment_count").notNull(),
    start_date: text("start_date").notNull(),
    note: text("note"),
    // open | closed
    status: text("status").notNull(),
    closed_at: text("closed_at"),
    ...versioned(),
  },
  (t) => [index("payment_plans_guarantor_idx").on(t.guarantor_id), index("payment_plans_status_idx").on(t.status)],
);

export const statementBatches = sqliteTable("statement_batches", {
  id: id(),
  min_balance_cents: integer("min_balance_cents").notNull().default(0),
  billing_type_ids: json<string[]>("billing_type_ids"),
  skip_if_sent_within_days: integer("skip_if_sent_within_days").notNull(),
  // mail | email | in_person
  mode: text("mode").notNull(),
  // running | done
  status: text("status").notNull(),
  total: integer("total").notNull().default(0),
  done: integer("done").notNull().default(0),
  failed: integer("failed").notNull().default(0),
  ...versioned(),
});

export const statements = sqliteTable(
  "statements",
  {
    id: id(),
    guarantor_id: text("guarantor_id")
      .notNull()
      .references(() => patients.id),
    date_from: text("date_from").notNull(),
    date_to: text("date_to").notNull(),
    // mail | email | in_person
    mode: text("mode").notNull(),
    note: text("note"),
    // pending | ready | sent | failed
    status: text("status").notNull(),
    batch_id: text("batch_id").references(() => statementBatches.id),
    // the rendered PDF, a document owned by the guarantor
    document_id: text("document_id"),
    amount_due_cents: integer("amount_due_cents"),
    due_date: text("due_date"),
    sent_at: text("sent_at"),
    error: text("error"),
    ...versioned(),
  },
  (t) => [index("statements_guarantor_idx").on(t.guarantor_id, t.created_at), index("statements_batch_idx").on(t.batch_id).where(sql`batch_id IS NOT NULL`)],
);
