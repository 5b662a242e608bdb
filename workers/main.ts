import { loadConfig } from "@/config";
import { createLogger } from "@/platform/logger";
import { closeRuntime, createRuntime } from "@/platform/bootstrap/create-runtime";
import { startWorkers } from "@/platform/queue/workers";
import { JOBS } from "./registry";
import { REACTIONS } from "@/reactions";

// A worker process (`bun run worker`): the same runtime as the API, no HTTP; it runs
// the jobs of every type in workers/registry.ts until SIGTERM or SIGINT, then stops
// fetching, lets jobs in flight finish (up to 30 seconds)
// and exits. Run the API with WORKERS=external so that it does not run jobs itself.

const config = loadConfig();
const logger = createLogger(config.logLevel);

if (!config.queue.url) {
  // The embedded PGlite queue is a directory only one process may open: the API's.
  logger.fatal(
    "separate worker processes need QUEUE_DATABASE_URL (PostgreSQL); without it the queue is PGlite inside the API process, so run the API with WORKERS=in-process",
  );
  process.exit(1);
}

if (config.regions.edge) {
  // jobs write org databases, and an edge region's replicas are read-only
  logger.fatal({ region: config.regions.region, primary_region: config.regions.primary }, "worker processes run in the primary region only");
  process.exit(1);
}

const stopTimeoutMs = 30_000;
const rt = await createRuntime(config, { logger, reactions: REACTIONS });
const stopWorkers = await startWorkers(rt, JOBS);
logger.info({ pid: process.pid, queue: rt.queue?.kind }, "cusp worker running");

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) {
    logger.warn({ signal }, "second signal: exiting without waiting for jobs in flight");
    process.exit(1);
  }
  stopping = true;
  logger.info({ signal }, "worker shutting down");
  const deadline = setTimeout(() => {
    logger.error("jobs in flight did not finish in time: exiting");
    process.exit(1);
  }, stopTimeoutMs + 15_000);
  try {
    await stopWorkers({ timeoutMs: stopTimeoutMs });
    await rt.queue?.stop({ timeoutMs: 5000 }); // workers are off; this fails what is still running (retried later)
    await closeRuntime(rt);
    clearTimeout(deadline);
    logger.info("worker stopped");
    process.exit(0);
  } catch (err) {
    logger.error({ err: (err as Error).message }, "worker shutdown failed");
    process.exit(1);
  }
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
