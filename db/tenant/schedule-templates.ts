import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { bool, id, json, versioned } from "@db/columns";

// Schedule templates (docs/scheduling/schedule-templates.md): a named weekly
// pattern of provider blocks, applied to a date range as provider schedules
// and blockouts; each application is kept with its progress.

export type TemplateBlock = {
  weekday: number;
  start_time: string;
  end_time: string;
  provider_id: string;
  operatory_id: string | null;
  location_id: string;
  // reserved time ("new patient exams"): written as blockouts, not working hours
  blockout_type_id: string | null;
};

export const scheduleTemplates = sqliteTable(
  "schedule_templates",
  {
    id: id(),
    name: text("name").notNull(),
    note: text("note").notNull().default(""),
    blocks: json<TemplateBlock[]>("blocks").notNull(),
    archived_at: text("archived_at"),
    ...versioned(),
  },
  (t) => [index("schedule_templates_name_idx").on(t.name)],
);

export const scheduleTemplateApplications = sqliteTable(
  "schedule_template_applications",
  {
    id: id(),
    template_id: text("template_id")
      .notNull()
      .references(() => scheduleTemplates.id),
    // the template's version applied
    template_version: integer("template_version").notNull(),
    date_from: text("date_from").notNull(),
    date_to: text("date_to").notNull(),
    replace_existing: bool("replace_existing").notNull().default(false),
    include_override_days: bool("include_override_days").notNull().default(false),
    // queued | running | completed | failed
    status: text("status").notNull(),
    days_total: integer("days_total").notNull(),
    days_done: integer("days_done").notNull().default(0),
    schedules_written: integer("schedules_written").notNull().default(0),
    blockouts_written: integer("blockouts_written").notNull().default(0),
    days_skipped: json<string[]>("days_skipped").notNull(),
    error: text("error"),
    completed_at: text("completed_at"),
    ...versioned(),
  },
  (t) => [index("schedule_template_applications_template_idx").on(t.template_id, t.created_at)],
);
