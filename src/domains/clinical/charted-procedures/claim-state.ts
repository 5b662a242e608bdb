import { eq } from "drizzle-orm";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { run, type Work } from "@/platform/db/work";
import type { TxScope } from "@/platform/records/context";

// What insurance claims say on a charted procedure (spec.md: has_active_claim,
// code_sent): set by the claims domain inside its own write when a claim takes
// or lets go of a procedure. Derived facts, like a patient's balances: the
// procedure's version does not move and no event is sent for them (the claim's
// own events say it).

export type ProcedureClaimState = { procedure_id: string; has_active_claim: boolean; code_sent: string | null };

export function* setProcedureClaimState(s: TxScope, states: ProcedureClaimState[]): Work<void> {
  for (const st of states)
    yield* run(
      s.tx.update(chartedProcedures).set({ has_active_claim: st.has_active_claim, code_sent: st.code_sent }).where(eq(chartedProcedures.id, st.procedure_id)),
    );
}
