import { and, eq, sql } from "drizzle-orm";
import { ledgerEntries } from "@db/tenant/ledger";
import { get, type Work } from "@/platform/db/work";
import type { TxScope } from "@/platform/records/context";
import { patientForRead } from "@/domains/patients/record/scope";
import { todayAt } from "@/domains/providers/locations/service";
import type { ProcedureMoment } from "@/domains/clinical/charted-procedures/moments";
import { postEntries } from "@/domains/account/ledger/service";

// Charges from completed work (docs/account/account.md, "Charges"): the account's
// reactions to clinical's procedure moments, inside the completing write.
// Completing a procedure posts one charge at its effective fee; a change of a
// completed procedure's fee posts the correcting adjustment. History is never
// edited. Only the practice's own work is charged: complete_referred is
// another office's.

/** What the ledger holds for a procedure so far: whether it was charged, and the charge with its corrections. */
function* postedFor(s: TxScope, procedureId: string): Work<{ charged: boolean; cents: number }> {
  const row = yield* get<{ charges: number; cents: number | null }>(
    s.tx
      .select({
        charges: sql<number>`sum(${ledgerEntries.entry_type} = 'charge')`,
        cents: sql<number | null>`sum(${ledgerEntries.amount_cents})`,
      })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.procedure_id, procedureId), eq(ledgerEntries.source, "procedure"))),
  );
  return { charged: !!row?.charges, cents: row?.cents ?? 0 };
}

/** procedure.completed: the procedure's charge, once (completing it again posts nothing: the unique index agrees). */
export function* chargeCompletedProcedure(s: TxScope, p: ProcedureMoment): Work<void> {
  if (p.status !== "complete") return;
  if ((yield* postedFor(s, p.procedure_id)).charged) return;
  const patient = yield* patientForRead(s.tx, p.patient_id);
  yield* postEntries(s, patient, [
    {
      entry_type: "charge",
      amount_cents: p.fee_cents,
      entry_date: p.date_service,
      description: p.procedure_code,
      source: "procedure",
      provider_id: p.provider_id,
      location_id: p.location_id,
      procedure_id: p.procedure_id,
    },
  ]);
}

/**
 * procedure.fee_changed: a completed procedure that was charged now bills
 * another amount: the difference is posted as an adjustment dated today at its
 * location. A procedure completed before the account existed has no charge to
 * correct: nothing is posted.
 */
export function* correctProcedureFee(s: TxScope, p: ProcedureMoment): Work<void> {
  if (p.status !== "complete") return;
  const posted = yield* postedFor(s, p.procedure_id);
  const delta = p.fee_cents - posted.cents;
  if (!posted.charged || delta === 0) return;
  const patient = yield* patientForRead(s.tx, p.patient_id);
  yield* postEntries(s, patient, [
    {
      entry_type: "adjustment",
      amount_cents: delta,
      entry_date: yield* todayAt(s.tx, p.location_id ?? patient.location_id),
      description: `Fee of ${p.procedure_code} changed`,
      source: "procedure",
      provider_id: p.provider_id,
      location_id: p.location_id,
      procedure_id: p.procedure_id,
    },
  ]);
}
