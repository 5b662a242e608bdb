import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, id, json, softDelete, versioned } from "@db/columns";

// Org-defined vocabularies, one row per item, grouped by category (blockout
// types, confirmation statuses, document categories, billing types, holidays,
// prognosis, priority, ...). Issue 6 builds the endpoints and the seed; other
// domains read items by category (a holiday's `item_value` is its date,
// YYYY-MM-DD).
export const definitions = sqliteTable(
  "definitions",
  {
    id: id(),
    category: text("category").notNull(),
    item_name: text("item_name").notNull(),
    item_value: text("item_value"),
    item_order: integer("item_order").notNull().default(0),
    item_color: text("item_color"),
    is_hidden: bool("is_hidden").notNull().default(false),
    metadata: json<Record<string, unknown>>("metadata"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("definitions_category_order_idx").on(t.category, t.item_order)],
);

// The fixed set of definition categories (docs/codes/definitions.md). Other domains
// read items by category: blockouts (blockout_types), the calendar (holidays),
// patients (billing_types), documents (document_categories), charting
// (prognosis, priority, diagnosis_codes).
export const DEFINITION_CATEGORIES = [
  "adjustment_types",
  "appointment_cancellation_reasons",
  "appointment_confirmation_statuses",
  "billing_types",
  "blockout_types",
  "diagnosis_codes",
  "document_categories",
  "holidays",
  "patient_alert_categories",
  "payment_types",
  "priority",
  "prognosis",
  "recall_statuses",
] as const;
export type DefinitionCategory = (typeof DEFINITION_CATEGORIES)[number];

/** Category whose item_value must be a date (YYYY-MM-DD): the practice is closed that day. */
export const HOLIDAYS: DefinitionCategory = "holidays";
