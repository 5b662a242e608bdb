import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id, json, softDelete, versioned } from "@db/columns";
import { locations, operatories, providers } from "./practice";
import { patients } from "./patients";

// Schedule configuration: flow statuses, day notes, calendar views (with each
// user's own default and shortcuts) and patients' scheduling preferences.

export const flowStatuses = sqliteTable(
  "flow_statuses",
  {
    id: id(),
    name: text("name").notNull(),
    // derived from name; unique among statuses that are not archived
    slug: text("slug").notNull(),
    color: text("color").notNull(),
    is_active: bool("is_active").notNull().default(true),
    item_order: integer("item_order").notNull().default(0),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [uniqueIndex("flow_statuses_slug_live_idx").on(t.slug).where(sql`deleted_at IS NULL`), index("flow_statuses_order_idx").on(t.item_order)],
);

export const scheduleNotes = sqliteTable(
  "schedule_notes",
  {
    id: id(),
    location_id: text("location_id")
      .notNull()
      .references(() => locations.id),
    note_date: text("note_date").notNull(),
    note: text("note").notNull(),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("schedule_notes_location_date_idx").on(t.location_id, t.note_date), index("schedule_notes_date_idx").on(t.note_date)],
);

export const scheduleViews = sqliteTable(
  "schedule_views",
  {
    id: id(),
    location_id: text("location_id")
      .notNull()
      .references(() => locations.id),
    // the creating user (control database id); a personal view is visible only to them
    owner_user_id: text("owner_user_id").notNull(),
    name: text("name").notNull(),
    view_type: text("view_type").notNull(),
    visibility: text("visibility").notNull(),
    min_operatory_width_px: integer("min_operatory_width_px").notNull().default(0),
    operatory_ids: json<string[]>("operatory_ids").notNull(),
    provider_ids: json<string[]>("provider_ids").notNull(),
    privacy_mode: bool("privacy_mode").notNull().default(false),
    show_business_days_only: bool("show_business_days_only").notNull().default(false),
    show_missed_appointments: bool("show_missed_appointments").notNull().default(false),
    show_production: bool("show_production").notNull().default(false),
    show_provider_bars: bool("show_provider_bars").notNull().default(true),
    start_time: text("start_time").notNull(),
    time_increment: integer("time_increment").notNull(),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("schedule_views_location_idx").on(t.location_id), index("schedule_views_owner_idx").on(t.owner_user_id)],
);

/** Each user's default view per location (is_default is derived from it). */
export const scheduleViewDefaults = sqliteTable(
  "schedule_view_defaults",
  {
    user_id: text("user_id").notNull(),
    location_id: text("location_id")
      .notNull()
      .references(() => locations.id),
    view_id: text("view_id")
      .notNull()
      .references(() => scheduleViews.id),
    created_at: text("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.user_id, t.location_id] }), index("schedule_view_defaults_view_idx").on(t.view_id)],
);

/** Each user's keyboard shortcuts 1-9: one view per key, one key per view. */
export const scheduleViewShortcuts = sqliteTable(
  "schedule_view_shortcuts",
  {
    user_id: text("user_id").notNull(),
    keyboard_shortcut: integer("keyboard_shortcut").notNull(),
    view_id: text("view_id")
      .notNull()
      .references(() => scheduleViews.id),
    created_at: text("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.user_id, t.keyboard_shortcut] }),
    uniqueIndex("schedule_view_shortcuts_user_view_idx").on(t.user_id, t.view_id),
    index("schedule_view_shortcuts_view_idx").on(t.view_id),
  ],
);

/** At most one per patient. */
export const patientSchedulingPreferences = sqliteTable(
  "patient_scheduling_preferences",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    preferred_provider_id: text("preferred_provider_id").references(() => providers.id),
    preferred_operatory_id: text("preferred_operatory_id").references(() => operatories.id),
    // weekdays 0-6, 0 = Sunday, ascending, no duplicates
    preferred_days: json<number[]>("preferred_days").notNull(),
    preferred_time_start: text("preferred_time_start"),
    preferred_time_end: text("preferred_time_end"),
    preferred_contact_method: text("preferred_contact_method"),
    notes: text("notes").notNull().default(""),
    learned_from_history: bool("learned_from_history").notNull().default(false),
    ...versioned(),
  },
  (t) => [uniqueIndex("patient_scheduling_preferences_patient_idx").on(t.patient_id)],
);
