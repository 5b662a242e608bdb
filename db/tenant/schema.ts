import { index, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { id, json, softDelete, versioned } from "../columns";

// One org's own database. Every table here belongs to exactly one org, so no
// table carries an org_id: tenancy is the database itself.

export const auditEntries = sqliteTable("audit_entries", {
  id: id(),
  actor_id: text("actor_id").notNull(),
  actor_type: text("actor_type").notNull(),
  actor_display_name: text("actor_display_name"),
  action: text("action").notNull(),
  resource_type: text("resource_type").notNull(),
  resource_id: text("resource_id").notNull(),
  before: json<Record<string, unknown> | null>("before"),
  after: json<Record<string, unknown> | null>("after"),
  request_id: text("request_id"),
  ip_address: text("ip_address"),
  created_at: text("created_at").notNull(),
}, (t) => [
  index("audit_entries_resource_idx").on(t.resource_type, t.resource_id),
  index("audit_entries_created_idx").on(t.created_at),
]);

export const locations = sqliteTable("locations", {
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
  ...versioned(),
  ...softDelete(),
}, (t) => [index("locations_name_idx").on(t.name)]);

export const tenantSchema = { auditEntries, locations };
export type TenantSchema = typeof tenantSchema;
