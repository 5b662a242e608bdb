import type { Config } from "@/config";
import { AppError, invalid, PayloadTooLarge } from "@/platform/errors";

// Bounds on what a request may carry, checked before anything parses or
// validates it: a body's size, nesting depth and number of values, and the
// query string's length and number of parameters. Every check is one pass
// over text with no recursion, so a hostile input costs at most a few ms of
// one core and never reaches a recursive walker (JSON.stringify, a
// validator's error report) that could block the process or overflow.

export type InputLimits = Config["inputLimits"];

const QUOTE = 34; // "
const BACKSLASH = 92;
const OPEN_ARRAY = 91;
const OPEN_OBJECT = 123;
const CLOSE_ARRAY = 93;
const CLOSE_OBJECT = 125;
const COMMA = 44;
const LOWER_E = 101;
const UPPER_E = 69;
/** Decimal digits a double can take before a literal with no exponent overflows to Infinity (10^309). */
const MAX_PLAIN_DIGITS = 308;

/**
 * Why a JSON text is outside the bounds, or null when it is within them (or
 * malformed in a way JSON.parse will report). Depth counts open brackets;
 * values counts containers plus separators, so an array of n items or an
 * object of n keys counts about n; an object's keys are also counted on
 * their own (parsing an object with many keys is far slower than an array).
 */
export function jsonBoundsProblem(
  text: string,
  limits: Pick<InputLimits, "jsonMaxDepth" | "jsonMaxValues" | "jsonMaxObjectKeys">,
  /** Set when a number is too large for a double (it would parse to ±Infinity): a validation problem, reported after authentication. */
  found?: { overflow: boolean },
): AppError | null {
  const { jsonMaxDepth, jsonMaxValues, jsonMaxObjectKeys } = limits;
  // per open container: its separators so far, negative for an object (so one array holds both kinds)
  const open = new Int32Array(jsonMaxDepth + 1);
  let depth = 0;
  let values = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // skip the string: find the next quote not escaped by an odd run of backslashes
      let j = i;
      for (;;) {
        j = text.indexOf('"', j + 1);
        if (j < 0) return null; // unterminated: JSON.parse reports it
        let k = j - 1;
        while (text.charCodeAt(k) === BACKSLASH) k--;
        if ((j - 1 - k) % 2 === 0) break;
      }
      i = j;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > jsonMaxDepth) return tooDeep(jsonMaxDepth);
      if (++values > jsonMaxValues) return tooManyValues(jsonMaxValues);
      open[depth] = c === OPEN_OBJECT ? -1 : 1;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth > 0) depth--;
    } else if (c === COMMA) {
      if (++values > jsonMaxValues) return tooManyValues(jsonMaxValues);
      if (depth > 0 && open[depth]! < 0 && --open[depth]! < -jsonMaxObjectKeys) return tooManyKeys(jsonMaxObjectKeys);
    } else if (c >= 48 && c <= 57) {
      // a number: only one with an exponent or hundreds of digits can overflow (1e400 would parse to Infinity)
      let end = i + 1;
      let exponent = false;
      while (end < n && isNumberChar(text.charCodeAt(end))) {
        const d = text.charCodeAt(end);
        if (d === LOWER_E || d === UPPER_E) exponent = true;
        end++;
      }
      // (a token that is no number at all, NaN, is JSON.parse's to report)
      if (found && (exponent || end - i > MAX_PLAIN_DIGITS) && Math.abs(Number(text.slice(i, end))) === Number.POSITIVE_INFINITY) found.overflow = true;
      i = end - 1;
    }
  }
  return null;
}

/** Digits, a point, an exponent and its sign: the characters after a number's first digit. */
const isNumberChar = (c: number) => (c >= 48 && c <= 57) || c === 46 || c === LOWER_E || c === UPPER_E || c === 43 || c === 45;

const tooDeep = (max: number) => invalid(["body"], `Body is nested deeper than ${max} levels`, "limit_exceeded");
const tooManyKeys = (max: number) => invalid(["body"], `Body has an object with more than ${max} keys`, "limit_exceeded");
const tooManyValues = (max: number) => invalid(["body"], `Body holds more than ${max} values (keys and array items)`, "limit_exceeded");

/** A route's own body bounds, above the defaults: for the few bodies that are large by nature (a 10,000-row import). */
export type RouteBodyBounds = { bytes: number; values: number };
const ROUTE_BOUNDS = new Map<string, RouteBodyBounds>();
let largestRouteBytes = 0;

/**
 * Declares larger body bounds for one route (`path` as the route is declared,
 * with its prefix: "/api/v1/:org_id/insurance/drafts/import"). Depth and keys
 * per object stay at the defaults; the bounds still come before any parsing.
 */
export function allowLargerBody(method: string, path: string, bounds: RouteBodyBounds): void {
  ROUTE_BOUNDS.set(`${method} ${path}`, bounds);
  largestRouteBytes = Math.max(largestRouteBytes, bounds.bytes);
}

/** The route's own bounds, if it declared any. */
export const routeBodyBounds = (method: string, route: string | undefined): RouteBodyBounds | undefined =>
  route === undefined ? undefined : ROUTE_BOUNDS.get(`${method} ${route}`);

/** What a declared Content-Length may be before the route is known: the largest of the default and any route's own bound. */
export const largestBodyBytes = (base: number) => Math.max(base, largestRouteBytes);

/**
 * The query string's problem, or null: too long, or too many parameters.
 * Counted on the raw text (before any decoding or splitting).
 */
export function queryProblem(url: string, limits: Pick<InputLimits, "queryMaxBytes" | "queryMaxParams">): AppError | null {
  const q = url.indexOf("?");
  if (q < 0) return null;
  const length = url.length - q - 1;
  if (length > limits.queryMaxBytes) return invalid(["query"], `Query string is longer than ${limits.queryMaxBytes} characters`, "limit_exceeded");
  let params = 1;
  for (let i = url.indexOf("&", q); i >= 0; i = url.indexOf("&", i + 1)) {
    if (++params > limits.queryMaxParams) return invalid(["query"], `Query string has more than ${limits.queryMaxParams} parameters`, "limit_exceeded");
  }
  return null;
}

/**
 * The request body as text, refused with 413 past `limit` bytes. A declared
 * Content-Length was checked when the request arrived; a body sent without
 * one (chunked) is read chunk by chunk and abandoned as soon as it passes the
 * limit, so it is never held whole.
 */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  if (request.headers.has("content-length")) {
    const text = await request.text();
    // a character is at least one byte: only a long text needs its byte length counted
    if (text.length > limit || (text.length * 3 > limit && Buffer.byteLength(text) > limit)) throw new PayloadTooLarge(limit);
    return text;
  }
  const body = request.body;
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new PayloadTooLarge(limit);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
