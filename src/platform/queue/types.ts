import type { Actor } from "@/platform/auth/actor";

/** What every job carries besides its own payload: who caused it and why. */
export type JobEnvelope<P> = { payload: P; actor: Actor; request_id: string | null; org_id: string | null };

/** A job as a worker receives it. `retryCount` is 0 on the first attempt. */
export type QueuedJob<P> = { id: string; name: string; retryCount: number; data: JobEnvelope<P> };

export type JobState = "created" | "retry" | "active" | "completed" | "cancelled" | "failed";

/** A stored job, for operators and tests: its state and what the handler returned (or the error). */
export type JobRecord = {
  id: string;
  name: string;
  state: JobState;
  retryCount: number;
  output: unknown;
  createdOn: Date;
  completedOn: Date | null;
};

/** Per job type (queue) settings; every job of the type inherits them. */
export type QueueSettings = {
  /** Attempts after the first before the job is failed (default 2). */
  retryLimit?: number;
  /** Seconds between attempts (default 0; with retryBackoff the base of an exponential backoff). */
  retryDelay?: number;
  retryBackoff?: boolean;
  /** Seconds a job may stay active before it is retried or failed (default 900). */
  expireInSeconds?: number;
  /** Seconds finished jobs are kept (default 7 days). */
  deleteAfterSeconds?: number;
};

export type WorkSettings = {
  /** Jobs of this type one process runs at the same time (default 1). */
  concurrency?: number;
  /** Backstop poll interval; new jobs normally wake the worker through LISTEN/NOTIFY (default 2 s, minimum 0.5). */
  pollingIntervalSeconds?: number;
};

export type JobSchedule = { name: string; cron: string; timezone: string };

export interface JobQueue {
  readonly kind: "pglite" | "postgres";
  /** Enqueue a job of a registered type; returns the job id, or null when a job of that `id` exists already (nothing is added). */
  send<P>(name: string, envelope: JobEnvelope<P>, options?: { id?: string; singletonKey?: string; startAfterSeconds?: number }): Promise<string | null>;
  ping(): Promise<void>;
  /** Stop workers (waiting up to `timeoutMs` for jobs in flight) and close the connection. Idempotent. */
  stop(options?: { timeoutMs?: number }): Promise<void>;
  /** Create the queue of a job type if missing and bring its settings up to date. Idempotent. */
  ensureQueue(name: string, settings?: QueueSettings): Promise<void>;
  /**
   * Run `handler` for every job of the type, one job per call. What it returns is stored as the
   * job's output; a throw fails the attempt (retried up to the queue's retryLimit).
   */
  work<P>(name: string, settings: WorkSettings, handler: (job: QueuedJob<P>) => Promise<unknown>): Promise<void>;
  /** Stop fetching jobs of the type and wait for the ones in flight. */
  offWork(name: string): Promise<void>;
  /**
   * Create or replace the recurring schedule of a job type (cron, evaluated in `tz`, default UTC).
   * `missed`: what occurrences that came due while nothing ran (all processes down) owe:
   * `skip` (default) nothing, `once` one job for the latest of them.
   */
  schedule<P>(name: string, cron: string, envelope: JobEnvelope<P>, options?: { tz?: string; missed?: "skip" | "once" }): Promise<void>;
  unschedule(name: string): Promise<void>;
  schedules(): Promise<JobSchedule[]>;
  /** A job by id, or null once it is gone (finished jobs are deleted after deleteAfterSeconds). */
  getJob(name: string, id: string): Promise<JobRecord | null>;
}
