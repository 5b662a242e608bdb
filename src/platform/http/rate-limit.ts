import type { RateLimit } from "@/config";
import type { Runtime } from "@/platform/runtime";
import type { CacheStore, TokenTake } from "@/platform/cache/types";
import { TooManyRequests } from "@/platform/errors";
import { stateOf } from "./request-state";

/**
 * The general rate limit (docs/platform/security.md, "Rate limits"): token buckets in the
 * cache store (in-process, or Redis shared by every API instance), checked in
 * http-core's request hook (core.ts), before the body is read, so a flood is refused cheaply.
 *
 * Every limited request is offered to two buckets of its route class: one per
 * credential (a hash of the bearer token; the token is not verified here, the
 * guard does that) and one per client address, `addressFactor` times larger.
 * Auth routes have one bucket, per address, with their own numbers. A request
 * goes ahead when both buckets have a token; a bucket that refuses takes none.
 */

export type RouteClass = "auth" | "read" | "write" | "upload";

const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const AUTH_PREFIX = "/api/v1/auth/";

/** The route class of a request, or null for the probes, which are never limited. The content type is read only for writes. */
export function routeClassOf(method: string, path: string, contentType: () => string | null): RouteClass | null {
  if (path === "/api/ping" || path === "/api/health" || path.startsWith("/api/health/")) return null;
  if (path.startsWith(AUTH_PREFIX)) return "auth";
  if (!WRITE_METHODS.has(method)) return "read";
  const type = contentType();
  return type !== null && type.toLowerCase().startsWith("multipart/form-data") ? "upload" : "write";
}

/** The URL's path (no query), without building a URL object. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const q = url.indexOf("?", start);
  return q === -1 ? url.slice(start) : url.slice(start, q);
}

/** The bearer token as the guard reads it: `Authorization: Bearer …`, else `?access_token=`. */
function credentialOf(request: Request, url: string): string | null {
  const header = request.headers.get("authorization");
  if (header !== null && header.startsWith("Bearer ")) return header.slice(7) || null;
  const q = url.indexOf("?");
  if (q === -1 || url.indexOf("access_token=", q) === -1) return null;
  return new URLSearchParams(url.slice(q + 1)).get("access_token") || null;
}

/**
 * An IPv6 address stands for its /64 (one host usually holds the whole prefix);
 * an IPv4-mapped IPv6 address for the IPv4 address.
 */
export function addressKey(address: string): string {
  const zone = address.indexOf("%");
  const a = (zone === -1 ? address : address.slice(0, zone)).toLowerCase();
  if (a.indexOf(":") === -1) return a;
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (v4) return v4[1]!;
  const [head, tail] = a.split("::", 2) as [string, string | undefined];
  const h = head ? head.split(":") : [];
  const t = tail === undefined ? [] : tail ? tail.split(":") : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(Math.max(0, 8 - h.length - t.length)).fill("0"), ...t];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** The client's address as limits and throttles key it ("unknown" for in-process requests). */
export function clientAddressOf(request: Request): string {
  const ip = stateOf(request).ip;
  return ip ? addressKey(ip) : "unknown";
}

type Limits = Runtime["config"]["rateLimits"];
type ClassLimits = { name: RouteClass; credential: RateLimit | null; address: RateLimit };

function classLimits(limits: Limits): Record<RouteClass, ClassLimits> {
  const scaled = (l: RateLimit): RateLimit => ({ rate: l.rate * limits.addressFactor, burst: Math.round(l.burst * limits.addressFactor) });
  return {
    auth: { name: "auth", credential: null, address: limits.auth },
    read: { name: "read", credential: limits.read, address: scaled(limits.read) },
    write: { name: "write", credential: limits.write, address: scaled(limits.write) },
    upload: { name: "upload", credential: limits.upload, address: scaled(limits.upload) },
  };
}

/**
 * The headers of draft-ietf-httpapi-ratelimit-headers-06 (three fields), for the
 * bucket nearer to refusing: Limit = its burst, Remaining = whole tokens left,
 * Reset = seconds until it is full again.
 */
