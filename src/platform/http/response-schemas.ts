import type { AnyElysia } from "elysia";

export type ResponseSchemaMode = "trust" | "validate" | "strict";
type Standard = { "~standard": { version: 1; vendor: string; validate(v: unknown): unknown } };
type Result = { value?: unknown; issues?: readonly { message: string; path?: readonly PropertyKey[] }[] };

// the schema a route declared, behind the stand-in the route now validates with
const declared = new WeakMap<object, object>();

/** The schema a route declared (for the OpenAPI document), whatever stands in for it at run time. */
export function declaredSchema<T extends object>(schema: T): T {
  return (declared.get(schema) as T | undefined) ?? schema;
}

/**
 * Every route declares its response schemas once; they document the answers
 * (OpenAPI) and the mode decides what they do at run time:
 *
 * - `trust` (the default, production): the answer is sent as the serializer
 *   built it. Parsing each answer again with zod cost ~1.5 µs per record
 *   (6 µs for a patient) on every read, for a check the tests already make.
 * - `strict` (the test suite): zod parses the answer, and an answer that
 *   parsing would change (a key the schema doesn't name, which zod would strip,
 *   or a transformed value) fails as a 500. So a serializer that leaks a column
 *   fails its tests instead of relying on the parse to hide it in production.
 * - `validate`: Elysia's own behaviour (parse, send the parsed value).
 *
 * Elysia keeps the route's response map object and reads its entries when it
 * compiles the route (on the first request), so the stand-ins are put in place
 * right after the routes are declared.
 */
export function applyResponseSchemaMode(app: AnyElysia, mode: ResponseSchemaMode): void {
  if (mode === "validate") return;
  for (const route of app.router.history as { hooks?: { response?: unknown } }[]) {
    const map = route.hooks?.response;
    if (!map || typeof map !== "object" || "~standard" in map) continue;
    const entries = map as Record<string, unknown>;
    for (const [status, schema] of Object.entries(entries)) {
      if (!schema || typeof schema !== "object" || !("~standard" in schema) || declared.has(schema)) continue;
      entries[status] = standIn(schema as Standard, mode);
    }
  }
}

function standIn(schema: Standard, mode: "trust" | "strict"): Standard {
  const validate =
    mode === "trust"
      ? (value: unknown): Result => ({ value })
      : (value: unknown): Result => {
          const parsed = schema["~standard"].validate(value) as Result;
          if (parsed instanceof Promise) throw new Error("asynchronous response schemas are not supported");
          if (parsed.issues) return parsed;
          if (!Bun.deepEquals(parsed.value, value)) {
            return { issues: [{ message: `the answer differs from its response schema once parsed: ${firstDifference(value, parsed.value)}` }] };
          }
          return parsed;
        };
  return standInFor(schema, validate);
}

/** A schema that validates with `validate` and documents itself (OpenAPI) as `schema`. */
export function standInFor<S extends Standard>(schema: S, validate: (value: unknown) => unknown): S {
  const wrapper = { "~standard": { ...schema["~standard"], validate } } as S;
  declared.set(wrapper, schema);
  return wrapper;
}

/** Where an answer and its parsed form first differ (for the failing test's log). */
function firstDifference(sent: unknown, parsed: unknown, path = "$"): string {
  if (Array.isArray(sent) && Array.isArray(parsed)) {
    for (let i = 0; i < Math.max(sent.length, parsed.length); i++) {
      if (!Bun.deepEquals(sent[i], parsed[i])) return firstDifference(sent[i], parsed[i], `${path}[${i}]`);
    }
  } else if (sent && parsed && typeof sent === "object" && typeof parsed === "object") {
    const a = sent as Record<string, unknown>,
      b = parsed as Record<string, unknown>;
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (!(k in b)) return `${path}.${k} is not in the schema`;
      if (!Bun.deepEquals(a[k], b[k])) return firstDifference(a[k], b[k], `${path}.${k}`);
    }
  }
  return `${path} changes from ${JSON.stringify(sent)?.slice(0, 80)} to ${JSON.stringify(parsed)?.slice(0, 80)}`;
}
