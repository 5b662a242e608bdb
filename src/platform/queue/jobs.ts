import type { z } from "zod";
import type { PlatformRuntime } from "@/platform/runtime";
import type { Actor } from "@/platform/auth/actor";
import type { Logger } from "@/platform/logger";
import type { QueueSettings, WorkSettings } from "@/platform/queue/types";

// A job type is two files: `<name>.ts` defines it (id, payload schema, schedule,
// settings) and is cheap to import; `<name>.handler.ts` does the work and is
// imported only when a job of the type first runs. workers/registry.ts lists them.

/** What a handler gets. Handlers must be idempotent: re-read state, never trust a stale payload. */
export type JobContext<P> = {
  /** No direct handle on org databases: rt.orgs.openOrgForJob (one org) and rt.orgs.forEachOrg (every org). */
  rt: PlatformRuntime;
  payload: P;
  /** The actor the job writes as: systemActor(<job id>). */
  actor: Actor;
  /** Who caused the job: the user whose request enqueued it, or the system (schedules). */
  causedBy: Actor;
  orgId: string | null;
  requestId: string | null;
  job: { id: string; name: string; retryCount: number };
  logger: Logger;
};

/** What the handler returns is stored as the job's output (keep it small, no personal data). */
export type JobHandler<P> = (ctx: JobContext<P>) => Promise<Record<string, unknown> | void>;

export type JobDefinition<S extends z.ZodType = z.ZodType> = {
  /** Dotted `<area>.<action>`, also the pg-boss queue name. */
  id: string;
  description: string;
  payload: S;
  /** Recurring schedule (5-field cron); scheduled jobs carry an empty payload `{}` and the system actor. */
  cron?: string;
  /** Time zone the cron is evaluated in (default UTC). */
  tz?: string;
  /** Occurrences missed while everything was down: `skip` (default) or run `once` on the next start. */
  missed?: "skip" | "once";
  queue?: QueueSettings;
  work?: WorkSettings;
  handler: () => Promise<{ default: JobHandler<z.output<S>> }>;
};

const JOB_ID_RE = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/;

export function defineJob<S extends z.ZodType>(def: JobDefinition<S>): JobDefinition<S> {
  if (!JOB_ID_RE.test(def.id)) throw new Error(`job id "${def.id}" must be dotted lower-case, like "audit.retention"`);
  if (def.cron && !def.payload.safeParse({}).success) throw new Error(`job ${def.id} has a cron but its payload schema rejects {}`);
  return def;
}
