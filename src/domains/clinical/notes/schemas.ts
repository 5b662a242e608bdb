import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateOnly, DateTime, QueryBool, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { PROCEDURE_CATEGORIES } from "@db/tenant/codes";

// Vocabularies (docs/clinical/clinical-notes.md explains each).
export const NOTE_TYPES = ["progress", "exam", "procedure", "consult", "phone", "other"] as const;
export const NOTE_STATUSES = ["draft", "signed"] as const;
export const TRIGGER_EVENTS = ["procedure_completed", "appointment_completed", "exam_completed"] as const;
export const MERGE_STRATEGIES = ["append", "prepend", "replace", "separate_note"] as const;
/** What a template may say: {{name}} is replaced by the triggering event's value ("" when it has none). */
export const PLACEHOLDERS = [
  "patient_name",
  "patient_first_name",
  "provider_name",
  "visit_date",
  "procedure_code",
  "procedure_description",
  "tooth",
  "surfaces",
] as const;

export type TriggerEvent = (typeof TRIGGER_EVENTS)[number];
export type MergeStrategy = (typeof MERGE_STRATEGIES)[number];
export type NoteType = (typeof NOTE_TYPES)[number];

const NoteType = z.enum(NOTE_TYPES);
const Trigger = z.enum(TRIGGER_EVENTS);
const Merge = z.enum(MERGE_STRATEGIES);
const Category = z.enum(PROCEDURE_CATEGORIES);
const NoteText = z.string().trim().min(1).max(50_000);

// ---- clinical notes ------------------------------------------------------------

const noteFields = {
  note_type: NoteType.describe("progress, exam, procedure, consult, phone or other"),
  content: NoteText.describe("The note text; never sent on the event stream"),
  appointment_uuid: Uuid.nullable().describe("An appointment of the same patient"),
  provider_uuid: Uuid.nullable().describe("The treating provider (not archived)"),
  procedure_uuids: z.array(Uuid).max(100).describe("Charted procedures of the same patient that this note documents"),
  case_id: z.string().trim().min(1).max(100).nullable().describe("Groups the notes of one clinical case (e.g. an ortho or implant case); opaque to the server"),
  visit_date: DateOnly.describe("Date of the visit; default the appointment's date, else today in the patient's practice's time zone"),
};
const NOTE_READ_ONLY = [
  "status",
  "signed_at",
  "signed_by",
  "author",
  "addendums",
  "content_edited",
  "auto_rule",
  "patient",
  "provider",
  "appointment",
  "procedures",
];

export const NoteCreate = z
  .strictObject({
    patient_uuid: Uuid,
    content: noteFields.content,
    note_type: noteFields.note_type.default("progress"),
    appointment_uuid: noteFields.appointment_uuid.optional(),
    provider_uuid: noteFields.provider_uuid.optional(),
    procedure_uuids: noteFields.procedure_uuids.default([]),
    case_id: noteFields.case_id.optional(),
    visit_date: noteFields.visit_date.optional(),
  })
  .meta({ readOnly: NOTE_READ_ONLY });
export type NoteCreate = z.infer<typeof NoteCreate>;

export const NotePatch = z
  .strictObject({ base_version: BaseVersion, ...z.object(noteFields).partial().shape })
  .meta({ readOnly: [...NOTE_READ_ONLY, "patient_uuid"] });
export type NotePatch = z.infer<typeof NotePatch>;

export const NoteSign = z.strictObject({ base_version: BaseVersion });
export const AddendumCreate = z
  .strictObject({ content: NoteText.describe("The addendum text; never sent on the event stream") })
  .meta({ readOnly: ["author", "note_uuid"] });
export const NoteDeleteQuery = z.strictObject({ base_version: BaseVersionQuery });

export const Addendum = z
  .object({
    id: z.string(),
    content: z.string(),
    author: Ref.nullable().describe("Who wrote it (name as it was then)"),
    created_at: DateTime,
  })
  .meta({ id: "ClinicalNoteAddendum" });

export const Note = z
  .object({
    ...RecordMeta,
    patient: Ref,
    provider: Ref.nullable(),
    appointment: Ref.nullable().describe("name: the appointment's local start, e.g. 2026-03-08T10:00:00"),
    procedures: z.array(Ref).describe("name: code, tooth and surfaces, e.g. D2391 #3 MO"),
    note_type: NoteType,
    content: z.string(),
    content_edited: z.boolean().describe("True once the content was changed after the note was created"),
    visit_date: DateOnly,
    case_id: z.string().nullable(),
    status: z.enum(NOTE_STATUSES).describe("draft (editable, deletable) or signed (locked: only addendums)"),
    signed_at: DateTime.nullable(),
    signed_by: Ref.nullable(),
    author: Ref.nullable().describe("Who created the note; an auto-note names the rule's job"),
    auto_rule: Ref.nullable().describe("The auto-note rule that created the note, if one did"),
    addendums: z.array(Addendum).describe("Oldest first"),
  })
  .meta({ id: "ClinicalNote" });
