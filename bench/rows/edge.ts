// (r1)-(r3): a primary (region iad) and an edge (ord, forwarding writes) on a
// replicated (turso-sync) shard served by scripts/services/tursodb.ts, sharing
// one control database; the same reads measured at each ((r1) a patient by
// id, (r2) the name search), then (r3) how soon a write at the primary is
// visible at the edge (bench/edge.ts). After the ceiling (a'), on servers of
// their own.

import { join } from "node:path";
import { BENCH_REDIS_URL, redisDown } from "@bench/cluster";
import { type EdgeFixture, type Visibility, buildEdgeFixture, measureVisibility } from "@bench/edge";
import { sample, searchTerms } from "@bench/patients";
import { api, loginAdmin } from "@bench/runner/api";
import type { RowFamily } from "@bench/runner/family";
import { fmtInt } from "@bench/runner/format";
import { scratchDir, writeLines } from "@bench/runner/scratch";
import { type Server, startServer } from "@bench/runner/servers";
import { SEARCH_PAGE_SIZE } from "@bench/runner/settings";
import { SyncRouter } from "@scripts/services/tursodb";

/** Patients in the replicated org (created through the API, so through replication), and visibility samples. */
const EDGE_PATIENTS = Number(process.env.BENCH_EDGE_PATIENTS ?? 2_000);
const EDGE_SAMPLES = Number(process.env.BENCH_EDGE_SAMPLES ?? 100);

type EdgeRun = { patients: number; load_ms: number; visibility: Visibility; notices: boolean };

export const edge: RowFamily = {
  ids: ["r1", "r2", "r3"],
  together: true,
  // (r1) and (r2) are measured at the primary and at the edge; (r3) is a note under the table
  tableRows: { r1: ["r1p", "r1e"], r2: ["r2p", "r2e"], r3: [] },
  stage: "after-ceiling",
  async run(ctx) {
    const work = scratchDir();
    const router = new SyncRouter(join(work, "sync-shard")).start();
    // a shared Redis carries the primary's replication notices to the edge (without it the edge learns of writes at its next read)
    const noRedis = await redisDown();
    if (noRedis) console.log(`  ${noRedis}: the edge runs without replication notices`);
    const env = (region: string, extra: Record<string, string> = {}) => ({
      DATA_DIR: join(work, `edge-${region}`),
      CONTROL_DATABASE_URL: `file:${join(work, "edge-control.db")}`,
      DEFAULT_SHARD_DSN: `turso-sync:${router.template}`,
      DPMS_JWT_SECRET: "bench-edge-secret-bench-edge-secret-012345",
      STORAGE_URL_SECRET: "bench-edge-storage",
      LOG_LEVEL: "warn",
      NODE_ENV: "development",
      RATE_LIMITS: "off",
      PRIMARY_REGION: "iad",
      REGION: region,
      ...(noRedis ? {} : { REDIS_URL: BENCH_REDIS_URL }),
      ...extra,
    });
    const primary = await startServer("edge-primary", "src/server.ts", env("iad"), "/api/ping");
    let edge: Server | undefined;
    let run: EdgeRun;
    try {
      edge = await startServer("edge-ord", "src/server.ts", env("ord", { EDGE_WRITES: "forward", PRIMARY_URL: primary.base }), "/api/ping");
      const token = await loginAdmin(primary.base);
      const t0 = performance.now();
      const fx: EdgeFixture = await buildEdgeFixture(api, primary.base, edge.base, token, EDGE_PATIENTS);
      const loadMs = performance.now() - t0;
      const P = `/api/v1/${fx.org}`;
      const auth = { Authorization: `Bearer ${token}` };
      const reads = writeLines(
        "edge-patient-paths.txt",
        sample(fx.patients, Math.min(1_000, fx.patients.length)).map((p) => `${P}/patients/${p.id}`),
      );
      const searches = writeLines(
        "edge-search-paths.txt",
        searchTerms(fx.patients, 1_000).map((t) => `${P}/patients?search=${encodeURIComponent(t)}&page_size=${SEARCH_PAGE_SIZE}`),
      );
      for (const [id, srv, where] of [
        ["r1p", primary, "the primary"],
        ["r1e", edge, "an edge"],
      ] as const)
        await ctx.measure(srv, id, `(${id}) \`GET {P}/patients/{id}\` on a replicated shard, at ${where}`, srv.base + P + "/patients", {
          headers: auth,
          script: "paths.lua",
          scriptArgs: [reads],
        });
      for (const [id, srv, where] of [
        ["r2p", primary, "the primary"],
        ["r2e", edge, "an edge"],
      ] as const)
        await ctx.measure(srv, id, `(${id}) patient search on a replicated shard, at ${where}`, srv.base + P + "/patients", {
          headers: auth,
          script: "paths.lua",
          scriptArgs: [searches],
        });
      console.log(`(r3) a write at the primary, visible at the edge (${EDGE_SAMPLES} samples)`);
      const visibility = await measureVisibility(primary.base, edge.base, token, fx, EDGE_SAMPLES);
      console.log(
        `  visible after p50 ${visibility.p50_ms.toFixed(1)} / p99 ${visibility.p99_ms.toFixed(1)} ms; read-your-writes p50 ${visibility.ryw_p50_ms.toFixed(1)} / p99 ${visibility.ryw_p99_ms.toFixed(1)} ms`,
      );
      run = { patients: fx.patients.length, load_ms: loadMs, visibility, notices: !noRedis };
    } finally {
      await edge?.stop();
      await primary.stop();
      await router.stop();
    }
    return {
      notes: ({ rows, ratio }) => {
        const pair = (p: string, q: string) => {
          const [a, b] = [rows.find((x) => x.id === p), rows.find((x) => x.id === q)];
          return a && b ? `${ratio(b).toFixed(3)} at the edge against ${ratio(a).toFixed(3)} at the primary (${(b.rate / a.rate).toFixed(2)}×)` : "n/a";
        };
        const { visibility: v } = run;
        return [
          `(r1)-(r3) a replicated (turso-sync) shard, ${fmtInt(run.patients)} patients created through the primary's API in ${(run.load_ms / 1000).toFixed(1)} s; every process on this machine (sync servers included), so the edge's gain from being near the client does not show: what shows is the cost of each path. Patient GET ${pair("r1p", "r1e")}; search ${pair("r2p", "r2e")}. (r3) a write at the primary visible at the edge (another client, polling every 2 ms, ${v.samples / 2} samples; ${run.notices ? "replication notices through Redis" : "no Redis: no replication notices"}) after p50 ${v.p50_ms.toFixed(1)} ms / p99 ${v.p99_ms.toFixed(1)} ms (max ${v.max_ms.toFixed(1)} ms) from the write's answer; read-your-writes at the edge with the write's position: p50 ${v.ryw_p50_ms.toFixed(1)} ms / p99 ${v.ryw_p99_ms.toFixed(1)} ms.`,
        ];
      },
    };
  },
};
