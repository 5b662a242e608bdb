import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";
import { bool, id, json, softDelete, versioned } from "@db/columns";

// One org's own database. Every table here belongs to exactly one org, so no
// table carries an org_id: tenancy is the database itself.

export const auditEntries = sqliteTable(
  "audit_entries",
  {
    id: id(),
    actor_id: text("actor_id").notNull(),
    actor_type: text("actor_type").notNull(),
    actor_display_name: text("actor_display_name"),
    action: text("action").notNull(),
    resource_type: text("resource_type").notNull(),
    resource_id: text("resource_id").notNull(),
    before: json<Record<string, unknown> | null>("before"),
    after: json<Record<string, unknown> | null>("after"),
    request_id: text("request_id"),
    ip_address: text("ip_address"),
    created_at: text("created_at").notNull(),
    // 1 until the entry is in the control database's audit index (written in
    // groups after commit); null once it is. Entries a stopped process left
    // pending are indexed when the org is next opened (platform/audit/index-writer.ts).
    index_pending: integer("index_pending"),
  },
  (t) => [
    index("audit_entries_resource_idx").on(t.resource_type, t.resource_id),
    index("audit_entries_created_idx").on(t.created_at),
    index("audit_entries_index_pending_idx").on(t.created_at).where(sql`index_pending IS NOT NULL`),
  ],
);

// One row: the version of the org's scope tree (org -> locations, providers),
// bumped by triggers whenever a location or provider is added, renamed,
// archived or restored (docs/iam.md, scope tree).
export const scopeTreeState = sqliteTable("scope_tree_state", {
  id: integer("id").primaryKey(),
  version: integer("version").notNull(),
});

export const locations = sqliteTable(
  "locations",
  {
    id: id(),
    name: text("name").notNull(),
    timezone: text("timezone").notNull(),
    address_line1: text("address_line1"),
    address_line2: text("address_line2"),
    city: text("city"),
    state: text("state"),
    postal_code: text("postal_code"),
    country: text("country"),
    phone: text("phone"),
    email: text("email"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("locations_name_idx").on(t.name)],
);

// ---- providers and operatories -------------------------------------------

export const providers = sqliteTable(
  "providers",
  {
    id: id(),
    abbreviation: text("abbreviation").notNull(),
    first_name: text("first_name").notNull(),
    last_name: text("last_name").notNull(),
    middle_name: text("middle_name"),
    preferred_name: text("preferred_name"),
    suffix: text("suffix"),
    title: text("title"),
    billing_override_provider_id: text("billing_override_provider_id"),
    birthdate: text("birthdate"),
    custom_id: text("custom_id"),
    date_term: text("date_term"),
    erx_enabled: text("erx_enabled"),
    hourly_production_goal_cents: integer("hourly_production_goal_cents"),
    is_hidden: bool("is_hidden").notNull().default(false),
    is_hidden_report: bool("is_hidden_report").notNull().default(false),
    is_instructor: bool("is_instructor").notNull().default(false),
    is_not_person: bool("is_not_person").notNull().default(false),
    is_secondary: bool("is_secondary").notNull().default(false),
    item_order: integer("item_order").notNull().default(0),
    medicaid_id: text("medicaid_id"),
    national_provider_id: text("national_provider_id"),
    outline_color: integer("outline_color"),
    provider_color: integer("provider_color"),
    provider_type_id: text("provider_type_id"),
    provider_type_name: text("provider_type_name"),
    schedule_note: text("schedule_note"),
    sig_on_file: bool("sig_on_file").notNull().default(false),
    specialty_id: text("specialty_id"),
    specialty_name: text("specialty_name"),
    ssn_tin: text("ssn_tin"),
    status: text("status").notNull().default("active"),
    taxonomy_code_override: text("taxonomy_code_override"),
    using_tin: bool("using_tin").notNull().default(false),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("providers_name_idx").on(t.last_name, t.first_name), index("providers_status_idx").on(t.status)],
);

export const operatories = sqliteTable(
  "operatories",
  {
    id: id(),
    location_id: text("location_id")
      .notNull()
      .references(() => locations.id),
    name: text("name").notNull(),
    abbreviation: text("abbreviation"),
    item_order: integer("item_order").notNull().default(0),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("operatories_location_idx").on(t.location_id)],
);

// ---- patients ----------------------------------------------------------------

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

// ---- scheduling --------------------------------------------------------------

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
    // no-show: set with status broken (docs/appointments.md)
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

export const tenantSchema = {
  auditEntries,
  locations,
  providers,
  operatories,
  patients,
  tagDefinitions,
  patientTags,
  appointmentTypes,
  appointmentRules,
  appointments,
};
export type TenantSchema = typeof tenantSchema;
