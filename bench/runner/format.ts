// How figures are written, in the console and in the report.

import type { Row } from "./row";

export const fmtCores = (c: number | null) => (c === null ? "n/a" : c.toFixed(2));
export const fmtInt = (n: number) => Math.round(n).toLocaleString("en-US");
export const fmtLat = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us} µs`);
/** A duration that may run to seconds (the g rows). */
export const fmtDur = (us: number) => (us >= 1e6 ? `${(us / 1e6).toFixed(2)} s` : fmtLat(Math.round(us)));
/** Documents per second are a few: two decimals; every other unit as before. */
export const fmtRate = (row: Row) => (row.unit === "docs/s" ? row.rate.toFixed(2) : fmtInt(row.rate));
export const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

/** The console line of a measured row. */
export function rowLine(row: Row): string {
  return `  ${row.scenario}: ${fmtRate(row)} ${row.unit}${row.hasRatio === false ? (row.latency ? `, p50 ${fmtDur(row.latency.p50_us)} / p95 ${fmtDur(row.latency.p95_us)}` : "") : `, p50 ${fmtLat(row.p50_us)}, p99 ${fmtLat(row.p99_us)}`}; cores: server ${fmtCores(row.cores.server)}, load generator ${fmtCores(row.cores.load)}, other ${fmtCores(row.cores.other)}${row.errors ? `, ERRORS: ${row.errorDetail}` : ""}`;
}
