import type { z } from "zod";
import type { PlatformRuntime } from "@/platform/runtime";
import type { Actor } from "@/platform/auth/actor";
import type { Logger } from "@/platform/logger";
import type { JobDefinition } from "./jobs";

// What runs a job type: its handler (a `<name>.handler.ts`), what the handler
// gets, and the pairing of definitions with handlers that a process's list of
// jobs holds (workers/registry.ts). Kept apart from the definitions (./jobs.ts),
// which code that only queues jobs imports.

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

/** A job type with the handler that runs it: what a process's list of jobs holds. */
export type JobType<S extends z.ZodType = z.ZodType> = {
  definition: JobDefinition<S>;
  handler: () => Promise<{ default: JobHandler<z.output<S>> }>;
};

/** Pair a definition with its handler module (workers/registry.ts). */
export const jobType = <S extends z.ZodType>(definition: JobDefinition<S>, handler: JobType<S>["handler"]): JobType => ({
  definition: definition as unknown as JobDefinition,
  handler: handler as unknown as JobType["handler"],
});

/** The list of job types a process runs (workers/registry.ts): refused when an id is listed twice. */
export function jobList(types: readonly JobType[]): readonly JobType[] {
  const ids = new Set(types.map((t) => t.definition.id));
  if (ids.size !== types.length) throw new Error("a job type is listed twice in workers/registry.ts");
  return types;
}
