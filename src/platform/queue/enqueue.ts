import type { z } from "zod";
import { systemActor, type Actor } from "@/platform/auth/actor";
import { definedJob, type JobDefinition } from "./jobs";
import type { JobQueue } from "./types";

// The one way a job reaches the queue. A write queues its jobs inside its
// transaction (queueJob: the payload is checked there, so a bad one fails the
// write, not the job later) and they are sent once it has committed: org
// writes by their commit effects (records/transaction.ts), control-database
// writes by Orgs.writeControl. Work outside any write (a job queueing
// others, an operator's script) calls enqueue, which checks and sends the
// same way.

export type JobOptions = {
  /** One job of the type per key at a time (pg-boss singletonKey). */
  singletonKey?: string;
  startAfterSeconds?: number;
};

/** A job a write queued, its payload already checked against the job's schema. */
export type PendingJob = JobOptions & {
  job: JobDefinition;
  payload: unknown;
  /** Who caused it and where, when the write is not an org's own (a control-database write names them per job). */
  origin?: JobOrigin;
};

/** Who caused a job and where: carried in its envelope to the handler (JobContext). */
export type JobOrigin = { actor?: Actor; requestId?: string | null; orgId?: string | null };

/** Queue a job inside a write: what an org write's after-commit reactions get (platform/moments). */
export type QueueJob = <S extends z.ZodType>(job: JobDefinition<S>, payload: z.input<S>, options?: JobOptions) => void;

/** Check the payload now and keep the job for after commit. */
export function pendingJob<S extends z.ZodType>(job: JobDefinition<S>, payload: z.input<S>, options: JobOptions & { origin?: JobOrigin } = {}): PendingJob {
  return { ...options, job: job as unknown as JobDefinition, payload: job.payload.parse(payload) };
}

/** Inside an org write (`s` its scope): the job is sent after the write commits; the same job queued twice by one write is sent once. */
export function queueJob<S extends z.ZodType>(s: { after: { jobs: PendingJob[] } }, job: JobDefinition<S>, payload: z.input<S>, options?: JobOptions): void {
  const pending = pendingJob(job, payload, options);
  const same = (p: PendingJob) =>
    p.job.id === job.id &&
    p.singletonKey === pending.singletonKey &&
    p.startAfterSeconds === pending.startAfterSeconds &&
    JSON.stringify(p.payload) === JSON.stringify(pending.payload);
  if (!s.after.jobs.some(same)) s.after.jobs.push(pending);
}

/** Hand a checked job to the queue; the actor defaults to the job type's system actor. */
export function sendJob(queue: JobQueue, pending: PendingJob, origin: JobOrigin = pending.origin ?? {}): Promise<string | null> {
  const { job, payload, singletonKey, startAfterSeconds } = pending;
  return queue.send(
    job.id,
    { payload, actor: origin.actor ?? systemActor(job.id), request_id: origin.requestId ?? null, org_id: origin.orgId ?? null },
    { singletonKey, startAfterSeconds },
  );
}

/** Outside a write: check the payload and send the job now; returns its id. A string names a defined job type. */
export async function enqueue<S extends z.ZodType>(
  rt: { queue: JobQueue | null },
  job: JobDefinition<S> | string,
  payload: z.input<S>,
  options: JobOptions & JobOrigin = {},
): Promise<string | null> {
  if (!rt.queue) throw new Error("this runtime has no job queue");
  const def = typeof job === "string" ? (definedJob(job) as unknown as JobDefinition<S>) : job;
  const { singletonKey, startAfterSeconds, ...origin } = options;
  return sendJob(rt.queue, pendingJob(def, payload, { singletonKey, startAfterSeconds }), origin);
}
