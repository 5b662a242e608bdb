import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, id, softDelete, versioned } from "@db/columns";

// The patient record and its tags.

export const patients = sqliteTable(
  "patients",
  {
    id: id(),
    first_name: text("first_name").notNull(),
    last_name: text("last_name").notNull(),
    middle_name: text("middle_name"),
    preferred_name: text("preferred_name"),
    title: text("title"),
    salutation: text("salutation"),
    status: text("status").notNull().default("active"),
    gender: text("gender"),
    marital_status: text("marital_status"),
    pronoun: text("pronoun"),
    date_of_birth: text("date_of_birth"),
    date_first_visit: text("date_first_visit"),
    date_time_deceased: text("date_time_deceased"),
    chart_number: text("chart_number"),
    email: text("email"),
    home_phone: text("home_phone"),
    mobile_phone: text("mobile_phone"),
    work_phone: text("work_phone"),
    // digits of every phone, space separated: what phone search matches
    phone_digits: text("phone_digits"),
    address_line1: text("address_line1"),
    address_line2: text("address_line2"),
    address_note: text("address_note"),
    city: text("city"),
    state: text("state"),
    postal_code: text("postal_code"),
    country: text("country"),
    preferred_confirmation_method: text("preferred_confirmation_method"),
    preferred_contact_method: text("preferred_contact_method"),
    preferred_language: text("preferred_language"),
    receives_email: bool("receives_email").notNull().default(false),
    receives_sms: bool("receives_sms").notNull().default(false),
    ask_to_arrive_early_mins: integer("ask_to_arrive_early_mins"),
    allergy_review_status: text("allergy_review_status").notNull().default("not_reviewed"),
    appointment_module_note: text("appointment_module_note"),
    billing_cycle_day: integer("billing_cycle_day"),
    billing_type_id: text("billing_type_id"),
    consent_flags: integer("consent_flags").notNull().default(0),
    emergency_contact_name: text("emergency_contact_name"),
    emergency_contact_phone: text("emergency_contact_phone"),
    employer_id: text("employer_id"),
    fee_schedule_id: text("fee_schedule_id"),
    location_id: text("location_id"),
    primary_provider_id: text("primary_provider_id"),
    secondary_provider_id: text("secondary_provider_id"),
    responsible_party_id: text("responsible_party_id"),
    medicaid_id: text("medicaid_id"),
    medical_summary: text("medical_summary"),
    medical_urgent_note: text("medical_urgent_note"),
    premedication_required: bool("premedication_required").notNull().default(false),
    smoking_snomed: text("smoking_snomed"),
    social_security_number: text("social_security_number"),
    treatment_notes: text("treatment_notes"),
    latest_vitals_date: text("latest_vitals_date"),
    // read-only balances in cents, maintained by billing (aging buckets)
    balance_0_30_cents: integer("balance_0_30_cents").notNull().default(0),
    balance_31_60_cents: integer("balance_31_60_cents").notNull().default(0),
    balance_61_90_cents: integer("balance_61_90_cents").notNull().default(0),
    balance_over_90_cents: integer("balance_over_90_cents").notNull().default(0),
    estimated_balance_cents: integer("estimated_balance_cents").notNull().default(0),
    insurance_estimate_cents: integer("insurance_estimate_cents").notNull().default(0),
    payment_plan_due_cents: integer("payment_plan_due_cents").notNull().default(0),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    index("patients_name_idx").on(t.last_name, t.first_name),
    index("patients_first_name_idx").on(t.first_name),
    index("patients_dob_idx").on(t.date_of_birth),
    index("patients_chart_idx").on(t.chart_number),
    index("patients_email_idx").on(t.email),
    index("patients_status_name_idx").on(t.status, t.last_name),
    index("patients_primary_provider_idx").on(t.primary_provider_id),
    index("patients_location_idx").on(t.location_id),
    index("patients_responsible_party_idx").on(t.responsible_party_id),
    index("patients_created_idx").on(t.created_at),
  ],
);

export const tagDefinitions = sqliteTable("tag_definitions", {
  id: id(),
  name: text("name").notNull(),
  color: text("color"),
  description: text("description"),
  ...versioned(),
  ...softDelete(),
});

export const patientTags = sqliteTable(
  "patient_tags",
  {
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    tag_definition_id: text("tag_definition_id")
      .notNull()
      .references(() => tagDefinitions.id),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.patient_id, t.tag_definition_id] }), index("patient_tags_tag_idx").on(t.tag_definition_id)],
);
