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
