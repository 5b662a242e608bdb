// `bun run bench`: HTTP throughput on loopback, in one run, against a ceiling
// measured in that same run. See bench/README.md for how to read the numbers.
//
//   (a) ceiling  raw Bun.serve hello-world              bench/servers/raw.ts
//   (b) elysia   Elysia hello-world                     bench/servers/elysia.ts
//   (c) GET      GET /api/v1/{org}/locations/{id}       src/server.ts, whole stack
//   (d) POST     POST /api/v1/{org}/locations (JSON)    src/server.ts, whole stack, writes
//
// Every server is its own child process; the load comes from wrk, a third process.
// Settings (environment): BENCH_DURATION (seconds, default 10), BENCH_WARMUP
// (seconds, default 2), BENCH_CONNECTIONS (50), BENCH_THREADS (1).

import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";

const ROOT = resolve(import.meta.dir, "..");
const BENCH = import.meta.dir;
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const THREADS = Number(process.env.BENCH_THREADS ?? 1);
const TARGET_RATIO = 0.3;
const ADMIN = { email: "admin@example.com", password: "admin-password" };

type WrkResult = {
  requests: number; duration_us: number; bytes: number; status_errors: number; socket_errors: number; timeouts: number;
  p50_us: number; p90_us: number; p99_us: number; max_us: number; mean_us: number;
};
type Row = {
  id: string; scenario: string; rps: number; p50_us: number; p99_us: number; errors: number; errorDetail: string; requests: number;
  serverCores: number | null; wrkCores: number; otherCores: number | null;
};

const work = mkdtempSync(join(tmpdir(), "cusp-bench-"));
const children = new Set<Subprocess>();

// ---------------------------------------------------------------- wrk itself

