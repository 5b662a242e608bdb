import { and, asc, desc, eq, isNull } from "drizzle-orm";
import { procedureCodes } from "@db/tenant/codes";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { autoNoteRules, clinicalNotes } from "@db/tenant/clinical-notes";
import { all, get, type Work } from "@/platform/db/work";
import type { TxScope } from "@/platform/records/context";
import { PROVIDER_NAMES } from "@/platform/records/names";
import { inPractice, patientForRead } from "@/domains/patients/record/scope";
import { namesOf, personName } from "@/platform/records/refs";
import { insertNote, noteRecords, type NoteRow } from "./notes";
import { PLACEHOLDER_RE, templateRecords, type RuleRow } from "./rules";
import type { NoteType, TriggerEvent } from "./schemas";

/** What happened: the facts a rule matches on and a template prints. */
export type AutoNoteEvent = {
  trigger_event: TriggerEvent;
  patient_id: string;
  /** YYYY-MM-DD: the visit the note belongs to */
  visit_date: string;
  provider_id?: string | null;
  location_id?: string | null;
  appointment_id?: string | null;
  procedure?: Pick<typeof chartedProcedures.$inferSelect, "id" | "procedure_code_id" | "procedure_code" | "tooth_number" | "surfaces">;
};

const NOTE_TYPE: Record<TriggerEvent, NoteType> = { procedure_completed: "procedure", appointment_completed: "progress", exam_completed: "exam" };
const DEFAULT_TEXT: Record<TriggerEvent, string> = {
  procedure_completed: "{{procedure_code}} {{procedure_description}} {{tooth}} {{surfaces}} completed.",
  appointment_completed: "Appointment completed on {{visit_date}}.",
  exam_completed: "Exam completed on {{visit_date}}.",
};

/** `D27*` -> /^D27.*$/i: * any run of characters, ? exactly one. */
export const codeMatches = (pattern: string, code: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\-]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
    "i",
  ).test(code);

const ruleFits = (r: RuleRow, e: AutoNoteEvent, category: string | null) =>
  (!r.location_id || r.location_id === e.location_id) &&
  (!r.provider_id || r.provider_id === e.provider_id) &&
  (!r.procedure_category || r.procedure_category === category) &&
  (!r.procedure_code_pattern || (!!e.procedure && codeMatches(r.procedure_code_pattern, e.procedure.procedure_code)));

/**
 * Inside the transaction that completes a procedure, appointment or exam: the
 * first active rule for the event (priority descending, then name) writes or
 * merges its text into the visit's draft note. Returns the note, or null when
 * no rule matches. Signed notes are never touched.
 */
export function* applyAutoNoteRules(s: TxScope, e: AutoNoteEvent): Work<NoteRow | null> {
  const rules = yield* all(
    s.tx
      .select()
      .from(autoNoteRules)
      .where(and(eq(autoNoteRules.trigger_event, e.trigger_event), eq(autoNoteRules.is_active, true), isNull(autoNoteRules.deleted_at)))
      .orderBy(desc(autoNoteRules.priority), asc(autoNoteRules.name), asc(autoNoteRules.id)),
  );
  if (!rules.length) return null;
  const code = e.procedure
    ? yield* get(
        s.tx
          .select({ category: procedureCodes.category, description: procedureCodes.description })
          .from(procedureCodes)
          .where(eq(procedureCodes.id, e.procedure.procedure_code_id)),
      )
    : undefined;
  const rule = rules.find((r) => ruleFits(r, e, code?.category ?? null));
  if (!rule) return null;

  const patient = yield* patientForRead(s.tx, e.patient_id);
  const template = rule.template_id ? yield* templateRecords.find(s.tx, rule.template_id) : undefined;
  const provider = (yield* namesOf(s.tx, PROVIDER_NAMES, [e.provider_id])).get(e.provider_id ?? "") ?? "";
  const values: Record<string, string> = {
    patient_name: personName(patient),
    patient_first_name: patient.first_name,
    provider_name: provider,
    visit_date: e.visit_date,
    procedure_code: e.procedure?.procedure_code ?? "",
    procedure_description: code?.description ?? "",
    tooth: e.procedure?.tooth_number ? `#${e.procedure.tooth_number}` : "",
    surfaces: e.procedure?.surfaces ?? "",
  };
  const text = (template?.body ?? DEFAULT_TEXT[e.trigger_event])
    .replace(PLACEHOLDER_RE, (_m, k: string) => values[k] ?? "")
    .replace(/[ \t]{2,}/g, " ")
    .replace(/ +([.,;:])/g, "$1")
    .trim();
  const procedureIds = e.procedure ? [e.procedure.id] : [];

  const target =
    rule.merge_strategy === "separate_note"
      ? undefined
      : yield* get(
          s.tx
            .select()
            .from(clinicalNotes)
            .where(
              and(
                eq(clinicalNotes.patient_id, patient.id),
                eq(clinicalNotes.visit_date, e.visit_date),
                eq(clinicalNotes.status, "draft"),
                isNull(clinicalNotes.deleted_at),
                e.appointment_id ? eq(clinicalNotes.appointment_id, e.appointment_id) : undefined,
              ),
            )
            .orderBy(desc(clinicalNotes.created_at), desc(clinicalNotes.id))
            .limit(1),
        );

  if (!target) {
    return yield* insertNote(s, patient, {
      note_type: NOTE_TYPE[e.trigger_event],
      content: text,
      case_id: null,
      visit_date: e.visit_date,
      provider_id: e.provider_id ?? null,
      appointment_id: e.appointment_id ?? null,
      procedure_ids: procedureIds,
      auto_rule_id: rule.id,
    });
  }
  // replace never discards what a person wrote: an edited note gets the text appended instead
  const content =
    rule.merge_strategy === "prepend"
      ? `${text}\n\n${target.content}`
      : rule.merge_strategy === "replace" && !target.content_edited
        ? text
        : `${target.content}\n\n${text}`;
  return yield* inPractice(
    s,
    patient.location_id,
    noteRecords.update(s, target.id, target.version, {
      content,
      procedure_ids: [...new Set([...target.procedure_ids, ...procedureIds])],
    }),
  );
}

/**
 * The auto-note of a procedure the practice has just completed (visit date =
 * its date of service), in the completing write (the clinical domain's reaction
 * to procedure.completed, clinical/reactions.ts).
 */
export function* autoNoteForCompletedProcedure(s: TxScope, procedureId: string): Work<NoteRow | null> {
  const p = yield* get(s.tx.select().from(chartedProcedures).where(eq(chartedProcedures.id, procedureId)));
  if (!p) return null;
  return yield* applyAutoNoteRules(s, {
    trigger_event: "procedure_completed",
    patient_id: p.patient_id,
    visit_date: p.date_service,
    provider_id: p.provider_id,
    location_id: p.location_id,
    appointment_id: p.appointment_id,
    procedure: p,
  });
}
