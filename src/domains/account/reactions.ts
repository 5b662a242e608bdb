import { inTransaction, type Listener } from "@/platform/records/moments";
import { procedureCompleted, procedureFeeChanged } from "@/domains/clinical/charted-procedures/moments";
import { claimPaymentPosted, claimPaymentVoided } from "@/domains/insurance/claims/moments";
import { chargeCompletedProcedure, correctProcedureFee } from "./charges/charges";
import { postInsuranceMoney } from "./insurance/postings";

/** What the account does when something happens elsewhere (platform/records/moments.ts; listed in src/reactions.ts). */
export const accountReactions: readonly Listener[] = [
  // the charge is atomic with the completion: a completed procedure is never uncharged
  inTransaction(procedureCompleted, "account.charge", chargeCompletedProcedure),
  inTransaction(procedureFeeChanged, "account.fee_correction", correctProcedureFee),
  // what a carrier paid and wrote off is on the patient's ledger in the posting's own write
  inTransaction(claimPaymentPosted, "account.insurance_posting", postInsuranceMoney),
  inTransaction(claimPaymentVoided, "account.insurance_posting", postInsuranceMoney),
];
