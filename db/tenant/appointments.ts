import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, id, softDelete, versioned } from "@db/columns";
import { patients } from "./patients";
import { locations, operatories, providers } from "./practice";

// Appointment types, the rules between them, and appointments.

export const appointmentTypes = sqliteTable(
  "appointment_types",
  {
    id: id(),
    code: text("code").notNull(),
    name: text("name").notNull(),
    duration_minutes: integer("duration_minutes").notNull(),
    color: text("color").notNull(),
    requires_exam: bool("requires_exam").notNull().default(false),
    is_active: bool("is_active").notNull().default(true),
    // price suggested for new appointments of this type (null: none); cents
    default_fee_cents: integer("default_fee_cents"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("appointment_types_code_idx").on(t.code)],
);

export const appointmentRules = sqliteTable(
  "appointment_rules",
  {
    id: id(),
    appointment_type_a_id: text("appointment_type_a_id")
      .notNull()
      .references(() => appointmentTypes.id),
    appointment_type_b_id: text("appointment_type_b_id")
      .notNull()
      .references(() => appointmentTypes.id),
    // null: the rule applies org-wide
    location_id: text("location_id").references(() => locations.id),
    allow_overlap: bool("allow_overlap").notNull().default(false),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("appointment_rules_pair_idx").on(t.appointment_type_a_id, t.appointment_type_b_id)],
);

export const appointments = sqliteTable(
  "appointments",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    appointment_type_id: text("appointment_type_id")
      .notNull()
      .references(() => appointmentTypes.id),
    location_id: text("location_id")
      .notNull()
      .references(() => locations.id),
    provider_id: text("provider_id")
      .notNull()
      .references(() => providers.id),
    operatory_id: text("operatory_id").references(() => operatories.id),
    status: text("status").notNull().default("scheduled"),
    // wall clock of the location's zone, no offset (what clients see)
    scheduled_start: text("scheduled_start").notNull(),
    scheduled_end: text("scheduled_end").notNull(),
    // the same instants in UTC: what overlap checks compare
    start_utc: text("start_utc").notNull(),
    end_utc: text("end_utc").notNull(),
    notes: text("notes"),
    status_reason: text("status_reason"),
    confirmed_at: text("confirmed_at"),
    arrived_at: text("arrived_at"),
    completed_at: text("completed_at"),
    cancelled_at: text("cancelled_at"),
    // no-show: set with status broken (docs/scheduling/appointments.md)
    broken_at: text("broken_at"),
    // wants an earlier slot: on the ASAP list while scheduled or confirmed
    is_asap: bool("is_asap").notNull().default(false),
    // confirmation is tracked apart from status: latest outcome, how, and when recorded
    confirmation_status: text("confirmation_status").notNull().default("unconfirmed"),
    confirmation_method: text("confirmation_method"),
    confirmation_recorded_at: text("confirmation_recorded_at"),
    // chair-side steps after arrival (arrived_at is the check-in)
    seated_at: text("seated_at"),
    dismissed_at: text("dismissed_at"),
    // scheduled production in cents: the type's default_fee copied at booking, or set explicitly (null: none)
    fee_cents: integer("fee_cents"),
    // where the patient is in the office today (a flow status, schedule-config.ts) and when it was set
    flow_status_id: text("flow_status_id"),
    flow_status_set_at: text("flow_status_set_at"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    index("appointments_provider_time_idx").on(t.provider_id, t.start_utc),
    index("appointments_operatory_time_idx").on(t.operatory_id, t.start_utc),
    index("appointments_location_time_idx").on(t.location_id, t.start_utc),
    index("appointments_patient_idx").on(t.patient_id, t.start_utc),
    index("appointments_status_time_idx").on(t.status, t.start_utc),
    index("appointments_asap_idx").on(t.is_asap, t.start_utc),
  ],
);
