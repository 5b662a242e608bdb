// `bun run bench`: HTTP throughput on loopback, in one run, against a ceiling
// measured in that same run. See bench/README.md for how to read the numbers.
//
//   (a)  ceiling   raw Bun.serve hello-world                           bench/servers/raw.ts
//   (b)  GET       GET {P}/patients/{id}, 100,000 patients in the org   src/server.ts, whole stack
//   (c)  search    GET {P}/patients?search=<name prefixes>&page_size=10 src/server.ts, whole stack
//   (d)  booking   the four-call booking pipeline, bookings per second  bench/clients/booking.ts -> src/server.ts
//   (d1) the same from one loop: a booking's latency without queueing; then the double-booking checks
//   and, for comparison with earlier runs:
//   (e1) Elysia hello-world                                            bench/servers/elysia.ts
//   (e2) GET {P}/locations/{id}                                        src/server.ts
//   (e2u) the same over 1,000 locations in turn (no kept answers)       src/server.ts
//   (e2s) the same read by a member whose key holds at that location only (the scoped check)   src/server.ts
//   (e3) POST {P}/locations (JSON create)                              src/server.ts
//   (h1) POST {P}/revenue-module/count: a three-condition filter over the 100,000 patients, one connection   src/server.ts
//   (m1) GET {P}/patients/{id} over 500 orgs of 2,000 patients, a random org per request; server RSS and open files   src/server.ts
//   (f1) POST {P}/clinical/patients/{id}/treatment-plans/{plan}/estimate: 10 procedures, two plans   src/server.ts
//   (f2) draft matching: 10,000 imported rows matched by the in-process job, rows per second          src/server.ts
//   (g1) documents: a one-page scanned PDF, upload to active (scan, OCR, classify, thumbnail jobs), p50/p95   src/server.ts
//   (g2) the same for a phone photo of an insurance card (JPEG)                                                src/server.ts
//   (g3) 20 uploads (10 of each) at once: documents per second until all are active                          src/server.ts
//   (r1p) / (r1e) GET {P}/patients/{id} on a replicated (turso-sync) shard, at the primary and at an edge   src/server.ts x 2
//   (r2p) / (r2e) patient search on it, at the primary and at the edge (its derived search index)       src/server.ts x 2
//   (r3) a write at the primary to its visibility at the edge, p50 / p99 (and read-your-writes)        bench/edge.ts
//   (a') the ceiling again, at the end (drift check)
//
// Every server is its own child process; the load comes from wrk (or, for the
// booking pipeline, a Bun client), a third process. Settings (environment):
// BENCH_DURATION (seconds, default 10), BENCH_WARMUP (seconds, default 2),
// BENCH_CONNECTIONS (50), BENCH_THREADS (1), BENCH_PATIENTS (100000),
// BENCH_BOOKING_CONCURRENCY (default BENCH_CONNECTIONS),
// BENCH_DOC_SAMPLES (uploads of (g1) and of (g2), default 10),
// BENCH_ONLY (comma-separated row ids or id prefixes, e.g. `BENCH_ONLY=f1,g`:
// only those rows run, plus the ceiling (a) first and (a') last, always, and
// only the fixtures they need are built: no 100,000 patients unless (b), (c)
// or (d) runs. (d) and (d1) run together. Rows that did not run are absent
// from the report).

import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import { loadPatients, sample, searchTerms, type LoadedPatient } from "./patients";
import { buildManyOrgs, manyOrgPaths, processFootprint } from "./many-orgs";
import { BENCH_REDIS_URL, clusterServicesDown, redisDown, startCluster } from "./cluster";
import { buildEdgeFixture, measureVisibility, type EdgeFixture, type Visibility } from "./edge";
import { SyncRouter } from "@scripts/services/tursodb";
import { buildInsuranceFixture, runDraftsMatching, PLAN_CODES, type DraftsRun } from "./insurance";
import {
  BURST_POLL_MS,
  SEQUENTIAL_POLL_MS,
  documentFiles,
  documentOwner,
  failures,
  percentile,
  runBurst,
  runSequential,
  uploadUntilDone,
  type BurstRun,
  type DocOutcome,
  type SequentialRun,
} from "./documents";

const ROOT = resolve(import.meta.dir, "..");
const BENCH = import.meta.dir;
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const PATIENTS = Number(process.env.BENCH_PATIENTS ?? 100_000);
/** (m1): orgs on the instance and patients in each (BENCH_MANY_ORGS, BENCH_MANY_PATIENTS). */
const MANY_ORGS = Number(process.env.BENCH_MANY_ORGS ?? 500);
const MANY_PATIENTS = Number(process.env.BENCH_MANY_PATIENTS ?? 2_000);
const BOOKING_CONCURRENCY = Number(process.env.BENCH_BOOKING_CONCURRENCY ?? CONNECTIONS);
/** (g1), (g2): uploads of each file, one after another. (g3) sends DOC_BURST_EACH of each kind at once. */
const DOC_SAMPLES = Number(process.env.BENCH_DOC_SAMPLES ?? 10);
const DOC_BURST_EACH = 10;

// BENCH_ONLY: the rows to run (ids or prefixes); the ceiling (a) and (a') always run.
// in the report's order
const ROW_IDS = [
  "b",
  "c",
  "d",
  "d1",
  "s1",
  "e1",
  "e2",
  "e2s",
  "e2u",
  "e3",
  "e4",
  "f1",
  "f2",
  "g1",
  "g2",
  "g3",
  "h1",
  "m1",
  "n1",
  "n2",
  "r1",
  "r2",
  "r3",
] as const;
/** (r1)-(r3): patients in the replicated org (created through the API, so through replication), and visibility samples. */
const EDGE_PATIENTS = Number(process.env.BENCH_EDGE_PATIENTS ?? 2_000);
const EDGE_SAMPLES = Number(process.env.BENCH_EDGE_SAMPLES ?? 100);
const ONLY = (process.env.BENCH_ONLY ?? "")
  .split(",")
  .map((s) =>
    s
      .trim()
      .toLowerCase()
      .replace(/^\((.*)\)$/, "$1"),
  )
  .filter(Boolean);
{
  const unknown = ONLY.filter((p) => !["a", "a'", "a2"].includes(p) && !ROW_IDS.some((id) => id.startsWith(p)));
  if (unknown.length) {
    console.error(`bench: BENCH_ONLY names no row: ${unknown.join(", ")} (rows: ${ROW_IDS.join(", ")}; (a) and (a') always run)`);
    process.exit(2);
  }
}
/** Whether row `id` runs: every row without BENCH_ONLY, else those it names (an id or a prefix of it). */
function selected(id: (typeof ROW_IDS)[number]): boolean {
  if (!ONLY.length) return true;
  // (d1) and (s1) follow (d)'s booking slots and share its double-booking check (and (s1) compares with (d)): the three run
  // together; so do (n1) and (n2).
  const group = ["d", "d1", "s1"].includes(id)
    ? ["d", "d1", "s1"]
    : id === "n1" || id === "n2"
      ? ["n1", "n2"]
      : ["r1", "r2", "r3"].includes(id)
        ? ["r1", "r2", "r3"]
        : [id];
  return ONLY.some((p) => group.some((g) => g.startsWith(p)));
}
/**
 * The targets the report checks (issue 19's, and issue 18's for (h1)), each
 * against the same run's ceiling: what is asked, what was measured, met or not.
 */
