import type { Principal } from "../tenancy/access";
import type { OrgContext } from "../records/context";

/** Per-request facts shared by the mechanisms, kept on the Request object itself. */
export type RequestState = {
  id: string;
  startedAt: number;
  ip: string | null;
  rawBody?: string;
  principal?: Principal;
  orgId?: string;
  /** Built by the org guard for `{P}` routes: what the verbs receive. */
  ctx?: OrgContext;
  route?: string;
  /** Set when the response must be stored for Idempotency-Key replay. */
  idempotency?: { scopeKey: string; requestHash: string };
};

// A symbol-keyed property rather than a WeakMap: no ephemeron table for the
// garbage collector to walk on every request.
const STATE = Symbol("cusp.request-state");
type WithState = Request & { [STATE]?: RequestState };

export function stateOf(request: Request): RequestState {
  return ((request as WithState)[STATE] ??= { id: Bun.randomUUIDv7(), startedAt: performance.now(), ip: null });
}
