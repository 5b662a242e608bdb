import type { z } from "zod";
import type { QueueSettings, WorkSettings } from "./types";

// A job type is two files: `<name>.job.ts` defines it (id, payload schema, schedule,
// settings) and is all that code queueing it imports; `<name>.handler.ts` does
// the work. workers/registry.ts pairs each definition with its handler (the
// composition root of jobs, as src/app.ts is of routes), so a definition never
// names its handler and a handler may call the verbs that queue its type
// without an import circle. Jobs are queued through ./enqueue.ts and run by
// ./workers.ts, which imports a handler only when a job of its type first runs.

export type JobDefinition<S extends z.ZodType = z.ZodType> = {
  /** Dotted `<area>.<action>`, also the pg-boss queue name. */
  id: string;
  description: string;
  /** Checked when a job is queued (./enqueue.ts): a payload that does not fit fails the write that queues it. */
  payload: S;
  /** Recurring schedule (5-field cron); scheduled jobs carry an empty payload `{}` and the system actor. */
  cron?: string;
  /** Time zone the cron is evaluated in (default UTC). */
  tz?: string;
  /** Occurrences missed while everything was down: `skip` (default) or run `once` on the next start. */
  missed?: "skip" | "once";
  queue?: QueueSettings;
  work?: WorkSettings;
};

const JOB_ID_RE = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/;

/** Every job type defined in this process, by id (a definition module defines its type when imported). */
const defined = new Map<string, JobDefinition>();

export function defineJob<S extends z.ZodType>(def: JobDefinition<S>): JobDefinition<S> {
  if (!JOB_ID_RE.test(def.id)) throw new Error(`job id "${def.id}" must be dotted lower-case, like "audit.retention"`);
  if (def.cron && !def.payload.safeParse({}).success) throw new Error(`job ${def.id} has a cron but its payload schema rejects {}`);
  if (defined.has(def.id)) throw new Error(`job id "${def.id}" is defined twice`);
  defined.set(def.id, def as unknown as JobDefinition);
  return def;
}

/** A defined job type by id (for operators and tests that name a type by its id). */
export function definedJob(id: string): JobDefinition {
  const def = defined.get(id);
  if (!def) throw new Error(`unknown job type "${id}"`);
  return def;
}
