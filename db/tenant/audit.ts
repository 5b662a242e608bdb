import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";
import { id, json } from "@db/columns";

// Every write of an org leaves its audit entry here, in the same transaction
// (platform/audit/audit.ts); the platform-wide index of them is in the control
// database. Tables of an org database carry no org_id: tenancy is the database itself.

export const auditEntries = sqliteTable(
  "audit_entries",
  {
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
    // 1 until the entry is in the control database's audit index (written in
    // groups after commit); null once it is. Entries a stopped process left
    // pending are indexed when the org is next opened (platform/audit/index-writer.ts).
    index_pending: integer("index_pending"),
  },
  (t) => [
    index("audit_entries_resource_idx").on(t.resource_type, t.resource_id),
    index("audit_entries_created_idx").on(t.created_at),
    index("audit_entries_index_pending_idx").on(t.created_at).where(sql`index_pending IS NOT NULL`),
  ],
);
