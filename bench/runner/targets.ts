// The targets the report checks (issue 19's, issue 36's for (b), (c), (c2),
// (e0) and (m1), and issue 18's for (h1)), each
// against the same run's ceiling: what is asked, what was measured, met or not.
// A target of a row that did not run is left out.

import { fmtInt } from "./format";
import type { Row } from "./row";

export type Target = { id: string; asked: string; measured: string; met: boolean };

export function targetsOf(rows: readonly Row[], ratio: (row: Row) => number): Target[] {
  const row = (id: string) => rows.find((x) => x.id === id);
  const ms = (us: number) => `${(us / 1000).toFixed(2)} ms`;
  const out: Target[] = [];
  const add = (id: string, asked: string, measure: (r: Row) => [string, boolean]) => {
    const r = row(id);
    if (!r) return;
    const [measured, met] = measure(r);
    out.push({ id, asked, measured, met });
  };
  add("b", "ratio >= 0.30", (r) => [ratio(r).toFixed(3), ratio(r) >= 0.3]);
  for (const id of ["c", "c2"])
    add(id, "ratio >= 0.10 and p99 < 10 ms", (r) => [`${ratio(r).toFixed(3)}, p99 ${ms(r.p99_us)}`, ratio(r) >= 0.1 && r.p99_us < 10_000]);
  add("e0", "ratio >= 0.80", (r) => [ratio(r).toFixed(3), ratio(r) >= 0.8]);
  add("d", ">= 2,500 bookings/s at 50 loops, no double booking", (r) => [
    `${fmtInt(r.rate)} bookings/s, double booking check ${r.doubleBookingOk ? "passed" : "FAILED"}`,
    r.rate >= 2500 && !!r.doubleBookingOk,
  ]);
  add("e3", "ratio >= 0.08", (r) => [ratio(r).toFixed(3), ratio(r) >= 0.08]);
  add("e4", "ratio >= 0.08", (r) => [ratio(r).toFixed(3), ratio(r) >= 0.08]);
  add("h1", "p99 < 50 ms", (r) => [ms(r.p99_us), r.p99_us < 50_000]);
  add("s1", "event delivery p99 < 50 ms, no event of another org, none missed or twice, booking rate >= 0.9 of (d)", (r) => {
    const st = r.streams!;
    return [
      `p99 ${st.delay_ms.p99} ms, ${st.foreign} foreign, ${st.missed} missed, ${st.duplicates} duplicates, ${st.rate_of_d.toFixed(2)} of (d)`,
      (st.delay_ms.p99 ?? Infinity) < 50 && st.foreign === 0 && st.missed === 0 && st.duplicates === 0 && st.rate_of_d >= 0.9,
    ];
  });
  const b = row("b");
  add("m1", `>= 0.7 of (b)'s rate${b ? "" : " (b did not run)"} and server RSS < 500 MB`, (r) => [
    `${b ? (r.rate / b.rate).toFixed(2) : "?"} of (b), RSS ${r.rss_mb ?? "?"} MB`,
    !!b && r.rate >= 0.7 * b.rate && (r.rss_mb ?? Infinity) < 500,
  ]);
  return out;
}
