import type { JobContext } from "@/platform/queue/handlers";
import { runBatch } from "./batch";

/** A statement batch's selection: its statements made (and their renders queued) as the job's system actor. */
export default async function statementBatchJob({ rt, payload, actor, requestId, orgId, logger }: JobContext<{ batch_id: string }>) {
  const ctx = orgId ? await rt.orgs.openOrgForJob(orgId, { actor, requestId }) : null;
  if (!ctx) return { org_missing: true };
  const result = await runBatch(ctx, payload.batch_id);
  logger.info({ batch_id: payload.batch_id, ...result }, "statement batch selected");
  return { batch_id: payload.batch_id, ...result };
}
