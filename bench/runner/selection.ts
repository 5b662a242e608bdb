// BENCH_ONLY: a comma-separated list of row ids or id prefixes (`f1,g`); only
// those rows run, always between the ceiling (a) and (a'). A name that matches
// no row stops the run with the list of ids.

import type { RowFamily } from "./family";

export type Selection = {
  /** BENCH_ONLY's names (lower case, brackets dropped); empty: every row runs. */
  only: string[];
  selected(id: string): boolean;
  /** The selected ids, in the report's order. */
  ids: string[];
};

/** `order` is every family's ids, in the report's order (bench/rows/index.ts). */
export function selectRows(families: readonly RowFamily[], order: readonly string[], env = process.env.BENCH_ONLY): Selection {
  checkOrder(families, order);
  const only = (env ?? "")
    .split(",")
    .map((s) =>
      s
        .trim()
        .toLowerCase()
        .replace(/^\((.*)\)$/, "$1"),
    )
    .filter(Boolean);
  const unknown = only.filter((p) => !["a", "a'", "a2"].includes(p) && !order.some((id) => id.startsWith(p)));
  if (unknown.length) {
    console.error(`bench: BENCH_ONLY names no row: ${unknown.join(", ")} (rows: ${order.join(", ")}; (a) and (a') always run)`);
    process.exit(2);
  }
  // the ids of a family that runs together are selected together
  const group = (id: string) => {
    const family = families.find((f) => f.ids.includes(id));
    return family?.together ? family.ids : [id];
  };
  const selected = (id: string) => !only.length || only.some((p) => group(id).some((g) => g.startsWith(p)));
  return { only, selected, ids: order.filter(selected) };
}

/** The report's order must name every family's ids, each once. */
function checkOrder(families: readonly RowFamily[], order: readonly string[]) {
  const ids = families.flatMap((f) => f.ids);
  const missing = ids.filter((id) => !order.includes(id));
  const unknown = order.filter((id) => !ids.includes(id));
  const twice = order.filter((id, i) => order.indexOf(id) !== i);
  if (missing.length || unknown.length || twice.length)
    throw new Error(`bench/rows/index.ts: REPORT_ORDER and ROWS disagree (not in the order: ${missing}; no family: ${unknown}; twice: ${twice})`);
}
