import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { Forbidden, NotFound, Unauthorized, UnsupportedMediaType, ValidationFailed } from "@/platform/errors";
import { stateOf, type RequestState } from "./request-state";
import { actorOf, type OrgAccess, type Principal, type SessionGrant } from "@/platform/tenancy/access";
import type { OrgContext } from "@/platform/records/context";
import type { OrgPermissionKey, PlatformPermissionKey } from "@/platform/permissions/registry";
import { beginIdempotent } from "./idempotency";
import { UUID_RE } from "@/platform/ids";
import { Lru } from "@/platform/cache/lru";
import { runMaybe, then, wait, type Maybe, type MaybeWork } from "@/platform/async/maybe";
import { placeFromPath, type WhereResolver } from "@/platform/tenancy/placement";
import { readYourWrites } from "./edge";

type GuardInput = { request: Request; params?: Record<string, string>; path: string; query?: Record<string, unknown> };

/**
 * The access token: `Authorization: Bearer <token>`, else `?access_token=`
 * (kept for EventSource clients, which cannot send headers; docs/decisions.md).
 */
function bearerOf(input: GuardInput): string | undefined {
  const header = input.request.headers.get("authorization");
  if (header?.startsWith("Bearer ")) return header.slice(7);
  const q = input.query?.access_token;
  return Array.isArray(q) ? (q[0] as string) : typeof q === "string" && q ? q : undefined;
}

/**
 * Elysia splits any query value containing a comma into an array when the
 * schema is not TypeBox. Re-read the query string: a value is a string unless
 * its parameter is repeated (?a=1&a=2), so "Smith, John" stays one search.
 */
function reparseQuery(input: GuardInput) {
  const i = input.request.url.indexOf("?");
  if (i < 0 || !input.query) return;
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of new URLSearchParams(input.request.url.slice(i + 1))) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  for (const k of Object.keys(input.query)) delete input.query[k];
  Object.assign(input.query, out);
}

/**
 * Ids in the path (parameters named `*_id` or `*_uuid`) reach handlers
 * lower-cased, as ids are stored: verbs never normalise them again.
 */
const UPPER = /[A-Z]/;
function lowerCaseIds(params: Record<string, string> | undefined) {
  if (!params) return;
  for (const name in params) {
    const value = params[name]!;
    // tested before lower-casing: the common all-lower-case id allocates nothing
    if (UPPER.test(value) && (name.endsWith("_id") || name.endsWith("_uuid"))) params[name] = value.toLowerCase();
  }
}

/** An upload route's bodies: multipart/form-data, and the text media types it also takes whole (an ERA's X12 text). */
type FormRule = { text: readonly string[] };

/**
 * Deferred body problems are reported only after the caller is authenticated.
 * An upload route (`permission: { key, form: true }`) takes multipart/form-data
 * and nothing else; it reads the form itself (multipart.ts). One that also
 * names `text` media types takes such a body whole, read as text like JSON is.
 */
function checkBody(state: RequestState, form: FormRule | null, request: Request) {
  if (form) {
    if (state.form) return;
    const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
    if (state.rawBody !== undefined && form.text.includes(type)) return;
    throw new UnsupportedMediaType(["multipart/form-data", ...form.text].join(" or "));
  }
  if (state.bodyProblem === "malformed") throw new ValidationFailed([{ loc: ["body"], msg: "Malformed JSON body", type: "json_invalid" }]);
  if (state.bodyProblem === "number_range") {
    throw new ValidationFailed([{ loc: ["body"], msg: "Body holds a number too large to represent (beyond ±1.8e308)", type: "value_error" }]);
  }
  if (state.bodyProblem === "media_type") throw new UnsupportedMediaType();
}

/**
 * !!! AUTHENTICATION, TENANCY AND PERMISSION GUARD: changes need two reviewers. !!!
 * Every route declares exactly one of `public`, `authenticated`, `permission`
 * (an org key; the path's org_id must be an org the caller belongs to, else 404)
 * or `platform` (a platform key). app.ts refuses to start if a route has none.
 */
