// Values from JSON Schemas: valid-looking ones (so requests get past validation
// into the handlers), and ones a schema refuses (wrong type, out of range).
// Field names only steer realism the way a client would read them: `*_uuid`
// takes a known id, `timezone` an IANA zone, `*_start`/`*_end` come in order.
import * as fc from "fast-check";
import type { Rng } from "./rng";
import type { Schema } from "./spec";
import { allowedTypes, fits, regexOf, type JsonType } from "./schema";

export type GenContext = {
  rng: Rng;
  deref(s: Schema): Schema;
  /** A known id for a field or parameter named `name` (e.g. `patient_uuid`), if any. */
  idFor(name: string): string | undefined;
  /** A value the service sent back under this key before, if any (and it fits). */
  seenFor(name: string, s: Schema): unknown;
  /** The version to send as base_version (of the record being changed). */
  baseVersion(): number | undefined;
  /** Chance of including each optional property. */
  optional: number;
};

const ZONES = ["America/New_York", "America/Chicago", "America/Los_Angeles", "Europe/London", "Asia/Tokyo", "UTC", "Australia/Sydney"];
const WORDS = ["smile", "molar", "crown", "filling", "cleaning", "north", "main", "bright", "clinic", "review", "alpha", "beta", "Dr", "note"];
const ODD_TEXT = [
  "Zoë Ångström",
  "名前",
  "مرحبا",
  "😀 tooth",
  "a\u0000b",
  "line\nbreak",
  "tab\tbed",
  "<script>x</script>",
  "'; DROP TABLE x;--",
  "%s%n",
  "   ",
];

export const isIdName = (name: string) => /(^|_)(uuid|id)s?$/.test(name);

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** Realistic strings, tried against a field's pattern before falling back to a sampled match. */
function candidates(name: string, s: Schema, ctx: GenContext): string[] {
  const { rng } = ctx;
  const out: string[] = [];
  if (isIdName(name)) {
    const id = ctx.idFor(name);
    if (id) out.push(id);
    out.push(rng.uuid());
  }
  if (/(^|_)(time_?zone|tz)$/.test(name)) out.push(rng.pick(ZONES));
  if (/email/.test(name) || s.format === "email") out.push(`fuzz.${rng.int(1, 1e9)}@example.com`);
  const y = rng.int(2026, 2031);
  const mo = rng.int(1, 12);
  const d = rng.int(1, 28);
  const h = rng.int(8, 16);
  const mi = rng.pick([0, 15, 30, 45]);
  const date = `${y}-${pad(mo)}-${pad(d)}`;
  if (s.format === "date" || /(^|_)(date|dob|birth|on)$|_date_|date_/.test(name))
    out.push(/birth|dob/.test(name) ? `${rng.int(1940, 2020)}-${pad(mo)}-${pad(d)}` : date);
  if (s.format === "date-time" || /(_at|start|end|time)$/.test(name)) {
    out.push(`${date}T${pad(h)}:${pad(mi)}:00`, `${date}T${pad(h)}:${pad(mi)}:00Z`, `${date}T${pad(h)}:${pad(mi)}:00-05:00`);
    if (/_at$/.test(name)) out.unshift(`${rng.int(2020, 2025)}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:00Z`);
  }
  if (s.format === "uri" || /url|website/.test(name)) out.push(`https://example.com/${rng.int(1, 999)}`);
  if (/(^|_)(time|start_time|end_time)$/.test(name) || /time/.test(name)) out.push(`${pad(h)}:${pad(mi)}`, `${pad(h)}:${pad(mi)}:00`);
  if (/month/.test(name)) out.push(`${y}-${pad(mo)}`);
  if (/colou?r/.test(name)) out.push(`#${rng.next32().toString(16).padStart(8, "0").slice(0, 6)}`);
  if (/phone|fax/.test(name)) out.push(`555-${pad(rng.int(0, 999), 3)}-${pad(rng.int(0, 9999), 4)}`);
  if (/slug/.test(name)) out.push(`fuzz-${rng.int(1, 1e9).toString(36)}`);
  // the usual shapes a pattern asks for, whatever the field is called
  if (typeof s.pattern === "string") out.push(date, `${date}T${pad(h)}:${pad(mi)}:00`, `${pad(h)}:${pad(mi)}`, rng.uuid());
  return out;
}

