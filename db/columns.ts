import { integer, text } from "drizzle-orm/sqlite-core";

// Columns every record shares. Timestamps are ISO 8601 UTC strings (sortable as text);
// `version` starts at 1 and is bumped by the versioning helper on every change.
export const id = () => text("id").primaryKey();
export const timestamps = () => ({
  created_at: text("created_at").notNull(),
  updated_at: text("updated_at").notNull(),
});
export const versioned = () => ({
  ...timestamps(),
  version: integer("version").notNull().default(1),
});
export const softDelete = () => ({ deleted_at: text("deleted_at") });
export const bool = (name: string) => integer(name, { mode: "boolean" });
export const json = <T>(name: string) => text(name, { mode: "json" }).$type<T>();

/** The columns of a job outbox: the org's (db/tenant/job-outbox.ts, which says what it is for) and the control database's. */
export const jobOutboxColumns = () => ({
  // also the queue's job id (a UUIDv7)
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  payload: json<unknown>("payload").notNull(),
  // who caused the job: { type, id, display_name } (a user's request), null for the system
  actor: json<Record<string, unknown> | null>("actor"),
  request_id: text("request_id"),
  singleton_key: text("singleton_key"),
  start_after_seconds: integer("start_after_seconds"),
  created_at: text("created_at").notNull(),
  attempts: integer("attempts").notNull().default(0),
  last_error: text("last_error"),
});