export type Note = z.infer<typeof Note>;

export const NoteListQuery = z
  .strictObject({
    ...pagingQuery(50, 200),
    patient_uuid: Uuid.optional(),
    provider_uuid: Uuid.optional(),
    appointment_uuid: Uuid.optional(),
    status: z.enum(NOTE_STATUSES).optional(),
    note_type: NoteType.optional(),
    case_id: z.string().trim().min(1).max(100).optional(),
    date_from: DateOnly.optional().describe("visit_date on or after"),
    date_to: DateOnly.optional().describe("visit_date on or before"),
  })
  .superRefine((q, ctx) => {
    if (q.date_from && q.date_to && q.date_from > q.date_to) ctx.addIssue({ code: "custom", path: ["date_to"], message: "Must not be before date_from" });
  });
export type NoteListQuery = z.infer<typeof NoteListQuery>;

// ---- templates -------------------------------------------------------------------

const templateFields = {
  name: z.string().trim().min(1).max(200),
  body: z
    .string()
    .trim()
    .min(1)
    .max(20_000)
    .describe(`Text with placeholders: ${PLACEHOLDERS.map((p) => `{{${p}}}`).join(", ")}`),
};
export const TemplateCreate = z.strictObject(templateFields);
export type TemplateCreate = z.infer<typeof TemplateCreate>;
export const TemplatePatch = z.strictObject({ base_version: BaseVersion, ...z.object(templateFields).partial().shape });
export type TemplatePatch = z.infer<typeof TemplatePatch>;
export const Template = z.object({ ...RecordMeta, ...templateFields, deleted_at: DateTime.nullable() }).meta({ id: "ClinicalNoteTemplate" });
export type Template = z.infer<typeof Template>;
export const TemplateListQuery = z.strictObject({ ...pagingQuery(50, 200) });

// ---- auto-note rules -------------------------------------------------------------

const ruleFields = {
  name: z.string().trim().min(1).max(200).describe("Unique among rules that are not archived (case-insensitive)"),
  description: z.string().trim().max(2000).nullable(),
  is_active: z.boolean(),
  priority: z.number().int().min(0).max(1000).describe("Higher wins when several rules match"),
  trigger_event: Trigger,
  merge_strategy: Merge.describe("append/prepend to the visit's draft note, replace its text, or always write a separate_note"),
  procedure_category: Category.nullable().describe("Only procedures of this category (procedure_completed rules only)"),
  procedure_code_pattern: z
    .string()
    .regex(/^[A-Za-z0-9.*?-]{1,20}$/, "1-20 letters, digits, dots, dashes, * or ?")
    .nullable()
    .describe("Only procedure codes matching this pattern: * any characters, ? one, e.g. D27* (procedure_completed rules only)"),
  location_uuid: Uuid.nullable().describe("Only events at this location"),
  provider_uuid: Uuid.nullable().describe("Only events of this provider"),
  template_uuid: Uuid.nullable().describe("The text to write; without one, a one-line default"),
};
export const RuleCreate = z
  .strictObject({
    name: ruleFields.name,
    trigger_event: ruleFields.trigger_event,
    merge_strategy: ruleFields.merge_strategy.default("separate_note"),
    description: ruleFields.description.optional(),
    is_active: ruleFields.is_active.default(true),
    priority: ruleFields.priority.default(0),
    procedure_category: ruleFields.procedure_category.optional(),
    procedure_code_pattern: ruleFields.procedure_code_pattern.optional(),
    location_uuid: ruleFields.location_uuid.optional(),
    provider_uuid: ruleFields.provider_uuid.optional(),
    template_uuid: ruleFields.template_uuid.optional(),
  })
  .meta({ readOnly: ["location", "provider", "template"] });
export type RuleCreate = z.infer<typeof RuleCreate>;
export const RulePatch = z
  .strictObject({ base_version: BaseVersion, ...z.object(ruleFields).partial().shape })
  .meta({ readOnly: ["location", "provider", "template"] });
export type RulePatch = z.infer<typeof RulePatch>;

export const Rule = z
  .object({
    ...RecordMeta,
    name: z.string(),
    description: z.string().nullable(),
    is_active: z.boolean(),
    priority: z.number().int(),
    trigger_event: Trigger,
    merge_strategy: Merge,
    procedure_category: Category.nullable(),
    procedure_code_pattern: z.string().nullable(),
    location: Ref.nullable(),
    provider: Ref.nullable(),
    template: Ref.nullable(),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "AutoNoteRule" });
export type Rule = z.infer<typeof Rule>;

export const RuleListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  trigger_event: Trigger.optional(),
  is_active: QueryBool.optional(),
});
export type RuleListQuery = z.infer<typeof RuleListQuery>;