type Target = { id: string; asked: string; measured: string; met: boolean };
function targetsOf(rows: Row[], ratio: (row: Row) => number, booking: BookingRun | undefined): Target[] {
  const row = (id: string) => rows.find((x) => x.id === id);
  const ms = (us: number) => `${(us / 1000).toFixed(2)} ms`;
  const out: Target[] = [];
  const add = (id: string, asked: string, measure: (r: Row) => [string, boolean]) => {
    const r = row(id);
    if (!r) return;
    const [measured, met] = measure(r);
    out.push({ id, asked, measured, met });
  };
  add("b", "ratio >= 0.35", (r) => [ratio(r).toFixed(3), ratio(r) >= 0.35]);
  add("c", "ratio >= 0.08 and p99 < 10 ms", (r) => [`${ratio(r).toFixed(3)}, p99 ${ms(r.p99_us)}`, ratio(r) >= 0.08 && r.p99_us < 10_000]);
  add("d", ">= 2,500 bookings/s at 50 loops, no double booking", (r) => [
    `${fmtInt(r.rate)} bookings/s, double booking check ${booking?.check.ok ? "passed" : "FAILED"}`,
    r.rate >= 2500 && !!booking?.check.ok,
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
  add("m1", `>= 0.7 of (b)'s rate${b ? "" : " (b did not run)"} and server RSS < 400 MB`, (r) => [
    `${b ? (r.rate / b.rate).toFixed(2) : "?"} of (b), RSS ${r.rss_mb ?? "?"} MB`,
    !!b && r.rate >= 0.7 * b.rate && (r.rss_mb ?? Infinity) < 400,
  ]);
  return out;
}
const SEARCH_PAGE_SIZE = 10;
/** (e2u): more locations than a database keeps answers for (256), so no read is a kept one. */
const COLD_LOCATIONS = 1_000;
/** (f2): rows imported, in imports of DRAFT_CHUNK rows (the default JSON body bounds accept ~2,600). */
const DRAFT_ROWS = 10_000;
const DRAFT_CHUNK = 1_000;
const ADMIN = { email: "admin@example.com", password: "admin-password" };

// The booking calendar: chairs (a provider with an operatory of its own), each
// booked in 30-minute slots from 08:00 to 17:00, day after day from DAY0.
const CHAIRS = 20;
const DAY0 = "2031-01-06";
const SLOT_MINUTES = 30;
const DAY_START_MINUTE = 8 * 60;
const SLOTS_PER_DAY = 18;
const APPOINTMENT_TYPE_CODE = "D1110";

type Latencies = { p50_us: number; p90_us: number; p99_us: number; max_us: number; mean_us: number };
type WrkResult = Latencies & { requests: number; duration_us: number; bytes: number; status_errors: number; socket_errors: number; timeouts: number };
type BookingResult = Latencies & {
  bookings: number;
  duration_us: number;
  status_errors: number;
  status_error_detail: Record<string, number>;
  socket_errors: number;
  conflicts: number;
  bad_bodies: number;
  next_slot: number;
  samples: string[];
  phases: { search: Latencies; types: Latencies; create: Latencies };
};
type Cores = { server: number | null; load: number; other: number | null };
type Row = {
  id: string;
  scenario: string;
  unit: "req/s" | "bookings/s" | "rows/s" | "docs/s";
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
  phases?: BookingResult["phases"];
  /** (m1): the server's resident memory after the row. */
  rss_mb?: number;
  /** (s1): what the stream holder saw, and the booking rate as a share of (d)'s. */
  streams?: StreamsResult & { rate_of_d: number };
};

const work = mkdtempSync(join(tmpdir(), "cusp-bench-"));
const children = new Set<Subprocess>();

// ---------------------------------------------------------------- wrk itself

function ensureWrk(): string {
  let wrk = Bun.which("wrk");
  if (wrk) return wrk;
  if (process.getuid?.() !== 0) {
    console.error(
      "bench: wrk is not installed. Install it (Debian/Ubuntu: `sudo apt-get install -y wrk`; macOS: `brew install wrk`) and run `bun run bench` again.",
    );
    process.exit(2);
  }
  console.log("bench: wrk is missing; installing it with apt-get (running as root) ...");
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const install = () => Bun.spawnSync(["apt-get", "install", "-y", "-q", "wrk"], { env: aptEnv, stdout: "ignore", stderr: "pipe" });
  let r = install();
  if (r.exitCode !== 0) {
    Bun.spawnSync(["apt-get", "update", "-q"], { env: aptEnv, stdout: "ignore", stderr: "ignore" });
    r = install();
  }
  wrk = Bun.which("wrk");
  if (!wrk) {
    console.error(`bench: could not install wrk with apt-get:\n${r.stderr.toString()}`);
    process.exit(2);
  }
  return wrk;
}

/**
 * Runs a load generator (wrk or the booking client) to completion and accounts
 * the CPU of the server, of the generator and of everything else meanwhile.
 */
/** CPU ticks of the server's processes (one, or every process of a cluster); null when one is unreadable. */
function serverTicks(pids: number | number[]): number | null {
  let sum = 0;
  for (const pid of typeof pids === "number" ? [pids] : pids) {
    const t = processTicks(pid);
    if (t === null) return null;
    sum += t;
  }
  return sum;
}

async function runLoad(args: string[], serverPid: number | number[]): Promise<{ out: string; err: string; code: number; cores: Cores }> {
  const busy0 = machineBusyTicks();
  const server0 = serverTicks(serverPid);
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const proc = Bun.spawn(args, { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  children.add(proc);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  children.delete(proc);
  const wall = (performance.now() - t0) / 1000;
  const busy1 = machineBusyTicks();
  const server1 = serverTicks(serverPid);
  const self = process.cpuUsage(self0);
  const usage = proc.resourceUsage();
  const loadSec = usage ? Number(usage.cpuTime.total) / 1e6 : 0;
  const serverSec = server0 !== null && server1 !== null ? (server1 - server0) / CLK_TCK : null;
  const otherSec =
    busy0 !== null && busy1 !== null && serverSec !== null ? (busy1 - busy0) / CLK_TCK - serverSec - loadSec - (self.user + self.system) / 1e6 : null;
  return {
    out,
    err,
    code,
    cores: { load: loadSec / wall, server: serverSec === null ? null : serverSec / wall, other: otherSec === null ? null : Math.max(0, otherSec / wall) },
  };
}

async function runWrk(
  wrk: string,
  url: string,
  opts: { seconds: number; serverPid: number; headers?: Record<string, string>; script?: string; scriptArgs?: string[]; connections?: number },
) {
  const lua = [opts.script ? readFileSync(join(BENCH, "wrk", opts.script), "utf8") : "", readFileSync(join(BENCH, "wrk", "report.lua"), "utf8")].join("\n");
  const scriptFile = join(work, `wrk-${Date.now()}-${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(scriptFile, lua);
  const args = [wrk, `-t${THREADS}`, `-c${opts.connections ?? CONNECTIONS}`, `-d${opts.seconds}s`, "--timeout", "5s", "-s", scriptFile];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push("-H", `${k}: ${v}`);
  args.push(url);
  if (opts.scriptArgs?.length) args.push("--", ...opts.scriptArgs);
  const { out, err, code, cores } = await runLoad(args, opts.serverPid);
  const line = out.split("\n").find((l) => l.startsWith("BENCH_JSON "));
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}):\n${out}\n${err}`);
  return { ...(JSON.parse(line.slice("BENCH_JSON ".length)) as WrkResult), cores };
}

// ---------------------------------------------------------------- CPU accounting (Linux /proc)
// The machine may be shared: every figure carries how many cores the server, the
// load generator and everything else used while it was measured, so a noisy
// figure shows itself.

const CLK_TCK = 100;

function machineBusyTicks(): number | null {
  try {
    const f = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
    const idle = f[3]! + (f[4] ?? 0);
    return f.slice(0, 8).reduce((a, b) => a + b, 0) - idle;
  } catch {
    return null;
  }
}

function processTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(f[11]) + Number(f[12]); // utime + stime
  } catch {
    return null;
  }
}

/** Cores used by processes other than `pids` over `ms` milliseconds. */
async function foreignLoad(ms: number, pids: number[] = []): Promise<number | null> {
  const b0 = machineBusyTicks();
  const p0 = pids.map(processTicks);
  const self0 = process.cpuUsage();
  await Bun.sleep(ms);
  const b1 = machineBusyTicks();
  if (b0 === null || b1 === null) return null;
  const p1 = pids.map(processTicks);
  const own = p1.reduce<number>((a, t, i) => a + ((t ?? 0) - (p0[i] ?? 0)), 0);
  const self = process.cpuUsage(self0);
  const selfTicks = ((self.user + self.system) / 1e6) * CLK_TCK;
  return Math.max(0, (b1 - b0 - own - selfTicks) / CLK_TCK / (ms / 1000));
}

let quietWaitBudgetMs = 30_000;
/** Wait (within a total budget for the run) until other processes use less than 0.25 core. */
async function waitForQuiet(pids: number[]): Promise<void> {
  for (;;) {
    const load = await foreignLoad(700, pids);
    if (load === null || load < 0.25) return;
    if (quietWaitBudgetMs <= 0) {
      console.log(`  (other processes are using ${load.toFixed(2)} cores; measuring anyway)`);
      return;
    }
    console.log(`  (other processes are using ${load.toFixed(2)} cores; waiting for a quieter machine)`);
    await Bun.sleep(1000);
    quietWaitBudgetMs -= 1700;
  }
}

// ---------------------------------------------------------------- child servers

async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  await s.stop(true);
  return port;
}

/** A server under test; `pids`, when set, are all its processes (a cluster), else `proc` alone. */
type Server = { name: string; port: number; base: string; proc: Subprocess; log: string; pids?: number[]; stop(): Promise<void> };

async function startServer(name: string, entry: string, env: Record<string, string>, readyPath: string): Promise<Server> {
  const port = await freePort();
  const log = join(work, `${name}.log`);
  // BENCH_CPU_PROF=<dir>: the Cusp servers write a CPU profile there when they stop (bench/README.md)
  const profile = process.env.BENCH_CPU_PROF && name.startsWith("cusp") ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const proc = Bun.spawn([process.execPath, ...profile, "run", entry], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdout: Bun.file(log),
    stderr: "inherit",
  });
  children.add(proc);
  const base = `http://127.0.0.1:${port}`;
  const server: Server = {
    name,
    port,
    base,
    proc,
    log,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGTERM");
      const done = await Promise.race([proc.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
      if (!done) proc.kill("SIGKILL");
      await proc.exited;
      children.delete(proc);
    },
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`${name} exited with ${proc.exitCode} during start-up; log: ${log}\n${safeRead(log)}`);
    try {
      const r = await fetch(base + readyPath);
      if (r.ok) return server;
    } catch {
      // not listening yet
    }
    await Bun.sleep(50);
  }
  await server.stop();
  throw new Error(`${name} did not answer ${readyPath} within 60 s; log: ${log}\n${safeRead(log)}`);
}

function safeRead(file: string): string {
  try {
    return readFileSync(file, "utf8").slice(-4000);
  } catch {
    return "";
  }
}

function assertAlive(server: Server, during: string) {
  if (server.proc.exitCode !== null || server.proc.signalCode !== null) {
    throw new Error(
      `${server.name} server died during ${during} (exit code ${server.proc.exitCode}, signal ${server.proc.signalCode}); log: ${server.log}\n${safeRead(server.log)}`,
    );
  }
}

// ---------------------------------------------------------------- the API set-up

