import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, id, json, softDelete, versioned } from "@db/columns";
import { locations, providers } from "./practice";
import { patients } from "./patients";

// Clinical notes (docs/clinical/clinical-notes.md): the legal record of a visit. A note
// is a draft until signed; a signed note's row never changes again except for
// version/updated_at when an addendum is appended.

/** Note text with {{placeholders}}, rendered by auto-note rules. */
export const clinicalNoteTemplates = sqliteTable(
  "clinical_note_templates",
  {
    id: id(),
    name: text("name").notNull(),
    body: text("body").notNull(),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("clinical_note_templates_name_idx").on(t.name)],
);

export const autoNoteRules = sqliteTable(
  "auto_note_rules",
  {
    id: id(),
    name: text("name").notNull(),
    description: text("description"),
    is_active: bool("is_active").notNull().default(true),
    priority: integer("priority").notNull().default(0),
    // procedure_completed | appointment_completed | exam_completed
    trigger_event: text("trigger_event").notNull(),
    // append | prepend | replace | separate_note
    merge_strategy: text("merge_strategy").notNull(),
    procedure_category: text("procedure_category"),
    // stored upper-case; * any run of characters, ? one character
    procedure_code_pattern: text("procedure_code_pattern"),
    location_id: text("location_id").references(() => locations.id),
    provider_id: text("provider_id").references(() => providers.id),
    template_id: text("template_id").references(() => clinicalNoteTemplates.id),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("auto_note_rules_trigger_idx").on(t.trigger_event, t.is_active, t.priority)],
);

export const clinicalNotes = sqliteTable(
  "clinical_notes",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    provider_id: text("provider_id").references(() => providers.id),
    // appointments / charted procedures live in other files: plain ids, checked by the service
    appointment_id: text("appointment_id"),
    procedure_ids: json<string[]>("procedure_ids").notNull(),
    // progress | exam | procedure | consult | phone | other
    note_type: text("note_type").notNull(),
    content: text("content").notNull(),
    content_edited: bool("content_edited").notNull().default(false),
    visit_date: text("visit_date").notNull(),
    case_id: text("case_id"),
    // draft | signed
    status: text("status").notNull().default("draft"),
    signed_at: text("signed_at"),
    signed_by_id: text("signed_by_id"),
    signed_by_name: text("signed_by_name"),
    // who created it (the acting user, or the rule's job); name as it was then
    author_id: text("author_id"),
    author_name: text("author_name"),
    auto_rule_id: text("auto_rule_id").references(() => autoNoteRules.id),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    index("clinical_notes_patient_date_idx").on(t.patient_id, t.visit_date),
    index("clinical_notes_provider_date_idx").on(t.provider_id, t.visit_date),
    index("clinical_notes_appointment_idx").on(t.appointment_id),
  ],
);

// Append-only: inserted, never updated or deleted.
export const clinicalNoteAddendums = sqliteTable(
  "clinical_note_addendums",
  {
    id: id(),
    note_id: text("note_id")
      .notNull()
      .references(() => clinicalNotes.id),
    content: text("content").notNull(),
    author_id: text("author_id").notNull(),
    author_name: text("author_name"),
    created_at: text("created_at").notNull(),
  },
  (t) => [index("clinical_note_addendums_note_idx").on(t.note_id, t.created_at)],
);
