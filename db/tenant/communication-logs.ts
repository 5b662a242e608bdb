import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { id, versioned } from "@db/columns";
import { patients } from "./patients";

// Append-only: rows are inserted and never updated or deleted (no deleted_at).
// `version`/`updated_at` exist only for the shared record mechanics (always 1 / created_at).
export const communicationLogs = sqliteTable(
  "communication_logs",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    communicated_at: text("communicated_at").notNull(),
    mode: text("mode").notNull(),
    direction: text("direction").notNull(),
    communication_source: text("communication_source").notNull().default("user"),
    subject: text("subject"),
    note: text("note").notNull(),
    // who recorded it: the acting user (null for system actors), name as it was then
    user_id: text("user_id"),
    user_name: text("user_name"),
    ...versioned(),
  },
  (t) => [index("communication_logs_patient_time_idx").on(t.patient_id, t.communicated_at)],
);
