// Worker processes (workers/main.ts) on a PostgreSQL queue of their own, for
// the tests that kill one mid-job: a fresh schema per test file, dropped at
// the end with every process the file started.
import { resolve } from "node:path";
import { SQL } from "bun";
import { PG_URL } from "./postgres";

const ROOT = resolve(import.meta.dir, "../..");

export function pgWorkerProcesses(prefix: string) {
  const schema = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const queueUrl = `${PG_URL}?schema=${schema}`;
  const workers: ReturnType<typeof Bun.spawn>[] = [];
  return {
    /** QUEUE_DATABASE_URL for the API side (startTestApp) and the workers. */
    queueUrl,
    /** A worker process on the test app's DATA_DIR, in production layout (WORKERS=external). */
    spawn(dataDir: string) {
      const worker = Bun.spawn([process.execPath, "run", "workers/main.ts"], {
        cwd: ROOT,
        env: { ...process.env, DATA_DIR: dataDir, QUEUE_DATABASE_URL: queueUrl, WORKERS: "external", LOG_LEVEL: "warn" },
        stdout: "ignore",
        stderr: "ignore",
      });
      workers.push(worker);
      return worker;
    },
    /** Kills every worker started, then (after `closeApp`: the API side's queue lets go of the schema) drops the queue's schema. */
    async cleanup(closeApp: () => Promise<void> = async () => {}) {
      for (const worker of workers) worker.kill("SIGKILL");
      await Promise.all(workers.map((x) => x.exited));
      await closeApp();
      const sql = new SQL({ url: PG_URL, max: 1 });
      await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await sql.close();
    },
  };
}
