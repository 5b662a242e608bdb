import { OrgMoving } from "@/platform/errors";
import { clearIndexPending, type AuditIndexWriter } from "@/platform/audit/index-writer";
import { nowIso } from "@/platform/ids";
import type { Caller } from "@/platform/auth/actor";
import type { EventPublisher } from "@/platform/events/publisher";
import type { JobQueue } from "@/platform/queue/types";
import { sendJob } from "@/platform/queue/enqueue";
import type { OrgRecord } from "@/platform/tenancy/access";
import type { AfterCommit, CommitEffects, OrgContext, Reactions, TxScope, WriteWork } from "./context";

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
    const indexed = ctx.effects.takeIndexed();
    try {
      const result = await db.write(function* (tx) {
        if (indexed) yield* clearIndexPending(tx, indexed);
        return yield* work({ org, db, actor, requestId, ip, permissions, tx, now: nowIso(), after, reactions: ctx.effects.reactions } satisfies TxScope);
      });
      await ctx.effects.afterCommit(after, ctx);
      return result;
    } catch (err) {
      // (a write that fails after its commit, in afterCommit, has cleared them: clearing again is a no-op)
      if (indexed) ctx.effects.restoreIndexed(indexed);
      // the org's database is frozen for a move: nothing was written; wait for the move and write to the new database
      if (!(err instanceof OrgMoving) || attempt >= MOVE_ATTEMPTS) throw err;
      await ctx.relocate();
    }
  }
}

/** A write meets a move at most once or twice (a second move right after the first); then it is answered 503. */
const MOVE_ATTEMPTS = 3;

/** What follows a committed write in this org: the audit index (in groups), events, jobs. */
export function commitEffects(
  deps: { events: EventPublisher; queue: JobQueue | null; auditIndex: AuditIndexWriter; reactions: Reactions },
  org: OrgRecord,
): CommitEffects {
  return {
    reactions: deps.reactions,
    async afterCommit(after: AfterCommit, who: Caller) {
      // indexed with the entries of the other writes of this turn (a failure is logged there and the
      // entries stay pending); events and jobs go out meanwhile, and the write answers once it is in
      const indexed = after.audit.length ? deps.auditIndex.add(org, after.audit) : undefined;
      for (const event of after.events) await deps.events.publish(org.id, event);
      if (deps.queue) {
        // a job carries the user who caused it; a system actor's write leaves the job its own
        const actor = who.actor.type === "user" ? who.actor : undefined;
        for (const job of after.jobs) await sendJob(deps.queue, job, { actor, requestId: who.requestId, orgId: org.id });
      }
      await indexed;
    },
    takeIndexed: () => deps.auditIndex.takeIndexed(org.id),
    restoreIndexed: (ids) => deps.auditIndex.restoreIndexed(org.id, ids),
  };
}
