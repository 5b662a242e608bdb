// The servers under test: each its own child process on a free port of
// 127.0.0.1, started and waited for, then stopped (SIGTERM, SIGKILL after 10 s).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { children, scratchDir } from "./scratch";
import { ROOT } from "./settings";

/** A server under test; `pids`, when set, are all its processes (a cluster), else `proc` alone. */
export type Server = { name: string; port: number; base: string; proc: Subprocess; log: string; pids?: number[]; stop(): Promise<void> };

export async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  await s.stop(true);
  return port;
}

/** Starts `entry` (relative to the repository) with `env` and waits until `readyPath` answers 2xx (60 s at most). */
export async function startServer(name: string, entry: string, env: Record<string, string>, readyPath: string): Promise<Server> {
  const port = await freePort();
  const log = join(scratchDir(), `${name}.log`);
  // BENCH_CPU_PROF=<dir>: the Cusp and floor servers write a CPU profile there when they stop (bench/README.md)
  const profile =
    process.env.BENCH_CPU_PROF && (name.startsWith("cusp") || name.startsWith("floor")) ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
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

/** Throws, with the end of its log, when the server died while `during` ran. */
export function assertAlive(server: Server, during: string) {
  if (server.proc.exitCode !== null || server.proc.signalCode !== null) {
    throw new Error(
      `${server.name} server died during ${during} (exit code ${server.proc.exitCode}, signal ${server.proc.signalCode}); log: ${server.log}\n${safeRead(server.log)}`,
    );
  }
}
