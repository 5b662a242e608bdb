import { sqliteTable, text } from "drizzle-orm/sqlite-core";

// Which starter-data seeds (db/seeds) an org database has received: seeds run
// once each, like migrations, when the database is provisioned or next opened.
export const appliedSeeds = sqliteTable("applied_seeds", {
  name: text("name").primaryKey(),
  applied_at: text("applied_at").notNull(),
});
