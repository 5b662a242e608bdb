// The Cusp TypeScript client. Every operation, parameter and body is typed from
// schema.d.ts, which `npm run client:generate` generates from the service's own
// OpenAPI document; calls go through openapi-fetch (`cusp.GET(path, init)`,
// `cusp.POST(...)`, ...). This file adds only what generation cannot give:
//
//   login / logout and token refresh   a session whose access token is refreshed before
//                                      it expires, and once more when a request gets 401
//   idempotencyKey / isReplay          the Idempotency-Key header of a POST that may be retried
//   paginate                           every item of a paged list, page after page
//   events                             the org's server-sent event stream as typed envelopes
//   unwrap / CuspApiError              a call's data, or an error carrying status, code and body
//
// Usage: clients/typescript/README.md.
import createClient, { type Client, type MaybeOptionalInit, type Middleware } from "openapi-fetch";
import type { components, operations, paths } from "./schema";

export type { components, operations, paths };

type Json<R> = R extends { content: { "application/json": infer J } } ? J : never;
/** The 200 JSON answer of `GET P`. */
type GetAnswer<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } } ? Json<R> : never;

/** What login and refresh answer. */
export type TokenPair = Json<paths["/api/v1/auth/login"]["post"]["responses"][200]>;
/** The tokens in use, with when the access token expires (this machine's clock, epoch milliseconds). */
export type Session = TokenPair & { expires_at: number };

/**
 * The envelope of every event on `GET /api/v1/{org_id}/events/stream` (`type` is `<resource>.<verb>`, e.g. appointment.created).
 * Written out here because the stream is not in the OpenAPI document; a test type-checks it against the service's own.
 */
export type CuspEvent<Data = Record<string, unknown>> = {
  id: string;
  type: string;
  org_id: string;
  /** The location the event belongs to, where one applies. */
  practice_id: string | null;
  resource_type: string;
  resource_id: string;
  occurred_at: string;
  /** Ids and changed field names only, never free text. */
  data: Data;
};

export type EventStreamOptions = {
  /** Only this practice's (location's) events. */
  practiceId?: string;
  /** Ends the stream (the loop over it then finishes normally). */
  signal?: AbortSignal;
  /** Reconnect after the connection drops (default true). The service has no replay: events published while disconnected are not resent. */
  reconnect?: boolean;
  /** Wait before reconnecting, in milliseconds (default 1000; a `retry:` field from the service wins). */
  retryMs?: number;
  /** Called each time the stream is connected (and subscribed); after a reconnect, re-read what may have changed meanwhile. */
  onOpen?: (info: { reconnected: boolean; lastEventId: string | undefined }) => void;
};

/** Paths whose GET answers a page: `{items, page, page_size, total}`. */
export type PagedPath = {
  [P in keyof paths]: GetAnswer<P> extends { items: unknown[]; page: number; page_size: number; total: number } ? P : never;
}[keyof paths];
/** The item type of a paged list. */
export type PageItem<P extends PagedPath> = GetAnswer<P> extends { items: (infer Item)[] } ? Item : never;
type GetInit<P extends PagedPath> = MaybeOptionalInit<paths[P], "get">;

export type CuspClientOptions = {
  /** Where the service listens, e.g. http://localhost:3000 */
  baseUrl: string;
  /** Sends a request (default: the global fetch). In-process: `(request) => app.handle(request)`. */
  fetch?: (request: Request) => Promise<Response>;
  /** A fixed access token sent as is and never refreshed (scripts, load tests). For a session use `login()`. */
  token?: string;
  /** Called whenever the session changes (login, refresh, logout, a refresh the service refused): to keep it across restarts. */
  onSession?: (session: Session | null) => void;
  /**
   * Read-your-writes at edge regions (default true): the replication position a
   * write answers with (`Cusp-Replication-Position`) is sent with this client's
   * later requests to the same org, so an edge answers them only once it holds
   * the write (docs/operations/deploy.md, "Edge regions"). Costs nothing where the org is
   * not on a replicated shard (no write answers a position).
   */
  readYourWrites?: boolean;
};

export type CuspClient = Client<paths> & {
  /** POST /api/v1/auth/login; later requests carry the access token, refreshed as needed. */
  login(email: string, password: string): Promise<TokenPair>;
  /** POST /api/v1/auth/logout (ends the session on the service) and forgets the tokens. */
  logout(): Promise<void>;
  /** Resume a saved session (or forget it with null). */
  setSession(tokens: TokenPair | Session | null): void;
  /** The session in use, if any. */
  session(): Session | null;
  /** Every item of a paged list, fetching page after page (`page_size` from `init` sets the page length). */
  paginate<P extends PagedPath>(path: P, ...init: undefined extends GetInit<P> ? [GetInit<P>?] : [GetInit<P>]): AsyncGenerator<PageItem<P>, void, undefined>;
  /** The org's event stream: events published after it connected, until `signal` aborts or the loop breaks. */
  events(orgId: string, options?: EventStreamOptions): AsyncGenerator<CuspEvent, void, undefined>;
};

