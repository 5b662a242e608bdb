import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { json } from "@db/columns";
import { patients } from "./patients";

// Potential duplicate patients (docs/patients/patients.md): computed when a patient's
// names, date of birth or phones are written, stored in both directions so a
// patient's candidates are one primary-key range read.

export const patientDuplicates = sqliteTable(
  "patient_duplicates",
  {
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    duplicate_id: text("duplicate_id")
      .notNull()
      .references(() => patients.id),
    reasons: json<string[]>("reasons").notNull(),
    score: integer("score").notNull(),
  },
  (t) => [primaryKey({ columns: [t.patient_id, t.duplicate_id] }), index("patient_duplicates_duplicate_idx").on(t.duplicate_id)],
);
