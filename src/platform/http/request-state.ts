import type { Principal } from "@/platform/tenancy/access";
import type { OrgContext } from "@/platform/records/context";
import type { Grants } from "@/platform/tenancy/grants";

type IpSource = { requestIP(request: Request): { address: string } | null } | null | undefined;

/** Per-request facts shared by the mechanisms, kept on the Request object itself. */
export class RequestState {
  id: string = Bun.randomUUIDv7();
  readonly startedAt = performance.now();
  rawBody?: string;
  principal?: Principal;
  orgId?: string;
  /** Built by the org guard for `{P}` routes: what the verbs receive. */
  ctx?: OrgContext;
  route?: string;
  /** Set when the response must be stored for Idempotency-Key replay. */
  idempotency?: { scopeKey: string; requestHash: string };
  /** A body problem found while parsing, reported only once the caller is authenticated. */
  bodyProblem?: "malformed" | "media_type" | "number_range";
  /** The body is multipart/form-data, left unread for an upload route (multipart.ts). */
  form?: boolean;
  /**
   * An upload route's Idempotency-Key check, deferred by the guard until the
   * form is read: the key's fingerprint is the form's (file hash and fields),
   * not the unread body's (idempotentForm in multipart.ts).
   */
  formIdempotency?: (fingerprint: string) => Promise<void>;
  /** The route's key is held only at some locations or providers: the guard checks where the request acts. */
  placeCheck?: { key: string; grants: Grants; idempotency?: () => unknown };
  /** The status of an error answer (for the request log). */
  status?: number;
  /** The server that accepted the request: the client address is looked up only when something reads `ip`. */
  server: IpSource;
  /** The header a trusted proxy puts the client's address in (CLIENT_IP_HEADER), when there is one. */
  ipHeader?: string;
  private clientIp?: string | null;

  constructor(private readonly request: Request) {}

  /**
   * The client's address (rate limits, throttles, audit entries, logs): the last
   * entry of the trusted proxy's header (the one the proxy added), else the
   * socket's; null for in-process requests.
   */
  get ip(): string | null {
    if (this.clientIp === undefined) {
      const socket = this.server?.requestIP(this.request)?.address;
      // an IPv4 client on a dual-stack socket is named as IPv4 (::ffff:127.0.0.1 is 127.0.0.1)
      this.clientIp = this.fromHeader() ?? (socket?.startsWith("::ffff:") && socket.includes(".") ? socket.slice(7) : socket) ?? null;
    }
    return this.clientIp;
  }

  private fromHeader(): string | undefined {
    const given = this.ipHeader ? this.request.headers.get(this.ipHeader) : null;
    if (!given) return undefined;
    const comma = given.lastIndexOf(",");
    return (comma === -1 ? given : given.slice(comma + 1)).trim() || undefined;
  }
}

// A symbol-keyed property rather than a WeakMap: no ephemeron table for the
// garbage collector to walk on every request.
const STATE = Symbol("cusp.request-state");
type WithState = Request & { [STATE]?: RequestState };

export function stateOf(request: Request): RequestState {
  return ((request as WithState)[STATE] ??= new RequestState(request));
}
