import type { Principal } from "../tenancy/access";

/** Per-request facts shared by the mechanisms, keyed by the Request object. */
export type RequestState = {
  id: string;
  startedAt: number;
  ip: string | null;
  rawBody?: string;
  principal?: Principal;
  orgId?: string;
  route?: string;
  /** Set when the response must be stored for Idempotency-Key replay. */
  idempotency?: { scopeKey: string; requestHash: string };
};

const states = new WeakMap<Request, RequestState>();

export function stateOf(request: Request): RequestState {
  let s = states.get(request);
  if (!s) {
    s = { id: Bun.randomUUIDv7(), startedAt: performance.now(), ip: null };
    states.set(request, s);
  }
  return s;
}