async function api(base: string, method: string, path: string, body?: unknown, token?: string, extra: Record<string, string> = {}): Promise<any> {
  const headers: Record<string, string> = { ...extra };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const r = await fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path} -> ${r.status}: ${text}`);
  return text ? JSON.parse(text) : null;
}

async function createOrg(base: string, token: string, label: string): Promise<string> {
  const slug = `bench-${label}-${Date.now().toString(36)}`;
  const org = await api(base, "POST", "/api/v1/admin/orgs", { name: `Bench ${label}`, slug, max_locations: 10_000 }, token);
  return org.id as string;
}

/** The org's SQLite file on the local shard (the runner sets DEFAULT_SHARD_DSN to <dataDir>/shards/local). */
function orgDbFile(dataDir: string, orgId: string): string {
  const expected = join(dataDir, "shards", "local", `${orgId}.db`);
  if (existsSync(expected)) return expected;
  const found = (readdirSync(dataDir, { recursive: true }) as string[]).find((f) => f.endsWith(`${orgId}.db`));
  if (!found) throw new Error(`the database of org ${orgId} is not under ${dataDir}`);
  return join(dataDir, found);
}

type Fixture = {
  org: string;
  dbFile: string;
  location: { id: string };
  typeCode: string;
  chairs: { provider_uuid: string; operatory_uuid: string }[];
  patients: LoadedPatient[];
  loadMs: number;
  apiPatient: any;
};

/**
 * The patients org: the records of the booking pipeline through the API, then the 100,000 patients straight into SQLite.
 * With BENCH_ONLY, only what the selected rows need: the location always, the chairs and appointment types
 * for (d), the patients for (b), (c) and (d).
 */
async function buildFixture(base: string, token: string, dataDir: string, need: { chairs: boolean; patients: boolean }): Promise<Fixture> {
  const org = await createOrg(base, token, "patients");
  const P = `/api/v1/${org}`;
  const location = await api(base, "POST", `${P}/locations`, { name: "Downtown Dental", timezone: "America/Chicago", city: "Chicago", country: "US" }, token);
  const chairs: Fixture["chairs"] = [];
  for (let i = 1; i <= (need.chairs ? CHAIRS : 0); i++) {
    const provider = await api(base, "POST", `${P}/providers`, { abbreviation: `DR${i}`, first_name: `Pat${i}`, last_name: `Provider${i}` }, token);
    const operatory = await api(base, "POST", `${P}/schedule/operatories`, { location_uuid: location.id, name: `Chair ${i}` }, token);
    chairs.push({ provider_uuid: provider.id, operatory_uuid: operatory.id });
  }
  for (const [code, name, duration_minutes, color] of !need.chairs
    ? []
    : ([
        [APPOINTMENT_TYPE_CODE, "Adult prophylaxis", 30, "#2E86DE"],
        ["D0150", "Comprehensive exam", 30, "#10AC84"],
        ["D2391", "Composite filling", 60, "#EE5253"],
      ] as const)) {
    await api(base, "POST", `${P}/appointment-types`, { code, name, duration_minutes, color }, token);
  }
  const dbFile = orgDbFile(dataDir, org);
  if (!need.patients) return { org, dbFile, location, typeCode: APPOINTMENT_TYPE_CODE, chairs, patients: [], loadMs: 0, apiPatient: null };
  // One patient through the API: proves the endpoint works and gives a row written by the service itself.
  const apiPatient = await api(
    base,
    "POST",
    `${P}/patients`,
    { first_name: "Api", last_name: "Created", date_of_birth: "1980-05-17", mobile_phone: "+1 312 555 0199", email: "api.created@example.com" },
    token,
  );
  const home = await api(base, "POST", `${P}/providers`, { abbreviation: "HOME", first_name: "Hana", last_name: "Home" }, token);
  const { patients, ms } = loadPatients(dbFile, PATIENTS, undefined, { location_id: location.id, primary_provider_id: home.id });
  return { org, dbFile, location, typeCode: APPOINTMENT_TYPE_CODE, chairs, patients, loadMs: ms, apiPatient };
}

// ---------------------------------------------------------------- scenarios

const rows: Row[] = [];

function logRow(row: Row) {
  console.log(
    `  ${row.scenario}: ${fmtRate(row)} ${row.unit}${row.hasRatio === false ? (row.latency ? `, p50 ${fmtDur(row.latency.p50_us)} / p95 ${fmtDur(row.latency.p95_us)}` : "") : `, p50 ${fmtLat(row.p50_us)}, p99 ${fmtLat(row.p99_us)}`}; cores: server ${fmtCores(row.cores.server)}, load generator ${fmtCores(row.cores.load)}, other ${fmtCores(row.cores.other)}${row.errors ? `, ERRORS: ${row.errorDetail}` : ""}`,
  );
}

async function measure(
  wrk: string,
  server: Server,
  id: string,
  scenario: string,
  url: string,
  opts: {
    headers?: Record<string, string>;
    script?: string;
    scriptArgs?: string[];
    /** The warm-up's own script arguments (a write row whose requests must not repeat the warm-up's). */
    warmupScriptArgs?: string[];
    warmup?: boolean;
    connections?: number;
  } = {},
) {
  const serverPid = server.proc.pid;
  if (opts.warmup !== false && WARMUP > 0)
    await runWrk(wrk, url, { ...opts, scriptArgs: opts.warmupScriptArgs ?? opts.scriptArgs, serverPid, seconds: WARMUP });
  await waitForQuiet([serverPid]);
  const r = await runWrk(wrk, url, { ...opts, serverPid, seconds: DURATION });
  assertAlive(server, id);
  const row: Row = {
    id,
    scenario,
    unit: "req/s",
    rate: r.requests / (r.duration_us / 1e6),
    p50_us: r.p50_us,
    p99_us: r.p99_us,
    errors: r.status_errors + r.socket_errors + r.timeouts,
    errorDetail: `${r.status_errors} non-2xx, ${r.socket_errors} socket errors, ${r.timeouts} timeouts`,
    count: r.requests,
    cores: r.cores,
  };
  rows.push(row);
  logRow(row);
  return row;
}

async function runBookingClient(
  server: Server,
  fx: Fixture,
  token: string,
  terms: string[],
  seconds: number,
  firstSlot: number,
  concurrency = BOOKING_CONCURRENCY,
) {
  const cfgFile = join(work, `booking-${firstSlot}.json`);
  writeFileSync(
    cfgFile,
    JSON.stringify({
      base: server.base,
      token,
      org: fx.org,
      location_uuid: fx.location.id,
      type_code: fx.typeCode,
      chairs: fx.chairs,
      terms,
      concurrency,
      seconds,
      first_slot: firstSlot,
      day0: DAY0,
      slot_minutes: SLOT_MINUTES,
      day_start_minute: DAY_START_MINUTE,
      slots_per_day: SLOTS_PER_DAY,
      page_size: SEARCH_PAGE_SIZE,
    }),
  );
  const { out, err, code, cores } = await runLoad([process.execPath, "run", join(BENCH, "clients", "booking.ts"), cfgFile], server.pids ?? server.proc.pid);
  const line = out.split("\n").find((l) => l.startsWith("BOOKING_JSON "));
  if (code !== 0 || !line) throw new Error(`the booking client failed (exit ${code}):\n${out}\n${err}`);
  return { ...(JSON.parse(line.slice("BOOKING_JSON ".length)) as BookingResult), cores };
}

/** A booking-pipeline row from a run of the booking client (rows d, d1, s1, n1, n2). */
function bookingRow(id: string, scenario: string, b: BookingResult & { cores: Cores }): Row {
  return {
    id,
    scenario,
    unit: "bookings/s",
    rate: b.bookings / (b.duration_us / 1e6),
    p50_us: b.p50_us,
    p99_us: b.p99_us,
    errors: b.status_errors + b.socket_errors + b.bad_bodies,
    errorDetail: `${b.status_errors} non-2xx (${b.conflicts} of them 409), ${b.socket_errors} socket errors, ${b.bad_bodies} unexpected 201 bodies${b.samples.length ? `; e.g. ${b.samples[0]}` : ""}`,
    count: b.bookings,
    cores: b.cores,
    phases: b.phases,
  };
}

type BookingCheck = {
  created: number;
  in_database: number;
  providers_checked: number;
  operatories_checked: number;
  overlaps: string[];
  probe: { requests: number; created: number; conflicts: number; other: string[] };
  ok: boolean;
};

/**
 * A deliberate race after the measured run: 20 concurrent bookings of windows
 * that all overlap (09:00-09:30 and 09:15-09:45) on one operatory, half of them
 * also on one provider. Exactly one may win; the rest must be 409 booking_conflict.
 */
/** 20 concurrent bookings of one slot on `date` (before DAY0: no measured booking uses it): exactly one may win. */
async function doubleBookingProbe(server: Server, fx: Fixture, token: string, date = "2030-12-30") {
  const P = `${server.base}/api/v1/${fx.org}`;
  const patients = sample(fx.patients, 20, 99);
  const type = await typeUuid(server, fx, token);
  const answers = await Promise.all(
    patients.map(async (p, i) => {
      const start = i % 2 ? `${date}T09:15:00` : `${date}T09:00:00`;
      const end = i % 2 ? `${date}T09:45:00` : `${date}T09:30:00`;
      const r = await fetch(`${P}/appointments`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          patient_uuid: p.id,
          appointment_type_uuid: type,
          location_uuid: fx.location.id,
          provider_uuid: fx.chairs[i % 2]!.provider_uuid,
          operatory_uuid: fx.chairs[0]!.operatory_uuid,
          scheduled_start: start,
          scheduled_end: end,
        }),
      });
      return { status: r.status, body: await r.text() };
    }),
  );
  const created = answers.filter((a) => a.status === 201).length;
  const conflicts = answers.filter((a) => a.status === 409 && a.body.includes("booking_conflict")).length;
  const other = answers
    .filter((a) => a.status !== 201 && !(a.status === 409 && a.body.includes("booking_conflict")))
    .map((a) => `${a.status} ${a.body.slice(0, 200)}`);
  return { requests: answers.length, created, conflicts, other };
}

let cachedTypeUuid: string | undefined;
async function typeUuid(server: Server, fx: Fixture, token: string): Promise<string> {
  if (!cachedTypeUuid) {
    const page = await api(server.base, "GET", `/api/v1/${fx.org}/appointment-types?is_active=true`, undefined, token);
    cachedTypeUuid = page.items.find((t: { code: string }) => t.code === fx.typeCode).uuid as string;
  }
  return cachedTypeUuid;
}

/** Reads every appointment back from the org database: no two live ones of a provider or an operatory may overlap. */
function verifyNoDoubleBooking(dbFile: string, created: number, probe: BookingCheck["probe"]): BookingCheck {
  const db = new Database(dbFile, { readonly: true });
  try {
    const live = db
      .query("SELECT id, provider_id, operatory_id, start_utc, end_utc FROM appointments WHERE status != 'cancelled' AND deleted_at IS NULL")
      .all() as { id: string; provider_id: string; operatory_id: string | null; start_utc: string; end_utc: string }[];
    const overlaps: string[] = [];
    const check = (key: "provider_id" | "operatory_id") => {
      const groups = new Map<string, typeof live>();
      for (const a of live) {
        const k = a[key];
        if (!k) continue;
        let g = groups.get(k);
        if (!g) groups.set(k, (g = []));
        g.push(a);
      }
      for (const [k, g] of groups) {
        g.sort((x, y) => (x.start_utc < y.start_utc ? -1 : x.start_utc > y.start_utc ? 1 : 0));
        let latest = g[0]!;
        for (const a of g.slice(1)) {
          if (a.start_utc < latest.end_utc && overlaps.length < 10)
            overlaps.push(`${key} ${k}: ${latest.id} [${latest.start_utc}, ${latest.end_utc}) and ${a.id} [${a.start_utc}, ${a.end_utc})`);
          if (a.end_utc > latest.end_utc) latest = a;
        }
      }
      return groups.size;
    };
    const providers = check("provider_id");
    const operatories = check("operatory_id");
    const expected = created + probe.created;
    const ok = overlaps.length === 0 && live.length === expected && probe.created === 1 && probe.conflicts === probe.requests - 1;
    return { created: expected, in_database: live.length, providers_checked: providers, operatories_checked: operatories, overlaps, probe, ok };
  } finally {
    db.close();
  }
}

const fmtCores = (c: number | null) => (c === null ? "n/a" : c.toFixed(2));
const fmtInt = (n: number) => Math.round(n).toLocaleString("en-US");
const fmtLat = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us} µs`);
/** A duration that may run to seconds (the g rows). */
const fmtDur = (us: number) => (us >= 1e6 ? `${(us / 1e6).toFixed(2)} s` : fmtLat(Math.round(us)));
/** Documents per second are a few: two decimals; every other unit as before. */
const fmtRate = (row: Row) => (row.unit === "docs/s" ? row.rate.toFixed(2) : fmtInt(row.rate));
const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;

