// What a fuzz request is: the request itself, what the contract then requires
// of its answer (its Expectation), the world it is built in, and the ways to
// read and change its query and body.
import { routeBodyBounds } from "@/platform/http/input-limits";
import type { Credential } from "./credentials";
import type { Pools } from "./pools";
import type { Operation, Spec } from "./spec";

export type Expectation = {
  /** Reasons the request must be refused (no 2xx). */
  refuse: string[];
  /** Reasons about the body's content (dropped when a later mutation replaces the whole body). */
  bodyRefuse: string[];
  /** Statuses for the org in the path, which the guard checks next (404 for an org the caller cannot see). */
  org?: { allowed: number[]; why: string };
  /** Statuses for the credential, which the guard checks before anything else (401). */
  auth?: { allowed: number[]; why: string };
  /** The request is over an input limit, which may be refused before the caller is known (413, 414, 422, 431). */
  overLimit?: boolean;
  /** The body is sent as another media type than the operation's (415 once the body is not empty). */
  mediaType?: string;
  /** A repeat of an idempotent POST: the first answer again, byte for byte, and nothing stored. */
  replay?: { status: number; text: string; index: number };
};

/** An idempotent POST that was answered 2xx (so its answer is stored for replay). */
export type Remembered = {
  url: string;
  key: string;
  body?: string;
  headers: Record<string, string>;
  credential: string;
  scope: string;
  status: number;
  text: string;
  index: number;
};

/**
 * Why the request must be refused, and which statuses are allowed, all
 * mutations taken together, in the order the service checks: the credential
 * (401), the org (404), the permission (403, for any caller but the
 * platform administrator), then the media type (415); input limits may
 * refuse first (413, 414, 422, 431).
 */
export function requirement(e: Expectation, credential = "admin"): { refuse: string[]; allowed?: { allowed: number[]; why: string } } {
  // the fixture's members may lose keys to fuzzed group changes: only the platform administrator is never 403
  const media = e.mediaType ? { allowed: credential === "admin" ? [415] : [415, 403], why: `a body of type ${e.mediaType} is 415` } : undefined;
  const allowed = e.auth ?? e.org ?? media;
  const limits = e.overLimit && allowed ? { allowed: [...allowed.allowed, 413, 414, 422, 431], why: `${allowed.why} (or an input-limit refusal)` } : allowed;
  return { refuse: [...e.refuse, ...e.bodyRefuse], allowed: limits };
}

export type FuzzRequest = {
  index: number;
  phase: "seed" | "fuzz";
  op: Operation;
  method: string;
  /** Path with query string. */
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** What the body is, when it is too big to print. */
  bodyNote?: string;
  mutations: string[];
  expect: Expectation;
  /** The pool scope the request acts in: an org key ("A", "B") or "platform". */
  scope: string;
  /** Ids created only in another org, carried in this request's path or body. */
  foreignIds: string[];
  credential: string;
  /** The concrete path parameters. */
  params: Record<string, string>;
  /** Body slots (paths joined with ".") a mutation already changed: later mutations leave them alone. */
  touched: Set<string>;
};

export type Org = { key: string; id: string };

/**
 * The body bounds that hold for one operation: the defaults, or the route's own
 * larger ones (allowLargerBody in src/platform/http/input-limits.ts: the draft import).
 */
export function bodyLimitsOf(op: { method: string; path: string }, limits: Limits): { bodyBytes: number; maxValues: number } {
  const own = routeBodyBounds(op.method, op.path.replace(/\{([^}]+)\}/g, ":$1"));
  return own ? { bodyBytes: own.bytes, maxValues: own.values } : { bodyBytes: limits.bodyBytes, maxValues: limits.maxValues };
}

export type Limits = { bodyBytes: number; maxDepth: number; maxValues: number; maxObjectKeys: number; queryMaxParams: number; queryMaxBytes: number };

export type World = {
  spec: Spec;
  pools: Pools;
  orgs: Org[];
  /** The valid credentials: `admin` (platform administrator), `member` (org administrator of the first org only), `reader` (read keys of the first org). */
  principals: Record<string, { userId: string; token: string }>;
  bad: Credential[];
  limits: Limits;
  /** Idempotent POSTs answered 2xx, per operation. */
  idempotent: Map<string, Remembered[]>;
};

/** Puts the credential of fixture caller `who` on the request. */
export function authenticate(req: FuzzRequest, w: World, who: string) {
  const p = w.principals[who]!;
  req.headers.authorization = `Bearer ${p.token}`;
  req.credential = who;
}

/** A value as query-string values (arrays repeat the parameter). */
export function queryValues(v: unknown): string[] {
  if (v === undefined) return [];
  if (Array.isArray(v)) return v.flatMap(queryValues);
  if (v !== null && typeof v === "object") return [JSON.stringify(v)];
  return [String(v)];
}

/** The query string as [name, value] pairs, decoded. */
export function getQuery(req: FuzzRequest): [string, string][] {
  const i = req.url.indexOf("?");
  if (i < 0) return [];
  return req.url
    .slice(i + 1)
    .split("&")
    .filter(Boolean)
    .map((kv) => {
      const j = kv.indexOf("=");
      return j < 0 ? [decodeURIComponent(kv), ""] : [decodeURIComponent(kv.slice(0, j)), decodeURIComponent(kv.slice(j + 1))];
    });
}

/** Writes the path (with its parameters) and `query` into the request's url. */
export function setQuery(req: FuzzRequest, query: [string, string][]) {
  // (a lone surrogate cannot be percent-encoded: it goes as U+FFFD, as a browser would send it)
  const enc = (v: string) => encodeURIComponent(v.toWellFormed());
  const path = req.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => enc(req.params[name] ?? ""));
  const qs = query.map(([k, v]) => `${enc(k)}=${enc(v)}`).join("&");
  req.url = qs ? `${path}?${qs}` : path;
}

/** The body parsed (undefined when it is absent or not JSON): a fresh copy, to change. */
export function bodyValue(req: FuzzRequest): unknown {
  try {
    return req.body === undefined ? undefined : JSON.parse(req.body);
  } catch {
    return undefined;
  }
}

const parsed = new WeakMap<FuzzRequest, { text: string | undefined; value: unknown }>();
/** The body parsed, for reading only: kept while the body's text stays the same (mutations parse their own copy). */
export function readBody(req: FuzzRequest): unknown {
  const kept = parsed.get(req);
  if (kept && kept.text === req.body) return kept.value;
  const value = bodyValue(req);
  parsed.set(req, { text: req.body, value });
  return value;
}

/** The query parameters no earlier mutation set (a later one would void what the earlier one expects). */
export const freeQuery = (req: FuzzRequest) => req.op.query.filter((p) => !req.touched.has(`?${p.name}`));
/** Sets one query parameter (replacing it) and marks it changed. */
export function setParam(req: FuzzRequest, name: string, value: string | undefined) {
  const q = getQuery(req).filter(([k]) => k !== name);
  if (value !== undefined) q.push([name, value]);
  setQuery(req, q);
  req.touched.add(`?${name}`);
}