function limitHeaders(take: TokenTake, limit: RateLimit): Record<string, string> {
  return {
    "RateLimit-Limit": String(limit.burst),
    "RateLimit-Remaining": String(take.remaining),
    "RateLimit-Reset": String(Math.ceil(take.resetSeconds)),
  };
}

/** The verdict once both takes are known: throws the 429, or puts the headers on the answer. */
function settle(c: ClassLimits, address: TokenTake, credential: TokenTake | null, headers: Record<string, unknown>): void {
  // the bucket that binds: a refusing one (the longer wait), else the one with fewer tokens left
  let take = address;
  let limit = c.address;
  if (credential !== null) {
    const credentialBinds = credential.allowed
      ? address.allowed && credential.remaining <= address.remaining
      : address.allowed || credential.retryAfterSeconds > address.retryAfterSeconds;
    if (credentialBinds) {
      take = credential;
      limit = c.credential!;
    }
  }
  if (!take.allowed) {
    const wait = Math.max(1, Math.ceil(take.retryAfterSeconds));
    throw new TooManyRequests(wait, `Rate limit exceeded; try again in ${wait} second${wait === 1 ? "" : "s"}`, limitHeaders(take, limit));
  }
  headers["RateLimit-Limit"] = String(limit.burst);
  headers["RateLimit-Remaining"] = String(take.remaining);
  headers["RateLimit-Reset"] = String(Math.ceil(take.resetSeconds));
}

/** The class, keys and limits of a request; null when it is not limited. */
function planOf(request: Request, classes: Record<RouteClass, ClassLimits>) {
  const url = request.url;
  const name = routeClassOf(request.method, pathOf(url), () => request.headers.get("content-type"));
  if (name === null) return null;
  const c = classes[name];
  const token = c.credential === null ? null : credentialOf(request, url);
  return {
    c,
    addressKey: `rl:${name}:a:${clientAddressOf(request)}`,
    credentialKey: token === null ? null : `rl:${name}:c:${Bun.SHA256.hash(token, "base64url")}`,
  };
}

/**
 * What http-core's request hook asks of the limits (core.ts): take a token
 * from the request's buckets, throwing the 429 or putting the headers on the
 * answer. Null when RATE_LIMITS=off. With the in-process store the take is
 * synchronous (no promise per request); with Redis it awaits both takes, sent
 * together (one round trip), and lets requests through when Redis fails (logged
 * at most every 10 s): the limit protects the service, it must not take it down.
 */
export type RateLimiter =
  | { shared: false; take(request: Request, headers: Record<string, unknown>): void }
  | { shared: true; take(request: Request, headers: Record<string, unknown>): Promise<void> };

export function rateLimiter(rt: Runtime): RateLimiter | null {
  const limits = rt.config.rateLimits;
  if (!limits.enabled) return null;
  const classes = classLimits(limits);
  const cache: CacheStore = rt.cache;

  if (cache.kind === "memory") {
    return {
      shared: false,
      take(request, headers) {
        const plan = planOf(request, classes);
        if (plan === null) return;
        const { c } = plan;
        const address = cache.takeToken(plan.addressKey, c.address.rate, c.address.burst) as TokenTake;
        const credential = plan.credentialKey === null ? null : (cache.takeToken(plan.credentialKey, c.credential!.rate, c.credential!.burst) as TokenTake);
        settle(c, address, credential, headers);
      },
    };
  }

  let lastWarning = 0;
  return {
    shared: true,
    async take(request, headers) {
      const plan = planOf(request, classes);
      if (plan === null) return;
      const { c } = plan;
      let address: TokenTake;
      let credential: TokenTake | null;
      try {
        [address, credential] = await Promise.all([
          cache.takeToken(plan.addressKey, c.address.rate, c.address.burst),
          plan.credentialKey === null ? null : cache.takeToken(plan.credentialKey, c.credential!.rate, c.credential!.burst),
        ]);
      } catch (err) {
        const now = Date.now();
        if (now - lastWarning > 10_000) {
          lastWarning = now;
          rt.logger.warn({ err: (err as Error)?.message }, "rate limit store failed; requests are let through unlimited");
        }
        return;
      }
      settle(c, address, credential, headers);
    },
  };
}
