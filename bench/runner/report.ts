// The report of a run: the table (bench/results/latest.md) and the same
// figures in latest.json, each row against the same run's ceiling, and the
// Cusp rows that have a floor ((b0), (c0), (e30), (d0)) against their floor too.

import { cpus } from "node:os";
import { ceilingOf } from "./ceiling";
import type { Outcome, ReportView, RowFamily } from "./family";
import { fmtCores, fmtDur, fmtInt, fmtLat, fmtRate, round } from "./format";
import { type PatientsOrg, SLOT_MINUTES } from "./patients-org";
import type { Row } from "./row";
import type { Selection } from "./selection";
import { BOOKING_CONCURRENCY, CONNECTIONS, DOC_SAMPLES, DURATION, ROOT, SEARCH_PAGE_SIZE, THREADS, WARMUP } from "./settings";
import { targetsOf } from "./targets";

export type RunRecord = {
  /** The ceiling at the start (a) and at the end (a'). */
  first: Row;
  again: Row;
  /** Every row, in the order measured. */
  rows: readonly Row[];
  wrkVersion: string;
  started: number;
  /** Absent, or without patients, when BENCH_ONLY left out the rows that need them. */
  org?: PatientsOrg;
  selection: Selection;
  families: readonly RowFamily[];
  /** The ids in the report's order (bench/rows/index.ts). */
  order: readonly string[];
  outcomes: ReadonlyMap<RowFamily, Outcome>;
};

