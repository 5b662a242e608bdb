import type { AnyElysia } from "elysia";
import { ValidationFailed, type ValidationIssue } from "@/platform/errors";
import { issuesToDetail } from "./validation";
import { declaredSchema, standInFor } from "./response-schemas";

// Every route's request schemas (body, query, path parameters, headers) are
// checked here, not by Elysia's own error path: on a failure Elysia builds a
// ValidationError that validates the value again and JSON.stringifies it with
// indentation, which for a large input costs seconds of the one thread. The
// stand-ins below run the same zod schema once and throw the contract's 422
// straight away, with at most MAX_ISSUES items and messages we wrote.

/** The body of a request that sent none (told apart from `{}`). */
export const NO_BODY: object = Object.freeze({});

/** More issues than this are summed up in one last item: an answer stays small whatever was sent. */
export const MAX_ISSUES = 50;

type Where = "body" | "query" | "path" | "header";
type StandardResult = { value?: unknown; issues?: readonly unknown[] };
type Standard = { "~standard": { version: 1; vendor: string; validate(v: unknown): StandardResult | Promise<StandardResult> } };

const PARTS: [hook: "body" | "query" | "params" | "headers", where: Where][] = [
  ["body", "body"],
  ["query", "query"],
  ["params", "path"],
  ["headers", "header"],
];

/**
 * Puts a stand-in in front of every request schema of a route module's routes.
 * Applied to each module before the app `use`s it: the app copies the module's
 * routes then, and captures their schemas for good.
 */
export function withRequestValidation<A extends AnyElysia>(app: A): A {
  for (const route of app.router.history as { hooks?: Record<string, unknown> }[]) {
    const hooks = route.hooks;
    if (!hooks) continue;
    for (const [hook, where] of PARTS) {
      const schema = hooks[hook];
      if (isStandard(schema) && declaredSchema(schema) === schema) hooks[hook] = standInFor(schema, requestValidator(schema, where));
    }
  }
  return app;
}

function isStandard(v: unknown): v is Standard {
  return !!v && typeof v === "object" && "~standard" in v;
}

/** The stand-in's validate: the schema's own, with our 422 on failure. */
export function requestValidator(schema: Standard, where: Where) {
  const readOnly = new Set<string>(((schema as { meta?: () => { readOnly?: string[] } | undefined }).meta?.()?.readOnly as string[] | undefined) ?? []);
  const numbers = where === "query" ? numericFields(schema) : null;
  return (value: unknown): StandardResult => {
    const input = value === NO_BODY ? undefined : value;
    if (input === undefined && where === "body") {
      const absent = schema["~standard"].validate(undefined) as StandardResult;
      if (absent.issues) throw new ValidationFailed([{ loc: ["body"], msg: "Request body is required", type: "missing" }]);
      return absent;
    }
    const malformed = numbers ? strictNumberIssues(input, numbers) : null;
    if (malformed) throw new ValidationFailed(malformed);
    const result = schema["~standard"].validate(input);
    if (result instanceof Promise) throw new Error("asynchronous request schemas are not supported");
    if (!result.issues) return result;
    const issues = result.issues as never[];
    throw new ValidationFailed(capped(issuesToDetail(where, issues, readOnly, input, MAX_ISSUES + 1), countIssues(issues)));
  };
}

/** How many items the issues would make (an unknown-keys issue makes one per key). */
function countIssues(issues: readonly { code?: string; keys?: unknown[] }[]): number {
  let n = 0;
  for (const issue of issues) n += issue.code === "unrecognized_keys" ? (issue.keys?.length ?? 1) : 1;
  return n;
}

function capped(detail: ValidationIssue[], total: number): ValidationIssue[] {
  if (detail.length === 0) return [{ loc: ["body"], msg: "Invalid input", type: "value_error" }];
  if (detail.length <= MAX_ISSUES) return detail;
  const kept = detail.slice(0, MAX_ISSUES - 1);
  kept.push({ loc: kept[0]!.loc.slice(0, 1), msg: `${Math.max(1, total - kept.length)} more problems not listed`, type: "truncated" });
  return kept;
}

// Query numbers are written in decimal: `page=0x10`, `1e2`, `+5`, ` 5` or (for
// an integer) `5.0` are refused, where a plain coercion would read them as numbers.
const DECIMAL_INTEGER = /^-?\d+$/;
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

type ZodNode = { _zod?: { def?: ZodDef } };
type ZodDef = { type: string; shape?: Record<string, ZodNode>; innerType?: ZodNode; in?: ZodNode };

/** The query fields whose schema is a (coerced) number, and whether each is an integer. */
export function numericFields(schema: unknown): Map<string, "integer" | "number"> {
  const out = new Map<string, "integer" | "number">();
  const shape = (schema as ZodNode)?._zod?.def?.shape;
  if (!shape) return out;
  for (const [key, field] of Object.entries(shape)) {
    const number = unwrapNumber(field);
    if (number) out.set(key, isInteger(number) ? "integer" : "number");
  }
  return out;
}

function unwrapNumber(node: ZodNode | undefined): ZodNode | null {
  for (let depth = 0; node && depth < 8; depth++) {
    const def = node._zod?.def;
    if (!def) return null;
    if (def.type === "number") return node;
    node = def.innerType ?? def.in; // optional, nullable, default, catch, pipe
  }
  return null;
}

function isInteger(number: ZodNode): boolean {
  return (number as { isInt?: boolean }).isInt === true; // zod's ZodNumber says so once .int() is applied
}

function strictNumberIssues(query: unknown, numbers: Map<string, "integer" | "number">): ValidationIssue[] | null {
  if (numbers.size === 0 || !query || typeof query !== "object") return null;
  let issues: ValidationIssue[] | null = null;
  for (const [key, kind] of numbers) {
    const v = (query as Record<string, unknown>)[key];
    if (typeof v !== "string") continue; // absent, or repeated: the schema reports it
    if ((kind === "integer" ? DECIMAL_INTEGER : DECIMAL).test(v)) continue;
    (issues ??= []).push({
      loc: ["query", key],
      msg: kind === "integer" ? "Must be a whole number in decimal digits" : "Must be a decimal number",
      type: "type_error",
    });
  }
  return issues;
}
