import { inTransaction, type Listener } from "@/platform/records/moments";
import { procedureCompleted } from "./charted-procedures/moments";
import { autoNoteForCompletedProcedure } from "./notes/auto-notes";

/** What the clinical domain does when something happens (platform/records/moments.ts; listed in src/reactions.ts). */
export const clinicalReactions: readonly Listener[] = [
  // the practice's own completed work gets its auto-note in the completing write (docs/clinical/clinical-notes.md);
  // complete_referred is another office's work: no note
  inTransaction(procedureCompleted, "clinical.auto_note", function* (s, p) {
    if (p.status === "complete") yield* autoNoteForCompletedProcedure(s, p.procedure_id);
  }),
];