export function buildReport(r: RunRecord): { md: string; json: unknown } {
  const { ceiling, drift } = ceilingOf(r.first, r.again);
  const ratio = (row: Row) => row.rate / ceiling.rate;
  // the same work with no framework (bench/servers/floor.ts): how much of it the Cusp row keeps
  const floorOf = (row: Row) => r.rows.find((f) => f.floorOf === row.id);
  const floorCell = (row: Row) => {
    const f = floorOf(row);
    return f ? `${(row.rate / f.rate).toFixed(3)} of (${f.id})` : "–";
  };
  const latRatio = (us: number, ref: number) => (ref > 0 ? us / ref : 0);
  const order = tableOrder(r.families, r.order);
  const sorted = [...r.rows].sort((x, y) => order.indexOf(x.id) - order.indexOf(y.id));
  const targets = targetsOf(r.rows, ratio);
  const view: ReportView = { rows: r.rows, ratio };
  const patientCount = r.org?.patients.length ?? 0;
  const noisy = sorted.filter((x) => (x.cores.other ?? 0) > 0.25);
  const bad = sorted.filter((x) => x.errors > 0);
  const commit = gitRev();
  const machine = `${cpus().length} × ${cpus()[0]?.model?.trim() ?? "unknown CPU"}; ${process.platform}/${process.arch}`;
  const totalSeconds = Math.round((Date.now() - r.started) / 1000);
  const only = r.selection.only;

  const lines: string[] = [];
  lines.push("# Cusp HTTP benchmark: latest run", "");
  lines.push(`- Date: ${new Date().toISOString()}`);
  lines.push(`- Commit: ${commit}`);
  lines.push(`- Bun ${Bun.version}; ${r.wrkVersion}`);
  lines.push(`- Machine: ${machine}`);
  lines.push(
    `- Load: \`wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION}s\` after a ${WARMUP}s warm-up, on 127.0.0.1; (d) a Bun client with ${BOOKING_CONCURRENCY} concurrent booking loops for ${DURATION}s after a ${WARMUP}s warm-up; every server and load generator in its own process`,
  );
  lines.push(
    `- Cusp: \`src/server.ts\` on embedded defaults (SQLite files in a fresh temp DATA_DIR, in-process cache and PGlite queue), LOG_LEVEL=warn, rate limits on with buckets far above the load`,
  );
  lines.push(
    patientCount
      ? `- Data: ${fmtInt(patientCount)} patients in one org (loaded with bun:sqlite in ${(r.org!.loadMs / 1000).toFixed(1)} s); (b) reads 10,000 different patients, (c) 5,000 different search terms (first 3 letters of a first name + first 4 of a last name, e.g. "Mar Garc"), ${SEARCH_PAGE_SIZE} per page`
      : "- Data: no patient set loaded (no row of this run needs it)",
  );
  if (only.length)
    lines.push(`- Only: \`BENCH_ONLY=${only.join(",")}\`: rows ${r.selection.ids.join(", ")} between the ceilings (a) and (a'); every other row did not run`);
  lines.push("");
  lines.push(
    "| scenario | rate | ratio to ceiling | ratio to floor | p50 latency (× ceiling's) | p99 latency (× ceiling's) | non-2xx / errors | cores: server / load gen. / other |",
  );
  lines.push("|---|---:|---:|---:|---:|---:|---:|---:|");
  for (const x of sorted) {
    lines.push(
      x.hasRatio === false
        ? `| ${x.scenario} | ${fmtRate(x)} ${x.unit} | n/a | ${floorCell(x)} | ${x.latency ? `p50 ${fmtDur(x.latency.p50_us)}` : "n/a"} | ${x.latency ? `p95 ${fmtDur(x.latency.p95_us)}` : "n/a"} | ${x.errors} | ${fmtCores(x.cores.server)} / ${fmtCores(x.cores.load)} / ${fmtCores(x.cores.other)} |`
        : `| ${x.scenario} | ${fmtInt(x.rate)} ${x.unit} | ${ratio(x).toFixed(3)} | ${floorCell(x)} | ${fmtLat(x.p50_us)} (${latRatio(x.p50_us, ceiling.p50_us).toFixed(1)}×) | ${fmtLat(x.p99_us)} (${latRatio(x.p99_us, ceiling.p99_us).toFixed(1)}×) | ${x.errors} | ${fmtCores(x.cores.server)} / ${fmtCores(x.cores.load)} / ${fmtCores(x.cores.other)} |`,
    );
  }
  lines.push("");
  lines.push(
    `Ceiling = the better of (a) and (a'): ${fmtInt(ceiling.rate)} req/s, p50 ${fmtLat(ceiling.p50_us)}, p99 ${fmtLat(ceiling.p99_us)}; the two differ by ${(drift * 100).toFixed(1)} %.`,
  );
  const floors = sorted.filter((x) => x.floorOf);
  if (floors.length)
    lines.push(
      `Ratio to floor: the Cusp row's rate over its floor's, ${floors.map((f) => `(${f.floorOf}) over (${f.id})`).join(", ")}: the same SQL on the same database file and the same JSON from a bare \`Bun.serve\` (bench/servers/floor.ts), no validation, guard or framework, measured in this run with the Cusp server idle; what of the stack's possible rate Cusp keeps.`,
    );
  for (const t of targets) lines.push(`Target for (${t.id}): ${t.asked}; measured ${t.measured}: ${t.met ? "MET" : "NOT MET"}.`);
  for (const f of r.families) lines.push(...(r.outcomes.get(f)?.notes?.(view) ?? []));
  if (noisy.length)
    lines.push(
      `NOISE: other processes used more than 0.25 core during ${noisy.map((x) => x.id).join(", ")}; those figures are low by an unknown amount. Re-run on a quiet machine.`,
    );
  if (bad.length)
    lines.push(
      `WARNING: ${bad.map((x) => `${x.id} (${x.errorDetail})`).join(", ")} had non-2xx answers or socket errors; those figures do not measure the intended path.`,
    );
  lines.push("", `Total bench time: ${totalSeconds} s.`, "");
  const md = lines.join("\n");

  const json = {
    date: new Date().toISOString(),
    commit,
    bun: Bun.version,
    wrk: r.wrkVersion,
    machine,
    settings: {
      duration_s: DURATION,
      warmup_s: WARMUP,
      connections: CONNECTIONS,
      threads: THREADS,
      booking_concurrency: BOOKING_CONCURRENCY,
      patients: patientCount,
      search_page_size: SEARCH_PAGE_SIZE,
      doc_samples: DOC_SAMPLES,
      only: only.length ? only : null,
    },
    ceiling: { rps: round(ceiling.rate, 0), p50_us: ceiling.p50_us, p99_us: ceiling.p99_us, from: ceiling.id, drift: round(drift) },
    rows: sorted.map((x) => ({
      id: x.id,
      scenario: x.scenario,
      unit: x.unit,
      rate: round(x.rate, x.unit === "docs/s" ? 3 : 1),
      ratio: x.hasRatio === false ? null : round(ratio(x)),
      ...floorFields(x),
      p50_ms: x.hasRatio === false ? (x.latency ? round(x.latency.p50_us / 1000, 1) : null) : round(x.p50_us / 1000),
      p99_ms: x.hasRatio === false ? null : round(x.p99_us / 1000),
      ...(x.latency ? { p95_ms: round(x.latency.p95_us / 1000, 1) } : {}),
      p50_ratio: x.hasRatio === false ? null : round(latRatio(x.p50_us, ceiling.p50_us), 2),
      p99_ratio: x.hasRatio === false ? null : round(latRatio(x.p99_us, ceiling.p99_us), 2),
      count: x.count,
      errors: x.errors,
      error_detail: x.errorDetail,
      cores: {
        server: x.cores.server === null ? null : round(x.cores.server, 2),
        load_generator: round(x.cores.load, 2),
        other: x.cores.other === null ? null : round(x.cores.other, 2),
      },
      ...(x.phases
        ? { phases_ms: Object.fromEntries(Object.entries(x.phases).map(([k, v]) => [k, { p50: round(v.p50_us / 1000), p99: round(v.p99_us / 1000) }])) }
        : {}),
    })),
    targets,
    // the families' sections (booking, drafts, documents); null: the row(s) did not run (BENCH_ONLY)
    ...Object.fromEntries(r.families.flatMap((f) => (f.sections ?? []).map((name) => [name, r.outcomes.get(f)?.sections?.[name] ?? null]))),
    dataset: { patients: patientCount, load_ms: Math.round(r.org?.loadMs ?? 0), chairs: r.org?.chairs.length ?? 0, slot_minutes: SLOT_MINUTES },
    noise: noisy.map((x) => x.id),
    total_seconds: totalSeconds,
  };
  return { md, json };

  /** A Cusp row with a floor: its ratio to it; a floor row: whose floor it is; any other row: nothing. */
  function floorFields(x: Row) {
    const f = floorOf(x);
    if (f) return { floor: f.id, floor_ratio: round(x.rate / f.rate) };
    return x.floorOf ? { floor_of: x.floorOf } : {};
  }
}

/** Each row id as the table's rows it makes, between the ceilings. */
function tableOrder(families: readonly RowFamily[], order: readonly string[]): string[] {
  const rowsOf = (id: string) => families.find((f) => f.ids.includes(id))?.tableRows?.[id] ?? [id];
  return ["a", ...order.flatMap(rowsOf), "a2"];
}

function gitRev(): string {
  const r = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT });
  const dirty = Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=no"], { cwd: ROOT }).stdout.toString().trim()
    ? " (with uncommitted changes)"
    : "";
  return r.exitCode === 0 ? r.stdout.toString().trim() + dirty : "unknown";
}
