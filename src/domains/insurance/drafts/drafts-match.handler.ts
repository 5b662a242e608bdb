import type { JobContext } from "@/platform/queue/handlers";
import { matchImportDrafts } from "./batches";

type Payload = { import_id: string; patient_id: string };

/**
 * Idempotent: only drafts with match_attempted false are read, and each batch marks the ones it
 * matched in the same write, so a retried or duplicated job redoes nothing. The org is re-opened
 * by id (null when it is gone: nothing to do).
 */
export default async function draftsMatchJob({ rt, payload, actor, requestId, orgId, logger }: JobContext<Payload>) {
  if (!orgId) throw new Error("insurance.drafts-match needs the org of the import");
  const ctx = await rt.orgs.openOrgForJob(orgId, { actor, requestId });
  if (!ctx) {
    logger.warn({ import_id: payload.import_id }, "the org of the import no longer exists");
    return { import_id: payload.import_id, org_missing: true };
  }
  const result = await matchImportDrafts(ctx, payload.import_id, payload.patient_id, {
    onBatch: (b) => logger.debug({ import_id: payload.import_id, ...b }, "draft batch matched"),
  });
  logger.info({ import_id: payload.import_id, ...result }, "drafts matched");
  return { import_id: payload.import_id, ...result };
}
