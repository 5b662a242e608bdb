// A wrk row: a warm-up run, a wait for a quiet machine, then the measured run,
// recorded as a row of the report.

import { waitForQuiet } from "./cpu";
import { type Row, loadFigures } from "./row";
import { type Server, assertAlive } from "./servers";
import { DURATION, WARMUP } from "./settings";
import { type WrkOptions, runWrk } from "./wrk";

export type MeasureOptions = WrkOptions & {
  /** The warm-up's own script arguments (a write row whose requests must not repeat the warm-up's). */
  warmupScriptArgs?: string[];
};

export type Measure = (server: Server, id: string, scenario: string, url: string, opts?: MeasureOptions) => Promise<Row>;

export function wrkMeasure(wrk: string, record: (row: Row) => Row): Measure {
  return async (server, id, scenario, url, opts = {}) => {
    const serverPid = server.proc.pid;
    if (WARMUP > 0) await runWrk(wrk, url, { ...opts, scriptArgs: opts.warmupScriptArgs ?? opts.scriptArgs, serverPid, seconds: WARMUP });
    await waitForQuiet([serverPid]);
    const r = await runWrk(wrk, url, { ...opts, serverPid, seconds: DURATION });
    assertAlive(server, id);
    return record({
      id,
      scenario,
      unit: "req/s",
      ...loadFigures(r.requests, r),
      errors: r.status_errors + r.socket_errors + r.timeouts,
      errorDetail: `${r.status_errors} non-2xx, ${r.socket_errors} socket errors, ${r.timeouts} timeouts`,
      cores: r.cores,
    });
  };
}
