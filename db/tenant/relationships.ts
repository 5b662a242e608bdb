import { sql } from "drizzle-orm";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id, softDelete, versioned } from "@db/columns";
import { patients } from "./patients";

// One-directional: "from_patient is to_patient's <relationship_type>"; the
// inverse is a record of its own (docs/patients/relationships.md).
export const patientRelationships = sqliteTable(
  "patient_relationships",
  {
    id: id(),
    from_patient_id: text("from_patient_id")
      .notNull()
      .references(() => patients.id),
    to_patient_id: text("to_patient_id")
      .notNull()
      .references(() => patients.id),
    relationship_type: text("relationship_type").notNull(),
    is_guardian: bool("is_guardian").notNull().default(false),
    note: text("note"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    index("patient_relationships_from_idx").on(t.from_patient_id),
    index("patient_relationships_to_idx").on(t.to_patient_id),
    // at most one active record per (from, to, type); the service answers 409 before this fires
    uniqueIndex("patient_relationships_active_uq").on(t.from_patient_id, t.to_patient_id, t.relationship_type).where(sql`deleted_at IS NULL`),
  ],
);
