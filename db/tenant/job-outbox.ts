import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { json } from "@db/columns";

/**
 * Jobs a write of this org caused, written in the write's own transaction
 * (platform/queue/outbox.ts): a job is never lost between the commit and the
 * queue. After commit they are handed to the queue, each under its row's id as
 * the queue's job id (a second hand-over of one row adds nothing), and the
 * row is deleted; what the queue did not take stays for the relay.
 */
export const jobOutbox = sqliteTable(
  "job_outbox",
  {
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
  },
  (t) => [index("job_outbox_created_idx").on(t.created_at)],
);