/** Strings matching a pattern, sampled once per pattern by fast-check (its own seed: the run's generator picks among them). */
const samples = new Map<string, string[]>();
function sampleMatching(pattern: string): string[] {
  let out = samples.get(pattern);
  if (!out) {
    const re = regexOf(pattern);
    try {
      out = re ? fc.sample(fc.stringMatching(re, { size: "small" }), { seed: Number(Bun.hash.crc32(pattern)) | 0, numRuns: 60 }) : [];
    } catch {
      out = [];
    }
    samples.set(pattern, out);
  }
  return out;
}

function text(rng: Rng, min: number, max: number): string {
  const want = rng.int(Math.max(min, 1), Math.max(min, Math.min(max, rng.chance(0.8) ? 24 : 200)));
  let s = rng.chance(0.08) ? rng.pick(ODD_TEXT) + " " : "";
  while (s.length < want) s += (s ? " " : "") + rng.pick(WORDS) + (rng.chance(0.3) ? rng.int(1, 999) : "");
  s = s.slice(0, Math.max(min, Math.min(want, max)));
  // a string cut inside a surrogate pair would be one code point short of the rule
  while ([...s].length < min) s += "x";
  return s;
}

export function genString(name: string, s: Schema, ctx: GenContext): string {
  const min = typeof s.minLength === "number" ? s.minLength : 0;
  const max = typeof s.maxLength === "number" ? s.maxLength : 4000;
  const ok = (v: string) => fits(v, s, ctx.deref);
  const seen = ctx.seenFor(name, s);
  if (typeof seen === "string" && ctx.rng.chance(0.4)) return seen;
  for (const c of candidates(name, s, ctx)) if (ok(c)) return c;
  if (typeof s.pattern === "string") {
    const matching = sampleMatching(s.pattern).filter(ok);
    // mostly the tidy ones (no padding or control characters): a client's values
    const tidy = matching.filter((v) => v.trim() === v && !/[\u0000-\u001f]/.test(v));
    if (tidy.length && ctx.rng.chance(0.85)) return ctx.rng.pick(tidy);
    if (matching.length) return ctx.rng.pick(matching);
  }
  return text(ctx.rng, min, max);
}

function genNumber(name: string, s: Schema, integer: boolean, ctx: GenContext): number {
  const { rng } = ctx;
  const seen = ctx.seenFor(name, s);
  if (typeof seen === "number" && rng.chance(0.3)) return seen;
  let lo = typeof s.minimum === "number" ? s.minimum : typeof s.exclusiveMinimum === "number" ? s.exclusiveMinimum + (integer ? 1 : 0.01) : 0;
  let hi = typeof s.maximum === "number" ? s.maximum : typeof s.exclusiveMaximum === "number" ? s.exclusiveMaximum - (integer ? 1 : 0.01) : lo + 1000;
  if (hi < lo) hi = lo;
  // mostly small values near the bottom of the range, sometimes the edges or anywhere
  const r = rng.float();
  let v = r < 0.65 ? lo + rng.int(0, Math.min(100, Math.floor(hi - lo))) : r < 0.75 ? lo : r < 0.85 ? hi : lo + rng.float() * (hi - lo);
  if (!integer && r < 0.65 && rng.chance(0.5)) v += rng.int(0, 99) / 100;
  if (integer) v = Math.round(v);
  if (typeof s.multipleOf === "number") {
    v = Math.ceil(v / s.multipleOf - 1e-9) * s.multipleOf;
    if (v > hi) v -= s.multipleOf;
    v = Number(v.toFixed(6));
  }
  return Math.min(Math.max(v, lo), hi);
}

