import type { Runtime } from "@/platform/runtime";
import { systemActor } from "@/platform/auth/actor";
import type { JobDefinition } from "./jobs";
import type { JobType } from "./handlers";
import type { JobEnvelope, QueuedJob } from "./types";

// Runs the jobs of the types a process lists (workers/registry.ts): the API
// process with WORKERS=in-process, or a worker process (workers/main.ts).

async function runJob(rt: Runtime, { definition: def, handler: load }: JobType, job: QueuedJob<unknown>): Promise<unknown> {
  const env: Partial<JobEnvelope<unknown>> = job.data ?? {};
  const logger = rt.logger.child({ job: def.id, job_id: job.id, attempt: job.retryCount + 1, org_id: env.org_id ?? null, request_id: env.request_id ?? null });
  const started = performance.now();
  try {
    // checked against the schema when it was queued (./enqueue.ts); a scheduled job carries {}
    const payload = env.payload ?? {};
    const { default: handler } = await load();
    const output = await handler({
      rt,
      payload,
      logger,
      actor: systemActor(def.id),
      causedBy: env.actor ?? systemActor(def.id),
      orgId: env.org_id ?? null,
      requestId: env.request_id ?? null,
      job: { id: job.id, name: job.name, retryCount: job.retryCount },
    });
    logger.info({ ms: Math.round(performance.now() - started) }, "job completed");
    return output ?? null;
  } catch (err) {
    logger.error({ ms: Math.round(performance.now() - started), err: (err as Error).message }, "job failed");
    throw err;
  }
}

const STOP_TIMEOUT_MS = 30_000;

/**
 * Register a worker for every job type of `jobs`, bring queue settings and cron schedules in
 * line with them (schedules of types no longer listed are removed), and return a
 * stop function that stops fetching and waits (up to 30 s by default) for jobs in flight.
 */
export async function startWorkers(rt: Runtime, jobs: readonly JobType[]): Promise<(options?: { timeoutMs?: number }) => Promise<void>> {
  const queue = rt.queue;
  if (!queue) throw new Error("startWorkers needs a runtime with a job queue");

  const defs: JobDefinition[] = jobs.map((j) => j.definition);
  for (const def of defs) {
    await queue.ensureQueue(def.id, def.queue);
    if (def.cron) {
      await queue.schedule(def.id, def.cron, { payload: {}, actor: systemActor(def.id), request_id: null, org_id: null }, { tz: def.tz, missed: def.missed });
    }
  }
  for (const s of await queue.schedules()) {
    if (!defs.find((d) => d.id === s.name)?.cron) await queue.unschedule(s.name);
  }

  const started: string[] = [];
  try {
    for (const type of jobs) {
      const def = type.definition;
      await queue.work(def.id, def.work ?? {}, (job) => runJob(rt, type, job));
      started.push(def.id);
    }
  } catch (err) {
    for (const id of started) await queue.offWork(id).catch(() => {});
    throw err;
  }
  rt.logger.info({ jobs: started, queue: queue.kind }, "workers started");

  let stopping: Promise<void> | null = null;
  return (options: { timeoutMs?: number } = {}) => {
    stopping ??= (async () => {
      const drained = Promise.all(
        started.map((id) => queue.offWork(id).catch((err) => rt.logger.warn({ job: id, err: (err as Error).message }, "stopping worker failed"))),
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timedOut = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), options.timeoutMs ?? STOP_TIMEOUT_MS);
      });
      // Jobs still running after the timeout are failed by queue.stop() and retried later (handlers are idempotent).
      if ((await Promise.race([drained, timedOut])) === "timeout") rt.logger.warn("jobs still running when the workers stopped");
      else rt.logger.info("workers stopped");
      clearTimeout(timer);
    })();
    return stopping;
  };
}
