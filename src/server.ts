import { loadConfig } from "./config";
import { buildApp } from "./app";
import { closeRuntime, createRuntime } from "./platform/bootstrap/create-runtime";
import { closeAllStreams } from "./domains/system/stream";
import { startWorkers } from "@/platform/queue/workers";
import { JOBS } from "@workers/registry";
import { REACTIONS } from "./reactions";
import { stateOf } from "@/platform/http/request-state";

// Start-up: config, databases, app, workers; then a graceful shutdown that
// stops accepting, ends event streams and lets in-flight requests finish.
const config = loadConfig();
const rt = await createRuntime(config, { reactions: REACTIONS });
// jobs write org databases: they run in the primary region only (an edge's replicas are read-only)
const stopWorkers = rt.queue && config.queue.workers === "in-process" && !config.regions.edge ? await startWorkers(rt, JOBS) : async () => {};
const app = buildApp(rt);
const server = Bun.serve({
  port: config.port,
  reusePort: config.reusePort,
  // Elysia learns the server only from its own listen(): handed here, so a request's client address is known (audit rows, rate limits)
  fetch: (request, server) => {
    stateOf(request).server = server;
    return app.fetch(request);
  },
  maxRequestBodySize: config.uploadLimit + 1024 * 1024,
  idleTimeout: 60,
});
rt.logger.info(
  {
    port: server.port,
    data_dir: config.dataDir,
    queue: rt.queue?.kind ?? "none",
    cache: rt.cache.kind,
    storage: rt.storage.kind,
    region: config.regions.region,
    ...(config.regions.edge ? { edge_of: config.regions.primary, writes: config.regions.writes } : {}),
  },
  "cusp listening",
);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  rt.logger.info({ signal }, "shutting down");
  closeAllStreams();
  await server.stop(false);
  await Bun.sleep(50); // let after-response hooks (request logs, idempotency writes) of the last requests run
  await stopWorkers();
  await closeRuntime(rt);
  rt.logger.info("stopped");
  rt.logger.flush();
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
