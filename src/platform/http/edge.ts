import type { Runtime } from "@/platform/runtime";
import { ServiceUnavailable } from "@/platform/errors";
import type { SqlDatabase } from "@/platform/db/database";
import type { Maybe } from "@/platform/async/maybe";
import { OnlyAtPrimary, ReplicaUnavailable, ReplicaWriteRefused, type Replicated } from "@/platform/db/replication-state";
import { errorResponse } from "./errors";
import { stateOf } from "./request-state";

// Regions (docs/operations/deploy.md, "Edge regions"; issue 21). An edge instance answers
// reads from its replicas of the org databases and sends everything else to
// the primary region: with fly's `fly-replay` header (the platform's proxy
// re-sends the request there), or forwarded by the edge itself to
// PRIMARY_URL. Read-your-writes: the primary answers a write on a replicated
// org database with the database's replication position (a header, and a
// cookie scoped to the org's paths); a read that carries it is answered at
// the edge once the replica holds that position (waiting at most
// EDGE_CATCH_UP_MS), else by the primary.

/** The replication position of the org database after a write; sent back (header or cookie) to read that write at an edge. */
export const POSITION_HEADER = "cusp-replication-position";
const POSITION_COOKIE = "cusp_rp";
/** The region that answered (every response). */
export const REGION_HEADER = "cusp-region";
/** Set on a request an edge forwards: the primary never sends it on, so a misconfigured pair cannot loop. */
const FORWARDED_FROM = "cusp-forwarded-from";
const FORWARD_TIMEOUT_MS = 30_000;
/** fly's proxy replays request bodies up to 1 MB; larger ones are forwarded by the edge when it can. */
const REPLAY_MAX_BYTES = 1024 * 1024;
const READS = new Set(["GET", "HEAD", "OPTIONS"]);
// headers a forwarded answer must not carry over: the body is passed on decoded and re-framed
const HOP_HEADERS = ["content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"];

/** A request an edge cannot answer from its replica: it goes to the primary region. */
export class AskPrimary extends Error {
  constructor(readonly why: "write" | "behind" | "replica_unavailable" | "not_replicated") {
    super(`sent to the primary region (${why})`);
  }
}

/** The reason an error sends a request to the primary region, when it is one of those. */
export function primaryReason(error: unknown): AskPrimary["why"] | null {
  if (error instanceof AskPrimary) return error.why;
  if (error instanceof ReplicaUnavailable) return "replica_unavailable";
  if (error instanceof OnlyAtPrimary) return "not_replicated";
  if (error instanceof ReplicaWriteRefused) return "write"; // a read route that writes: answered by the primary
  return null;
}

const isReplica = (db: SqlDatabase<any>): db is SqlDatabase<any> & Replicated => db.kind === "sync" && (db as unknown as Replicated).role === "replica";

/** The position a request asks to read at: the higher of the header and the cookie (which the browser sends only on the org's own paths). */
function requestedPosition(request: Request): number {
  const header = Number(request.headers.get(POSITION_HEADER) ?? "");
  let best = Number.isSafeInteger(header) && header > 0 ? header : 0;
  const cookies = request.headers.get("cookie");
  if (cookies) {
    for (const part of cookies.split(";")) {
      const [name, value] = part.trim().split("=");
      const n = Number(value);
      if (name === POSITION_COOKIE && Number.isSafeInteger(n) && n > best) best = n;
    }
  }
  return best;
}

/**
 * Read-your-writes at an edge (the guard calls it once the org's database is
 * open): waits until the replica holds the position the request carries, or
 * sends the request to the primary when it does not in time.
 */
export function readYourWrites(rt: Runtime, request: Request, db: SqlDatabase<any>): Maybe<void> {
  if (!rt.config.regions.edge || !isReplica(db)) return;
  const wanted = requestedPosition(request);
  if (wanted <= db.replicationPosition) return;
  return db.catchUp(wanted, rt.config.regions.catchUpMs).then((reached) => {
    if (!reached) throw new AskPrimary("behind");
  });
}

/** Sends a request to the primary region: a fly-replay answer, or forwarded by this instance. */
export async function toPrimary(rt: Runtime, request: Request, why: AskPrimary["why"]): Promise<Response> {
  const { primary, writes, primaryUrl, region } = rt.config.regions;
  const state = stateOf(request);
  const bodyBytes = Number(request.headers.get("content-length") ?? "0");
  if (writes === "fly-replay" && !(bodyBytes > REPLAY_MAX_BYTES && primaryUrl)) {
    const res = errorResponse(new ServiceUnavailable(`Sent to the primary region (${primary})`, 1), state.id);
    res.headers.set("fly-replay", `region=${primary};state=${why}`);
    res.headers.set(REGION_HEADER, region);
    return res;
  }
  if (!primaryUrl || request.headers.has(FORWARDED_FROM)) {
    return errorResponse(new ServiceUnavailable("The primary region cannot be reached from here", 5), state.id);
  }
  const url = new URL(request.url);
  const headers = new Headers(request.headers);
  headers.delete("host");
  headers.set(FORWARDED_FROM, region);
  headers.set("x-request-id", state.id);
  // the primary's rate limits and audit see the client, not this instance
  if (rt.config.clientIpHeader && state.ip) headers.set(rt.config.clientIpHeader, state.ip);
  try {
    const res = await fetch(`${primaryUrl.replace(/\/$/, "")}${url.pathname}${url.search}`, {
      method: request.method,
      headers,
      body: READS.has(request.method) ? undefined : request.body,
      redirect: "manual",
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    const out = new Headers(res.headers);
    for (const h of HOP_HEADERS) out.delete(h);
    return new Response(res.body, { status: res.status, headers: out });
  } catch (err) {
    rt.logger.warn({ request_id: state.id, why, err: (err as Error).message }, "the primary region did not answer");
    return errorResponse(new ServiceUnavailable("The primary region cannot be reached; try again shortly", 2), state.id);
  }
}

/** At an edge, a request that is not a read: answered by the primary before anything else runs (httpCore's onRequest). */
export function sendsToPrimary(rt: Runtime, request: Request): Promise<Response> | undefined {
  if (rt.config.regions.edge && !READS.has(request.method)) return toPrimary(rt, request, "write");
}

/**
 * At the primary, a write on a replicated org database answers with the
 * database's replication position: a header, and a cookie scoped to the org's
 * paths, so a browser sends it only where it applies (by the time it expires
 * every replica has long caught up). Called by httpCore's response mapping.
 */
export function positionHeaders(rt: Runtime, request: Request, headers: Record<string, string | number>): void {
  if (rt.config.regions.edge || READS.has(request.method)) return;
  const state = stateOf(request);
  const db = state.ctx?.db as SqlDatabase<any> | undefined;
  if (db?.kind !== "sync") return;
  const position = (db as unknown as Replicated).replicationPosition;
  headers[POSITION_HEADER] = String(position);
  headers["set-cookie"] =
    `${POSITION_COOKIE}=${position}; Path=/api/v1/${state.orgId}; Max-Age=300; HttpOnly; SameSite=Lax${rt.config.production ? "; Secure" : ""}`;
}
