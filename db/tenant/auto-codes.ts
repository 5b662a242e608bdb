import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id, json, softDelete, versioned } from "@db/columns";

// Odontogram auto-codes: a family (e.g. "composite") picks the procedure code
// to chart from the clinical context (tooth, surfaces, material, ...) by its
// rules, checked by priority. Procedure codes are stored as code strings.
/** How a family chooses between its rules (the shape of each rule's conditions follows from it). */
export const SELECTION_TYPES = ["age", "arch", "combined", "dentition", "material", "surface_count", "tooth_position", "tooth_type", "unit_count"] as const;
export type SelectionType = (typeof SELECTION_TYPES)[number];

export const autoCodeFamilies = sqliteTable(
  "auto_code_families",
  {
    id: id(),
    family_name: text("family_name").notNull(),
    display_name: text("display_name").notNull(),
    description: text("description"),
    base_procedure_code: text("base_procedure_code"),
    is_active: bool("is_active").notNull().default(true),
    selection_type: text("selection_type").notNull(),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    // family_name is unique among live families, ignoring case (the service checks first for a clean 409)
    uniqueIndex("auto_code_families_name_uq").on(sql`lower(${t.family_name})`).where(sql`${t.deleted_at} IS NULL`),
  ],
);

export const autoCodeRules = sqliteTable(
  "auto_code_rules",
  {
    id: id(),
    family_id: text("family_id")
      .notNull()
      .references(() => autoCodeFamilies.id),
    conditions: json<Record<string, unknown>>("conditions").notNull(),
    priority: integer("priority").notNull().default(0),
    procedure_code: text("procedure_code").notNull(),
    is_active: bool("is_active").notNull().default(true),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("auto_code_rules_family_idx").on(t.family_id, t.priority)],
);
