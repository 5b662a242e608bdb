import { and, eq } from "drizzle-orm";
import { claimProcedures, claims } from "@db/tenant/claims";
import { get, type Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import type { TxScope } from "@/platform/records/context";
import type { ProcedureMoment } from "@/domains/clinical/charted-procedures/moments";

// What a live claim holds still (docs/insurance/claims.md, "Side effects"): a
// procedure on a claim or pre-authorization that is not void keeps its fee
// and cannot be deleted, since the carrier was (or will be) billed that
// amount. Clinical announces the change; this refuses it inside the same
// write, naming the claim (void the claim first).

function* liveClaimOf(s: TxScope, procedureId: string) {
  return yield* get<{ claim_number: string; status: string }>(
    s.tx
      .select({ claim_number: claims.claim_number, status: claims.status })
      .from(claimProcedures)
      .innerJoin(claims, eq(claims.id, claimProcedures.claim_id))
      .where(and(eq(claimProcedures.procedure_id, procedureId), eq(claimProcedures.live, true))),
  );
}

export function* refuseFeeChangeOnClaim(s: TxScope, p: ProcedureMoment): Work<void> {
  const claim = yield* liveClaimOf(s, p.procedure_id);
  if (claim)
    throw invalid(
      ["body", "fee_override"],
      `The procedure is on claim ${claim.claim_number} (${claim.status}): its fee cannot change until the claim is void`,
      "value_error",
      "procedure_on_claim",
    );
}

export function* refuseDeleteOnClaim(s: TxScope, p: ProcedureMoment): Work<void> {
  const claim = yield* liveClaimOf(s, p.procedure_id);
  if (claim)
    throw invalid(
      ["path", "procedure_uuid"],
      `The procedure is on claim ${claim.claim_number} (${claim.status}): it cannot be deleted until the claim is void`,
      "value_error",
      "procedure_on_claim",
    );
}
