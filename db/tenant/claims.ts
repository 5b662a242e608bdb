import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { id, json, timestamps, versioned } from "@db/columns";
import { patients } from "./patients";
import { chartedProcedures } from "./charted-procedures";
import { insuranceCarriers, insurancePlans, insuranceSubscriptions, patientPlans } from "./insurance";

// Insurance claims (docs/insurance/claims.md): a claim bills a carrier for a
// patient plan's procedures; batches send them as 837D files; ERAs (835
// files) and paper EOBs come back as claim payments whose splits say, per
// claim procedure, what was paid, allowed and written off. Splits are
// append-only (a void adds reversing splits); a claim procedure's figures are
// their sums, and the patient's ledger holds the same money as entries.

export const claims = sqliteTable(
  "claims",
  {
    id: id(),
    // per org, from 1: the claim number is "C" and it, zero-padded (also the 837 CLM01)
    claim_seq: integer("claim_seq").notNull(),
    claim_number: text("claim_number").notNull(),
    // primary | secondary | preauth | other
    claim_type: text("claim_type").notNull(),
    // unsent | hold | queued | sent | received | rejected | void
    status: text("status").notNull(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    patient_plan_id: text("patient_plan_id")
      .notNull()
      .references(() => patientPlans.id),
    subscription_id: text("subscription_id")
      .notNull()
      .references(() => insuranceSubscriptions.id),
    plan_id: text("plan_id")
      .notNull()
      .references(() => insurancePlans.id),
    carrier_id: text("carrier_id")
      .notNull()
      .references(() => insuranceCarriers.id),
    // the patient plan's ordinal when billed: 1 primary, 2 secondary, ...
    ordinal: integer("ordinal").notNull(),
    treating_provider_id: text("treating_provider_id"),
    billing_provider_id: text("billing_provider_id"),
    location_id: text("location_id"),
    place_of_service: text("place_of_service").notNull(),
    prior_authorization_number: text("prior_authorization_number"),
    note: text("note"),
    attachment_document_ids: json<string[]>("attachment_document_ids").notNull(),
    date_service: text("date_service").notNull(),
    date_sent: text("date_sent"),
    date_received: text("date_received"),
    // a secondary claim: the primary claim of the same procedures (its paid amounts are the COB)
    primary_claim_id: text("primary_claim_id"),
    // received, and the patient has another plan to bill next
    secondary_ready: integer("secondary_ready", { mode: "boolean" }).notNull().default(false),
    // the last batch that took it, and why the clearinghouse or the batch refused it
    batch_id: text("batch_id"),
    status_note: text("status_note"),
    ...versioned(),
  },
  (t) => [
    uniqueIndex("claims_number_uq").on(t.claim_number),
    uniqueIndex("claims_seq_uq").on(t.claim_seq),
    index("claims_status_idx").on(t.status, t.date_sent),
    index("claims_patient_idx").on(t.patient_id, t.date_service),
    index("claims_service_idx").on(t.date_service, t.id),
  ],
);

export const claimProcedures = sqliteTable(
  "claim_procedures",
  {
    id: id(),
    claim_id: text("claim_id")
      .notNull()
      .references(() => claims.id),
    procedure_id: text("procedure_id")
      .notNull()
      .references(() => chartedProcedures.id),
    patient_plan_id: text("patient_plan_id").notNull(),
    // claim | preauth: a procedure may be preauthorized and later claimed on the same plan
    kind: text("kind").notNull(),
    // 1 while the claim is not void: at most one live claim of a kind per procedure and plan
    live: integer("live", { mode: "boolean" }).notNull().default(true),
    item_order: integer("item_order").notNull(),
    procedure_code: text("procedure_code").notNull(),
    procedure_code_id: text("procedure_code_id").notNull(),
    tooth_number: text("tooth_number"),
    surfaces: text("surfaces"),
    date_service: text("date_service").notNull(),
    fee_billed_cents: integer("fee_billed_cents").notNull(),
    // the procedure's estimate for this plan when claimed (a preauth's answer replaces it on receipt)
    insurance_estimate_cents: integer("insurance_estimate_cents").notNull(),
    deductible_estimate_cents: integer("deductible_estimate_cents").notNull().default(0),
    write_off_estimate_cents: integer("write_off_estimate_cents").notNull().default(0),
    // a secondary claim: what the primary paid and wrote off on this procedure (the patient does not owe it)
    prior_paid_cents: integer("prior_paid_cents").notNull().default(0),
    // a pre-authorization's answer: what the carrier says it will pay
    preauth_estimate_cents: integer("preauth_estimate_cents"),
    // estimate | received | denied (paid 0 with reason codes) | void
    status: text("status").notNull(),
    // what the standing splits add up to (derived: rewritten from them by every posting and void)
    answered: integer("answered", { mode: "boolean" }).notNull().default(false),
    paid_cents: integer("paid_cents").notNull().default(0),
    write_off_cents: integer("write_off_cents").notNull().default(0),
    deductible_cents: integer("deductible_cents").notNull().default(0),
    allowed_cents: integer("allowed_cents"),
    remark_codes: json<string[]>("remark_codes").notNull().default([]),
    ...timestamps(),
  },
  (t) => [
    index("claim_procedures_claim_idx").on(t.claim_id, t.item_order),
    uniqueIndex("claim_procedures_live_uq").on(t.procedure_id, t.patient_plan_id, t.kind).where(sql`live = 1`),
    index("claim_procedures_procedure_idx").on(t.procedure_id),
  ],
);

export const claimBatches = sqliteTable(
  "claim_batches",
  {
    id: id(),
    // per org, from 1: ISA13 / GS06 / ST02 of the file
    control_number: integer("control_number").notNull(),
    // building | ready | failed
    status: text("status").notNull(),
    claim_ids: json<string[]>("claim_ids").notNull(),
    // written: the claims in the file; errors: the claims left out and why
    written_claim_ids: json<string[]>("written_claim_ids").notNull(),
    errors: json<{ claim_id: string; claim_number: string; problems: string[] }[]>("errors").notNull(),
    storage_key: text("storage_key"),
    file_size: integer("file_size"),
    error: text("error"),
    ...versioned(),
  },
  (t) => [uniqueIndex("claim_batches_control_uq").on(t.control_number)],
);

export const claimPayments = sqliteTable(
  "claim_payments",
  {
    id: id(),
    carrier_id: text("carrier_id")
      .notNull()
      .references(() => insuranceCarriers.id),
    payment_date: text("payment_date").notNull(),
    amount_cents: integer("amount_cents").notNull(),
    check_number: text("check_number"),
    // check | eft | virtual_card | other
    payment_type: text("payment_type").notNull(),
    // the ERA it was posted from (null: entered from a paper EOB)
    era_id: text("era_id"),
    note: text("note"),
    // active | voided
    status: text("status").notNull(),
    voided_at: text("voided_at"),
    void_reason: text("void_reason"),
    ...versioned(),
  },
  (t) => [index("claim_payments_date_idx").on(t.payment_date, t.id), uniqueIndex("claim_payments_era_uq").on(t.era_id).where(sql`era_id IS NOT NULL`)],
);

export const claimPaymentSplits = sqliteTable(
  "claim_payment_splits",
  {
    id: id(),
    claim_payment_id: text("claim_payment_id")
      .notNull()
      .references(() => claimPayments.id),
    claim_id: text("claim_id")
      .notNull()
      .references(() => claims.id),
    claim_procedure_id: text("claim_procedure_id")
      .notNull()
      .references(() => claimProcedures.id),
    procedure_id: text("procedure_id").notNull(),
    patient_id: text("patient_id").notNull(),
    paid_cents: integer("paid_cents").notNull(),
    allowed_cents: integer("allowed_cents"),
    write_off_cents: integer("write_off_cents").notNull(),
    deductible_cents: integer("deductible_cents").notNull(),
    patient_responsibility_cents: integer("patient_responsibility_cents").notNull(),
    remark_codes: json<string[]>("remark_codes").notNull(),
    // the patient ledger entries of the paid amount and the write-off (null when 0): what a void reverses
    payment_entry_id: text("payment_entry_id"),
    write_off_entry_id: text("write_off_entry_id"),
    // a void's split names the split it reverses (its amounts negated)
    reverses_id: text("reverses_id"),
    created_at: text("created_at").notNull(),
  },
  (t) => [
    index("claim_payment_splits_payment_idx").on(t.claim_payment_id),
    index("claim_payment_splits_procedure_idx").on(t.claim_procedure_id),
    // posting one payment's split of a claim procedure twice adds nothing (a retried ERA posting)
    uniqueIndex("claim_payment_splits_once_uq").on(t.claim_payment_id, t.claim_procedure_id).where(sql`reverses_id IS NULL`),
  ],
);

export const eras = sqliteTable(
  "eras",
  {
    id: id(),
    // received | processing | posted | needs_review | failed
    status: text("status").notNull(),
    storage_key: text("storage_key").notNull(),
    file_size: integer("file_size").notNull(),
    file_name: text("file_name"),
    // read at upload from TRN and N1*PR (what makes a duplicate), then from the parse
    trace_number: text("trace_number"),
    payer_key: text("payer_key"),
    payer_name: text("payer_name"),
    carrier_id: text("carrier_id"),
    payment_date: text("payment_date"),
    payment_type: text("payment_type"),
    total_paid_cents: integer("total_paid_cents"),
    provider_adjustments: json<{ reason: string; reference: string | null; amount_cents: number }[]>("provider_adjustments"),
    problems: json<string[]>("problems").notNull(),
    claim_payment_id: text("claim_payment_id"),
    error: text("error"),
    posted_at: text("posted_at"),
    ...versioned(),
  },
  (t) => [
    index("eras_created_idx").on(t.created_at, t.id),
    // the same payer's same check or EFT trace, once (a failed import does not count)
    uniqueIndex("eras_trace_uq").on(t.payer_key, t.trace_number).where(sql`status <> 'failed' AND trace_number IS NOT NULL`),
  ],
);

export const eraClaims = sqliteTable(
  "era_claims",
  {
    id: id(),
    era_id: text("era_id")
      .notNull()
      .references(() => eras.id),
    clp_index: integer("clp_index").notNull(),
    claim_number: text("claim_number").notNull(),
    // the claim it is matched to, and how: claim_number | patient_date_amount | manual
    claim_id: text("claim_id"),
    match_method: text("match_method"),
    // unmatched | matched | posted | denied | needs_review
    status: text("status").notNull(),
    status_code: text("status_code").notNull(),
    billed_cents: integer("billed_cents").notNull(),
    paid_cents: integer("paid_cents").notNull(),
    patient_responsibility_cents: integer("patient_responsibility_cents").notNull(),
    patient_name: text("patient_name"),
    date_service: text("date_service"),
    problems: json<string[]>("problems").notNull(),
    // the CLP as parsed (EraClaim835): what posting reads
    clp: json<unknown>("clp").notNull(),
    posted_at: text("posted_at"),
    ...timestamps(),
  },
  (t) => [uniqueIndex("era_claims_clp_uq").on(t.era_id, t.clp_index), index("era_claims_claim_idx").on(t.claim_id)],
);
