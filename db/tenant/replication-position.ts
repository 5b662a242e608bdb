import { integer, sqliteTable } from "drizzle-orm/sqlite-core";

/**
 * One row (id 1): the org database's replication position, a counter that
 * every write transaction on a replicated shard raises by one in the same
 * transaction (platform/db/turso-sync.ts). The replica engine's own revision
 * is opaque and cannot be ordered, so read-your-writes compares this number:
 * a replica that has pulled position N holds every write up to the N-th.
 * Shards that are not replicated leave it at 0.
 */
export const replicationPosition = sqliteTable("replication_position", {
  id: integer("id").primaryKey(),
  position: integer("position").notNull().default(0),
});
