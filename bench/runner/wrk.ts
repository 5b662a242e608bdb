// wrk, the HTTP load generator of most rows: found (or installed with apt-get
// when the runner is root) and run with a Lua script from bench/wrk/ followed by
// report.lua, which prints the figures as one JSON line.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { reportLine, runLoad } from "./load";
import type { Latencies } from "./row";
import { scratchDir } from "./scratch";
import { BENCH, CONNECTIONS, THREADS } from "./settings";

export type WrkResult = Latencies & { requests: number; duration_us: number; bytes: number; status_errors: number; socket_errors: number; timeouts: number };

export type WrkOptions = {
  headers?: Record<string, string>;
  /** A script of bench/wrk/ (its name). */
  script?: string;
  scriptArgs?: string[];
  connections?: number;
};

/** The path of wrk; stops the run, saying how to install it, when it is missing and cannot be installed. */
export function ensureWrk(): string {
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

/** wrk's first line of `-v` (the report names it). */
export function wrkVersion(wrk: string): string {
  return (Bun.spawnSync([wrk, "-v"]).stdout.toString() || "").split("\n")[0]!.trim();
}

export async function runWrk(wrk: string, url: string, opts: WrkOptions & { seconds: number; serverPid: number }) {
  const lua = [opts.script ? readFileSync(join(BENCH, "wrk", opts.script), "utf8") : "", readFileSync(join(BENCH, "wrk", "report.lua"), "utf8")].join("\n");
  const scriptFile = join(scratchDir(), `wrk-${Date.now()}-${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(scriptFile, lua);
  const args = [wrk, `-t${THREADS}`, `-c${opts.connections ?? CONNECTIONS}`, `-d${opts.seconds}s`, "--timeout", "5s", "-s", scriptFile];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push("-H", `${k}: ${v}`);
  args.push(url);
  if (opts.scriptArgs?.length) args.push("--", ...opts.scriptArgs);
  const run = await runLoad(args, opts.serverPid);
  return { ...reportLine<WrkResult>(run, "BENCH_JSON", "wrk"), cores: run.cores };
}
