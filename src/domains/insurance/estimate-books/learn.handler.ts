import type { JobContext } from "@/platform/queue/handlers";
import { learnAllowedFees } from "./learn";

/** The books' runs, as the job's system actor carrying the causing request's id. */
export default async function learnJob({ rt, payload, actor, requestId, orgId }: JobContext<{ book_ids: string[] }>) {
  const ctx = orgId ? await rt.orgs.openOrgForJob(orgId, { actor, requestId }) : null;
  if (!ctx) return { org_missing: true };
  return { learned: await learnAllowedFees(ctx, payload.book_ids) };
}
