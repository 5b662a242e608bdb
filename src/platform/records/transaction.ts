import { OrgMoving } from "@/platform/errors";
import { clearIndexPending, type AuditIndexWriter } from "@/platform/audit/index-writer";
import { nowIso } from "@/platform/ids";
import type { Caller } from "@/platform/auth/actor";
import type { EventPublisher } from "@/platform/events/publisher";
import { jobRow, type JobRow } from "@/platform/queue/enqueue";
import { recordOrgJobs, type JobRelay } from "@/platform/queue/outbox";
import type { OrgDatabase } from "@/platform/db/org-databases";
import type { OrgRecord } from "@/platform/tenancy/access";
import type { AfterCommit, CommitEffects, OrgContext, Reactions, TxScope, WriteWork } from "./context";

/**
 * Run a write: one short transaction on the org's database that also writes the
 * audit rows and records the jobs it causes; then, only after commit, publish
 * events, index the audit entries on the control database and hand the jobs to
 * the queue. This is the only way verbs write. Once the transaction has
 * committed, the answer is the write's: nothing after commit can fail it
 * (docs/platform/reliability.md).
 */
export async function withTransaction<T>(ctx: OrgContext, work: WriteWork<T>): Promise<T> {
  const { org, actor, requestId, ip, permissions } = ctx;
  for (let attempt = 1; ; attempt++) {
    const after: AfterCommit = { events: [], audit: [], jobs: [] };
    const db = ctx.db;
    const indexed = ctx.effects.takeIndexed();
    try {
      const now = nowIso();
      const result = await db.write(function* (tx) {
        if (indexed) yield* clearIndexPending(tx, indexed);
        const out = yield* work({ org, db, actor, requestId, ip, permissions, tx, now, after, reactions: ctx.effects.reactions } satisfies TxScope);
        yield* ctx.effects.recordJobs(tx, after, ctx, now);
        return out;
      });
      await ctx.effects.afterCommit(after, ctx, db);
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
  deps: { events: EventPublisher; relay: JobRelay; auditIndex: AuditIndexWriter; reactions: Reactions },
  org: OrgRecord,
): CommitEffects {
  // a job carries the user who caused it (a system actor's write leaves the job its own), the request and the org
  const rowsOf = (after: AfterCommit, who: Caller): JobRow[] =>
    after.jobs.map((job) => jobRow(job, { actor: who.actor.type === "user" ? who.actor : undefined, requestId: who.requestId, orgId: org.id }));
  return {
    reactions: deps.reactions,
    *recordJobs(tx, after, who, now) {
      // without a queue (some tests and scripts) there is no one to run them: nothing is recorded
      if (after.jobs.length && deps.relay.enabled) yield* recordOrgJobs(tx, rowsOf(after, who), now);
    },
    // None of these fails the write, which has committed: a failed index write leaves its entries
    // pending (the org's next open indexes them), a publish the bus refuses is kept and published
    // later, a job the queue does not take stays in the outbox for the relay.
    async afterCommit(after: AfterCommit, who: Caller, db: OrgDatabase) {
      // indexed with the entries of the other writes of this turn; events and jobs go out meanwhile,
      // and the write answers once the entries are in
      const indexed = after.audit.length ? deps.auditIndex.add(org, after.audit) : undefined;
      for (const event of after.events) await deps.events.publish(org.id, event);
      if (after.jobs.length) await deps.relay.afterOrgCommit(org.id, db, rowsOf(after, who));
      await indexed;
    },
    takeIndexed: () => deps.auditIndex.takeIndexed(org.id),
    restoreIndexed: (ids) => deps.auditIndex.restoreIndexed(org.id, ids),
  };
}
