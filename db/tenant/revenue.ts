import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, id, json, softDelete, versioned } from "@db/columns";
import { locations } from "./practice";
import { patients } from "./patients";

// Revenue smart lists (docs/revenue/revenue-lists.md): saved patient filters and the
// hand-picked members of static lists.

/** A filter definition as stored: groups joined by OR, conditions inside a group joined by AND. */
export type StoredFilter = { groups: { conditions: { field: string; operator: string; value?: unknown }[] }[] };

export const smartLists = sqliteTable(
  "smart_lists",
  {
    id: id(),
    name: text("name").notNull(),
    list_type: text("list_type").notNull(),
    scope: text("scope").notNull(),
    // the creating user (control database id) and their display name then; a personal list is visible only to them
    owner_user_id: text("owner_user_id").notNull(),
    owner_name: text("owner_name"),
    scope_location_id: text("scope_location_id").references(() => locations.id),
    description: text("description"),
    filter_definition: json<StoredFilter>("filter_definition"),
    is_pinned: bool("is_pinned").notNull().default(false),
    sort_order: integer("sort_order").notNull().default(0),
    tags: json<string[]>("tags").notNull(),
    preset_key: text("preset_key"),
    last_executed_at: text("last_executed_at"),
    last_result_count: integer("last_result_count"),
    // the registry's source_version the filter was saved against; the drift job flags filters that no longer compile
    source_version: integer("source_version"),
    needs_review: bool("needs_review").notNull().default(false),
    review_reason: text("review_reason"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("smart_lists_owner_idx").on(t.owner_user_id), index("smart_lists_scope_idx").on(t.scope, t.scope_location_id)],
);

/** The patients of a static list. */
export const smartListMembers = sqliteTable(
  "smart_list_members",
  {
    list_id: text("list_id")
      .notNull()
      .references(() => smartLists.id),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    added_at: text("added_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.list_id, t.patient_id] }), index("smart_list_members_patient_idx").on(t.patient_id)],
);

/**
 * One narrow row per live patient holding exactly the patient columns the
 * filter-field registry reads (docs/revenue/revenue.md, "Why counts scan a facts
 * table"). Kept by triggers on `patients` (migration 0011) in the writing
 * transaction, so it is never behind; a filter scans these short rows
 * instead of the whole patient record. No foreign key: the row goes with the
 * patient's soft delete, which a foreign key would not see.
 */
export const patientFilterFacts = sqliteTable("patient_filter_facts", {
  id: text("id").primaryKey(),
  status: text("status").notNull(),
  date_of_birth: text("date_of_birth"),
  gender: text("gender"),
  has_email: integer("has_email").notNull(),
  has_mobile_phone: integer("has_mobile_phone").notNull(),
  receives_sms: integer("receives_sms").notNull(),
  receives_email: integer("receives_email").notNull(),
  created_on: text("created_on").notNull(),
  preferred_language: text("preferred_language"),
  balance_0_30_cents: integer("balance_0_30_cents").notNull(),
  balance_31_60_cents: integer("balance_31_60_cents").notNull(),
  balance_61_90_cents: integer("balance_61_90_cents").notNull(),
  balance_over_90_cents: integer("balance_over_90_cents").notNull(),
  insurance_estimate_cents: integer("insurance_estimate_cents").notNull(),
  first_name: text("first_name").notNull(),
  last_name: text("last_name").notNull(),
  location_id: text("location_id"),
  primary_provider_id: text("primary_provider_id"),
});
