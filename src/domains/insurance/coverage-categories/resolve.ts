// Which coverage category a procedure code falls in: the rule the estimate
// engine applies to find a plan's coverage percentage for a code. Pure, so it
// runs over categories read once per estimate (loadCoverageCategories).

export type MatchSpan = { from_code: string; to_code: string; is_exclusion: boolean };
export type MatchCategory = { id: string; item_order: number; category_name?: string; deleted_at?: string | null; spans: readonly MatchSpan[] };

const CDT = /^D[0-9]{4}/;

/**
 * The CDT code a procedure code is matched as: D and four digits, upper case;
 * a suffix an office added (D2740.1, D2740A) is ignored. Null when it is not a
 * CDT code (custom or medical codes fall in no category).
 */
export function cdtCodeOf(code: string): string | null {
  const m = CDT.exec(code.trim().toUpperCase());
  return m ? m[0] : null;
}

const inSpan = (code: string, s: MatchSpan) => s.from_code <= code && code <= s.to_code;

/** Categories in matching order: item_order, then name (any case), then id. */
export function inMatchOrder<C extends MatchCategory>(categories: readonly C[]): C[] {
  return [...categories].sort(
    (a, b) =>
      a.item_order - b.item_order ||
      (a.category_name ?? "").toLowerCase().localeCompare((b.category_name ?? "").toLowerCase()) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/**
 * The coverage category of a procedure code: the first live category in
 * item_order with a non-exclusion span that contains the code and no
 * exclusion span that contains it. A category that excludes the code lets the
 * search go on to the next one. Null when none covers it. Hidden categories
 * count: hiding only stops a category being offered for new plan rules.
 */
export function coverageCategoryFor<C extends MatchCategory>(code: string, categories: readonly C[]): C | null {
  const cdt = cdtCodeOf(code);
  if (!cdt) return null;
  for (const c of inMatchOrder(categories)) {
    if (c.deleted_at) continue;
    if (c.spans.some((s) => !s.is_exclusion && inSpan(cdt, s)) && !c.spans.some((s) => s.is_exclusion && inSpan(cdt, s))) return c;
  }
  return null;
}
