import type { Config } from "@/config";
import type { Logger } from "@/platform/logger";
import type { JobQueue } from "./types";

/** pg-boss on PGlite in-process by default; on PostgreSQL when QUEUE_DATABASE_URL is set. */
export async function createQueue(config: Config, logger: Logger): Promise<JobQueue> {
  const { createPgBossQueue } = await import("./pg-boss");
  return createPgBossQueue(config, logger);
}