/** A response that was not 2xx: `status`, the service's error `code` (e.g. booking_conflict) and the parsed `body`. */
export class CuspApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  constructor(
    readonly response: Response,
    readonly body: unknown,
  ) {
    super(`${response.status}${response.url ? ` ${response.url}` : ""}: ${typeof body === "string" ? body : JSON.stringify(body)}`);
    this.name = "CuspApiError";
    this.status = response.status;
    const code = (body as { code?: unknown } | null)?.code;
    this.code = typeof code === "string" ? code : undefined;
  }
}

/** The data of a successful call; anything else throws a CuspApiError. */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new CuspApiError(response, error);
  return data as T;
}

/**
 * The Idempotency-Key header for one POST: sending it again with the same key and
 * body within 24 hours replays the first answer instead of writing twice (the same
 * key with another body is 409 idempotency_conflict). Make the key once per
 * intended write and reuse it on every retry of that write.
 */
export function idempotencyKey(key: string = crypto.randomUUID()): { "Idempotency-Key": string } {
  return { "Idempotency-Key": key };
}

/** Whether an answer is the replay of an earlier request with the same Idempotency-Key. */
export const isReplay = (response: Response) => response.headers.get("idempotent-replayed") === "true";

/** The replication position of an org database after a write (edge regions). */
const POSITION_HEADER = "cusp-replication-position";
/** The org of an org-scoped path: /api/v1/<org_id>/... */
const ORG_PATH = /^\/api\/v1\/([0-9a-f-]{36})\//i;

/** The routes that take no access token: the session middleware leaves them alone. */
const SESSIONLESS = new Set(["/api/v1/auth/login", "/api/v1/auth/refresh"]);