function ensureWrk(): string {
  let wrk = Bun.which("wrk");
  if (wrk) return wrk;
  if (process.getuid?.() !== 0) {
    console.error("bench: wrk is not installed. Install it (Debian/Ubuntu: `sudo apt-get install -y wrk`; macOS: `brew install wrk`) and run `bun run bench` again.");
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

type WrkRun = WrkResult & { wrkCores: number; serverCores: number | null; otherCores: number | null };

async function runWrk(wrk: string, url: string, opts: { seconds: number; serverPid: number; headers?: Record<string, string>; script?: string }): Promise<WrkRun> {
  const lua = [opts.script ? readFileSync(join(BENCH, "wrk", opts.script), "utf8") : "", readFileSync(join(BENCH, "wrk", "report.lua"), "utf8")].join("\n");
  const scriptFile = join(work, `wrk-${Date.now()}-${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(scriptFile, lua);
  const args = [wrk, `-t${THREADS}`, `-c${CONNECTIONS}`, `-d${opts.seconds}s`, "--timeout", "5s", "-s", scriptFile];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push("-H", `${k}: ${v}`);
  args.push(url);
  const busy0 = machineBusyTicks();
  const server0 = processTicks(opts.serverPid);
  const self0 = process.cpuUsage();
  const t0 = performance.now();
  const proc = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const wall = (performance.now() - t0) / 1000;
  const busy1 = machineBusyTicks();
  const server1 = processTicks(opts.serverPid);
  const self = process.cpuUsage(self0);
  const line = out.split("\n").find((l) => l.startsWith("BENCH_JSON "));
  if (code !== 0 || !line) throw new Error(`wrk failed (exit ${code}):\n${out}\n${err}`);
  const usage = proc.resourceUsage();
  const wrkSec = usage ? Number(usage.cpuTime.total) / 1e6 : 0;
  const serverSec = server0 !== null && server1 !== null ? (server1 - server0) / CLK_TCK : null;
  const otherSec = busy0 !== null && busy1 !== null && serverSec !== null ? (busy1 - busy0) / CLK_TCK - serverSec - wrkSec - (self.user + self.system) / 1e6 : null;
  return {
    ...(JSON.parse(line.slice("BENCH_JSON ".length)) as WrkResult),
    wrkCores: wrkSec / wall,
    serverCores: serverSec === null ? null : serverSec / wall,
    otherCores: otherSec === null ? null : Math.max(0, otherSec / wall),
  };
}

// ---------------------------------------------------------------- CPU accounting (Linux /proc)
// The machine may be shared: every figure carries how many cores the server, wrk
// and everything else used while it was measured, so a noisy figure shows itself.

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

type Server = { name: string; port: number; base: string; proc: Subprocess; log: string; stop(): Promise<void> };

async function startServer(name: string, entry: string, env: Record<string, string>, readyPath: string): Promise<Server> {
  const port = await freePort();
  const log = join(work, `${name}.log`);
  const proc = Bun.spawn([process.execPath, "run", entry], {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port) },
    stdout: Bun.file(log),
    stderr: "inherit",
  });
  children.add(proc);
  const base = `http://127.0.0.1:${port}`;
  const server: Server = {
    name, port, base, proc, log,
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

// ---------------------------------------------------------------- the API set-up

async function api(base: string, method: string, path: string, body?: unknown, token?: string): Promise<any> {
  const headers: Record<string, string> = {};
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

// ---------------------------------------------------------------- scenarios

const rows: Row[] = [];

async function measure(wrk: string, server: Server, id: string, scenario: string, url: string, opts: { headers?: Record<string, string>; script?: string; warmup?: boolean } = {}) {
  const serverPid = server.proc.pid;
  if (opts.warmup !== false && WARMUP > 0) await runWrk(wrk, url, { ...opts, serverPid, seconds: WARMUP });
  await waitForQuiet([serverPid]);
  const r = await runWrk(wrk, url, { ...opts, serverPid, seconds: DURATION });
  if (server.proc.exitCode !== null || server.proc.signalCode !== null) {
    throw new Error(`${server.name} server died during ${id} (exit code ${server.proc.exitCode}, signal ${server.proc.signalCode}); log: ${server.log}\n${safeRead(server.log)}`);
  }
  const row: Row = {
    id, scenario,
    rps: r.requests / (r.duration_us / 1e6),
    p50_us: r.p50_us, p99_us: r.p99_us,
    errors: r.status_errors + r.socket_errors + r.timeouts,
    errorDetail: `${r.status_errors} non-2xx, ${r.socket_errors} socket errors, ${r.timeouts} timeouts`,
    requests: r.requests,
    serverCores: r.serverCores, wrkCores: r.wrkCores, otherCores: r.otherCores,
  };
  rows.push(row);
  console.log(`  ${scenario}: ${fmtInt(row.rps)} req/s, p50 ${fmtLat(row.p50_us)}, p99 ${fmtLat(row.p99_us)}; cores: server ${fmtCores(row.serverCores)}, wrk ${fmtCores(row.wrkCores)}, other ${fmtCores(row.otherCores)}${row.errors ? `, ERRORS: ${row.errorDetail}` : ""}`);
  return row;
}

const fmtCores = (c: number | null) => (c === null ? "n/a" : c.toFixed(2));
const fmtInt = (n: number) => Math.round(n).toLocaleString("en-US");
const fmtLat = (us: number) => (us >= 1000 ? `${(us / 1000).toFixed(2)} ms` : `${us} µs`);

async function main() {
  const wrk = ensureWrk();
  const wrkVersion = (Bun.spawnSync([wrk, "-v"]).stdout.toString() || "").split("\n")[0]!.trim();
  const started = Date.now();
  console.log(`bench: wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION}s (warm-up ${WARMUP}s) on loopback; scratch ${work}`);

  // (a) ceiling
  console.log("(a) raw Bun.serve");
  let srv = await startServer("raw", join(BENCH, "servers", "raw.ts"), {}, "/");
  const first = await measure(wrk, srv, "a", "(a) raw `Bun.serve` hello-world (ceiling)", `${srv.base}/`);
  await srv.stop();

  // (b) Elysia hello-world
  console.log("(b) Elysia hello-world");
  srv = await startServer("elysia", join(BENCH, "servers", "elysia.ts"), {}, "/");
  await measure(wrk, srv, "b", "(b) Elysia hello-world", `${srv.base}/`);
  await srv.stop();

  // (c) and (d): the real service, embedded defaults, fresh data directory
  console.log("(c)/(d) Cusp: starting src/server.ts");
  const dataDir = join(work, "data");
  mkdirSync(dataDir, { recursive: true });
  srv = await startServer("cusp", join(ROOT, "src", "server.ts"), { DATA_DIR: dataDir, LOG_LEVEL: "warn", NODE_ENV: "development" }, "/api/ping");
  try {
    const { access_token: token } = await api(srv.base, "POST", "/api/v1/auth/login", ADMIN);
    const auth = { Authorization: `Bearer ${token}` };

    const readOrg = await createOrg(srv.base, token, "read");
    const loc = await api(srv.base, "POST", `/api/v1/${readOrg}/locations`, { name: "Downtown Dental", timezone: "America/Chicago", city: "Chicago", country: "US" }, token);
    const getPath = `/api/v1/${readOrg}/locations/${loc.id}`;
    const check = await api(srv.base, "GET", getPath, undefined, token);
    if (check.id !== loc.id) throw new Error(`GET ${getPath} answered another record`);
    console.log("(c) GET tenant point read");
    await measure(wrk, srv, "c", "(c) `GET /api/v1/{org}/locations/{id}` (whole stack)", srv.base + getPath, { headers: auth });

    // (d) writes: its own fresh org, so the read org stays a one-row table.
    const writeOrg = await createOrg(srv.base, token, "write");
    await api(srv.base, "POST", `/api/v1/${writeOrg}/locations`, { name: "Probe", timezone: "America/Chicago" }, token);
    console.log("(d) POST create location (JSON, writes)");
    await measure(wrk, srv, "d", "(d) `POST /api/v1/{org}/locations` JSON create (whole stack, writes)", `${srv.base}/api/v1/${writeOrg}/locations`, { headers: auth, script: "post-location.lua" });
  } finally {
    await srv.stop();
  }

  // The ceiling again: how much the machine drifted during the run.
  console.log("(a') raw Bun.serve again (drift check)");
  srv = await startServer("raw2", join(BENCH, "servers", "raw.ts"), {}, "/");
  const again = await measure(wrk, srv, "a2", "(a') ceiling again, end of run (drift check)", `${srv.base}/`);
  await srv.stop();

  // ------------------------------------------------------------ report
  // Noise from other processes only ever lowers a figure: the better of the two
  // ceiling measurements is the estimate of the ceiling.
  const ceiling = again.rps > first.rps ? again : first;
  const drift = (again.rps - first.rps) / first.rps;
  const stack = rows.find((r) => r.id === "c")!;
  const stackRatio = stack.rps / ceiling.rps;
  const lines: string[] = [];
  lines.push("# Cusp HTTP benchmark: latest run", "");
  lines.push(`- Date: ${new Date().toISOString()}`);
  lines.push(`- Commit: ${gitRev()}`);
  lines.push(`- Bun ${Bun.version}; ${wrkVersion}`);
  lines.push(`- Machine: ${cpus().length} × ${cpus()[0]?.model?.trim() ?? "unknown CPU"}; ${process.platform}/${process.arch}`);
  lines.push(`- Load: \`wrk -t${THREADS} -c${CONNECTIONS} -d${DURATION}s\` after a ${WARMUP}s warm-up, on 127.0.0.1; every server in its own process`);
  lines.push(`- Cusp: \`src/server.ts\` on embedded defaults (libSQL files in a temp DATA_DIR, in-process cache and PGlite queue), LOG_LEVEL=warn`, "");
  lines.push("| scenario | req/s | ratio to ceiling | p50 latency | p99 latency | non-2xx / errors | cores: server / wrk / other |");
  lines.push("|---|---:|---:|---:|---:|---:|---:|");
  for (const r of rows) {
    lines.push(`| ${r.scenario} | ${fmtInt(r.rps)} | ${(r.rps / ceiling.rps).toFixed(3)} | ${fmtLat(r.p50_us)} | ${fmtLat(r.p99_us)} | ${r.errors} | ${fmtCores(r.serverCores)} / ${fmtCores(r.wrkCores)} / ${fmtCores(r.otherCores)} |`);
  }
  lines.push("");
  lines.push(`Ceiling = the better of (a) and (a'): ${fmtInt(ceiling.rps)} req/s; the two differ by ${(drift * 100).toFixed(1)} %.`);
  const noisy = rows.filter((r) => (r.otherCores ?? 0) > 0.25);
  if (noisy.length) lines.push(`NOISE: other processes used more than 0.25 core during ${noisy.map((r) => r.id).join(", ")}; those figures are low by an unknown amount. Re-run on a quiet machine.`);
  lines.push(`Target for (c): ratio >= ${TARGET_RATIO.toFixed(2)}; measured ${stackRatio.toFixed(3)}: ${stackRatio >= TARGET_RATIO ? "MET" : "NOT MET"}.`);
  const bad = rows.filter((r) => r.errors > 0);
  if (bad.length) lines.push(`WARNING: ${bad.map((r) => r.id).join(", ")} had non-2xx answers or socket errors; those figures do not measure the intended path.`);
  lines.push("", `Total bench time: ${Math.round((Date.now() - started) / 1000)} s.`, "");
  const md = lines.join("\n");
  mkdirSync(join(BENCH, "results"), { recursive: true });
  writeFileSync(join(BENCH, "results", "latest.md"), md);
  console.log("\n" + md);
  console.log(`written to bench/results/latest.md`);
}

function gitRev(): string {
  const r = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: ROOT });
  const dirty = Bun.spawnSync(["git", "status", "--porcelain", "--untracked-files=no"], { cwd: ROOT }).stdout.toString().trim() ? " (with uncommitted changes)" : "";
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
