import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id, json, softDelete, versioned } from "@db/columns";
import { patients } from "./patients";

// Practice-defined patient fields (docs/patients/custom-fields.md): a definition names
// the field and its type; a patient holds at most one value per definition.

export const patientFieldDefinitions = sqliteTable(
  "patient_field_definitions",
  {
    id: id(),
    name: text("name").notNull(),
    // text | number | date | boolean | pick_list (immutable: stored values were checked against it)
    field_type: text("field_type").notNull(),
    pick_list_options: json<string[] | null>("pick_list_options"),
    is_required: bool("is_required").notNull().default(false),
    item_order: integer("item_order").notNull().default(0),
    description: text("description"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("patient_field_definitions_order_idx").on(t.item_order, t.name)],
);

export const patientFieldValues = sqliteTable(
  "patient_field_values",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    field_definition_id: text("field_definition_id")
      .notNull()
      .references(() => patientFieldDefinitions.id),
    // JSON: a string (text, date YYYY-MM-DD, pick_list option), a number or a boolean
    value: json<string | number | boolean>("value").notNull(),
    ...versioned(),
  },
  (t) => [uniqueIndex("patient_field_values_patient_def_idx").on(t.patient_id, t.field_definition_id)],
);