function writeLines(file: string, lines: string[]) {
  const p = join(work, file);
  writeFileSync(p, lines.join("\n") + "\n");
  return p;
}

async function main() {
  const wrk = ensureWrk();
  const wrkVersion = (Bun.spawnSync([wrk, "-v"]).stdout.toString() || "").split("\n")[0]!.trim();
  const started = Date.now();
  console.log(
    `bench: wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION}s (warm-up ${WARMUP}s) on loopback; booking client ${BOOKING_CONCURRENCY} loops; scratch ${work}`,
  );
  if (ONLY.length) console.log(`bench: BENCH_ONLY=${ONLY.join(",")}: rows ${ROW_IDS.filter(selected).join(", ") || "none"} between (a) and (a')`);
  const runB = selected("b");
  const runC = selected("c");
  const runD = selected("d"); // with (d1)
  const runE2 = selected("e2");
  const runE2s = selected("e2s");
  const runH1 = selected("h1");
  const runM1 = selected("m1");
  const runE2u = selected("e2u");
  const runN = selected("n1"); // with (n2)
  const runE4 = selected("e4");
  const needPatientsOrg = runB || runC || runD || runE2 || runE2s || runE2u || runH1 || runN || runE4;
  const needInsurance = selected("f1") || selected("f2");
  const runDocs = selected("g1") || selected("g2") || selected("g3");
  const needCusp = needPatientsOrg || selected("e3") || needInsurance || runDocs || runM1;

  // (a) ceiling
  console.log("(a) raw Bun.serve");
  let srv = await startServer("raw", join(BENCH, "servers", "raw.ts"), {}, "/");
  const first = await measure(wrk, srv, "a", "(a) raw `Bun.serve` hello-world (ceiling)", `${srv.base}/`);
  await srv.stop();

  // (e1) Elysia hello-world
  if (selected("e1")) {
    console.log("(e1) Elysia hello-world");
    srv = await startServer("elysia", join(BENCH, "servers", "elysia.ts"), {}, "/");
    await measure(wrk, srv, "e1", "(e1) Elysia hello-world", `${srv.base}/`);
    await srv.stop();
  }

  let fx: Fixture | undefined;
  let booking: BookingRun | undefined;
  /** What (n1) and (n2) continue from: the login, the search terms, the next free slot and the bookings made so far. */
  let forCluster: { token: string; terms: string[] } | undefined;
  let drafts: DraftsRun | undefined;
  let docs: DocumentsRun | undefined;
  if (needCusp) {
    // The real service, embedded defaults, fresh data directory.
    console.log("Cusp: starting src/server.ts on a fresh data directory");
    const dataDir = join(work, "data");
    mkdirSync(dataDir, { recursive: true });
    srv = await startServer(
      "cusp",
      join(ROOT, "src", "server.ts"),
      {
        DATA_DIR: dataDir,
        DEFAULT_SHARD_DSN: `file:${join(dataDir, "shards", "local")}`,
        LOG_LEVEL: "warn",
        NODE_ENV: "development",
        // The bench is one client at full speed: limits far above it keep the
        // buckets' bookkeeping in every figure without refusing anything.
        RATE_LIMIT_READ: "10000000/s,10000000",
        RATE_LIMIT_WRITE: "10000000/s,10000000",
        RATE_LIMIT_AUTH: "10000000/s,10000000",
      },
      "/api/ping",
    );
    try {
      const { access_token: token } = await api(srv.base, "POST", "/api/v1/auth/login", ADMIN);
      const auth = { Authorization: `Bearer ${token}` };

      if (needPatientsOrg) {
        const needPatients = runB || runC || runD || runH1 || runN || runE4;
        if (needPatients) console.log(`loading ${fmtInt(PATIENTS)} patients into one org (bun:sqlite, one transaction)`);
        else console.log("the patients org without patients: (b), (c) and (d) do not run");
        fx = await buildFixture(srv.base, token, dataDir, { chairs: runD || runN, patients: needPatients });
        const P = `/api/v1/${fx.org}`;
        const terms = needPatients ? searchTerms(fx.patients, 5_000) : [];
        forCluster = { token, terms };
        if (needPatients) {
          console.log(`  ${fmtInt(fx.patients.length)} patients in ${(fx.loadMs / 1000).toFixed(1)} s -> ${fx.dbFile}`);

          // The service must see the loaded rows: by id and through the name index.
          const probeP = fx.patients[fx.patients.length - 1]!;
          const got = await api(srv.base, "GET", `${P}/patients/${probeP.id}`, undefined, token);
          if (got.id !== probeP.id || got.last_name !== probeP.last_name)
            throw new Error(`GET ${P}/patients/${probeP.id} answered ${JSON.stringify(got).slice(0, 300)}`);
          const found = await api(srv.base, "GET", `${P}/patients?search=${encodeURIComponent(terms[0]!)}&page_size=${SEARCH_PAGE_SIZE}`, undefined, token);
          if (!found.items?.length) throw new Error(`search for ${terms[0]} found nobody`);
          const everyone = await api(srv.base, "GET", `${P}/patients?page_size=1`, undefined, token);
          console.log(`  the service sees ${fmtInt(everyone.total)} patients; "${terms[0]}" finds ${found.total}`);
        }

        // (b) point read over 10,000 different patients
        if (runB) {
          const getList = writeLines(
            "patient-paths.txt",
            sample(fx.patients, 10_000).map((p) => `${P}/patients/${p.id}`),
          );
          console.log("(b) GET patient by id");
          await measure(wrk, srv, "b", "(b) `GET {P}/patients/{id}` (100k patients, whole stack)", srv.base + P + "/patients", {
            headers: auth,
            script: "paths.lua",
            scriptArgs: [getList],
          });
        }

        // (c) name-prefix search, 5,000 different terms
        if (runC) {
          const searchList = writeLines(
            "search-paths.txt",
            terms.map((t) => `${P}/patients?search=${encodeURIComponent(t)}&page_size=${SEARCH_PAGE_SIZE}`),
          );
          console.log(`(c) patient search by name prefix (e.g. "${terms[0]}", page_size=${SEARCH_PAGE_SIZE})`);
          await measure(
            wrk,
            srv,
            "c",
            `(c) \`GET {P}/patients?search=<first3> <last4>&page_size=${SEARCH_PAGE_SIZE}\` (name prefixes)`,
            srv.base + P + "/patients",
            {
              headers: auth,
              script: "paths.lua",
              scriptArgs: [searchList],
            },
          );
        }

        // (h1) a smart-list count: three conditions over every live patient, one
        // connection (the latency an office manager waits for; the target is p99 < 50 ms)
        if (runH1) {
          const filter = {
            expected_source_snapshot_version: (await api(srv.base, "GET", `${P}/revenue-module/fields`, undefined, token)).source_version,
            filter_definition: {
              groups: [
                {
                  conditions: [
                    { field: "status", operator: "eq", value: "active" },
                    { field: "age", operator: "gte", value: 18 },
                    { field: "has_email", operator: "eq", value: true },
                  ],
                },
              ],
            },
          };
          const counted = await api(srv.base, "POST", `${P}/revenue-module/count`, filter, token);
          console.log(`(h1) revenue count (status = active AND age >= 18 AND has_email): ${fmtInt(counted.count)} of ${fmtInt(fx.patients.length)} patients`);
          const bodyFile = writeLines("revenue-count.json", [JSON.stringify(filter)]);
          await measure(
            wrk,
            srv,
            "h1",
            "(h1) `POST {P}/revenue-module/count`, 3 conditions over 100k patients, 1 connection",
            srv.base + P + "/revenue-module/count",
            {
              headers: auth,
              script: "post-json.lua",
              scriptArgs: [bodyFile],
              connections: 1,
            },
          );
        }

        // (e2) the earlier location point read (the same org: its locations table has one row)
        if (runE2) {
          const getPath = `${P}/locations/${fx.location.id}`;
          console.log("(e2) GET location by id");
          await measure(wrk, srv, "e2", "(e2) `GET {P}/locations/{id}` (whole stack)", srv.base + getPath, { headers: auth });
        }

        // (e2s) the same read by a member holding locations.read at this location only:
        // the guard works out where the request acts (the path) and checks the compiled grants
        if (runE2s) {
          const getPath = `${P}/locations/${fx.location.id}`;
          const group = await api(srv.base, "POST", `${P}/iam/groups`, { name: "Bench location readers", permission_keys: ["locations.read"] }, token);
          const email = `bench-scoped-${Date.now().toString(36)}@example.com`;
          const password = "bench-scoped-password";
          const member = await api(srv.base, "POST", `${P}/iam/users`, { email, display_name: "Bench scoped member", password }, token);
          await api(srv.base, "POST", `${P}/iam/assignments`, { user_id: member.id, group_uuid: group.id, scope_node_uuid: fx.location.id }, token);
          const scoped = await api(srv.base, "POST", "/api/v1/auth/login", { email, password });
          const probe = await fetch(srv.base + getPath, { headers: { Authorization: `Bearer ${scoped.access_token}` } });
          if (probe.status !== 200) throw new Error(`(e2s) the scoped member's read answered ${probe.status}`);
          console.log("(e2s) GET location by id, member scoped to that location");
          await measure(wrk, srv, "e2s", "(e2s) `GET {P}/locations/{id}` by a member scoped to that location", srv.base + getPath, {
            headers: { Authorization: `Bearer ${scoped.access_token}` },
          });
        }

        // (e2u) the same read with every answer uncached: 1,000 locations walked in
        // turn, more than the 256 answers a database keeps (docs/decisions.md)
        if (runE2u) {
          const coldIds: string[] = [];
          for (let i = 0; i < COLD_LOCATIONS; i++)
            coldIds.push((await api(srv.base, "POST", `${P}/locations`, { name: `Branch ${i}`, timezone: "America/Chicago" }, token)).id);
          const coldList = writeLines(
            "location-paths.txt",
            coldIds.map((id) => `${P}/locations/${id}`),
          );
          console.log(`(e2u) GET location by id over ${fmtInt(COLD_LOCATIONS)} locations (not kept)`);
          await measure(
            wrk,
            srv,
            "e2u",
            `(e2u) \`GET {P}/locations/{id}\` over ${fmtInt(COLD_LOCATIONS)} locations in turn (never a kept answer)`,
            srv.base + P + "/locations",
            { headers: auth, script: "paths.lua", scriptArgs: [coldList] },
          );
        }

        // (d) the booking pipeline: a warm-up run, then the measured run (slots continue)
        if (runD) {
          console.log(`(d) booking pipeline, ${BOOKING_CONCURRENCY} concurrent loops`);
          const warm = WARMUP > 0 ? await runBookingClient(srv, fx, token, terms, WARMUP, 0) : undefined;
          await waitForQuiet([srv.proc.pid]);
          const b = await runBookingClient(srv, fx, token, terms, DURATION, warm?.next_slot ?? 0);
          assertAlive(srv, "d");
          const dRow = bookingRow("d", "(d) booking pipeline: search → appointment types → `POST {P}/appointments` → 201", b);
          rows.push(dRow);
          logRow(dRow);
          console.log(
            `    per call p50/p99: search ${fmtLat(b.phases.search.p50_us)}/${fmtLat(b.phases.search.p99_us)}, types ${fmtLat(b.phases.types.p50_us)}/${fmtLat(b.phases.types.p99_us)}, create ${fmtLat(b.phases.create.p50_us)}/${fmtLat(b.phases.create.p99_us)}`,
          );
          // (d1) the same pipeline from one loop: a booking's latency without queueing
          const solo = await runBookingClient(srv, fx, token, terms, Math.max(1, Math.round(DURATION / 2)), b.next_slot, 1);
          assertAlive(srv, "d1");
          const d1Row = bookingRow("d1", "(d1) booking pipeline, one loop (latency without queueing)", solo);
          rows.push(d1Row);
          logRow(d1Row);
          console.log(
            `    per call p50/p99: search ${fmtLat(solo.phases.search.p50_us)}/${fmtLat(solo.phases.search.p99_us)}, types ${fmtLat(solo.phases.types.p50_us)}/${fmtLat(solo.phases.types.p99_us)}, create ${fmtLat(solo.phases.create.p50_us)}/${fmtLat(solo.phases.create.p99_us)}`,
          );
          // (s1) the pipeline again with 1,000 event streams open over 20 orgs (this one and 19 more)
          const withStreams = await streamsRow(srv, fx, token, terms, solo.next_slot, dRow);
          const probe = await doubleBookingProbe(srv, fx, token);
          const createdTotal = (warm ? warm.bookings + warm.bad_bodies : 0) + b.bookings + b.bad_bodies + solo.bookings + solo.bad_bodies + withStreams.created;
          const check = verifyNoDoubleBooking(fx.dbFile, createdTotal, probe);
          console.log(
            `  double booking check: ${check.ok ? "OK" : "FAILED"}: ${fmtInt(check.in_database)} live appointments in the database (${fmtInt(check.created)} created), ${check.overlaps.length} overlaps over ${check.providers_checked} providers and ${check.operatories_checked} operatories; race probe: ${probe.created} of ${probe.requests} won, ${probe.conflicts} got 409 booking_conflict${probe.other.length ? `, other: ${probe.other.join("; ")}` : ""}`,
          );
          booking = { warmup: warm!, measured: b, solo, check, nextSlot: withStreams.nextSlot };
        }
      }

      // (e3) writes: a fresh org, so the writes do not touch the patients org.
      if (selected("e3")) {
        const writeOrg = await createOrg(srv.base, token, "write");
        await api(srv.base, "POST", `/api/v1/${writeOrg}/locations`, { name: "Probe", timezone: "America/Chicago" }, token);
        console.log("(e3) POST create location (JSON, writes)");
        await measure(wrk, srv, "e3", "(e3) `POST {P}/locations` JSON create (whole stack, writes)", `${srv.base}/api/v1/${writeOrg}/locations`, {
          headers: auth,
          script: "post-location.lua",
        });
      }

      // (e4) patient PATCH: every request a different patient of the 100,000 (its first change)
      if (runE4 && fx?.patients.length) {
        const P = `/api/v1/${fx.org}`;
        // the warm-up PATCHes other patients than the measured run (each starts its list at the top)
        const paths = sample(fx.patients, fx.patients.length, 7).map((p) => `${P}/patients/${p.id}`);
        const warmList = writeLines("patient-patch-warmup.txt", paths.slice(0, 20_000));
        const list = writeLines("patient-patch-paths.txt", paths.slice(20_000));
        console.log("(e4) PATCH a patient (JSON, writes)");
        await measure(wrk, srv, "e4", "(e4) `PATCH {P}/patients/{id}` (whole stack, writes; a different patient each time)", `${srv.base}${P}/patients`, {
          headers: auth,
          script: "patch-patients.lua",
          scriptArgs: [list],
          warmupScriptArgs: [warmList],
        });
      }

      // (m1) many orgs: 500 orgs of 2,000 patients (one loaded, copied 499 times), a random
      // org's random patient per request; then the server's memory and open files
      if (runM1) {
        console.log(`(m1) ${fmtInt(MANY_ORGS)} orgs of ${fmtInt(MANY_PATIENTS)} patients`);
        const template = await createOrg(srv.base, token, "many");
        const many = buildManyOrgs(join(work, "data"), template, orgDbFile(join(work, "data"), template), MANY_ORGS, MANY_PATIENTS);
        console.log(
          `  loaded ${fmtInt(many.patients.length)} patients in ${(many.loadMs / 1000).toFixed(1)} s, ${fmtInt(many.orgs.length - 1)} copies in ${(many.copyMs / 1000).toFixed(1)} s`,
        );
        const probe = await api(srv.base, "GET", `/api/v1/${many.orgs.at(-1)}/patients/${many.patients[0]!.id}`, undefined, token);
        if (probe.id !== many.patients[0]!.id) throw new Error(`(m1) the last copy answered ${JSON.stringify(probe).slice(0, 200)}`);
        const before = processFootprint(srv.proc.pid);
        const row = await measure(
          wrk,
          srv,
          "m1",
          `(m1) \`GET {P}/patients/{id}\`, a random org of ${fmtInt(MANY_ORGS)} (${fmtInt(MANY_PATIENTS)} patients each) per request`,
          srv.base + "/api/v1",
          { headers: auth, script: "paths.lua", scriptArgs: [writeLines("many-org-paths.txt", manyOrgPaths(many, 10_000))] },
        );
        const after = processFootprint(srv.proc.pid);
        row.rss_mb = after.rss_mb;
        row.scenario += `; server RSS ${after.rss_mb} MB (${before.rss_mb} before), ${after.open_files} open files (${before.open_files} before), ORG_DB_CACHE_SIZE ${process.env.ORG_DB_CACHE_SIZE ?? 512}`;
        console.log(`  server RSS ${before.rss_mb} -> ${after.rss_mb} MB, open files ${before.open_files} -> ${after.open_files}`);
      }

      // (f1) a treatment plan estimate, 10 procedures against primary and
      // secondary insurance, in a fresh org built through the API. The first run
      // wrote the 20 estimates; every measured POST finds them fresh and rewrites
      // nothing but the run itself (a front desk pressing "estimate" again).
      if (needInsurance) {
        const insOrg = await createOrg(srv.base, token, "insurance");
        const insApi = (method: string, path: string, body?: unknown) => api(srv.base, method, path, body, token);
        const ins = await buildInsuranceFixture(insApi, insOrg);
        const again = await insApi("POST", ins.estimatePath);
        if (again.estimate_count !== ins.first.estimate_count) throw new Error(`the second estimate answered estimate_count ${again.estimate_count}`);
        if (selected("f1")) {
          console.log(
            `(f1) estimate a ${PLAN_CODES.length}-procedure treatment plan, 2 plans: estimate_count ${ins.first.estimate_count}, fee ${ins.first.total_fee_billed}, insurance ${ins.first.total_insurance_estimate}, patient ${ins.first.total_patient_estimate}`,
          );
          await measure(
            wrk,
            srv,
            "f1",
            `(f1) \`POST {P}/clinical/patients/{id}/treatment-plans/{plan}/estimate\` (${PLAN_CODES.length} procedures × primary + secondary, estimates fresh)`,
            srv.base + ins.estimatePath,
            { headers: auth, script: "post-empty.lua" },
          );
        }

        // (f2) draft matching: imports, then the in-process job (PGlite queue) matches every row.
        if (selected("f2")) {
          console.log(`(f2) draft matching: ${fmtInt(DRAFT_ROWS)} rows in imports of ${fmtInt(DRAFT_CHUNK)}`);
          await waitForQuiet([srv.proc.pid]);
          const busy0 = machineBusyTicks();
          const server0 = processTicks(srv.proc.pid);
          const self0 = process.cpuUsage();
          drafts = await runDraftsMatching(insApi, ins, DRAFT_ROWS, DRAFT_CHUNK);
          assertAlive(srv, "f2");
          const wall = drafts.total_ms / 1000;
          const busy1 = machineBusyTicks();
          const server1 = processTicks(srv.proc.pid);
          const self = process.cpuUsage(self0);
          const serverSec = server0 !== null && server1 !== null ? (server1 - server0) / CLK_TCK : null;
          const selfSec = (self.user + self.system) / 1e6;
          const otherSec = busy0 !== null && busy1 !== null && serverSec !== null ? (busy1 - busy0) / CLK_TCK - serverSec - selfSec : null;
          const unfinished = drafts.rows - drafts.matched;
          const f2Row: Row = {
            id: "f2",
            scenario: `(f2) draft matching: ${fmtInt(DRAFT_ROWS)} rows (${drafts.imports} × \`POST {P}/insurance/drafts/import\`), first import to last row matched`,
            unit: "rows/s",
            hasRatio: false,
            rate: drafts.matched / wall,
            p50_us: 0,
            p99_us: 0,
            errors: unfinished,
            errorDetail: `${drafts.matched} matched, ${drafts.pending} pending, ${drafts.error} error${drafts.timed_out ? ", timed out" : ""}`,
            count: drafts.matched,
            cores: {
              server: serverSec === null ? null : serverSec / wall,
              load: selfSec / wall,
              other: otherSec === null ? null : Math.max(0, otherSec / wall),
            },
          };
          rows.push(f2Row);
          logRow(f2Row);
          console.log(
            `    imports took ${(drafts.import_ms / 1000).toFixed(2)} s, all matched after ${(drafts.total_ms / 1000).toFixed(2)} s (${drafts.polls} polls)`,
          );
        }
      }

      // (g1)-(g3) the documents pipeline, on the same server process (bench/documents.ts).
      if (runDocs) docs = await documentRows(srv, token);
    } finally {
      await srv.stop();
    }

    // (n1), (n2) the booking pipeline on the production layout, with one and then two API processes
    if (runN && fx && forCluster) await clusterRows(dataDir, fx, forCluster.token, forCluster.terms, booking);
  }

  // The ceiling again: how much the machine drifted during the run.
  console.log("(a') raw Bun.serve again (drift check)");
  srv = await startServer("raw2", join(BENCH, "servers", "raw.ts"), {}, "/");
  const again = await measure(wrk, srv, "a2", "(a') ceiling again, end of run (drift check)", `${srv.base}/`);
  await srv.stop();

  // (r1)-(r3) an edge region against its primary, on a replicated shard
  const edge = selected("r1") ? await edgeRows(wrk) : undefined;

  report({ first, again, wrkVersion, started, fx, booking, drafts, docs, edge });
}

