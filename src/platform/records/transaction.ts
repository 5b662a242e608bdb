import { auditIndex } from "@db/control/schema";
import { run } from "@/platform/db/work";
import { nowIso } from "@/platform/ids";
import { systemActor } from "@/platform/auth/actor";
import type { AfterCommit, OrgContext, TxScope, WriteWork } from "./context";

/**
 * Run a write: one short transaction on the org's database that also writes the
 * audit rows; then, only after commit, publish events, index the audit entries
 * on the control database and enqueue jobs. This is the only way verbs write.
 */
export async function withTransaction<T>(ctx: OrgContext, work: WriteWork<T>): Promise<T> {
  const after: AfterCommit = { events: [], audit: [], jobs: [] };
  const result = await ctx.db.write((tx) => work({ ...ctx, tx, now: nowIso(), after } satisfies TxScope));
  await afterCommit(ctx, after);
  return result;
}

async function afterCommit(ctx: OrgContext, after: AfterCommit): Promise<void> {
  const { runtime, org } = ctx;
  if (after.audit.length) {
    try {
      await runtime.control.write((tx) => run(tx.insert(auditIndex).values(after.audit.map((a) => ({ ...a, org_id: org.id, org_name: org.name })))));
    } catch (err) {
      // The org's own trail already holds the entry; the index can be rebuilt from it.
      runtime.logger.error({ err: (err as Error).message, request_id: ctx.requestId }, "audit index write failed");
    }
  }
  for (const event of after.events) await runtime.events.publish(org.id, event);
  if (runtime.queue) {
    for (const job of after.jobs) {
      await runtime.queue.send(job.name, { payload: job.payload, actor: ctx.actor.type === "user" ? ctx.actor : systemActor(job.name), request_id: ctx.requestId, org_id: org.id }, { singletonKey: job.singletonKey });
    }
  }
}
