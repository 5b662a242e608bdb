// The runner's settings, from the environment (bench/README.md, "Settings"),
// and the folders it runs from. A row's own settings stay in its file in
// bench/rows/ (BENCH_MANY_ORGS in many-orgs.ts, BENCH_EDGE_* in edge.ts, ...).

import { resolve } from "node:path";

/** The repository (the servers' and load generators' working directory). */
export const ROOT = resolve(import.meta.dir, "..", "..");
/** bench/ */
export const BENCH = resolve(import.meta.dir, "..");

export const DURATION = Number(process.env.BENCH_DURATION ?? 10);
export const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
export const THREADS = Number(process.env.BENCH_THREADS ?? 1);
export const PATIENTS = Number(process.env.BENCH_PATIENTS ?? 100_000);
export const BOOKING_CONCURRENCY = Number(process.env.BENCH_BOOKING_CONCURRENCY ?? CONNECTIONS);
/** (g1), (g2): uploads of each file, one after another (the report's settings give it too). */
export const DOC_SAMPLES = Number(process.env.BENCH_DOC_SAMPLES ?? 10);

export const SEARCH_PAGE_SIZE = 10;
export const ADMIN = { email: "admin@example.com", password: "admin-password" };
