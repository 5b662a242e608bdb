import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, id, softDelete, versioned } from "@db/columns";
import { patients } from "./patients";

// A patient's medical history: alerts, allergies, diseases/problems and
// medications (src/domains/patients/medical-history, docs/patients/medical-history.md). Every row
// belongs to one patient; lists always filter on patient_id first.

export const patientAlerts = sqliteTable(
  "patient_alerts",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    title: text("title").notNull(),
    description: text("description"),
    category: text("category").notNull().default("medical"),
    severity: text("severity").notNull().default("medium"),
    // patient: this patient only; family: also shown on the charts of the guarantor's family
    scope: text("scope").notNull().default("patient"),
    // active | disabled | archived; archived exactly when deleted_at is set
    status: text("status").notNull().default("active"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("patient_alerts_patient_idx").on(t.patient_id, t.status)],
);

export const patientAllergies = sqliteTable(
  "patient_allergies",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    allergen: text("allergen").notNull(),
    allergen_category: text("allergen_category").notNull().default("other"),
    reaction: text("reaction"),
    severity: text("severity"),
    is_active: bool("is_active").notNull().default(true),
    onset_date: text("onset_date"),
    note: text("note"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("patient_allergies_patient_idx").on(t.patient_id, t.is_active)],
);

export const patientDiseases = sqliteTable(
  "patient_diseases",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    disease_name: text("disease_name").notNull(),
    icd_code: text("icd_code"),
    snomed_code: text("snomed_code"),
    problem_status: text("problem_status").notNull().default("active"),
    date_start: text("date_start"),
    date_stop: text("date_stop"),
    note: text("note"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("patient_diseases_patient_idx").on(t.patient_id, t.problem_status)],
);

export const patientMedications = sqliteTable(
  "patient_medications",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    // no medication definitions table yet: stored unchecked (reference name null)
    medication_definition_id: text("medication_definition_id"),
    med_descript: text("med_descript"),
    provider_id: text("provider_id"),
    dosage: text("dosage"),
    frequency: text("frequency"),
    route: text("route"),
    rx_cui: text("rx_cui"),
    date_start: text("date_start"),
    date_stop: text("date_stop"),
    discontinuation_reason: text("discontinuation_reason"),
    patient_note: text("patient_note"),
    is_cpoe: bool("is_cpoe").notNull().default(false),
    status: text("status").notNull().default("active"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("patient_medications_patient_idx").on(t.patient_id, t.status)],
);