export function guard(rt: Runtime) {
  const verified = new Lru<string, { sub: string; sid: string; exp: number }>(50_000);

  /** X-User-Id is honoured only in dev-stub mode, and only where a route allows it. */
  function devStubUser(request: Request): string | undefined {
    const id = request.headers.get("x-user-id");
    return id && rt.config.authMode === "dev-stub" ? id : undefined;
  }

  function* stubPrincipal(userId: string): MaybeWork<Principal> {
    const p = UUID_RE.test(userId) ? yield* wait(rt.access.principal(userId.toLowerCase(), null)) : null;
    if (!p) throw new Unauthorized("Unknown X-User-Id");
    return p;
  }

  // Plain functions over values-or-promises: synchronous while every lookup is a cache hit.
  function authenticate(token: string | undefined, request?: Request): Maybe<SessionGrant & { principal: Principal }> {
    if (request?.headers.has("x-user-id")) throw new Unauthorized("X-User-Id is accepted only on the event stream in dev-stub mode");
    if (!token) throw new Unauthorized();
    const now = Date.now();
    const claims = verified.get(token, now);
    if (claims) return grantOf(claims, now);
    return rt.tokens.verify(token).then((c) => {
      if (!c) throw new Unauthorized("Invalid or expired access token");
      verified.set(token, c);
      return grantOf(c, now);
    });
  }

  function grantOf(claims: { sub: string; sid: string; exp: number }, now: number): Maybe<SessionGrant & { principal: Principal }> {
    if (claims.exp * 1000 <= now) throw new Unauthorized("Invalid or expired access token");
    return then(rt.access.session(claims.sid, claims.sub), liveGrant);
  }

  function liveGrant(grant: SessionGrant): SessionGrant & { principal: Principal } {
    if (!grant.active) throw new Unauthorized("Session has ended");
    if (!grant.principal) throw new Unauthorized("Account is not active");
    return grant as SessionGrant & { principal: Principal };
  }

  /** Only a POST carrying Idempotency-Key pays for the lookup (async); yielded, so runMaybe awaits it. */
  function idempotency(input: GuardInput, state: RequestState, orgId: string | null, principal: Principal): Maybe<void> {
    const key = input.request.method === "POST" ? input.request.headers.get("idempotency-key") : null;
    if (!key) return;
    return then(
      beginIdempotent(rt.control, rt.sealer, { orgId, userId: principal.userId, method: "POST", path: input.path, key, rawBody: state.rawBody ?? "" }),
      (begun) => {
        state.idempotency = begun;
      },
    );
  }

  /** The caller may use the org's route: record who and where, open its database, build the verbs' context. */
  function enterOrg(input: GuardInput, key: OrgPermissionKey, principal: Principal, access: OrgAccess | null, form: FormRule | null = null): Maybe<void> {
    if (!access) throw new NotFound("Organization");
    if (!access.keys.has(key)) throw new Forbidden();
    const state = stateOf(input.request);
    // Held only at some places: where the request acts is checked once its input is valid (checkPlace).
    if (!access.grants.everywhere.has(key)) state.placeCheck = { key, grants: access.grants };
    state.principal = principal;
    state.orgId = access.org.id;
    reparseQuery(input);
    checkBody(state, form, input.request);
    // a form's idempotency is judged once it is read (its fingerprint is the form's); a text body's as any other
    const readLater = !!form && !!state.form;
    const opened = then(rt.orgDbs.get(access.org.id, access.org.shard), (db) => then(readYourWrites(rt, input.request, db), () => db));
    return then(opened, (db) => {
      state.ctx = rt.orgs.context(access.org, db, {
        actor: actorOf(principal),
        requestId: state.id,
        get ip() {
          return state.ip;
        },
        permissions: access.grants.everywhere,
      });
      // A stored replay is an answer too: for a member held to some places it waits until checkPlace allowed the request.
      if (!readLater && state.placeCheck) state.placeCheck.idempotency = () => idempotency(input, state, access.org.id, principal);
      else if (!readLater) return idempotency(input, state, access.org.id, principal);
      state.formIdempotency = async (fingerprint) => {
        state.rawBody = fingerprint;
        await idempotency(input, state, access.org.id, principal);
      };
    });
  }

  return new Elysia({ name: "cusp.guard" })
    .macro({
      public: (enabled: boolean) => ({
        transform: marked(function publicRoute({ request, params, path, query }: GuardInput) {
          const input: GuardInput = { request, params, path, query }; // destructured: Elysia then skips unused parsing (cookies)
          lowerCaseIds(params);
          reparseQuery(input);
          if (enabled) checkBody(stateOf(input.request), null, request);
        }),
      }),
      authenticated: (enabled: boolean) => ({
        transform: marked(function authenticatedRoute({ request, params, path, query }: GuardInput) {
          const input: GuardInput = { request, params, path, query }; // destructured: Elysia then skips unused parsing (cookies)
          lowerCaseIds(params);
          if (!enabled) return;
          return runMaybe(
            (function* () {
              const state = stateOf(input.request);
              state.principal = ((yield authenticate(bearerOf(input), input.request)) as SessionGrant & { principal: Principal }).principal;
              reparseQuery(input);
              checkBody(state, null, request);
              yield idempotency(input, state, null, state.principal);
            })(),
          );
        }),
        resolve({ request }) {
          const state = stateOf(request);
          return { principal: state.principal as Principal, requestId: state.id, ip: state.ip };
        },
      }),
      platform: (key: PlatformPermissionKey) => ({
        transform: marked(function platformRoute({ request, params, path, query }: GuardInput) {
          const input: GuardInput = { request, params, path, query }; // destructured: Elysia then skips unused parsing (cookies)
          lowerCaseIds(params);
          return runMaybe(
            (function* () {
              const state = stateOf(input.request);
              const { principal } = (yield authenticate(bearerOf(input), input.request)) as SessionGrant & { principal: Principal };
              if (!principal.platformKeys.has(key)) throw new Forbidden();
              state.principal = principal;
              reparseQuery(input);
              checkBody(state, null, request);
              yield idempotency(input, state, null, principal);
            })(),
          );
        }),
        resolve({ request }) {
          const state = stateOf(request);
          const principal = state.principal as Principal;
          return { principal, actor: actorOf(principal), requestId: state.id, ip: state.ip };
        },
      }),
      permission: (
        required:
          | OrgPermissionKey
          | { key: OrgPermissionKey; devStubUser: true }
          | { key: OrgPermissionKey; form: true; text?: readonly string[] }
          | { key: OrgPermissionKey; where: WhereResolver },
      ) => ({
        transform: marked(function orgRoute({ request, params, path, query }: GuardInput) {
          const input: GuardInput = { request, params, path, query }; // destructured: Elysia then skips unused parsing (cookies)
          lowerCaseIds(params);
          const key = typeof required === "string" ? required : required.key;
          const form = typeof required !== "string" && "form" in required ? { text: required.text ?? [] } : null;
          const orgId = params?.org_id ?? "";
          // Unknown org, malformed id and non-membership all answer the same 404.
          const stubUser = typeof required !== "string" && "devStubUser" in required ? devStubUser(request) : undefined;
          if (stubUser) {
            return runMaybe(
              (function* () {
                const principal = yield* stubPrincipal(stubUser);
                const access = (yield rt.access.orgAccessByPathId(principal, orgId)) as OrgAccess | null;
                yield enterOrg(input, key, principal, access, form);
              })(),
            );
          }
          return then(authenticate(bearerOf(input), request), (grant) =>
            then(rt.access.orgAccessIn(grant, orgId), (access) => enterOrg(input, key, grant.principal, access, form)),
          );
        }),
        beforeHandle: marked(function checkPlace({ request, params, query, body }: GuardInput & { body?: unknown }) {
          const state = stateOf(request);
          const check = state.placeCheck;
          if (!check) return;
          const ctx = state.ctx as OrgContext;
          const where = typeof required !== "string" && "where" in required ? required.where : undefined;
          const input = { params: params ?? {}, query: (query ?? {}) as Record<string, any>, body };
          return then(where ? where(ctx, input) : placeFromPath(ctx, input.params), (places) => {
            for (const place of places) if (!check.grants.covers(check.key, place)) throw new Forbidden(OUT_OF_SCOPE);
            return check.idempotency?.();
          });
        }),
        resolve({ request }) {
          return { ctx: stateOf(request).ctx as OrgContext };
        },
      }),
    })
    .as("global");
}

const OUT_OF_SCOPE = "Your permission for this does not reach this location or provider";

const GUARD = Symbol("cusp.guard");
function marked<F extends Function>(fn: F): F {
  (fn as unknown as Record<symbol, boolean>)[GUARD] = true;
  return fn;
}

/** True when a compiled route carries one of the guard macros. */
export function isGuarded(hooks: { transform?: unknown }): boolean {
  const list = Array.isArray(hooks.transform) ? hooks.transform : hooks.transform ? [hooks.transform] : [];
  return list.some((h: { fn?: unknown }) => !!(h?.fn ?? h) && ((h?.fn ?? h) as Record<symbol, boolean>)[GUARD] === true);
}