const STREAM_ORGS = Number(process.env.BENCH_STREAM_ORGS ?? 20);
const STREAMS_PER_ORG = Number(process.env.BENCH_STREAMS_PER_ORG ?? 50);

type StreamsResult = {
  streams: number;
  connected: number;
  deliveries: number;
  events_per_org: Record<string, number>;
  foreign: number;
  duplicates: number;
  missed: number;
  delay_ms: { p50: number | null; p99: number | null; max: number | null };
};

/**
 * (s1): BENCH_STREAM_ORGS (20) orgs × BENCH_STREAMS_PER_ORG (50) open event
 * streams held by bench/clients/streams.ts while the booking pipeline runs as
 * in (d) on the first of them; the row is the booking rate then, its scenario
 * says how late the events reached their streams (p50 / p99), and any event
 * of another org, duplicate or miss counts as an error. Answers what the
 * double-booking check and the next rows need.
 */
async function streamsRow(srv: Server, fx: Fixture, token: string, terms: string[], firstSlot: number, d: Row) {
  const orgs = [fx.org];
  for (let i = 1; i < STREAM_ORGS; i++) orgs.push(await createOrg(srv.base, token, `streams-${i}`));
  const cfgFile = join(work, "streams.json");
  writeFileSync(cfgFile, JSON.stringify({ base: srv.base, token, orgs, streams_per_org: STREAMS_PER_ORG }));
  console.log(`(s1) booking pipeline with ${fmtInt(orgs.length * STREAMS_PER_ORG)} event streams open over ${orgs.length} orgs`);
  // Bun's fetch holds at most 256 connections at once unless told otherwise
  const holder = Bun.spawn([process.execPath, "run", join(BENCH, "clients", "streams.ts"), cfgFile], {
    cwd: ROOT,
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: String(STREAM_ORGS * STREAMS_PER_ORG + 64) },
    stdout: "pipe",
    stderr: "inherit",
  });
  children.add(holder);
  let out = "";
  const decoder = new TextDecoder();
  const pump = (async () => {
    for await (const chunk of holder.stdout as ReadableStream<Uint8Array>) out += decoder.decode(chunk);
  })();
  const deadline = Date.now() + 90_000;
  while (!out.includes("STREAMS_READY")) {
    if (Date.now() > deadline || holder.exitCode !== null) throw new Error(`(s1) the streams did not open: ${out}`);
    await Bun.sleep(50);
  }
  await waitForQuiet([srv.proc.pid]);
  const b = await runBookingClient(srv, fx, token, terms, DURATION, firstSlot);
  assertAlive(srv, "s1");
  holder.kill("SIGTERM");
  await holder.exited;
  await pump;
  children.delete(holder);
  const line = out.split("\n").find((l) => l.startsWith("STREAMS_JSON "));
  if (!line) throw new Error(`(s1) the stream holder reported nothing: ${out}`);
  const st = JSON.parse(line.slice("STREAMS_JSON ".length)) as StreamsResult;
  const bad = st.foreign + st.duplicates + st.missed;
  const rate = b.bookings / (b.duration_us / 1e6);
  const base = bookingRow(
    "s1",
    `(s1) booking pipeline with ${fmtInt(st.connected)} event streams open over ${orgs.length} orgs: ${(rate / d.rate).toFixed(2)} of (d); ${fmtInt(st.events_per_org[fx.org] ?? 0)} events reached each of ${STREAMS_PER_ORG} streams, p50 / p99 ${st.delay_ms.p50} / ${st.delay_ms.p99} ms after they occurred`,
    b,
  );
  const row: Row = {
    ...base,
    errors: base.errors + bad,
    errorDetail: `${base.errorDetail}; streams: ${st.foreign} events of another org, ${st.duplicates} duplicates, ${st.missed} missed`,
    streams: { ...st, rate_of_d: rate / d.rate },
  };
  rows.push(row);
  logRow(row);
  return { created: b.bookings + b.bad_bodies, nextSlot: b.next_slot };
}

