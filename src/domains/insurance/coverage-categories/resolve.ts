import { matchCategory, normalizeCode } from "@/domains/insurance/estimates/engine/codes";

// Which coverage category a procedure code falls in, over an org's categories
// as stored: their matching order and the live ones, then the estimate
// engine's own rule (engine/codes.ts matchCategory), so the catalogue and the
// estimates never disagree.

export type MatchSpan = { from_code: string; to_code: string; is_exclusion: boolean };
export type MatchCategory = { id: string; item_order: number; category_name?: string; deleted_at?: string | null; spans: readonly MatchSpan[] };

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
 * matching order that covers it and does not carve it out with an exclusion
 * span (a carved-out code goes on to the next category). Null when none
 * covers it. Hidden categories count: hiding only stops a category being
 * offered for new plan rules.
 */
export function coverageCategoryFor<C extends MatchCategory>(code: string, categories: readonly C[]): C | null {
  const live = inMatchOrder(categories).filter((c) => !c.deleted_at);
  const match = matchCategory(
    normalizeCode(code),
    live.map((c) => ({ id: c.id, name: c.category_name ?? "", spans: [...c.spans] })),
  );
  return match ? (live.find((c) => c.id === match.category.id) ?? null) : null;
}
