// The ceiling: a raw Bun.serve hello-world (bench/servers/raw.ts), measured
// first (a) and again last (a'); every ratio of the report is to it.

import { join } from "node:path";
import type { Measure } from "./measure";
import type { Row } from "./row";
import { startServer } from "./servers";
import { BENCH } from "./settings";

const RUNS = {
  start: { log: "(a) raw Bun.serve", server: "raw", id: "a", scenario: "(a) raw `Bun.serve` hello-world (ceiling)" },
  end: { log: "(a') raw Bun.serve again (drift check)", server: "raw2", id: "a2", scenario: "(a') ceiling again, end of run (drift check)" },
} as const;

/** (a) at the start of the run, (a') at its end: how much the machine drifted meanwhile. */
export async function measureCeiling(measure: Measure, when: keyof typeof RUNS): Promise<Row> {
  const run = RUNS[when];
  console.log(run.log);
  const srv = await startServer(run.server, join(BENCH, "servers", "raw.ts"), {}, "/");
  const row = await measure(srv, run.id, run.scenario, `${srv.base}/`);
  await srv.stop();
  return row;
}

/**
 * Noise from other processes only ever lowers a figure: the better of the two
 * measurements is the estimate of the ceiling; `drift` is (a')'s change from (a).
 */
export function ceilingOf(first: Row, again: Row): { ceiling: Row; drift: number } {
  return { ceiling: again.rate > first.rate ? again : first, drift: (again.rate - first.rate) / first.rate };
}
