// Runs a load generator (wrk, the booking client) as its own process, to
// completion, and accounts the CPU of the server, of the generator and of
// everything else meanwhile.

import { type Cores, cpuWindow } from "./cpu";
import { children } from "./scratch";
import { ROOT } from "./settings";

export type LoadRun = { out: string; err: string; code: number; cores: Cores };

export async function runLoad(args: string[], serverPid: number | number[]): Promise<LoadRun> {
  const window = cpuWindow(serverPid);
  const t0 = performance.now();
  const proc = Bun.spawn(args, { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  children.add(proc);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  children.delete(proc);
  const wall = (performance.now() - t0) / 1000;
  const usage = proc.resourceUsage();
  const loadSec = usage ? Number(usage.cpuTime.total) / 1e6 : 0;
  return { out, err, code, cores: window.stop(wall, loadSec) };
}

/** The JSON a load generator printed on its line starting `tag` (wrk's report.lua, the clients). */
export function reportLine<T>(run: LoadRun, tag: string, what: string): T {
  const line = run.out.split("\n").find((l) => l.startsWith(`${tag} `));
  if (run.code !== 0 || !line) throw new Error(`${what} failed (exit ${run.code}):\n${run.out}\n${run.err}`);
  return JSON.parse(line.slice(tag.length + 1)) as T;
}