/** A value valid against `s` as far as the generator can tell (field names steer realism). */
export function genValue(name: string, schema: Schema, ctx: GenContext, depth = 0): unknown {
  const s = ctx.deref(schema);
  const { rng } = ctx;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return rng.pick(s.enum);
  const branches: Schema[] | undefined = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches) && branches.length) {
    const nonNull = branches.filter((b) => ctx.deref(b).type !== "null");
    const branch = nonNull.length && rng.chance(0.85) ? rng.pick(nonNull) : rng.pick(branches);
    return genValue(name, { ...s, anyOf: undefined, oneOf: undefined, ...ctx.deref(branch) }, ctx, depth);
  }
  if (Array.isArray(s.allOf)) return genValue(name, Object.assign({}, ...s.allOf.map(ctx.deref), { allOf: undefined }), ctx, depth);
  let type: JsonType | undefined = Array.isArray(s.type)
    ? s.type.filter((t: string) => t !== "null").length && rng.chance(0.85)
      ? rng.pick(s.type.filter((t: string) => t !== "null"))
      : rng.pick(s.type)
    : s.type;
  if (!type) type = s.properties ? "object" : s.items ? "array" : undefined;
  if (name === "base_version" && (type === "integer" || type === "number")) return ctx.baseVersion() ?? 1;
  switch (type) {
    case "string":
      return genString(name, s, ctx);
    case "integer":
      return genNumber(name, s, true, ctx);
    case "number":
      return genNumber(name, s, false, ctx);
    case "boolean":
      return rng.chance(0.5);
    case "null":
      return null;
    case "array": {
      const min = typeof s.minItems === "number" ? s.minItems : 0;
      const max = Math.min(typeof s.maxItems === "number" ? s.maxItems : 3, min + 3);
      const n = depth > 6 ? min : rng.int(min, max);
      const items: unknown[] = [];
      const single = name.replace(/s$/, "");
      for (let i = 0; i < n * 3 && items.length < n; i++) {
        const v = genValue(single, s.items ?? {}, ctx, depth + 1);
        if (!items.some((x) => JSON.stringify(x) === JSON.stringify(v))) items.push(v);
      }
      return items;
    }
    case "object":
      return genObject(s, ctx, depth);
    default:
      return rng.pick<unknown>(["x", 1, true, null]);
  }
}

export function genObject(s: Schema, ctx: GenContext, depth = 0): Record<string, unknown> {
  const { rng } = ctx;
  const out: Record<string, unknown> = {};
  const props: Record<string, Schema> = s.properties ?? {};
  const required = new Set<string>(s.required ?? []);
  for (const [k, p] of Object.entries(props)) {
    if (required.has(k) || (depth < 6 && rng.chance(ctx.optional))) out[k] = genValue(k, p, ctx, depth + 1);
  }
  if (!s.properties && s.additionalProperties && typeof s.additionalProperties === "object" && depth < 4) {
    for (let i = rng.int(0, 2); i > 0; i--) out[`key_${rng.int(1, 99)}`] = genValue("value", s.additionalProperties, ctx, depth + 1);
  }
  orderPairs(out, rng);
  return out;
}

// ---- pairs that must come in order: x_start/x_end, x_from/x_to, start_x/end_x ----

const PAIRS: [RegExp, string][] = [
  [/^(.*)start(.*)$/, "end"],
  [/^(.*)from(.*)$/, "to"],
  [/^(.*)begin(.*)$/, "end"],
  [/^(.*)min(.*)$/, "max"],
];

/** Puts the later half of each start/end pair after the earlier one (same day, 15 to 120 minutes on). */
export function orderPairs(o: Record<string, unknown>, rng: Rng) {
  for (const key of Object.keys(o)) {
    for (const [re, other] of PAIRS) {
      const m = re.exec(key);
      if (!m) continue;
      const partner = `${m[1]}${other}${m[2]}`;
      const a = o[key];
      if (!(partner in o)) continue;
      const later = laterThan(a, o[partner], rng);
      if (later !== undefined) o[partner] = later;
    }
  }
}

