import type { ValidationIssue } from "@/platform/errors";

// Maps schema issues to the contract's 422 `detail` items. Messages are written
// here, never copied from the input, so a response cannot echo submitted values.

export const READ_ONLY_FIELDS = new Set(["id", "uuid", "version", "created_at", "updated_at", "deleted_at"]);

type ZodIssueLike = {
  code: string;
  path: PropertyKey[];
  input?: unknown;
  expected?: string;
  keys?: string[];
  minimum?: number | bigint;
  maximum?: number | bigint;
  origin?: string;
  format?: string;
  values?: unknown[];
  message?: string;
  errors?: ZodIssueLike[][];
};

const kindOf = (v: unknown) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

function valueAt(root: unknown, path: PropertyKey[]): { present: boolean; value: unknown } {
  let cur: unknown = root;
  for (const key of path) {
    // a value that is not an object was transformed by its schema (e.g. split): it was present
    if (cur === null || typeof cur !== "object") return { present: cur !== undefined, value: cur };
    if (!(key in (cur as object))) return { present: false, value: undefined };
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return { present: cur !== undefined, value: cur };
}

export function issuesToDetail(
  where: string,
  raw: readonly ZodIssueLike[],
  extraReadOnly: ReadonlySet<string> = new Set(),
  input?: unknown,
  max = Infinity,
): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const issue of raw) {
    if (out.length >= max) break; // a caller that shows only `max` items need not map the rest
    const base = [where, ...issue.path.map((p) => (typeof p === "number" ? p : String(p)))];
    switch (issue.code) {
      case "unrecognized_keys":
        for (const key of issue.keys ?? []) {
          if (out.length >= max) break;
          const ro = READ_ONLY_FIELDS.has(key) || extraReadOnly.has(key);
          out.push({ loc: [...base, key], msg: ro ? "Field is read-only" : "Unknown field", type: ro ? "read_only" : "extra_forbidden" });
        }
        break;
      case "invalid_type": {
        const found = valueAt(input, issue.path);
        if (!found.present) out.push({ loc: base, msg: "Field required", type: "missing" });
        else out.push({ loc: base, msg: `Expected ${issue.expected ?? "another type"}, got ${kindOf(found.value)}`, type: "type_error" });
        break;
      }
      case "too_small":
        out.push({
          loc: base,
          msg:
            issue.origin === "string"
              ? `Must be at least ${issue.minimum} characters`
              : issue.origin === "array"
                ? `Must have at least ${issue.minimum} items`
                : `Must be at least ${issue.minimum}`,
          type: "out_of_range",
        });
        break;
      case "too_big":
        out.push({
          loc: base,
          msg:
            issue.origin === "string"
              ? `Must be at most ${issue.maximum} characters`
              : issue.origin === "array"
                ? `Must have at most ${issue.maximum} items`
                : `Must be at most ${issue.maximum}`,
          type: "out_of_range",
        });
        break;
      case "invalid_value":
        // zod reports an absent enum field as invalid_value: it is missing
        if (!valueAt(input, issue.path).present) {
          out.push({ loc: base, msg: "Field required", type: "missing" });
          break;
        }
        out.push({ loc: base, msg: issue.values?.length ? `Must be one of: ${issue.values.map(String).join(", ")}` : "Invalid value", type: "enum" });
        break;
      case "invalid_format":
        // a regex check carries the message its schema wrote (e.g. "Invalid uuid")
        out.push({
          loc: base,
          msg: issue.format === "regex" && issue.message && !issue.message.startsWith("Invalid string") ? issue.message : `Invalid ${issue.format ?? "format"}`,
          type: "format",
        });
        break;
      case "invalid_union":
        out.push({ loc: base, msg: "Does not match any allowed shape", type: "value_error" });
        break;
      default:
        // custom refinements carry messages we wrote ourselves
        out.push({ loc: base, msg: issue.message ?? "Invalid value", type: "value_error" });
    }
  }
  return out;
}
