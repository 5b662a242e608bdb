import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id, softDelete, versioned } from "@db/columns";
import { locations, operatories, providers } from "./practice";
import { definitions } from "./definitions";

// Provider working time and what takes time away from it: weekly templates,
// per-date overrides, blockouts; plus daily production goals. Times of day are
// "HH:MM" wall clock of the location's zone; blockouts also keep UTC instants.

export const providerSchedules = sqliteTable(
  "provider_schedules",
  {
    id: id(),
    provider_id: text("provider_id")
      .notNull()
      .references(() => providers.id),
    location_id: text("location_id")
      .notNull()
      .references(() => locations.id),
    // null: any free operatory of the location
    operatory_id: text("operatory_id").references(() => operatories.id),
    // 0 = Sunday ... 6 = Saturday
    weekday: integer("weekday").notNull(),
    start_time: text("start_time").notNull(),
    end_time: text("end_time").notNull(),
    effective_from: text("effective_from"),
    effective_to: text("effective_to"),
    // the schedule template application that wrote it (null: written by hand)
    template_application_id: text("template_application_id"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("provider_schedules_location_idx").on(t.location_id, t.weekday), index("provider_schedules_provider_idx").on(t.provider_id, t.weekday)],
);

export const scheduleOverrides = sqliteTable(
  "schedule_overrides",
  {
    id: id(),
    provider_id: text("provider_id")
      .notNull()
      .references(() => providers.id),
    location_id: text("location_id")
      .notNull()
      .references(() => locations.id),
    operatory_id: text("operatory_id").references(() => operatories.id),
    override_date: text("override_date").notNull(),
    // null when is_unavailable
    start_time: text("start_time"),
    end_time: text("end_time"),
    is_unavailable: bool("is_unavailable").notNull().default(false),
    override_reason: text("override_reason").notNull(),
    note: text("note").notNull().default(""),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    // one live override per provider, location and date
    uniqueIndex("schedule_overrides_day_live_idx").on(t.provider_id, t.location_id, t.override_date).where(sql`deleted_at IS NULL`),
    index("schedule_overrides_location_date_idx").on(t.location_id, t.override_date),
  ],
);

export const blockouts = sqliteTable(
  "blockouts",
  {
    id: id(),
    location_id: text("location_id")
      .notNull()
      .references(() => locations.id),
    // null operatory and provider: the whole location
    operatory_id: text("operatory_id").references(() => operatories.id),
    provider_id: text("provider_id").references(() => providers.id),
    blockout_type_id: text("blockout_type_id")
      .notNull()
      .references(() => definitions.id),
    // wall clock of the location's zone as written, and the instants it means
    start: text("start").notNull(),
    end: text("end").notNull(),
    start_utc: text("start_utc").notNull(),
    end_utc: text("end_utc").notNull(),
    note: text("note").notNull().default(""),
    // the schedule template application that wrote it (null: written by hand)
    template_application_id: text("template_application_id"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("blockouts_location_time_idx").on(t.location_id, t.start_utc), index("blockouts_provider_time_idx").on(t.provider_id, t.start_utc)],
);

export const productionGoals = sqliteTable(
  "production_goals",
  {
    id: id(),
    provider_id: text("provider_id")
      .notNull()
      .references(() => providers.id),
    location_id: text("location_id")
      .notNull()
      .references(() => locations.id),
    goal_date: text("goal_date").notNull(),
    goal_cents: integer("goal_cents").notNull(),
    ...versioned(),
  },
  (t) => [
    uniqueIndex("production_goals_day_idx").on(t.provider_id, t.location_id, t.goal_date),
    index("production_goals_location_date_idx").on(t.location_id, t.goal_date),
  ],
);
