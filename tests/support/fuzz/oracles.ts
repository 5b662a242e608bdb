// What every answer must satisfy, whatever was sent (../shared/CONTRACT.md):
// no 5xx, refusals in the contract's error shape, nothing stored by a refusal,
// an answer within a second, and no other org's records reachable.
import { requirement, type FuzzRequest } from "./request";

export type Answer = { status: number; headers: Headers; text: string; ms: number };

export type Finding = { oracle: string; message: string };

export const TIME_LIMIT_MS = 1000;
const UUID_G = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const LEAKS = /SQLITE_|sqlite3?\b|drizzle|node_modules|\bat [\w.<>]+ \(|\.ts:\d+:\d+|stack|TypeError|ReferenceError|undefined is not/i;
const LOC_ROOTS = new Set(["body", "query", "path", "header"]);

/** The contract's error shapes: 422 `{detail: [{loc, msg, type}], code?}`, every other error `{detail, code}`. */
export function errorShapeProblem(status: number, headers: Headers, text: string): string | null {
  const ct = headers.get("content-type") ?? "";
  if (!ct.includes("application/json")) return `content-type ${JSON.stringify(ct)} (expected application/json)`;
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return "body is not JSON";
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) return "body is not an object";
  if (status === 422) {
    if (!Array.isArray(body.detail) || body.detail.length === 0) return "422 detail is not a non-empty array";
    for (const item of body.detail) {
      if (!item || typeof item !== "object") return "422 detail item is not an object";
      if (!Array.isArray(item.loc) || item.loc.length === 0 || !item.loc.every((x: unknown) => typeof x === "string" || typeof x === "number")) {
        return `422 loc ${JSON.stringify(item.loc)} is not a non-empty (string|number)[]`;
      }
      if (!LOC_ROOTS.has(item.loc[0])) return `422 loc ${JSON.stringify(item.loc)} does not start with body, query, path or header`;
      if (typeof item.msg !== "string" || !item.msg) return "422 msg is not a non-empty string";
      if (typeof item.type !== "string" || !item.type) return "422 type is not a non-empty string";
    }
    if (body.code !== undefined && typeof body.code !== "string") return "422 code is not a string";
  } else {
    if (typeof body.detail !== "string" || !body.detail) return `detail ${JSON.stringify(body.detail)?.slice(0, 80)} is not a non-empty string`;
    if (typeof body.code !== "string" || !/^[a-z][a-z0-9_]*$/.test(body.code)) return `code ${JSON.stringify(body.code)} is not a snake_case string`;
  }
  if (status === 401 && !/^Bearer\b/i.test(headers.get("www-authenticate") ?? "")) return "401 without WWW-Authenticate: Bearer";
  return null;
}

export function check(req: FuzzRequest, a: Answer, ctx: { foreignCreated: Set<string> }): Finding[] {
  const out: Finding[] = [];
  const { refuse, allowed } = requirement(req.expect, req.credential);
  // 501 is an answer only where the operation documents it (spec.md's Phase 2 actions); any other 5xx is a failure
  if (a.status >= 500 && !(a.status === 501 && req.op.statuses.includes(501))) out.push({ oracle: "5xx", message: `answered ${a.status}` });
  if (a.ms > TIME_LIMIT_MS) out.push({ oracle: "slow", message: `answered in ${Math.round(a.ms)} ms (limit ${TIME_LIMIT_MS})` });
  if (a.status >= 400) {
    const problem = errorShapeProblem(a.status, a.headers, a.text);
    if (problem) out.push({ oracle: "error shape", message: `${a.status}: ${problem}` });
    if (LEAKS.test(a.text)) out.push({ oracle: "leak", message: `error body names internals: ${a.text.slice(0, 160)}` });
  }
  const ok = a.status >= 200 && a.status < 300;
  if (ok && refuse.length) out.push({ oracle: "accepted", message: `${a.status} though it must be refused: ${refuse.join("; ")}` });
  if (allowed && a.status < 500 && !allowed.allowed.includes(a.status)) {
    out.push({ oracle: "status", message: `${a.status}, expected ${allowed.allowed.join(" or ")}: ${allowed.why}` });
  }
  if (req.expect.replay && (a.status !== req.expect.replay.status || a.text !== req.expect.replay.text)) {
    out.push({
      oracle: "replay",
      message: `answered ${a.status} ${a.text.slice(0, 80)}, not request #${req.expect.replay.index}'s ${req.expect.replay.status} ${req.expect.replay.text.slice(0, 80)}`,
    });
  }
  if (ok && a.text.startsWith("{")) {
    // records send ETag: "<version>" (contract)
    try {
      const body = JSON.parse(a.text);
      if (typeof body?.id === "string" && typeof body?.version === "number" && a.headers.get("etag") !== `"${body.version}"`) {
        out.push({ oracle: "etag", message: `ETag ${JSON.stringify(a.headers.get("etag"))} for a record at version ${body.version}` });
      }
    } catch {
      // not JSON: nothing to compare
    }
  }
  if (ok && req.foreignIds.length)
    out.push({ oracle: "cross-org", message: `${a.status} for a request carrying another org's id ${req.foreignIds.join(", ")}` });
  if (ok && req.op.tenant && ctx.foreignCreated.size) {
    const leaked = [...new Set(a.text.match(UUID_G) ?? [])].filter(
      (id) => ctx.foreignCreated.has(id.toLowerCase()) && !req.url.toLowerCase().includes(id.toLowerCase()),
    );
    if (leaked.length) out.push({ oracle: "cross-org", message: `the answer names another org's records: ${leaked.slice(0, 3).join(", ")}` });
  }
  return out;
}
