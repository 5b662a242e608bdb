import type { JobContext } from "@/platform/queue/handlers";
import { enqueue } from "@/platform/queue/enqueue";
import { STEP_JOBS } from "./jobs";
import { stalledSteps, stepJobKey } from "./steps";

/**
 * documents.resume: in every org, the first unfinished step of each stalled
 * version (steps.ts stalledSteps) is sent again, carrying the upload's request
 * id. One org failing does not stop the others; the attempt then fails.
 */
export default async function resumeStalledPipelines({ rt, actor, requestId, logger }: JobContext<Record<string, never>>) {
  let resumed = 0;
  const { total, failed } = await rt.orgs.forEachOrg({ actor, requestId }, { includeArchived: false }, async (ctx) => {
    for (const s of await ctx.db.read((db) => stalledSteps(db, new Date()))) {
      const payload = { document_id: s.document_id, version_number: s.version_number };
      await enqueue(rt, STEP_JOBS[s.step], payload, {
        orgId: ctx.org.id,
        requestId: s.request_id,
        singletonKey: stepJobKey(payload, s.step),
      });
      resumed++;
    }
  });
  for (const f of failed) logger.error({ org_id: f.orgId, err: f.error.message }, "resuming document pipelines failed for an org");
  const result = { steps_resumed: resumed, orgs_processed: total - failed.length, orgs_failed: failed.length };
  if (failed.length) throw new Error(`resuming document pipelines failed for ${failed.length} of ${total} orgs`);
  return result;
}
