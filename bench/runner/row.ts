// A row of the report: one measured figure, as the table and latest.json show it.

import type { Cores } from "./cpu";

export type Latencies = { p50_us: number; p90_us: number; p99_us: number; max_us: number; mean_us: number };

/** The booking pipeline's calls, each timed by the booking client. */
export type BookingPhases = { search: Latencies; types: Latencies; create: Latencies };

/** What bench/clients/streams.ts saw of the event streams it held (its STREAMS_JSON line). */
export type StreamsResult = {
  streams: number;
  connected: number;
  deliveries: number;
  events_per_org: Record<string, number>;
  foreign: number;
  duplicates: number;
  missed: number;
  delay_ms: { p50: number | null; p99: number | null; max: number | null };
};

export type Row = {
  id: string;
  scenario: string;
  unit: "req/s" | "bookings/s" | "rows/s" | "docs/s" | "statements/s" | "claims/s";
  /** false: no ratio to the ceiling, and no latency unless `latency` says (f2, g rows). */
  hasRatio?: boolean;
  /** A row without a ratio that has latencies of its own (the g rows: upload to active), shown as p50 / p95. */
  latency?: { p50_us: number; p95_us: number };
  rate: number;
  p50_us: number;
  p99_us: number;
  errors: number;
  errorDetail: string;
  count: number;
  cores: Cores;
  phases?: BookingPhases;
  /** A floor row ((b0), (c0), (e30), (d0)): the id of the Cusp row whose floor it is (the report's ratio to floor). */
  floorOf?: string;
  // The figures some targets read besides the rate and latency (runner/targets.ts):
  /** (d): whether the double-booking check after the booking rows passed. */
  doubleBookingOk?: boolean;
  /** (m1): the server's resident memory after the row. */
  rss_mb?: number;
  /** (s1): what the stream holder saw, and the booking rate as a share of (d)'s. */
  streams?: StreamsResult & { rate_of_d: number };
};

/** A load generator's run as a row's figures: `count` completions per second over its `duration_us`, and its p50 / p99. */
export function loadFigures(count: number, run: { duration_us: number; p50_us: number; p99_us: number }) {
  return { rate: count / (run.duration_us / 1e6), p50_us: run.p50_us, p99_us: run.p99_us, count };
}
