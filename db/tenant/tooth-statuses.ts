import { sql } from "drizzle-orm";
import { index, integer, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { id, softDelete, versioned } from "@db/columns";
import { patients } from "./patients";

// What each tooth is (docs/clinical/tooth-chart.md). Records are never edited: a change
// inserts a new record for the tooth and stamps `superseded_at` on the one it
// replaces, so the rows of a tooth are its history. The current record of a
// tooth is the one with superseded_at and deleted_at both null (at most one).
// `version` counts the tooth's chart changes: a new record carries the
// previous highest version of that tooth + 1 (expected_version compares it).
export const toothStatuses = sqliteTable(
  "tooth_statuses",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    // Universal: 1-32, A-T; supernumerary 51-82 and AS-TS (./dental-vocabulary.ts)
    tooth_number: text("tooth_number").notNull(),
    // TOOTH_STATUSES (./dental-vocabulary.ts)
    status: text("status").notNull(),
    effective_date: text("effective_date").notNull(),
    note: text("note").notNull().default(""),
    // manual | imported | clinical_chart | age_seeded (system only)
    source: text("source").notNull(),
    // charted_procedures.id (db/tenant/charted-procedures.ts); no FK: that file is another domain's
    charted_procedure_id: text("charted_procedure_id"),
    ectopic_slot_index: integer("ectopic_slot_index"),
    eruption_pct: integer("eruption_pct"),
    eruption_stage: text("eruption_stage"),
    impaction_angle: text("impaction_angle"),
    impaction_depth: text("impaction_depth"),
    root_completion: integer("root_completion"),
    scale_factor: real("scale_factor").notNull().default(1),
    transposition_with: text("transposition_with"),
    rotate: real("rotate").notNull().default(0),
    shift_b: real("shift_b").notNull().default(0),
    shift_m: real("shift_m").notNull().default(0),
    shift_o: real("shift_o").notNull().default(0),
    tip_b: real("tip_b").notNull().default(0),
    tip_m: real("tip_m").notNull().default(0),
    superseded_at: text("superseded_at"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    index("tooth_statuses_patient_tooth_idx").on(t.patient_id, t.tooth_number, t.created_at),
    // at most one current record per tooth, whatever the code does
    uniqueIndex("tooth_statuses_current_uq").on(t.patient_id, t.tooth_number).where(sql`superseded_at IS NULL AND deleted_at IS NULL`),
    index("tooth_statuses_charted_procedure_idx").on(t.charted_procedure_id),
  ],
);
