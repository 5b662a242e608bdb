import { z } from "zod";
import { defineJob } from "@/platform/queue/jobs";

/**
 * Copies an org's database to another shard and switches the org to it
 * (POST /api/v1/admin/orgs/{id}/move; docs/admin/admin.md, "Moving an org between
 * shards"). Started on demand only; one at a time per org (singleton key).
 */
export const orgsMove = defineJob({
  id: "orgs.move",
  description: "Move an org's database to another shard",
  payload: z.object({ from_shard_id: z.string(), to_shard_id: z.string() }).strict(),
  queue: { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 3600 },
});