/**
 * (n1) and (n2): `npm run start:cluster` on the bench's data directory with
 * one, then two API processes (and a worker process, PostgreSQL and Redis in
 * both), the booking pipeline as in (d) continuing its slots; then the race
 * probe against the two processes and the double-booking check over every
 * booking of the run. bench/cluster.ts.
 */
type EdgeRun = { patients: number; load_ms: number; visibility: Visibility; notices: boolean };

/**
 * (r1)-(r3): a primary (region iad) and an edge (ord, forwarding writes) on a
 * turso-sync shard served by scripts/services/tursodb.ts, sharing one control
 * database; the same reads measured at each, then the visibility of writes.
 */
async function edgeRows(wrk: string): Promise<EdgeRun> {
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
  try {
    edge = await startServer("edge-ord", "src/server.ts", env("ord", { EDGE_WRITES: "forward", PRIMARY_URL: primary.base }), "/api/ping");
    const token = (await api(primary.base, "POST", "/api/v1/auth/login", ADMIN)).access_token as string;
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
      await measure(wrk, srv, id, `(${id}) \`GET {P}/patients/{id}\` on a replicated shard, at ${where}`, srv.base + P + "/patients", {
        headers: auth,
        script: "paths.lua",
        scriptArgs: [reads],
      });
    for (const [id, srv, where] of [
      ["r2p", primary, "the primary"],
      ["r2e", edge, "an edge"],
    ] as const)
      await measure(wrk, srv, id, `(${id}) patient search on a replicated shard, at ${where}`, srv.base + P + "/patients", {
        headers: auth,
        script: "paths.lua",
        scriptArgs: [searches],
      });
    console.log(`(r3) a write at the primary, visible at the edge (${EDGE_SAMPLES} samples)`);
    const visibility = await measureVisibility(primary.base, edge.base, token, fx, EDGE_SAMPLES);
    console.log(
      `  visible after p50 ${visibility.p50_ms.toFixed(1)} / p99 ${visibility.p99_ms.toFixed(1)} ms; read-your-writes p50 ${visibility.ryw_p50_ms.toFixed(1)} / p99 ${visibility.ryw_p99_ms.toFixed(1)} ms`,
    );
    return { patients: fx.patients.length, load_ms: loadMs, visibility, notices: !noRedis };
  } finally {
    await edge?.stop();
    await primary.stop();
    await router.stop();
  }
}

async function clusterRows(dataDir: string, fx: Fixture, token: string, terms: string[], before: BookingRun | undefined) {
  const down = await clusterServicesDown();
  if (down) {
    console.log(`(n1), (n2) skipped: ${down}`);
    return;
  }
  let nextSlot = before ? before.nextSlot : 0;
  let created = before ? before.check.created : 0;
  const env = {
    DEFAULT_SHARD_DSN: `file:${join(dataDir, "shards", "local")}`,
    LOG_LEVEL: "warn",
    NODE_ENV: "development",
    RATE_LIMIT_READ: "10000000/s,10000000",
    RATE_LIMIT_WRITE: "10000000/s,10000000",
    RATE_LIMIT_AUTH: "10000000/s,10000000",
  };
  let probe: BookingCheck["probe"] | undefined;
  for (const instances of [1, 2]) {
    const id = instances === 1 ? "n1" : "n2";
    console.log(
      `(${id}) booking pipeline, ${instances} API process${instances > 1 ? "es" : ""} (npm run start:cluster: PostgreSQL queue, worker process, Redis)`,
    );
    const port = await freePort();
    const cluster = await startCluster({ instances, port, dataDir, env, log: join(work, `cluster-${instances}.log`) });
    const server: Server = { name: `cluster-${instances}`, port, base: cluster.base, proc: cluster.proc, log: "", pids: cluster.pids, stop: cluster.stop };
    try {
      const warm = WARMUP > 0 ? await runBookingClient(server, fx, token, terms, WARMUP, nextSlot) : undefined;
      await waitForQuiet(cluster.pids);
      const b = await runBookingClient(server, fx, token, terms, DURATION, warm?.next_slot ?? nextSlot);
      nextSlot = b.next_slot;
      created += (warm ? warm.bookings + warm.bad_bodies : 0) + b.bookings + b.bad_bodies;
      const row = bookingRow(
        id,
        `(${id}) booking pipeline, ${instances} API process${instances > 1 ? "es" : ""} on one port (production layout: PostgreSQL queue, Redis)`,
        b,
      );
      rows.push(row);
      logRow(row);
      if (instances === 2) probe = await doubleBookingProbe(server, fx, token, "2030-12-29");
    } finally {
      await cluster.stop();
    }
  }
  const check = verifyNoDoubleBooking(fx.dbFile, created, probe!);
  console.log(
    `  double booking check over every booking of the run: ${check.ok ? "OK" : "FAILED"}: ${fmtInt(check.in_database)} live appointments (${fmtInt(check.created)} created), ${check.overlaps.length} overlaps; race probe across the two processes: ${probe!.created} of ${probe!.requests} won, ${probe!.conflicts} got 409`,
  );
  const n2 = rows.find((r) => r.id === "n2");
  if (!check.ok && n2) {
    n2.errors += 1;
    n2.errorDetail += `; DOUBLE BOOKING CHECK FAILED: ${check.overlaps.length} overlaps, ${check.in_database} live of ${check.created} created`;
  }
}

