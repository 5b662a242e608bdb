// Reading JSON Schemas (as the OpenAPI document writes them): which JSON types a
// schema allows, and whether a value fits it. The fuzzer uses `fits` to know
// when a request is invalid by the document itself, so refusing it is required.
import type { Schema } from "./spec";

export type JsonType = "string" | "number" | "integer" | "boolean" | "null" | "array" | "object";

const regexCache = new Map<string, RegExp | null>();
export function regexOf(pattern: string): RegExp | null {
  let re = regexCache.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern);
    } catch {
      re = null;
    }
    regexCache.set(pattern, re);
  }
  return re;
}

export function typeOfValue(v: unknown): JsonType {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v as JsonType;
}

/** The JSON types a schema allows, or null when it does not say (anything goes). */
export function allowedTypes(s: Schema, deref: (s: Schema) => Schema): Set<JsonType> | null {
  s = deref(s);
  const branches = s.anyOf ?? s.oneOf;
  if (Array.isArray(branches)) {
    const out = new Set<JsonType>();
    for (const b of branches) {
      const t = allowedTypes(b, deref);
      if (!t) return null;
      for (const x of t) out.add(x);
    }
    return out;
  }
  if (s.const !== undefined) return new Set([typeOfValue(s.const)]);
  if (Array.isArray(s.enum)) return new Set(s.enum.map(typeOfValue));
  if (s.type === undefined) {
    if (s.properties) return new Set(["object"]);
    if (s.items) return new Set(["array"]);
    return null;
  }
  const types = new Set<JsonType>(Array.isArray(s.type) ? s.type : [s.type]);
  if (types.has("number")) types.add("integer");
  return types;
}

/** Whether `v` is valid against `s` (the keywords the document uses; unknown keywords pass). */
export function fits(v: unknown, s: Schema, deref: (s: Schema) => Schema, depth = 0): boolean {
  s = deref(s);
  if (depth > 64) return true;
  if (s.const !== undefined && !sameJson(v, s.const)) return false;
  if (Array.isArray(s.enum) && !s.enum.some((e: unknown) => sameJson(v, e))) return false;
  if (Array.isArray(s.anyOf) && !s.anyOf.some((b: Schema) => fits(v, b, deref, depth + 1))) return false;
  if (Array.isArray(s.oneOf) && s.oneOf.filter((b: Schema) => fits(v, b, deref, depth + 1)).length !== 1) return false;
  if (Array.isArray(s.allOf) && !s.allOf.every((b: Schema) => fits(v, b, deref, depth + 1))) return false;
  if (s.type !== undefined) {
    const types: string[] = Array.isArray(s.type) ? s.type : [s.type];
    const t = typeOfValue(v);
    if (!types.includes(t) && !(t === "integer" && types.includes("number"))) return false;
  }
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return false;
    if (typeof s.minimum === "number" && v < s.minimum) return false;
    if (typeof s.maximum === "number" && v > s.maximum) return false;
    if (typeof s.exclusiveMinimum === "number" && v <= s.exclusiveMinimum) return false;
    if (typeof s.exclusiveMaximum === "number" && v >= s.exclusiveMaximum) return false;
    if (typeof s.multipleOf === "number" && Math.abs(v / s.multipleOf - Math.round(v / s.multipleOf)) > 1e-9) return false;
  }
  if (typeof v === "string") {
    const len = [...v].length;
    if (typeof s.minLength === "number" && len < s.minLength) return false;
    if (typeof s.maxLength === "number" && len > s.maxLength) return false;
    if (typeof s.pattern === "string") {
      const re = regexOf(s.pattern);
      if (re && !re.test(v)) return false;
    }
  }
  if (Array.isArray(v)) {
    if (typeof s.minItems === "number" && v.length < s.minItems) return false;
    if (typeof s.maxItems === "number" && v.length > s.maxItems) return false;
    if (s.items && typeof s.items === "object" && !v.every((x) => fits(x, s.items, deref, depth + 1))) return false;
  }
  if (v && typeof v === "object" && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    for (const r of (s.required as string[] | undefined) ?? []) if (!(r in o)) return false;
    const props: Record<string, Schema> = s.properties ?? {};
    for (const [k, x] of Object.entries(o)) {
      if (k in props) {
        if (!fits(x, props[k]!, deref, depth + 1)) return false;
      } else if (s.additionalProperties === false) return false;
      else if (s.additionalProperties && typeof s.additionalProperties === "object" && !fits(x, s.additionalProperties, deref, depth + 1)) return false;
      if (s.propertyNames && !fits(k, s.propertyNames, deref, depth + 1)) return false;
    }
  }
  return true;
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