function laterThan(a: unknown, b: unknown, rng: Rng): unknown {
  if (typeof a === "number" && typeof b === "number") return b >= a ? b : a;
  if (typeof a !== "string" || typeof b !== "string") return undefined;
  const dt = /^(\d{4}-\d\d-\d\d)T(\d\d):(\d\d)(:\d\d(?:\.\d+)?)?(Z|[+-]\d\d:\d\d)?$/.exec(a);
  const shapeB = /^(\d{4}-\d\d-\d\d)T(\d\d):(\d\d)(:\d\d(?:\.\d+)?)?(Z|[+-]\d\d:\d\d)?$/.exec(b);
  if (dt && shapeB) {
    const mins = Math.min(23 * 60 + 59, Number(dt[2]) * 60 + Number(dt[3]) + rng.pick([15, 30, 45, 60, 90, 120]));
    return `${dt[1]}T${pad(Math.floor(mins / 60))}:${pad(mins % 60)}${dt[4] ?? ""}${dt[5] ?? ""}`;
  }
  const d = /^(\d{4})-(\d\d)-(\d\d)$/.exec(a);
  if (d && /^\d{4}-\d\d-\d\d$/.test(b)) {
    const t = new Date(Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]) + rng.int(0, 6)));
    return t.toISOString().slice(0, 10);
  }
  const hm = /^(\d\d):(\d\d)(:\d\d)?$/.exec(a);
  if (hm && /^\d\d:\d\d(:\d\d)?$/.test(b)) {
    const mins = Math.min(23 * 60 + 45, Number(hm[1]) * 60 + Number(hm[2]) + rng.pick([60, 120, 240]));
    return `${pad(Math.floor(mins / 60))}:${pad(mins % 60)}${hm[3] ?? ""}`;
  }
  return undefined;
}

// ---- invalid values ----

const BY_TYPE: [JsonType, () => unknown][] = [
  ["string", () => "not-a-number"],
  ["integer", () => 12345],
  ["number", () => 1.5],
  ["boolean", () => true],
  ["null", () => null],
  ["array", () => ["x"]],
  ["object", () => ({ nested: 1 })],
];

/** A value of a JSON type the schema does not allow, or undefined when it allows every type. */
export function wrongType(s: Schema, ctx: GenContext): unknown {
  const allowed = allowedTypes(s, ctx.deref);
  if (!allowed) return undefined;
  const options = BY_TYPE.filter(([t]) => !allowed.has(t) && !(t === "integer" && allowed.has("number"))).map(([, f]) => f());
  const wrong = options.filter((v) => !fits(v, s, ctx.deref));
  return wrong.length ? ctx.rng.pick(wrong) : undefined;
}

/** A value of an allowed type that breaks a bound (range, length, pattern, enum, items), or undefined. */
export function outOfRange(s0: Schema, ctx: GenContext): unknown {
  const s = ctx.deref(s0);
  const { rng } = ctx;
  const branches: Schema[] = (s.anyOf ?? s.oneOf ?? [s]).map(ctx.deref);
  const options: unknown[] = [];
  for (const b of branches) {
    const t = Array.isArray(b.type) ? b.type : [b.type];
    if (t.includes("integer") || t.includes("number")) {
      if (typeof b.maximum === "number") options.push(b.maximum + 1, b.maximum + 1e9, 1e308);
      if (typeof b.minimum === "number") options.push(b.minimum - 1, -1e308);
      if (t.includes("integer") && !t.includes("number")) options.push(1.5, 2 ** 53 + 2);
      if (typeof b.multipleOf === "number") options.push((b.minimum ?? 0) + b.multipleOf / 2);
    }
    if (t.includes("string")) {
      if (typeof b.maxLength === "number") options.push("x".repeat(b.maxLength + 1), "é".repeat(b.maxLength + rng.int(1, 10)));
      if (typeof b.minLength === "number" && b.minLength > 0) options.push("");
      if (typeof b.pattern === "string") options.push("not valid!", " ", "0000-00-00", "ZZZZ-ZZ", "1".repeat(40));
      if (Array.isArray(b.enum)) options.push("not_a_value", String(b.enum[0]).toUpperCase() + "_X");
    }
    if (Array.isArray(b.enum) && !t.includes("string")) options.push("not_a_value");
    if (t.includes("array")) {
      if (typeof b.maxItems === "number") options.push(Array.from({ length: b.maxItems + 1 }, (_, i) => genValue("item", b.items ?? {}, ctx, 9) ?? i));
      if (typeof b.minItems === "number" && b.minItems > 0) options.push([]);
      if (b.items) {
        const bad = wrongType(b.items, ctx);
        if (bad !== undefined) options.push([bad]);
      }
    }
  }
  const invalid = options.filter((v) => !fits(v, s, ctx.deref));
  return invalid.length ? rng.pick(invalid) : undefined;
}
