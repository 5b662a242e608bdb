import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, id, json, softDelete, versioned } from "@db/columns";
import { locations, patients } from "./schema";

// Revenue smart lists (docs/revenue-lists.md): saved patient filters and the
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