type DocumentsRun = {
  warmup_ms: Record<string, number>;
  warmup_status: Record<string, string>;
  sequential: Partial<Record<"g1" | "g2", SequentialRun>>;
  burst?: BurstRun;
};

/** Server, runner and other CPU over `fn`, in cores, and its wall time (the rows the runner drives itself). */
async function withCores<T>(serverPid: number, fn: () => Promise<T>): Promise<{ value: T; wallMs: number; cores: Cores }> {
  const busy0 = machineBusyTicks();
  const server0 = processTicks(serverPid);
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const wall = (performance.now() - t0) / 1000;
  const busy1 = machineBusyTicks();
  const server1 = processTicks(serverPid);
  const self = process.cpuUsage(self0);
  const serverSec = server0 !== null && server1 !== null ? (server1 - server0) / CLK_TCK : null;
  const selfSec = (self.user + self.system) / 1e6;
  const otherSec = busy0 !== null && busy1 !== null && serverSec !== null ? (busy1 - busy0) / CLK_TCK - serverSec - selfSec : null;
  return {
    value,
    wallMs: wall * 1000,
    cores: { server: serverSec === null ? null : serverSec / wall, load: selfSec / wall, other: otherSec === null ? null : Math.max(0, otherSec / wall) },
  };
}

/**
 * (g1)-(g3): uploads through the API to a patient of a fresh org; the runner
 * uploads and polls (its CPU is the "load gen." column). One upload of each
 * file first, waited for and not counted: it starts the OCR worker (the model
 * load) and the pipeline's code paths, a cost paid once per server process.
 */
async function documentRows(srv: Server, token: string): Promise<DocumentsRun> {
  const files = await documentFiles();
  const org = await createOrg(srv.base, token, "documents");
  const docApi = (method: string, path: string, body?: unknown) => api(srv.base, method, path, body, token);
  const target = { base: srv.base, token, org };
  const owner = await documentOwner(docApi, org, "sequential");
  const pid = srv.proc.pid;
  const run: DocumentsRun = { warmup_ms: {}, warmup_status: {}, sequential: {} };
  console.log(
    `(g) documents: warm-up, one upload of each (${fmtInt(files.pdf.bytes.length)} B scanned PDF, ${fmtInt(files.card.bytes.length)} B card photo), not counted`,
  );
  for (const f of [files.pdf, files.card]) {
    const w = await uploadUntilDone(target, f, owner);
    run.warmup_ms[f.kind] = Math.round(w.ms);
    run.warmup_status[f.kind] = w.status;
    console.log(`  ${f.name}: ${w.status} after ${fmtDur(w.ms * 1000)}${w.detail ? ` (${w.detail})` : ""}`);
  }
  assertAlive(srv, "the documents warm-up");
  const sequential = [
    ["g1", files.pdf, "one-page scanned PDF (no text layer: rendered and OCR'd)"],
    ["g2", files.card, "insurance card photo (JPEG 1600×1009, stored rotated)"],
  ] as const;
  for (const [id, file, what] of sequential) {
    if (!selected(id)) continue;
    console.log(`(${id}) ${DOC_SAMPLES} uploads of the ${what}, one after another, each polled every ${SEQUENTIAL_POLL_MS} ms until active`);
    await waitForQuiet([pid]);
    const m = await withCores(pid, () => runSequential(target, file, owner, DOC_SAMPLES));
    assertAlive(srv, id);
    run.sequential[id] = m.value;
    const ms = m.value.outcomes.filter((o) => o.status === "active").map((o) => o.ms);
    const bad = failures(m.value.outcomes);
    const row: Row = {
      id,
      scenario: `(${id}) \`POST {P}/documents\` ${what}: upload to active (scan → OCR → classify → thumbnail), ${DOC_SAMPLES} one after another`,
      unit: "docs/s",
      hasRatio: false,
      latency: { p50_us: percentile(ms, 50) * 1000, p95_us: percentile(ms, 95) * 1000 },
      rate: ms.length / (m.wallMs / 1000),
      p50_us: 0,
      p99_us: 0,
      errors: bad.count,
      errorDetail: bad.detail,
      count: ms.length,
      cores: m.cores,
    };
    rows.push(row);
    logRow(row);
    console.log(`    each (ms): ${m.value.outcomes.map((o) => Math.round(o.ms)).join(", ")}`);
  }
  if (selected("g3")) {
    const burstOwner = await documentOwner(docApi, org, "burst");
    const burstFiles = Array.from({ length: 2 * DOC_BURST_EACH }, (_, i) => (i % 2 ? files.card : files.pdf));
    console.log(`(g3) ${burstFiles.length} uploads at once (${DOC_BURST_EACH} of each), default worker concurrency, list polled every ${BURST_POLL_MS} ms`);
    await waitForQuiet([pid]);
    const m = await withCores(pid, () => runBurst(target, burstFiles, burstOwner));
    assertAlive(srv, "g3");
    run.burst = m.value;
    const done = m.value.outcomes.filter((o) => o.status === "active");
    const ms = done.map((o) => o.ms);
    const bad = failures(m.value.outcomes);
    const row: Row = {
      id: "g3",
      scenario: `(g3) documents pipeline throughput: ${burstFiles.length} uploads sent at once (${DOC_BURST_EACH} scanned PDFs, ${DOC_BURST_EACH} card photos) until all are active; latency: each document's upload to active`,
      unit: "docs/s",
      hasRatio: false,
      latency: { p50_us: percentile(ms, 50) * 1000, p95_us: percentile(ms, 95) * 1000 },
      rate: done.length / (m.value.total_ms / 1000),
      p50_us: 0,
      p99_us: 0,
      errors: bad.count,
      errorDetail: bad.detail,
      count: done.length,
      cores: m.cores,
    };
    rows.push(row);
    logRow(row);
    console.log(
      `    all ${burstFiles.length} uploads answered after ${fmtDur(m.value.uploads_ms * 1000)}; all past processing after ${fmtDur(m.value.total_ms * 1000)} (${m.value.polls} polls)`,
    );
  }
  return run;
}

function docSummary(o: DocOutcome[]) {
  const ms = o.filter((x) => x.status === "active").map((x) => x.ms);
  return {
    count: ms.length,
    errors: o.length - ms.length,
    p50_ms: round(percentile(ms, 50), 1),
    p95_ms: round(percentile(ms, 95), 1),
    max_ms: round(Math.max(0, ...ms), 1),
    statuses: Object.fromEntries([...new Set(o.map((x) => x.status))].map((s) => [s, o.filter((x) => x.status === s).length])),
  };
}

// ---------------------------------------------------------------- report

type BookingRun = { warmup: BookingResult; measured: BookingResult; solo: BookingResult; check: BookingCheck; nextSlot: number };

