// Rows (n1) and (n2) of `bun run bench`: the booking pipeline against one and
// then two API processes started by `npm run start:cluster` (scripts/cluster.ts)
// on the bench's own data directory, in the production layout (PostgreSQL
// queue with a worker process, Redis for caches, events and limits). Both rows
// run on that layout so that they compare the number of instances and nothing
// else. PostgreSQL and Redis come from BENCH_PG_URL / BENCH_REDIS_URL (default
// the local services); without them the rows are skipped, with the reason.

import { join, resolve } from "node:path";
import { SQL, type Subprocess } from "bun";
import Redis from "ioredis";

const ROOT = resolve(import.meta.dir, "..");
export const BENCH_PG_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
export const BENCH_REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";

/** Null when both services answer; otherwise why not. */
export async function clusterServicesDown(): Promise<string | null> {
  const pg = new SQL({ url: BENCH_PG_URL, max: 1, connectionTimeout: 3 });
  try {
    await pg`SELECT 1`;
  } catch (err) {
    return `PostgreSQL at ${BENCH_PG_URL} did not answer (${(err as Error).message})`;
  } finally {
    await pg.close().catch(() => {});
  }
  return redisDown();
}

/** Null when Redis answers; otherwise why not. */
export async function redisDown(): Promise<string | null> {
  const redis = new Redis(BENCH_REDIS_URL, { lazyConnect: true, connectTimeout: 3_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on("error", () => {});
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (err) {
    return `Redis at ${BENCH_REDIS_URL} did not answer (${(err as Error).message || "connection refused"})`;
  } finally {
    redis.disconnect();
  }
}

export type Cluster = { base: string; proc: Subprocess; pids: number[]; stop(): Promise<void> };

/** `instances` API processes and one worker on `dataDir`; answers once scripts/cluster.ts reports every pid. */
export async function startCluster(opts: { instances: number; port: number; dataDir: string; env: Record<string, string>; log: string }): Promise<Cluster> {
  const schema = `bench_${Date.now().toString(36)}_${opts.instances}`;
  const proc = Bun.spawn([process.execPath, "run", join(ROOT, "scripts", "cluster.ts")], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...opts.env,
      DATA_DIR: opts.dataDir,
      PORT: String(opts.port),
      INSTANCES: String(opts.instances),
      WORKER_PROCESSES: "1",
      REDIS_URL: BENCH_REDIS_URL,
      QUEUE_DATABASE_URL: `${BENCH_PG_URL}?schema=${schema}`,
    },
    stdout: "pipe",
    stderr: Bun.file(opts.log),
  });
  let out = "";
  const decoder = new TextDecoder();
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const started = /cluster: \d+ API processes on port \d+ \(pids ([\d, ]+)\), \d+ worker processes \(pids ([\d, ]+)\)/;
  const deadline = Date.now() + 90_000;
  let match: RegExpExecArray | null = null;
  while (!match) {
    if (Date.now() > deadline || proc.exitCode !== null) {
      proc.kill("SIGKILL");
      throw new Error(`the cluster did not start (exit ${proc.exitCode}); its output: ${out}; log: ${opts.log}`);
    }
    const chunk = await reader.read();
    if (chunk.done) continue;
    out += decoder.decode(chunk.value);
    match = started.exec(out);
  }
  void (async () => {
    for (;;) if ((await reader.read()).done) return; // keep draining so the script never blocks on a full pipe
  })();
  const pids = `${match[1]}, ${match[2]}`.split(",").map((p) => Number(p.trim()));
  const dropSchema = async () => {
    const sql = new SQL({ url: BENCH_PG_URL, max: 1 });
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => {});
    await sql.close();
  };
  return {
    base: `http://127.0.0.1:${opts.port}`,
    proc,
    pids,
    async stop() {
      proc.kill("SIGTERM");
      const done = await Promise.race([proc.exited.then(() => true), Bun.sleep(60_000).then(() => false)]);
      if (!done) proc.kill("SIGKILL");
      await proc.exited;
      await dropSchema();
    },
  };
}
