// The fixed set of definition categories (docs/definitions.md). Other domains
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
] as const;
export type DefinitionCategory = (typeof DEFINITION_CATEGORIES)[number];

/** Category whose item_value must be a date (YYYY-MM-DD): the practice is closed that day. */
export const HOLIDAYS: DefinitionCategory = "holidays";