function report(r: {
  first: Row;
  again: Row;
  wrkVersion: string;
  started: number;
  /** Absent, or without patients, when BENCH_ONLY left out the rows that need them (so are booking, drafts and docs). */
  fx?: Fixture;
  booking?: BookingRun;
  drafts?: DraftsRun;
  docs?: DocumentsRun;
  edge?: EdgeRun;
}) {
  const { first, again, booking } = r;
  // Noise from other processes only ever lowers a figure: the better of the two
  // ceiling measurements is the estimate of the ceiling.
  const ceiling = again.rate > first.rate ? again : first;
  const drift = (again.rate - first.rate) / first.rate;
  const ratio = (row: Row) => row.rate / ceiling.rate;
  const latRatio = (us: number, ref: number) => (ref > 0 ? us / ref : 0);
  // each row id as the rows it makes ((r1) and (r2) are measured at the primary and at the edge; (r3) is a note)
  const order = ["a", ...ROW_IDS.flatMap((id) => (id === "r1" || id === "r2" ? [`${id}p`, `${id}e`] : [id])), "a2"];
  const sorted = [...rows].sort((x, y) => order.indexOf(x.id) - order.indexOf(y.id));
  const targets = targetsOf(rows, ratio, booking);
  const patientCount = r.fx?.patients.length ?? 0;
  const noisy = sorted.filter((x) => (x.cores.other ?? 0) > 0.25);
  const bad = sorted.filter((x) => x.errors > 0);
  const commit = gitRev();
  const machine = `${cpus().length} × ${cpus()[0]?.model?.trim() ?? "unknown CPU"}; ${process.platform}/${process.arch}`;
  const totalSeconds = Math.round((Date.now() - r.started) / 1000);

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
      ? `- Data: ${fmtInt(patientCount)} patients in one org (loaded with bun:sqlite in ${(r.fx!.loadMs / 1000).toFixed(1)} s); (b) reads 10,000 different patients, (c) 5,000 different search terms (first 3 letters of a first name + first 4 of a last name, e.g. "Mar Garc"), ${SEARCH_PAGE_SIZE} per page`
      : "- Data: no patient set loaded (no row of this run needs it)",
  );
  if (ONLY.length)
    lines.push(
      `- Only: \`BENCH_ONLY=${ONLY.join(",")}\`: rows ${ROW_IDS.filter(selected).join(", ")} between the ceilings (a) and (a'); every other row did not run`,
    );
  lines.push("");
  lines.push(
    "| scenario | rate | ratio to ceiling | p50 latency (× ceiling's) | p99 latency (× ceiling's) | non-2xx / errors | cores: server / load gen. / other |",
  );
  lines.push("|---|---:|---:|---:|---:|---:|---:|");
  for (const x of sorted) {
    lines.push(
      x.hasRatio === false
        ? `| ${x.scenario} | ${fmtRate(x)} ${x.unit} | n/a | ${x.latency ? `p50 ${fmtDur(x.latency.p50_us)}` : "n/a"} | ${x.latency ? `p95 ${fmtDur(x.latency.p95_us)}` : "n/a"} | ${x.errors} | ${fmtCores(x.cores.server)} / ${fmtCores(x.cores.load)} / ${fmtCores(x.cores.other)} |`
        : `| ${x.scenario} | ${fmtInt(x.rate)} ${x.unit} | ${ratio(x).toFixed(3)} | ${fmtLat(x.p50_us)} (${latRatio(x.p50_us, ceiling.p50_us).toFixed(1)}×) | ${fmtLat(x.p99_us)} (${latRatio(x.p99_us, ceiling.p99_us).toFixed(1)}×) | ${x.errors} | ${fmtCores(x.cores.server)} / ${fmtCores(x.cores.load)} / ${fmtCores(x.cores.other)} |`,
    );
  }
  lines.push("");
  lines.push(
    `Ceiling = the better of (a) and (a'): ${fmtInt(ceiling.rate)} req/s, p50 ${fmtLat(ceiling.p50_us)}, p99 ${fmtLat(ceiling.p99_us)}; the two differ by ${(drift * 100).toFixed(1)} %.`,
  );
  for (const t of targets) lines.push(`Target for (${t.id}): ${t.asked}; measured ${t.measured}: ${t.met ? "MET" : "NOT MET"}.`);
  if (booking) {
    const check = booking.check;
    const b = booking.measured;
    const solo = booking.solo;
    const split = (x: BookingResult) =>
      `search ${fmtLat(x.phases.search.p50_us)} / ${fmtLat(x.phases.search.p99_us)}, appointment types ${fmtLat(x.phases.types.p50_us)} / ${fmtLat(x.phases.types.p99_us)}, create ${fmtLat(x.phases.create.p50_us)} / ${fmtLat(x.phases.create.p99_us)}`;
    lines.push(
      `(d) one booking = 3 HTTP requests (${fmtInt((3 * b.bookings) / (b.duration_us / 1e6))} req/s at ${BOOKING_CONCURRENCY} loops); per call p50 / p99: ${split(b)}. From one loop (d1): ${split(solo)}.`,
    );
    lines.push(
      `No double booking: ${check.ok ? "VERIFIED" : "FAILED"}. ${fmtInt(check.in_database)} live appointments read back from the org database (${fmtInt(check.created)} created by the run), ${check.overlaps.length} overlapping pairs across ${check.providers_checked} providers and ${check.operatories_checked} operatories; ${b.conflicts + booking.solo.conflicts} unexpected 409s in the measured runs; race probe (${check.probe.requests} concurrent bookings of overlapping windows on one operatory): ${check.probe.created} created, ${check.probe.conflicts} × 409 booking_conflict${check.probe.other.length ? `, other answers: ${check.probe.other.join("; ")}` : ""}.`,
    );
    if (check.overlaps.length) lines.push(...check.overlaps.map((o) => `  - overlap: ${o}`));
  }
  const dr = r.drafts;
  const insuranceNotes = [
    rows.some((x) => x.id === "f1") ? "(f1) every measured POST finds the plan's 20 estimates fresh: nothing is rewritten but the run itself." : "",
    dr
      ? `(f2) ${fmtInt(dr.rows)} rows in ${dr.imports} imports (${(dr.import_ms / 1000).toFixed(2)} s to import), all past matching after ${(dr.total_ms / 1000).toFixed(2)} s: ${fmtInt(dr.matched)} matched, ${fmtInt(dr.pending)} pending, ${fmtInt(dr.error)} error (the end is seen by polling the totals, ${dr.polls} polls).`
      : "",
  ].filter(Boolean);
  if (insuranceNotes.length) lines.push(insuranceNotes.join(" "));
  const docs = r.docs;
  if (docs) {
    const seq = (["g1", "g2"] as const)
      .filter((id) => docs.sequential[id])
      .map((id) => {
        const sr = docs.sequential[id]!;
        return `(${id}) ${fmtInt(sr.file_bytes)} B file, ${sr.outcomes.length} uploads in ${fmtDur(sr.total_ms * 1000)}, each (s): ${sr.outcomes.map((o) => (o.ms / 1000).toFixed(2)).join(", ")}.`;
      });
    const burst = docs.burst
      ? `(g3) ${docs.burst.outcomes.length} uploads answered 201 after ${fmtDur(docs.burst.uploads_ms * 1000)}, all past processing after ${fmtDur(docs.burst.total_ms * 1000)} (wall time; the list polled every ${BURST_POLL_MS} ms, ${docs.burst.polls} polls).`
      : "";
    lines.push(
      [
        `Documents: latencies run from sending the upload to the first poll (every ${SEQUENTIAL_POLL_MS} ms for g1/g2) that sees the document active; p95 of 10 samples is their maximum. One upload of each file ran first, not counted (cold start: scanned PDF ${fmtDur((docs.warmup_ms.pdf ?? 0) * 1000)} ${docs.warmup_status.pdf}, card photo ${fmtDur((docs.warmup_ms.card ?? 0) * 1000)} ${docs.warmup_status.card}).`,
        ...seq,
        burst,
      ]
        .filter(Boolean)
        .join(" "),
    );
  }
  if (r.edge) {
    const e = r.edge;
    const pair = (p: string, q: string) => {
      const [a, b] = [rows.find((x) => x.id === p), rows.find((x) => x.id === q)];
      return a && b ? `${ratio(b).toFixed(3)} at the edge against ${ratio(a).toFixed(3)} at the primary (${(b.rate / a.rate).toFixed(2)}×)` : "n/a";
    };
    lines.push(
      `(r1)-(r3) a replicated (turso-sync) shard, ${fmtInt(e.patients)} patients created through the primary's API in ${(e.load_ms / 1000).toFixed(1)} s; every process on this machine (sync servers included), so the edge's gain from being near the client does not show: what shows is the cost of each path. Patient GET ${pair("r1p", "r1e")}; search ${pair("r2p", "r2e")}. (r3) a write at the primary visible at the edge (another client, polling every 2 ms, ${e.visibility.samples / 2} samples; ${e.notices ? "replication notices through Redis" : "no Redis: no replication notices"}) after p50 ${e.visibility.p50_ms.toFixed(1)} ms / p99 ${e.visibility.p99_ms.toFixed(1)} ms (max ${e.visibility.max_ms.toFixed(1)} ms) from the write's answer; read-your-writes at the edge with the write's position: p50 ${e.visibility.ryw_p50_ms.toFixed(1)} ms / p99 ${e.visibility.ryw_p99_ms.toFixed(1)} ms.`,
    );
  }
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
      only: ONLY.length ? ONLY : null,
    },
    ceiling: { rps: round(ceiling.rate, 0), p50_us: ceiling.p50_us, p99_us: ceiling.p99_us, from: ceiling.id, drift: round(drift) },
    rows: sorted.map((x) => ({
      id: x.id,
      scenario: x.scenario,
      unit: x.unit,
      rate: round(x.rate, x.unit === "docs/s" ? 3 : 1),
      ratio: x.hasRatio === false ? null : round(ratio(x)),
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
    // null: the row(s) did not run (BENCH_ONLY)
    booking: booking
      ? {
          requests_per_booking: 3,
          warmup_bookings: booking.warmup?.bookings ?? 0,
          measured_bookings: booking.measured.bookings,
          one_loop_bookings: booking.solo.bookings,
          unexpected_conflicts: booking.measured.conflicts + booking.solo.conflicts,
          no_double_booking: booking.check.ok,
          verification: booking.check,
        }
      : null,
    drafts: r.drafts ? { ...r.drafts, import_ms: Math.round(r.drafts.import_ms), total_ms: Math.round(r.drafts.total_ms), chunk: DRAFT_CHUNK } : null,
    documents: docs
      ? {
          poll_ms: { sequential: SEQUENTIAL_POLL_MS, burst: BURST_POLL_MS },
          ocr_workers: process.env.DOCUMENT_OCR_WORKERS ?? "default",
          warmup: { ms: docs.warmup_ms, status: docs.warmup_status },
          ...Object.fromEntries(
            Object.entries(docs.sequential).map(([id, sr]) => [
              id,
              {
                kind: sr.kind,
                file_bytes: sr.file_bytes,
                uploads: sr.outcomes.length,
                total_ms: Math.round(sr.total_ms),
                ...docSummary(sr.outcomes),
                samples_ms: sr.outcomes.map((o) => Math.round(o.ms)),
                upload_ms: sr.outcomes.map((o) => Math.round(o.upload_ms)),
                problems: sr.outcomes.filter((o) => o.status !== "active"),
              },
            ]),
          ),
          ...(docs.burst
            ? {
                g3: {
                  uploads: docs.burst.outcomes.length,
                  uploads_answered_ms: Math.round(docs.burst.uploads_ms),
                  wall_ms: Math.round(docs.burst.total_ms),
                  docs_per_s: round(docs.burst.outcomes.filter((o) => o.status === "active").length / (docs.burst.total_ms / 1000), 3),
                  polls: docs.burst.polls,
                  timed_out: docs.burst.timed_out,
                  ...docSummary(docs.burst.outcomes),
                  by_kind: Object.fromEntries((["pdf", "card"] as const).map((k) => [k, docSummary(docs.burst!.outcomes.filter((o) => o.kind === k))])),
                  // when each document was seen done, from the start of the burst, in order
                  done_ms: [...docs.burst.outcomes].sort((a, b) => a.ms - b.ms).map((o) => `${o.kind} ${Math.round(o.ms)}`),
                  problems: docs.burst.outcomes.filter((o) => o.status !== "active"),
                },
              }
            : {}),
        }
      : null,
    dataset: { patients: patientCount, load_ms: Math.round(r.fx?.loadMs ?? 0), chairs: r.fx?.chairs.length ?? 0, slot_minutes: SLOT_MINUTES },
    noise: noisy.map((x) => x.id),
    total_seconds: totalSeconds,
  };
  mkdirSync(join(BENCH, "results"), { recursive: true });
  writeFileSync(join(BENCH, "results", "latest.md"), md);
  writeFileSync(join(BENCH, "results", "latest.json"), JSON.stringify(json, null, 2) + "\n");
  console.log("\n" + md);
  console.log("written to bench/results/latest.json and bench/results/latest.md");
}

function gitRev(): string {
  const r = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT });
  const dirty = Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=no"], { cwd: ROOT }).stdout.toString().trim()
    ? " (with uncommitted changes)"
    : "";
  return r.exitCode === 0 ? r.stdout.toString().trim() + dirty : "unknown";
}

async function cleanup(keep = false) {
  for (const c of children) {
    try {
      c.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
  if (keep) console.error(`bench: scratch directory (server logs) kept at ${work}`);
  else rmSync(work, { recursive: true, force: true });
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
