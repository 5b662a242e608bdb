import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id, json, softDelete, versioned } from "@db/columns";
import { appointments, appointmentTypes } from "./appointments";
import { definitions } from "./definitions";
import { patients } from "./patients";

// Recall (docs/recall/recall.md): the kinds of continuing care a practice keeps
// (prophy every 6 months, perio maintenance every 3, a pano every 36) and each
// patient's recall of a kind, whose dates a job keeps current from completed
// and scheduled work.

export type RecallInterval = { months: number; weeks: number; days: number };

export const recallTypes = sqliteTable(
  "recall_types",
  {
    id: id(),
    name: text("name").notNull(),
    interval_months: integer("interval_months").notNull().default(0),
    interval_weeks: integer("interval_weeks").notNull().default(0),
    interval_days: integer("interval_days").notNull().default(0),
    // procedure_codes ids: completing one resets the recall
    trigger_procedure_code_ids: json<string[]>("trigger_procedure_code_ids").notNull(),
    default_appointment_type_id: text("default_appointment_type_id").references(() => appointmentTypes.id),
    // Open Dental style: one character per 10 minutes ('X' provider, '/' assistant); null: the appointment type's length
    time_pattern: text("time_pattern"),
    // a perio recall replaces the prophy ones while it is active
    is_perio: bool("is_perio").notNull().default(false),
    // the seeded kind it started as (prophy, perio, child_prophy, bitewings, pano); null: made by the practice
    seed_key: text("seed_key"),
    archived_at: text("archived_at"),
    ...versioned(),
  },
  (t) => [index("recall_types_name_idx").on(t.name)],
);

export const patientRecalls = sqliteTable(
  "patient_recalls",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    recall_type_id: text("recall_type_id")
      .notNull()
      .references(() => recallTypes.id),
    // null: the type's interval
    interval_override: json<RecallInterval | null>("interval_override"),
    date_due_override: text("date_due_override"),
    note: text("note").notNull().default(""),
    is_disabled: bool("is_disabled").notNull().default(false),
    disable_until_date: text("disable_until_date"),
    disable_until_balance_cents: integer("disable_until_balance_cents"),
    // a definition of category recall_statuses (e.g. "left message")
    recall_status_id: text("recall_status_id").references(() => definitions.id),
    // kept by the recompute job (recalls.recompute)
    date_previous: text("date_previous"),
    date_due: text("date_due"),
    date_scheduled: text("date_scheduled"),
    scheduled_appointment_id: text("scheduled_appointment_id").references(() => appointments.id),
    // due | overdue | scheduled | disabled
    status: text("status").notNull().default("due"),
    computed_at: text("computed_at"),
    // copies of the patient's facts the recall list filters on, kept by triggers (migration 0018) so
    // counting a window of recalls never reads the patients: active and not archived, home location, providers
    patient_active: bool("patient_active").notNull().default(true),
    patient_location_id: text("patient_location_id"),
    patient_primary_provider_id: text("patient_primary_provider_id"),
    patient_secondary_provider_id: text("patient_secondary_provider_id"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    // one live recall of a type per patient
    uniqueIndex("patient_recalls_patient_type_live_idx").on(t.patient_id, t.recall_type_id).where(sql`deleted_at IS NULL`),
    // the recall list's window: counted from the index alone
    index("patient_recalls_due_idx").on(t.date_due, t.patient_active, t.status, t.recall_type_id).where(sql`deleted_at IS NULL`),
    index("patient_recalls_type_due_idx").on(t.recall_type_id, t.date_due).where(sql`deleted_at IS NULL`),
  ],
);
