// `npm run start:cluster`: several API processes on one port and separate worker
// processes on one machine, sharing PostgreSQL (jobs), Redis (events, caches,
// rate limits, login counters) and DATA_DIR (the control database and the org
// shards). docs/operations/deploy.md, "Several instances on one machine".
//
// INSTANCES (2) API processes listen on PORT (3000) with SO_REUSEPORT, so the
// kernel spreads connections over them; WORKER_PROCESSES (1) run the jobs.
// REDIS_URL and QUEUE_DATABASE_URL default to the local services
// (redis://127.0.0.1:6379, postgres://postgres@127.0.0.1:5432/postgres) and are
// probed first: without them the processes would each keep their own cache and
// could not share a queue, so the cluster refuses to start. The first API
// process is started alone and must answer /api/health before the others
// (it migrates the control database and creates the bootstrap administrator).
// A process that dies is started again; SIGTERM or SIGINT stops them all
// gracefully.

import { resolve } from "node:path";
import { SQL } from "bun";
import Redis from "ioredis";

const ROOT = resolve(import.meta.dir, "..");
const int = (name: string, fallback: number, min: number) => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < min) throw new Error(`${name} must be a whole number of at least ${min}`);
  return v;
};
const INSTANCES = int("INSTANCES", 2, 1);
const WORKER_PROCESSES = int("WORKER_PROCESSES", 1, 1);
const PORT = int("PORT", 3000, 1);
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const QUEUE_DATABASE_URL = process.env.QUEUE_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const RESTARTS_PER_MINUTE = 5;

const log = (msg: string) => console.log(`cluster: ${msg}`);

async function probe(): Promise<string[]> {
  const problems: string[] = [];
  const pg = new SQL({ url: QUEUE_DATABASE_URL.replace(/\?.*$/, ""), max: 1, connectionTimeout: 3 });
  try {
    await pg`SELECT 1`;
  } catch (err) {
    problems.push(`PostgreSQL at QUEUE_DATABASE_URL did not answer (${(err as Error).message})`);
  } finally {
    await pg.close().catch(() => {});
  }
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 3_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on("error", () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    problems.push(`Redis at REDIS_URL did not answer (${(err as Error).message || "connection refused"})`);
  } finally {
    redis.disconnect();
  }
  return problems;
}

type Role = "api" | "worker";
type Child = { role: Role; index: number; proc: ReturnType<typeof Bun.spawn>; restarts: number[] };

const env = { ...process.env, PORT: String(PORT), REUSE_PORT: "true", WORKERS: "external", REDIS_URL, QUEUE_DATABASE_URL };
const children: Child[] = [];
let stopping = false;

function spawn(role: Role, index: number, restarts: number[] = []): Child {
  const entry = role === "api" ? "src/server.ts" : "workers/main.ts";
  const proc = Bun.spawn([process.execPath, "run", entry], {
    cwd: ROOT,
    env: { ...env, CLUSTER_INSTANCE: `${role}-${index}` },
    stdout: "inherit",
    stderr: "inherit",
  });
  const child: Child = { role, index, proc, restarts };
  const at = children.findIndex((c) => c.role === role && c.index === index);
  if (at >= 0) children[at] = child;
  else children.push(child);
  void proc.exited.then((code) => onExit(child, code));
  return child;
}

function onExit(child: Child, code: number | null) {
  if (stopping || !children.includes(child)) return;
  const now = Date.now();
  const recent = [...child.restarts.filter((t) => now - t < 60_000), now];
  if (recent.length > RESTARTS_PER_MINUTE) {
    log(`${child.role} ${child.index} exited (${code}) ${recent.length} times in a minute: stopping the cluster`);
    void stop(1);
    return;
  }
  log(`${child.role} ${child.index} (pid ${child.proc.pid}) exited with ${code}: starting it again`);
  setTimeout(() => {
    if (!stopping) spawn(child.role, child.index, recent);
  }, 500);
}

async function healthy(timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/api/health`)).ok) return true;
    } catch {}
    await Bun.sleep(100);
  }
  return false;
}

async function stop(code: number) {
  if (stopping) return;
  stopping = true;
  log("stopping");
  for (const c of children) c.proc.kill("SIGTERM");
  const forced = setTimeout(() => {
    for (const c of children) c.proc.kill("SIGKILL");
  }, 45_000);
  await Promise.all(children.map((c) => c.proc.exited));
  clearTimeout(forced);
  log("stopped");
  process.exit(code);
}

const problems = await probe();
if (problems.length) {
  for (const p of problems) log(p);
  log("several instances need both (docs/operations/deploy.md); set REDIS_URL and QUEUE_DATABASE_URL, or use `npm start` for one process");
  process.exit(1);
}
process.on("SIGTERM", () => void stop(0));
process.on("SIGINT", () => void stop(0));

spawn("api", 0);
if (!(await healthy(60_000))) {
  log("the first API process did not answer /api/health within 60 s");
  await stop(1);
}
for (let i = 1; i < INSTANCES; i++) spawn("api", i);
for (let i = 0; i < WORKER_PROCESSES; i++) spawn("worker", i);
log(
  `${INSTANCES} API processes on port ${PORT} (pids ${children
    .filter((c) => c.role === "api")
    .map((c) => c.proc.pid)
    .join(", ")}), ${WORKER_PROCESSES} worker processes (pids ${children
    .filter((c) => c.role === "worker")
    .map((c) => c.proc.pid)
    .join(", ")})`,
);
