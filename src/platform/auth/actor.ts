/** Who performs a write: a signed-in user, a background job, or the service itself. */
export type Actor =
  | { type: "user"; id: string; display_name: string }
  | { type: "system"; id: string; display_name: string; job?: string }
  | { type: "internal"; id: string; display_name: string };

export const systemActor = (job: string): Actor => ({ type: "system", id: `system:${job}`, display_name: job, job });
export const internalActor: Actor = { type: "internal", id: "internal", display_name: "Cusp" };

/** Who a write is done for, as the audit trail records it. */
export type Caller = { actor: Actor; requestId: string | null; ip: string | null };
