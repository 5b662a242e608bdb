import type { Actor } from "../auth/actor";

/** What every job carries besides its own payload: who caused it and why. */
export type JobEnvelope<P> = { payload: P; actor: Actor; request_id: string | null; org_id: string | null };

export interface JobQueue {
  readonly kind: "pglite" | "postgres";
  /** Enqueue a job of a registered type; returns the job id. */
  send<P>(name: string, envelope: JobEnvelope<P>, options?: { singletonKey?: string; startAfterSeconds?: number }): Promise<string | null>;
  ping(): Promise<void>;
  stop(): Promise<void>;
}
