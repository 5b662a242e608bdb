import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * One row (id 1): whether this org database is frozen for a move to another
 * shard (docs/admin/admin.md, "Moving an org between shards"). Every write
 * transaction reads it first (platform/db/org-databases.ts, the write fence):
 * a frozen database refuses the write, which then waits for the move and is
 * retried on the org's new database. `moved_to_shard_id` is set once the
 * move is complete; the frozen file is never written again.
 */
export const orgMoveState = sqliteTable("org_move_state", {
  id: integer("id").primaryKey(),
  frozen: integer("frozen").notNull().default(0),
  moved_to_shard_id: text("moved_to_shard_id"),
  updated_at: text("updated_at"),
});
