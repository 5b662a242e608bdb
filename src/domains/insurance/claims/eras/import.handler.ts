import type { JobContext } from "@/platform/queue/handlers";
import { importEra } from "./import";

/** One ERA read, matched and posted as the job's system actor carrying the causing request's id. */
export default async function eraImportJob({ rt, payload, actor, requestId, orgId, logger }: JobContext<{ era_id: string; post: boolean }>) {
  const ctx = orgId ? await rt.orgs.openOrgForJob(orgId, { actor, requestId }) : null;
  if (!ctx) return { org_missing: true };
  const result = await importEra(rt, ctx, payload.era_id, { post: payload.post });
  logger.info({ era_id: payload.era_id, ...result }, "era imported");
  return { era_id: payload.era_id, ...result };
}
