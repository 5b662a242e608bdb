import type { z } from "zod";
import type { Runtime } from "@/platform/runtime";
import { systemActor, type Actor } from "@/platform/auth/actor";
import type { JobEnvelope, QueuedJob } from "@/platform/queue/types";
import type { JobDefinition } from "./jobs/define";
import { auditRetention } from "./jobs/audit-retention";
import { healthProbe } from "./jobs/health-probe";
import { ledgerAgeBalances } from "@/domains/patients/ledger/age-balances.job";
import { estimatesRecompute } from "@/domains/insurance/estimates/recompute.job";
import { draftsMatch } from "@/domains/insurance/drafts/drafts-match.job";
import { orgsPurge } from "@/domains/admin/purge.job";
import { orgsMove } from "@/domains/admin/move.job";
import { approvalsExpire } from "@/domains/iam/access/approvals-expire.job";
import { revenueListsDrift } from "@/domains/revenue/lists/drift.job";
import { documentsClassify, documentsOcr, documentsResume, documentsScan, documentsThumbnail } from "@/domains/documents/pipeline/jobs";

/** Every job type, in one list. A type missing here has no worker and no schedule. */
export const JOBS: readonly JobDefinition[] = [
  auditRetention,
  healthProbe,
  ledgerAgeBalances,
  draftsMatch,
  estimatesRecompute,
  documentsScan,
  documentsOcr,
  documentsClassify,
  documentsThumbnail,
  documentsResume,
  orgsPurge,
  orgsMove,
  approvalsExpire,
  revenueListsDrift,
];

const byId = new Map(JOBS.map((d) => [d.id, d]));
if (byId.size !== JOBS.length) throw new Error("duplicate job id in workers/registry.ts");

export function jobDefinition(id: string): JobDefinition {
  const def = byId.get(id);
  if (!def) throw new Error(`unknown job type "${id}"`);
  return def;
}

export type EnqueueOptions = {
  /** Who caused the job (default: the system actor of the job type). */
  actor?: Actor;
  orgId?: string | null;
  requestId?: string | null;
  singletonKey?: string;
  startAfterSeconds?: number;
};

/** Validate the payload against the job type's schema and enqueue it; returns the job id. */
export async function enqueue<S extends z.ZodType>(
  rt: Pick<Runtime, "queue">,
  job: JobDefinition<S> | string,
  payload: z.input<S>,
  options: EnqueueOptions = {},
): Promise<string | null> {
  if (!rt.queue) throw new Error("this runtime has no job queue");
  const def = typeof job === "string" ? jobDefinition(job) : job;
  const envelope: JobEnvelope<unknown> = {
    payload: def.payload.parse(payload),
    actor: options.actor ?? systemActor(def.id),
    request_id: options.requestId ?? null,
    org_id: options.orgId ?? null,
  };
  return rt.queue.send(def.id, envelope, { singletonKey: options.singletonKey, startAfterSeconds: options.startAfterSeconds });
}

async function runJob(rt: Runtime, def: JobDefinition, job: QueuedJob<unknown>): Promise<unknown> {
  const env: Partial<JobEnvelope<unknown>> = job.data ?? {};
  const logger = rt.logger.child({ job: def.id, job_id: job.id, attempt: job.retryCount + 1, org_id: env.org_id ?? null, request_id: env.request_id ?? null });
  const started = performance.now();
  try {
    // A payload that no longer fits the schema fails the attempt (and is retried up to the queue's retryLimit).
    const payload = def.payload.parse(env.payload ?? {});
    const { default: handler } = await def.handler();
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
 * Register a worker for every job type, bring queue settings and cron schedules in
 * line with JOBS (schedules of types no longer listed are removed), and return a
 * stop function that stops fetching and waits (up to 30 s by default) for jobs in flight.
 */
export async function startWorkers(rt: Runtime): Promise<(options?: { timeoutMs?: number }) => Promise<void>> {
  const queue = rt.queue;
  if (!queue) throw new Error("startWorkers needs a runtime with a job queue");

  for (const def of JOBS) {
    await queue.ensureQueue(def.id, def.queue);
    if (def.cron) {
      await queue.schedule(def.id, def.cron, { payload: {}, actor: systemActor(def.id), request_id: null, org_id: null }, { tz: def.tz, missed: def.missed });
    }
  }
  for (const s of await queue.schedules()) {
    if (!byId.get(s.name)?.cron) await queue.unschedule(s.name);
  }

  const started: string[] = [];
  try {
    for (const def of JOBS) {
      await queue.work(def.id, def.work ?? {}, (job) => runJob(rt, def, job));
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
