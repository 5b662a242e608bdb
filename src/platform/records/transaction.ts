import { auditIndex } from "@db/control/schema";
import { run } from "@/platform/db/work";
import { OrgMoving } from "@/platform/errors";
import { nowIso } from "@/platform/ids";
import { systemActor, type Caller } from "@/platform/auth/actor";
import type { ControlDatabase } from "@/platform/db/control";
import type { EventPublisher } from "@/platform/events/publisher";
import type { JobQueue } from "@/platform/queue/types";
import type { Logger } from "@/platform/logger";
import type { OrgRecord } from "@/platform/tenancy/access";
import type { AfterCommit, CommitEffects, OrgContext, TxScope, WriteWork } from "./context";

/**
 * Run a write: one short transaction on the org's database that also writes the
 * audit rows; then, only after commit, publish events, index the audit entries
 * on the control database and enqueue jobs. This is the only way verbs write.
 */
export async function withTransaction<T>(ctx: OrgContext, work: WriteWork<T>): Promise<T> {
  const { org, actor, requestId, ip, permissions } = ctx;
  for (let attempt = 1; ; attempt++) {
    const after: AfterCommit = { events: [], audit: [], jobs: [] };
    const db = ctx.db;
    try {
      const result = await db.write((tx) => work({ org, db, actor, requestId, ip, permissions, tx, now: nowIso(), after } satisfies TxScope));
      await ctx.effects.afterCommit(after, ctx);
      return result;
    } catch (err) {
      // the org's database is frozen for a move: nothing was written; wait for the move and write to the new database
      if (!(err instanceof OrgMoving) || attempt >= MOVE_ATTEMPTS) throw err;
      await ctx.relocate();
    }
  }
}

/** A write meets a move at most once or twice (a second move right after the first); then it is answered 503. */
const MOVE_ATTEMPTS = 3;

/** What follows a committed write in this org: the audit index, events, jobs (in that order). */
export function commitEffects(
  deps: { control: ControlDatabase; events: EventPublisher; queue: JobQueue | null; logger: Logger },
  org: OrgRecord,
): CommitEffects {
  return {
    async afterCommit(after: AfterCommit, who: Caller) {
      if (after.audit.length) {
        try {
          await deps.control.write((tx) => run(tx.insert(auditIndex).values(after.audit.map((a) => ({ ...a, org_id: org.id, org_name: org.name })))));
        } catch (err) {
          // The org's own trail already holds the entry; the index can be rebuilt from it.
          deps.logger.error({ err: (err as Error).message, request_id: who.requestId }, "audit index write failed");
        }
      }
      for (const event of after.events) await deps.events.publish(org.id, event);
      if (deps.queue) {
        for (const job of after.jobs) {
          const actor = who.actor.type === "user" ? who.actor : systemActor(job.name);
          await deps.queue.send(job.name, { payload: job.payload, actor, request_id: who.requestId, org_id: org.id }, { singletonKey: job.singletonKey });
        }
      }
    },
  };
}
