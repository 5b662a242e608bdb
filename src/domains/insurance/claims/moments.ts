import { defineMoment } from "@/platform/records/moments";

// What happens to claim money that other domains react to
// (platform/records/moments.ts; who listens: docs/architecture.md, "Moments").
// Announced by posting.ts inside the write that posts or voids a claim payment:
// the patient account turns each line into ledger entries in that same write.

/** One claim procedure's money in a posting: the amounts and the ids its ledger entries take. */
export type InsuranceLedgerLine = {
  patient_id: string;
  claim_id: string;
  claim_number: string;
  carrier_name: string;
  procedure_id: string;
  procedure_code: string;
  provider_id: string | null;
  location_id: string | null;
  /** YYYY-MM-DD: the payment's date (a void: the day it is voided) */
  entry_date: string;
  /** The insurance payment, when not 0; a void's names the entry it reverses and is negative. */
  paid: { entry_id: string; cents: number; reverses_entry_id: string | null } | null;
  /** The write-off (cents as written off, positive), when not 0; a void's names the entry it reverses and is negative. */
  write_off: { entry_id: string; cents: number; reverses_entry_id: string | null } | null;
};

export type ClaimPaymentMoment = { claim_payment_id: string; lines: InsuranceLedgerLine[] };

export const claimPaymentPosted = defineMoment<ClaimPaymentMoment>(
  "claim_payment.posted",
  "A carrier's payment (an ERA's check or a paper EOB) was posted to claim procedures: what each paid and wrote off",
);

export const claimPaymentVoided = defineMoment<ClaimPaymentMoment>(
  "claim_payment.voided",
  "A posted claim payment was voided: each line reverses a posted payment or write-off",
);
