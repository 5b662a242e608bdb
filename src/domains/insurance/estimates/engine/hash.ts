import { createHash } from "node:crypto";
import type { NormalizedInput } from "./normalize";

// inputs_hash: sha256 over a canonical JSON of exactly what one estimate was
// computed from, so the service can tell a stored estimate is stale. An
// estimate of procedure i against the plan of ordinal k depends on:
//   - the patient's date of birth and the coverage categories;
//   - the plans of ordinal <= k (a plan pays after the ones before it), with
//     their benefits used;
//   - procedures 0..i (earlier ones use deductible, maximum and frequency
//     first; later ones cannot change it);
//   - the overrides among those procedures and plans;
//   - ENGINE_VERSION, bumped whenever the arithmetic changes.
// It is computed on the normalized input, so key order, absent versus empty
// lists, and null overrides do not change it. Each piece (a plan, a procedure)
// is hashed on its own and the estimate's hash is taken over those digests: a
// hash tree, so a treatment plan's estimates do not hash the same plans again
// and again.

/** Bump when a rule or the rounding changes: every stored estimate becomes stale. */
export const ENGINE_VERSION = 1;

export type EstimateInputs = ReturnType<typeof sliceFor>;

export const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");

/** JSON with object keys sorted at every level and undefined members left out. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  writeCanonical(value, out);
  return out.join("");
}

// Codes, dates and ids need no escaping: skip JSON.stringify for them (the hot path).
const PLAIN = /^[\w .:/-]*$/;
const quote = (s: string) => (PLAIN.test(s) ? `"${s}"` : JSON.stringify(s));

function writeCanonical(value: unknown, out: string[]): void {
  if (value === null || value === undefined) {
    out.push("null");
  } else if (typeof value === "string") {
    out.push(quote(value));
  } else if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new RangeError("canonicalJson: non-finite number");
    out.push(JSON.stringify(value));
  } else if (typeof value === "boolean") {
    out.push(value ? "true" : "false");
  } else if (Array.isArray(value)) {
    out.push("[");
    value.forEach((v, i) => {
      if (i > 0) out.push(",");
      writeCanonical(v, out);
    });
    out.push("]");
  } else if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    out.push("{");
    let first = true;
    for (const key of Object.keys(record).sort()) {
      if (record[key] === undefined) continue;
      out.push(first ? "" : ",", quote(key), ":");
      first = false;
      writeCanonical(record[key], out);
    }
    out.push("}");
  } else {
    throw new TypeError(`canonicalJson: cannot encode a ${typeof value}`);
  }
}

/** The part of a normalized input that the estimate of (procedure index, ordinal) reads. */
export function sliceFor(input: NormalizedInput, procedureIndex: number, ordinal: number) {
  const ids = new Set(input.procedures.slice(0, procedureIndex + 1).map((p) => p.id));
  return {
    engine_version: ENGINE_VERSION,
    patient: input.patient,
    categories: input.categories,
    plans: input.plans.filter((p) => p.ordinal <= ordinal),
    procedures: input.procedures.slice(0, procedureIndex + 1),
    overrides: input.overrides.filter((o) => ids.has(o.procedure_id) && o.ordinal <= ordinal),
  };
}

const digest = (value: unknown) => sha256Hex(canonicalJson(value));

/** The slice with each piece replaced by its digest: what the hash is taken over. */
function digestTree(slice: EstimateInputs) {
  return {
    engine_version: slice.engine_version,
    patient: digest(slice.patient),
    categories: digest(slice.categories),
    plans: slice.plans.map(digest),
    procedures: slice.procedures.map(digest),
    overrides: slice.overrides.map(digest),
  };
}

export const hashSlice = (input: NormalizedInput, procedureIndex: number, ordinal: number) => digest(digestTree(sliceFor(input, procedureIndex, ordinal)));

/** hashSlice for every estimate of one input, each piece digested once (the property tests compare the two). */
export class SliceHasher {
  private readonly patient: string;
  private readonly categories: string;
  private readonly plans: { ordinal: number; digest: string }[];
  private readonly procedures: string[];
  private readonly overrides: { index: number; ordinal: number; digest: string }[];

  constructor(input: NormalizedInput) {
    this.patient = digest(input.patient);
    this.categories = digest(input.categories);
    this.plans = input.plans.map((p) => ({ ordinal: p.ordinal, digest: digest(p) }));
    this.procedures = input.procedures.map(digest);
    const index = new Map(input.procedures.map((p, i) => [p.id, i]));
    this.overrides = input.overrides.map((o) => ({ index: index.get(o.procedure_id) as number, ordinal: o.ordinal, digest: digest(o) }));
  }

  hash(procedureIndex: number, ordinal: number): string {
    return digest({
      engine_version: ENGINE_VERSION,
      patient: this.patient,
      categories: this.categories,
      plans: this.plans.filter((p) => p.ordinal <= ordinal).map((p) => p.digest),
      procedures: this.procedures.slice(0, procedureIndex + 1),
      overrides: this.overrides.filter((o) => o.index <= procedureIndex && o.ordinal <= ordinal).map((o) => o.digest),
    });
  }
}
