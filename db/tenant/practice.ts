import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, id, softDelete, versioned } from "@db/columns";

// The practice's places and people: locations, providers, operatories, and the
// version of the scope tree they form (org -> locations, providers).

// One row: the version of the org's scope tree (org -> locations, providers),
// bumped by triggers whenever a location or provider is added, renamed,
// archived or restored (docs/iam/iam.md, scope tree).
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
    // the location's fee schedule (fee resolution: after the patient's and the provider's)
    fee_schedule_id: text("fee_schedule_id"),
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
    // the provider's fee schedule (fee resolution: after the patient's)
    fee_schedule_id: text("fee_schedule_id"),
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
