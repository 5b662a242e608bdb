// The Cusp service as the bench runs it: src/server.ts on embedded defaults
// with a fresh data directory (rows on the one Cusp server), or the same
// settings for `npm run start:cluster` (rows n1, n2).

import { join } from "node:path";
import { type Server, startServer } from "./servers";
import { ROOT } from "./settings";

/** The settings every Cusp process of the bench runs with, on `dataDir`'s local shard. */
export function cuspEnv(dataDir: string): Record<string, string> {
  return {
    DEFAULT_SHARD_DSN: `file:${join(dataDir, "shards", "local")}`,
    LOG_LEVEL: "warn",
    NODE_ENV: "development",
    // The bench is one client at full speed: limits far above it keep the
    // buckets' bookkeeping in every figure without refusing anything.
    RATE_LIMIT_READ: "10000000/s,10000000",
    RATE_LIMIT_WRITE: "10000000/s,10000000",
    RATE_LIMIT_AUTH: "10000000/s,10000000",
  };
}

/** src/server.ts on `dataDir` (an empty folder): local SQLite files, in-process cache, PGlite queue. */
export function startCusp(dataDir: string): Promise<Server> {
  return startServer("cusp", join(ROOT, "src", "server.ts"), { DATA_DIR: dataDir, ...cuspEnv(dataDir) }, "/api/ping");
}
