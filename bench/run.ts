// `bun run bench`: HTTP throughput on loopback, in one run, against a ceiling
// measured in that same run. bench/README.md describes the rows and how to read
// the numbers.
//
// The runner: the ceiling (a), the rows of bench/rows/index.ts stage by stage
// (bench/runner/family.ts), the ceiling again (a'), then the report. Every
// server is its own child process; the load comes from wrk (or, for the booking
// pipeline, a Bun client), a third process. Settings: the environment
// (bench/runner/settings.ts); BENCH_ONLY picks rows (bench/runner/selection.ts).

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { REPORT_ORDER, ROWS } from "./rows";
import { loginAdmin } from "./runner/api";
import { measureCeiling } from "./runner/ceiling";
import { startCusp } from "./runner/cusp";
import type { CuspContext, CuspDataContext, Outcome, RowFamily, RunContext } from "./runner/family";
import { rowLine } from "./runner/format";
import { wrkMeasure } from "./runner/measure";
import { type PatientsOrg, buildPatientsOrg } from "./runner/patients-org";
import { buildReport } from "./runner/report";
import { writeResults } from "./runner/results";
import type { Row } from "./runner/row";
import { cleanup, scratchDir } from "./runner/scratch";
import { selectRows } from "./runner/selection";
import { BOOKING_CONCURRENCY, CONNECTIONS, DURATION, THREADS, WARMUP } from "./runner/settings";
import { ensureWrk, wrkVersion } from "./runner/wrk";

type Keep = (family: RowFamily, outcome: Outcome | void) => void;

// before anything else: a BENCH_ONLY that names no row stops the run here
const selection = selectRows(ROWS, REPORT_ORDER);

async function main() {
  const wrk = ensureWrk();
  const version = wrkVersion(wrk);
  const started = Date.now();
  console.log(
    `bench: wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION}s (warm-up ${WARMUP}s) on loopback; booking client ${BOOKING_CONCURRENCY} loops; scratch ${scratchDir()}`,
  );
  if (selection.only.length) console.log(`bench: BENCH_ONLY=${selection.only.join(",")}: rows ${selection.ids.join(", ") || "none"} between (a) and (a')`);

  const rows: Row[] = [];
  const record = (row: Row) => {
    rows.push(row);
    console.log(rowLine(row));
    return row;
  };
  const ctx: RunContext = { selected: selection.selected, measure: wrkMeasure(wrk, record), record };
  const families = ROWS.filter((f) => f.ids.some(selection.selected));
  const outcomes = new Map<RowFamily, Outcome>();
  const keep: Keep = (family, outcome) => {
    if (outcome) outcomes.set(family, outcome);
  };

  const first = await measureCeiling(ctx.measure, "start");
  for (const f of families) if (f.stage === "before-cusp") keep(f, await f.run(ctx));
  const org = await cuspStages(ctx, families, keep);
  const again = await measureCeiling(ctx.measure, "end");
  for (const f of families) if (f.stage === "after-ceiling") keep(f, await f.run(ctx));

  const report = buildReport({ first, again, rows, wrkVersion: version, started, org, selection, families: ROWS, order: REPORT_ORDER, outcomes });
  writeResults(report.md, report.json);
}

/**
 * The rows on the Cusp service: its server on a fresh data directory, the
 * patients org if a family asks for it, the "cusp" families; then, the server
 * stopped, the "after-cusp" ones on its data. Answers the patients org (the
 * report describes it).
 */
async function cuspStages(ctx: RunContext, families: RowFamily[], keep: Keep): Promise<PatientsOrg | undefined> {
  if (!families.some((f) => f.stage === "cusp" || f.stage === "after-cusp")) return undefined;
  console.log("Cusp: starting src/server.ts on a fresh data directory");
  const dataDir = join(scratchDir(), "data");
  mkdirSync(dataDir, { recursive: true });
  const server = await startCusp(dataDir);
  let org: PatientsOrg | undefined;
  let data: CuspDataContext;
  try {
    const token = await loginAdmin(server.base);
    const needs = families.flatMap((f) => ((f.stage === "cusp" || f.stage === "after-cusp") && f.patientsOrg ? [f.patientsOrg] : []));
    if (needs.length) org = await buildPatientsOrg(server, token, dataDir, { chairs: needs.some((n) => n.chairs), patients: needs.some((n) => n.patients) });
    const patientsOrg = () => {
      if (!org) throw new Error("the patients org was not built: the family does not ask for it (RowFamily.patientsOrg)");
      return org;
    };
    data = { ...ctx, dataDir, token, patientsOrg };
    const cusp: CuspContext = { ...data, server, auth: { Authorization: `Bearer ${token}` } };
    for (const f of families) if (f.stage === "cusp") keep(f, await f.run(cusp));
  } finally {
    await server.stop();
  }
  for (const f of families) if (f.stage === "after-cusp") keep(f, await f.run(data));
  return org;
}

process.on("SIGINT", () => void cleanup().then(() => process.exit(130)));
try {
  await main();
  await cleanup();
} catch (err) {
  console.error(`bench failed: ${(err as Error).message}`);
  await cleanup(true);
  process.exit(1);
}
