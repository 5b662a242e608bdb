import { afterCommit, inTransaction, type Listener } from "@/platform/records/moments";
import { procedureCompleted, procedureDeleted, procedureFeeChanged } from "@/domains/clinical/charted-procedures/moments";
import { allowedFeesChanged } from "@/domains/codes/fee-schedules/moments";
import { estimatesRecompute } from "./estimates/recompute.job";
import { documentSigned } from "@/domains/documents/moments";
import { refuseDeleteOnClaim, refuseFeeChangeOnClaim } from "./claims/locks";
import { acceptPresentedPlan } from "./presentations/service";

/** What the insurance domain does when something happens elsewhere (platform/records/moments.ts; listed in src/reactions.ts). */
export const insuranceReactions: readonly Listener[] = [
  // A procedure completed from the chart: its estimate now counts as benefits used, and the
  // procedure as history for frequency limits, so the patient's other estimates are stale
  // (docs/insurance/insurance-estimates.md, "The job"). One charted complete has no estimate,
  // and its frequency history is left to the estimates' staleness check, as before.
  afterCommit(procedureCompleted, "insurance.estimates_recompute", (p, queue) => {
    if (p.from_status !== null) queue(estimatesRecompute, { patient_ids: [p.patient_id] });
  }),
  // what the procedure is billed at changed: its estimate and the patient's others
  afterCommit(procedureFeeChanged, "insurance.estimates_recompute", (p, queue) => queue(estimatesRecompute, { patient_ids: [p.patient_id] })),
  // a ppo or allowed schedule's fees are allowed amounts of the plans and books naming it: which
  // those are is worked out on the way, as for an estimate book's change
  // a procedure on a live claim keeps the fee the carrier was billed, and stays (docs/insurance/claims.md)
  inTransaction(procedureFeeChanged, "insurance.claim_lock", refuseFeeChangeOnClaim),
  inTransaction(procedureDeleted, "insurance.claim_lock", refuseDeleteOnClaim),
  afterCommit(allowedFeesChanged, "insurance.estimates_recompute", (_p, queue) => queue(estimatesRecompute, { all: true })),
  // a presented treatment plan's PDF signed: the plan is accepted (docs/clinical/chart-pictures.md, "Presentations")
  inTransaction(documentSigned, "insurance.presentation_signed", (s, p) => acceptPresentedPlan(s, p.document_id)),
];
