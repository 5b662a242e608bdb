import type { CodeSpec, EngineCoverageCategory, EngineCoverageSpan } from "./types";

// Procedure codes and inclusive code ranges. CDT codes are "D" and four
// digits, so a range test is a string comparison between codes of the same
// length ("D23" is in no range of five-character codes).

export interface CodeRange {
  from_code: string;
  to_code: string;
}

export const normalizeCode = (code: string) => code.trim().toUpperCase();

// Specs are few and repeat in every check: parse each once (a bounded memo).
const parsed = new Map<string, CodeRange>();

/** "D1206" or "D2391-D2394" (spaces allowed around the dash) as a range. */
export function parseCodeSpec(spec: CodeSpec): CodeRange {
  const known = parsed.get(spec);
  if (known) return known;
  const [from, to, extra] = spec.split("-").map(normalizeCode);
  if (!from || extra !== undefined || (to !== undefined && (!to || to.length !== from.length || to < from))) {
    throw new RangeError(`Not a code or code range: ${JSON.stringify(spec)}`);
  }
  const range = Object.freeze({ from_code: from, to_code: to ?? from });
  if (parsed.size >= 10_000) parsed.clear();
  parsed.set(spec, range);
  return range;
}

export const inRange = (code: string, range: CodeRange) => code.length === range.from_code.length && range.from_code <= code && code <= range.to_code;

/** The first range of `specs` holding `code`, or null. */
export function findRange(code: string, specs: CodeSpec[]): CodeRange | null {
  for (const spec of specs) {
    const range = parseCodeSpec(spec);
    if (inRange(code, range)) return range;
  }
  return null;
}

export interface CategoryMatch {
  category: EngineCoverageCategory;
  span: EngineCoverageSpan;
}

/**
 * A code's category: the first category, in their order, with a non-exclusion
 * span holding the code and no exclusion span holding it. An exclusion span
 * carves codes out of its category (implants out of prosthodontics), and they
 * go on to the next category that covers them (docs/insurance/insurance-catalogue.md).
 */
export function matchCategory(code: string, categories: EngineCoverageCategory[]): CategoryMatch | null {
  for (const category of categories) {
    if (category.spans.some((s) => s.is_exclusion && inRange(code, s))) continue;
    for (const span of category.spans) {
      if (!span.is_exclusion && inRange(code, span)) return { category, span };
    }
  }
  return null;
}

/** The first exclusion span holding the code, in any category: when no category covers the code, the reason it is not covered. */
export function matchExclusionSpan(code: string, categories: EngineCoverageCategory[]): CategoryMatch | null {
  for (const category of categories) {
    for (const span of category.spans) {
      if (span.is_exclusion && inRange(code, span)) return { category, span };
    }
  }
  return null;
}
