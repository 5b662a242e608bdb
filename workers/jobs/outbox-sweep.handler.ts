import type { JobContext } from "@/platform/queue/handlers";

/**
 * queue.outbox-sweep: each org's job outbox, then the control database's,
 * handed over by the relay (a row handed over twice is one job). One org
 * failing does not stop the others; the attempt then fails and is retried.
 */
export default async function outboxSweep({ rt, actor, requestId, logger }: JobContext<Record<string, never>>) {
  let left = 0;
  const { total, failed } = await rt.orgs.forEachOrg({ actor, requestId }, { includeArchived: true }, async (ctx) => {
    left += await rt.orgs.jobRelay.relayOrg(ctx.org.id, ctx.db);
  });
  await rt.orgs.jobRelay.pass();
  for (const f of failed) logger.error({ org_id: f.orgId, err: f.error.message }, "outbox sweep failed for an org");
  if (failed.length) throw new Error(`the outbox sweep failed for ${failed.length} of ${total} orgs`);
  return { orgs_swept: total, jobs_left: left };
}
