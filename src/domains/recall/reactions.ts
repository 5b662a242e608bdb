import { and, eq, isNull } from "drizzle-orm";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { all, type Work } from "@/platform/db/work";
import { queueJob } from "@/platform/queue/enqueue";
import type { TxScope } from "@/platform/records/context";
import { inTransaction, type Listener } from "@/platform/records/moments";
import { procedureCompleted, procedureDeleted, procedureFeeChanged, procedureScheduled } from "@/domains/clinical/charted-procedures/moments";
import {
  appointmentBooked,
  appointmentBroken,
  appointmentCancelled,
  appointmentMoved,
  type AppointmentMoment,
} from "@/domains/scheduling/appointments/moments";
import { isTriggerCode } from "./types/service";
import { recallsRecompute } from "./patient-recalls/recompute.job";

// Recalls follow completed and scheduled work (docs/recall/recall.md, "Kept
// current"). Each reaction reads, inside the announcing write, whether a code
// that resets a recall is involved, and only then queues the patient's
// recompute, sent after commit: an ordinary booking or filling queues nothing.

/** A procedure of a trigger code was completed, deleted, put on or taken off an appointment, or re-coded. */
function* procedureTouched(s: TxScope, p: { patient_id: string; procedure_code_id: string; previous_procedure_code_id?: string }): Work<void> {
  if (yield* isTriggerCode(s.tx, [p.procedure_code_id, p.previous_procedure_code_id])) queueJob(s, recallsRecompute, { patient_ids: [p.patient_id] });
}

/** An appointment holding a procedure of a trigger code was booked, moved, broken or cancelled. */
function* appointmentTouched(s: TxScope, p: AppointmentMoment): Work<void> {
  const held = yield* all<{ code: string }>(
    s.tx
      .select({ code: chartedProcedures.procedure_code_id })
      .from(chartedProcedures)
      .where(and(eq(chartedProcedures.appointment_id, p.appointment_id), isNull(chartedProcedures.deleted_at))),
  );
  if (
    held.length &&
    (yield* isTriggerCode(
      s.tx,
      held.map((h) => h.code),
    ))
  )
    queueJob(s, recallsRecompute, { patient_ids: [p.patient_id] });
}

/** What the recall domain does when something happens elsewhere (platform/records/moments.ts; listed in src/reactions.ts). */
export const recallReactions: readonly Listener[] = [
  inTransaction(procedureCompleted, "recall.recompute", procedureTouched),
  inTransaction(procedureDeleted, "recall.recompute", procedureTouched),
  inTransaction(procedureScheduled, "recall.recompute", procedureTouched),
  inTransaction(procedureFeeChanged, "recall.recompute", (s, p) =>
    p.previous_procedure_code_id !== p.procedure_code_id ? procedureTouched(s, p) : (function* () {})(),
  ),
  inTransaction(appointmentBooked, "recall.recompute", appointmentTouched),
  inTransaction(appointmentMoved, "recall.recompute", appointmentTouched),
  inTransaction(appointmentBroken, "recall.recompute", appointmentTouched),
  inTransaction(appointmentCancelled, "recall.recompute", appointmentTouched),
];
