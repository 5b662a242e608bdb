import type { JobContext } from "@/platform/queue/handlers";
import { runMove } from "./service";

type Payload = { from_shard_id: string; to_shard_id: string };

/** orgs.move: see runMove (idempotent; a retry after a killed worker copies again from scratch). */
export default async function orgsMoveJob({ rt, payload, actor, requestId, orgId, logger }: JobContext<Payload>) {
  if (!orgId) throw new Error("orgs.move needs the org to move");
  const outcome = await runMove(rt, orgId, payload.from_shard_id, payload.to_shard_id, { actor, requestId, ip: null });
  logger.info(outcome, "org move done");
  return outcome;
}