export function createCuspClient(options: CuspClientOptions): CuspClient {
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: send,
    headers: options.token ? { authorization: `Bearer ${options.token}` } : undefined,
  });

  // ---- read-your-writes: the highest position each org's writes answered, sent with later requests to that org
  if (options.readYourWrites !== false) {
    const positions = new Map<string, string>();
    const orgOf = (url: string) => ORG_PATH.exec(new URL(url).pathname)?.[1];
    client.use({
      onRequest({ request }) {
        const org = positions.size ? orgOf(request.url) : undefined;
        const position = org && positions.get(org);
        if (position) request.headers.set(POSITION_HEADER, position);
      },
      onResponse({ request, response }) {
        const position = response.headers.get(POSITION_HEADER);
        const org = position && orgOf(request.url);
        if (org && Number(position) > Number(positions.get(org) ?? 0)) positions.set(org, position);
      },
    });
  }

  // ---- session: the middleware is installed at the first login, so a client with a fixed token pays nothing
  let current: Session | null = null;
  let installed = false;
  let refreshing: Promise<boolean> | undefined;
  const bearer = () => `Bearer ${current!.access_token}`;

  function setSession(tokens: TokenPair | Session | null) {
    current = tokens && { ...tokens, expires_at: "expires_at" in tokens ? tokens.expires_at : Date.now() + tokens.expires_in * 1000 };
    if (current && !installed) {
      client.use(sessionMiddleware);
      installed = true;
    }
    options.onSession?.(current);
  }

  /** Rotates the refresh token, one rotation at a time (a refresh token is single-use: reusing one ends the session). */
  function refreshSession(): Promise<boolean> {
    const spent = current?.refresh_token;
    if (!spent) return Promise.resolve(false);
    refreshing ??= client
      .POST("/api/v1/auth/refresh", { body: { refresh_token: spent } })
      .then(({ data, response }) => {
        if (data) setSession(data);
        else if (response.status === 401 && current?.refresh_token === spent) setSession(null); // the session is over
        return !!data;
      })
      .catch(() => false) // the service could not be reached: keep the tokens, a later request tries again
      .finally(() => (refreshing = undefined));
    return refreshing;
  }

  /** Bodies of requests in flight, to send again after a refresh (only POST/PUT/PATCH/DELETE are copied). */
  const copies = new WeakMap<Request, Request>();
  const sessionMiddleware: Middleware = {
    async onRequest({ request, schemaPath }) {
      if (!current || SESSIONLESS.has(schemaPath)) return;
      // refresh a little before expiry: a tenth of the lifetime, at most a minute
      const margin = Math.min(60_000, current.expires_in * 100);
      if (Date.now() >= current.expires_at - margin) await refreshSession();
      if (!current) return;
      request.headers.set("authorization", bearer());
      if (request.method !== "GET" && request.method !== "HEAD") copies.set(request, request.clone());
    },
    async onResponse({ request, response, schemaPath }) {
      const copy = copies.get(request);
      copies.delete(request);
      if (response.status !== 401 || !current || SESSIONLESS.has(schemaPath)) return;
      // rejected: refresh (unless another request already did) and send it once more
      if (request.headers.get("authorization") === bearer() && !(await refreshSession())) return;
      if (!current) return;
      const again = copy ?? new Request(request);
      again.headers.set("authorization", bearer());
      await response.body?.cancel();
      return send(again);
    },
  };

  async function login(email: string, password: string): Promise<TokenPair> {
    const tokens = await unwrap(client.POST("/api/v1/auth/login", { body: { email, password } }));
    setSession(tokens);
    return tokens;
  }

  async function logout(): Promise<void> {
    if (current) await unwrap(client.POST("/api/v1/auth/logout"));
    setSession(null);
  }

  // ---- paging: `page` and `page_size` in the query, `{items, page, page_size, total}` back
  type AnyGet = (
    path: string,
    init: unknown,
  ) => Promise<{ data?: { items: unknown[]; page_size: number; total: number }; error?: unknown; response: Response }>;
  async function* paginate<P extends PagedPath>(path: P, ...[init]: [GetInit<P>?]): AsyncGenerator<PageItem<P>, void, undefined> {
    const base = (init ?? {}) as { params?: { query?: { page?: number } } };
    for (let page = base.params?.query?.page ?? 1; ; page++) {
      const { data, error, response } = await (client.GET as unknown as AnyGet)(path, {
        ...base,
        params: { ...base.params, query: { ...base.params?.query, page } },
      });
      if (!data) throw new CuspApiError(response, error);
      yield* data.items as PageItem<P>[];
      if (data.items.length < data.page_size || page * data.page_size >= data.total) return;
    }
  }

  // ---- the event stream: `id:`, `event:`, `data: <envelope JSON>` frames and `:` comments (keep-alive)
  async function* events(orgId: string, opts: EventStreamOptions = {}): AsyncGenerator<CuspEvent, void, undefined> {
    const stop = new AbortController();
    const abort = () => stop.abort();
    if (opts.signal?.aborted) return;
    opts.signal?.addEventListener("abort", abort, { once: true });
    let retryMs = opts.retryMs ?? 1000;
    let lastEventId: string | undefined;
    let reconnected = false;
    try {
      for (;;) {
        try {
          const answer = await client.GET("/api/v1/{org_id}/events/stream", {
            params: { path: { org_id: orgId }, query: opts.practiceId ? { practice_id: opts.practiceId } : {} },
            parseAs: "stream",
            signal: stop.signal,
          });
          // refused (401 after a refresh, 403, 404): reconnecting will not help; a 5xx is retried
          if (!answer.data && answer.response.status < 500) throw new CuspApiError(answer.response, answer.error);
          if (answer.data) {
            opts.onOpen?.({ reconnected, lastEventId });
            for await (const frame of sseFrames(answer.data)) {
              if (frame.retry !== undefined) retryMs = frame.retry;
              if (frame.id !== undefined) lastEventId = frame.id;
              if (frame.data !== undefined) yield JSON.parse(frame.data) as CuspEvent;
            }
          }
        } catch (err) {
          if (stop.signal.aborted) return;
          if (err instanceof CuspApiError) throw err;
          // the connection failed or dropped: reconnect below
        }
        if (opts.reconnect === false || stop.signal.aborted) return;
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            stop.signal.removeEventListener("abort", done);
            resolve();
          };
          const timer = setTimeout(done, retryMs);
          stop.signal.addEventListener("abort", done);
        });
        if (stop.signal.aborted) return;
        reconnected = true;
      }
    } finally {
      opts.signal?.removeEventListener("abort", abort);
      stop.abort();
    }
  }

  return Object.assign(client, { login, logout, setSession, session: () => current, paginate, events }) as CuspClient;
}

type SseFrame = { id?: string; event?: string; data?: string; retry?: number };

/** Server-sent event frames of a body (lines ending in \n, frames ending in an empty line; comments skipped). */
async function* sseFrames(body: ReadableStream<Uint8Array>): AsyncGenerator<SseFrame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const frame: SseFrame = {};
        for (const line of buffer.slice(0, end).split("\n")) {
          if (!line || line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + (line[colon + 1] === " " ? 2 : 1)).replace(/\r$/, "");
          if (field === "data") frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
          else if (field === "id" || field === "event") frame[field] = value;
          else if (field === "retry" && /^\d+$/.test(value)) frame.retry = Number(value);
        }
        buffer = buffer.slice(end + 2);
        if (Object.keys(frame).length) yield frame;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
