import type { z } from "zod";
import { systemActor, type Actor } from "@/platform/auth/actor";
import { newId } from "@/platform/ids";
import { definedJob, type JobDefinition } from "./jobs";
import type { JobQueue } from "./types";

// The one way a job reaches the queue. A write queues its jobs inside its
// transaction (queueJob: the payload is checked there, so a bad one fails the
// write, not the job later); the write records them in its database's job
// outbox in the same transaction (./outbox.ts), so a committed write never
// loses one, and they are handed to the queue after commit, each under its own
// id (a second hand-over of one job adds nothing). Org writes do this through
// their commit effects (records/transaction.ts), control-database writes
// through Orgs.writeControl. Work outside any write (a job queueing others, an
// operator's script) calls enqueue, which checks and sends at once. Everything
// ends in sendRow.

export type JobOptions = {
  /** One job of the type per key at a time (pg-boss singletonKey). */
  singletonKey?: string;
  startAfterSeconds?: number;
};

/** Who caused a job and where: carried in its envelope to the handler (JobContext). */
export type JobOrigin = { actor?: Actor; requestId?: string | null; orgId?: string | null };

/** A job a write queued, its payload already checked against the job's schema; `id` is also its id in the queue. */
export type PendingJob = JobOptions & {
  id: string;
  job: JobDefinition;
  payload: unknown;
  /** Who caused it and where, when the write is not an org's own (a control-database write names them per job). */
  origin?: JobOrigin;
};

/** A job as the outbox keeps it and the queue takes it (the columns of db/*: job_outbox). */
export type JobRow = {
  id: string;
  name: string;
  payload: unknown;
  actor: Actor | null;
  request_id: string | null;
  org_id: string | null;
  singleton_key: string | null;
  start_after_seconds: number | null;
};

/** Queue a job inside a write: what an org write's after-commit reactions get (platform/moments). */
export type QueueJob = <S extends z.ZodType>(job: JobDefinition<S>, payload: z.input<S>, options?: JobOptions) => void;

/** Check the payload now and keep the job for after commit. */
export function pendingJob<S extends z.ZodType>(job: JobDefinition<S>, payload: z.input<S>, options: JobOptions & { origin?: JobOrigin } = {}): PendingJob {
  return { ...options, id: newId(), job: job as unknown as JobDefinition, payload: job.payload.parse(payload) };
}

/** Inside an org write (`s` its scope): the job is recorded with the write; the same job queued twice by one write is kept once. */
export function queueJob<S extends z.ZodType>(s: { after: { jobs: PendingJob[] } }, job: JobDefinition<S>, payload: z.input<S>, options?: JobOptions): void {
  const pending = pendingJob(job, payload, options);
  const same = (p: PendingJob) =>
    p.job.id === job.id &&
    p.singletonKey === pending.singletonKey &&
    p.startAfterSeconds === pending.startAfterSeconds &&
    JSON.stringify(p.payload) === JSON.stringify(pending.payload);
  if (!s.after.jobs.some(same)) s.after.jobs.push(pending);
}

/** The row of a pending job, its origin (the write's, or its own) filled in. */
export function jobRow(pending: PendingJob, origin: JobOrigin = pending.origin ?? {}): JobRow {
  const o = { ...origin, ...pending.origin };
  return {
    id: pending.id,
    name: pending.job.id,
    payload: pending.payload,
    actor: o.actor ?? null,
    request_id: o.requestId ?? null,
    org_id: o.orgId ?? null,
    singleton_key: pending.singletonKey ?? null,
    start_after_seconds: pending.startAfterSeconds ?? null,
  };
}

/**
 * Hand a job to the queue. A recorded job goes under its own id (`keyed`): the
 * queue ignores an id it has seen, so a repeated hand-over adds nothing; a job
 * sent at once (enqueue) lets the queue name it.
 */
export function sendRow(queue: JobQueue, row: JobRow, keyed = true): Promise<string | null> {
  return queue.send(
    row.name,
    { payload: row.payload, actor: row.actor ?? systemActor(row.name), request_id: row.request_id, org_id: row.org_id },
    { ...(keyed ? { id: row.id } : {}), singletonKey: row.singleton_key ?? undefined, startAfterSeconds: row.start_after_seconds ?? undefined },
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
  return sendRow(rt.queue, jobRow(pendingJob(def, payload, { singletonKey, startAfterSeconds }), origin), false);
}
