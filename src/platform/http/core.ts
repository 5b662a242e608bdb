import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { PayloadTooLarge } from "@/platform/errors";
import { stateOf } from "./request-state";
import { errorBody, errorResponse, toAppError } from "./errors";
import { finishIdempotent, IdempotentReplay, replayResponse } from "./idempotency";
import { keptJson } from "@/platform/db/kept";
import { jsonBoundsProblem, largestBodyBytes, queryProblem, readBodyText, routeBodyBounds } from "./input-limits";
import { NO_BODY } from "./request-validation";
import { positionHeaders, primaryReason, REGION_HEADER, sendsToPrimary, toPrimary } from "./edge";
import { rateLimiter } from "./rate-limit";

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Cross-cutting HTTP mechanics, in one plugin: request ids, JSON parsing with
 * size and media-type limits, the error model, ETags, idempotent replay
 * storage and one structured log line per request.
 */
export function httpCore(rt: Runtime) {
  const limit = rt.config.jsonBodyLimit;
  const bounds = rt.config.inputLimits;
  const ipHeader = rt.config.clientIpHeader;
  const region = rt.config.regions.region;

  async function storeIdempotent(request: Request, status: number, body: string) {
    const st = stateOf(request);
    if (!st.idempotency) return;
    const { scopeKey } = st.idempotency;
    st.idempotency = undefined;
    await finishIdempotent(rt.control, rt.sealer, scopeKey, status, body).catch((err) =>
      rt.logger.error({ err: (err as Error).message }, "idempotency store failed"),
    );
  }

  /** What every request passes before its route is found: its id, query and body bounds (the body is not read yet). */
  function admit(request: Request, headers: Record<string, unknown>): void {
    const state = stateOf(request);
    const given = request.headers.get("x-request-id");
    if (given && REQUEST_ID_RE.test(given)) state.id = given;
    state.ipHeader = ipHeader;
    headers["x-request-id"] = state.id;
    headers[REGION_HEADER] = region;
    const badQuery = queryProblem(request.url, bounds);
    if (badQuery) throw badQuery;
    if (!BODY_METHODS.has(request.method)) return; // no body is read for GET, HEAD or OPTIONS
    const len = Number(request.headers.get("content-length") ?? "0");
    const isUpload = (request.headers.get("content-type") ?? "").startsWith("multipart/form-data");
    // the route is not known yet: a route with larger bounds of its own (input-limits.ts) is held to them when parsing
    const max = isUpload ? rt.config.uploadLimit : largestBodyBytes(limit);
    if (len > max) throw new PayloadTooLarge(max);
  }

  const limiter = rateLimiter(rt);
  const app = new Elysia({ name: "cusp.http-core" });
  // One request hook, synchronous where it can be: Elysia compiles its router
  // function async, and awaits the hook on every request, when the hook looks
  // asynchronous (it guesses from the function's text: `async`, `await`, or a
  // returned call), and every hook more is one call more per request.
  if (!rt.config.regions.edge && limiter?.shared !== true) {
    const take = limiter?.take;
    app.onRequest(function admitRequest({ request, set }) {
      const headers = set.headers as Record<string, unknown>;
      admit(request, headers);
      if (take) take(request, headers);
    });
  } else {
    app.onRequest(async function admitRequestAtEdgeOrSharedLimits({ request, set }) {
      const headers = set.headers as Record<string, unknown>;
      admit(request, headers);
      // at an edge everything but a read goes to the primary region, unread and not limited here (edge.ts)
      const forwarded = sendsToPrimary(rt, request);
      if (forwarded) return forwarded;
      if (limiter) await limiter.take(request, headers);
    });
  }
  app
    .onParse({ as: "global" }, async ({ request, contentType, route }) => {
      if (!BODY_METHODS.has(request.method)) return;
      const state = stateOf(request);
      const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
      if (type === "multipart/form-data") {
        // Left unread: an upload route streams it through readMultipart (multipart.ts) and
        // clears this problem; anywhere else a form is the wrong media type (415, after the guard).
        state.bodyProblem = "media_type";
        state.form = true;
        return NO_BODY;
      }
      const own = routeBodyBounds(request.method, route);
      const text = await readBodyText(request, own?.bytes ?? limit);
      // an absent body is not an empty object: a route that declares a body refuses it (request-validation.ts)
      if (text.length === 0) return NO_BODY;
      state.rawBody = text;
      if (type !== "application/json" && !type.endsWith("+json")) {
        state.bodyProblem = "media_type";
        return {};
      }
      // bounded before it is parsed, so nothing downstream walks an unbounded value
      const found = { overflow: false };
      const tooBig = jsonBoundsProblem(text, own ? { ...bounds, jsonMaxValues: own.values } : bounds, found);
      if (tooBig) throw tooBig;
      // 1e400 parses to Infinity, which no field may hold (an open-ended one would store null): refused after the guard
      if (found.overflow) {
        state.bodyProblem = "number_range";
        return {};
      }
      try {
        return JSON.parse(text);
      } catch {
        state.bodyProblem = "malformed";
        return {};
      }
    })
    .onError({ as: "global" }, async ({ code, error, request, set }) => {
      const state = stateOf(request);
      if (error instanceof IdempotentReplay) return replayResponse(error, state.id);
      // at an edge, what the replica cannot answer is answered by the primary region (edge.ts)
      const toPrimaryBecause = rt.config.regions.edge ? (primaryReason(error) ?? primaryReason((error as { cause?: unknown })?.cause)) : null;
      if (toPrimaryBecause) {
        const answer = await toPrimary(rt, request, toPrimaryBecause);
        set.status = answer.status; // Elysia would answer a thrown error's status (500) with this body
        return answer;
      }
      const appError = toAppError(code, error, rt.logger, state.id);
      state.status = appError.status;
      await storeIdempotent(request, appError.status, JSON.stringify(errorBody(appError)));
      return errorResponse(appError, state.id);
    })
    .mapResponse({ as: "global" }, ({ request, response, set }) => {
      positionHeaders(rt, request, set.headers as Record<string, string>);
      if (response instanceof Response) return;
      const status = typeof set.status === "number" ? set.status : 200;
      if (response && typeof response === "object" && typeof (response as { version?: unknown }).version === "number" && "id" in (response as object)) {
        set.headers["etag"] = `"${(response as { version: number }).version}"`;
      }
      if (stateOf(request).idempotency) {
        // store the exact bytes we send, so a replay is identical
        const body = response === undefined || response === null ? "" : JSON.stringify(response);
        return storeIdempotent(request, status, body).then(
          () =>
            new Response(status === 204 ? null : body, {
              status,
              headers: { ...(set.headers as Record<string, string>), ...(status === 204 ? {} : { "content-type": "application/json" }) },
            }),
        );
      }
      if (status === 204) return new Response(null, { status, headers: set.headers as Record<string, string> });
      // An answer the database keeps (readKept) has its JSON text worked out
      // once. Returned as text, not as a Response: Elysia copies a Response
      // again to merge headers, but sends text as it is.
      const kept = keptJson(response);
      if (kept !== undefined) {
        set.headers["content-type"] = "application/json;charset=utf-8";
        return kept as unknown as Response; // (typed as Response; Elysia maps whatever a mapResponse hook returns)
      }
      // otherwise Elysia's own mapping serializes the object as JSON (the fast path)
    });
  // One log line per request, only when info logging is on: an after-response
  // hook costs every request a scheduled task even when it logs nothing.
  if (!rt.logger.isLevelEnabled("info")) return app;
  return app.onAfterResponse({ as: "global" }, ({ request, set, route }) => {
    const state = stateOf(request);
    rt.logger.info(
      {
        request_id: state.id,
        method: request.method,
        route,
        status: state.status ?? set.status ?? 200,
        duration_ms: Math.round((performance.now() - state.startedAt) * 100) / 100,
        org_id: state.orgId ?? null,
        user_id: state.principal?.userId ?? null,
      },
      "request",
    );
  });
}
