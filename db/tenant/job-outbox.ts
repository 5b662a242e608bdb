import { index, sqliteTable } from "drizzle-orm/sqlite-core";
import { jobOutboxColumns } from "@db/columns";

/**
 * Jobs a write of this org caused, written in the write's own transaction
 * (platform/queue/outbox.ts): a job is never lost between the commit and the
 * queue. After commit they are handed to the queue, each under its row's id as
 * the queue's job id (a second hand-over of one row adds nothing), and the
 * row is deleted; what the queue did not take stays for the relay.
 */
export const jobOutbox = sqliteTable("job_outbox", jobOutboxColumns(), (t) => [index("job_outbox_created_idx").on(t.created_at)]);
