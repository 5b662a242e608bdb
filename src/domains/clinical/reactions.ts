import { inTransaction, type Listener } from "@/platform/records/moments";
import { procedureCompleted } from "./charted-procedures/moments";
import { autoNoteForCompletedProcedure } from "./notes/auto-notes";
import { appointmentBooked, appointmentBroken, appointmentCancelled, appointmentCompleted } from "@/domains/scheduling/appointments/moments";
import { attachBooked, completeWithAppointment, freeFromAppointment } from "./appointment-procedures/service";

/** What the clinical domain does when something happens (platform/records/moments.ts; listed in src/reactions.ts). */
export const clinicalReactions: readonly Listener[] = [
  // the practice's own completed work gets its auto-note in the completing write (docs/clinical/clinical-notes.md);
  // complete_referred is another office's work: no note
  inTransaction(procedureCompleted, "clinical.auto_note", function* (s, p) {
    if (p.status === "complete") yield* autoNoteForCompletedProcedure(s, p.procedure_id);
  }),
  // the procedures on appointments (docs/scheduling/appointments.md, "Procedures on appointments"):
  // a booking's procedure_uuids are put on it (a refusal refuses the booking)
  inTransaction(appointmentBooked, "clinical.schedule_procedures", attachBooked),
  // completing the appointment completes its procedures (which posts their charges: account.charge)
  inTransaction(appointmentCompleted, "clinical.complete_procedures", completeWithAppointment),
  // a broken or cancelled appointment holds nothing: its planned work is free to book again
  inTransaction(appointmentBroken, "clinical.free_procedures", freeFromAppointment),
  inTransaction(appointmentCancelled, "clinical.free_procedures", freeFromAppointment),
];
