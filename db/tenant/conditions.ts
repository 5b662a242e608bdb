import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { id, softDelete, versioned } from "@db/columns";
import { patients } from "./patients";
import { providers } from "./practice";
import { definitions } from "./definitions";

// Findings charted on a patient (caries, fracture, watch, ...), per tooth and
// surface or for the whole mouth (docs/clinical/chart-history.md). The chart history
// reads them by date_identified / date_resolved.
export const patientConditions = sqliteTable(
  "patient_conditions",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    // the values of condition_type, tooth_number, surface, severity and status: ./dental-vocabulary.ts
    condition_type: text("condition_type").notNull(),
    // Universal numbering, canonical form: "1".."32" or "A".."T"; null: not tooth-specific
    tooth_number: text("tooth_number"),
    // surface letters in canonical order (M O D B L I F V), e.g. "MO"
    surface: text("surface"),
    severity: text("severity"),
    // CONDITION_STATUSES; date_resolved is set exactly when resolved
    status: text("status").notNull().default("active"),
    date_identified: text("date_identified").notNull(),
    date_resolved: text("date_resolved"),
    provider_id: text("provider_id").references(() => providers.id),
    // a definitions item of category diagnosis_codes
    diagnostic_code_id: text("diagnostic_code_id").references(() => definitions.id),
    note: text("note").notNull().default(""),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    index("patient_conditions_patient_date_idx").on(t.patient_id, t.date_identified),
    index("patient_conditions_patient_tooth_idx").on(t.patient_id, t.tooth_number),
  ],
);
