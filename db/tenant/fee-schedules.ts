import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id, softDelete, versioned } from "@db/columns";
import { procedureCodes } from "./codes";
import { locations } from "./practice";

// Fee schedules and their fees (docs/codes/fee-schedules.md): what the office
// charges for each procedure code (office, ucr) and what a PPO allows (ppo,
// allowed). A fee may be for one location, which beats the schedule-wide fee
// there. Patients, providers, locations and insurance plans name a schedule;
// charting resolves a procedure's office fee through them.

export const FEE_SCHEDULE_TYPES = ["office", "ucr", "ppo", "allowed"] as const;

export const feeSchedules = sqliteTable(
  "fee_schedules",
  {
    id: id(),
    name: text("name").notNull(),
    // office | ucr | ppo | allowed
    schedule_type: text("schedule_type").notNull(),
    is_hidden: bool("is_hidden").notNull().default(false),
    // the org's default office schedule (at most one): the fee when no patient, provider or location names one
    is_default: bool("is_default").notNull().default(false),
    // a copy into this schedule (POST .../copy): running | done | failed, with its progress
    copy_status: text("copy_status"),
    copy_total: integer("copy_total"),
    copy_done: integer("copy_done"),
    copy_error: text("copy_error"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    uniqueIndex("fee_schedules_name_uq").on(t.name).where(sql`deleted_at IS NULL`),
    uniqueIndex("fee_schedules_default_uq").on(t.is_default).where(sql`is_default = 1 AND deleted_at IS NULL`),
  ],
);

export const fees = sqliteTable(
  "fees",
  {
    id: id(),
    fee_schedule_id: text("fee_schedule_id")
      .notNull()
      .references(() => feeSchedules.id),
    procedure_code_id: text("procedure_code_id")
      .notNull()
      .references(() => procedureCodes.id),
    // null: every location of the schedule; a location's own fee beats it there
    location_id: text("location_id").references(() => locations.id),
    amount_cents: integer("amount_cents").notNull(),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    // one live fee per schedule and code schedule-wide, and one per location
    uniqueIndex("fees_schedule_code_uq").on(t.fee_schedule_id, t.procedure_code_id).where(sql`deleted_at IS NULL AND location_id IS NULL`),
    uniqueIndex("fees_schedule_code_location_uq")
      .on(t.fee_schedule_id, t.procedure_code_id, t.location_id)
      .where(sql`deleted_at IS NULL AND location_id IS NOT NULL`),
    index("fees_code_idx").on(t.procedure_code_id),
  ],
);
