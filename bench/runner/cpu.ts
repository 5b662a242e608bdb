// CPU accounting from Linux /proc. The machine may be shared: every figure
// carries how many cores the server, the load generator and everything else
// used while it was measured, so a noisy figure shows itself.

import { readFileSync } from "node:fs";

/** Cores used while a row was measured; null where /proc could not be read. */
export type Cores = { server: number | null; load: number; other: number | null };

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

/**
 * Starts counting the CPU of the server, of the runner and of the whole
 * machine; `stop` turns the counts into cores over `wallSec`. The load
 * generator is a child process whose CPU seconds `stop` is given (wrk, the
 * booking client), or else the runner itself (the rows it drives: f2, g).
 */
export function cpuWindow(serverPids: number | number[]) {
  const busy0 = machineBusyTicks();
  const server0 = serverTicks(serverPids);
  const self0 = process.cpuUsage();
  return {
    stop(wallSec: number, childSec?: number): Cores {
      const busy1 = machineBusyTicks();
      const server1 = serverTicks(serverPids);
      const self = process.cpuUsage(self0);
      const selfSec = (self.user + self.system) / 1e6;
      const serverSec = server0 !== null && server1 !== null ? (server1 - server0) / CLK_TCK : null;
      const otherSec = busy0 !== null && busy1 !== null && serverSec !== null ? (busy1 - busy0) / CLK_TCK - serverSec - (childSec ?? 0) - selfSec : null;
      return {
        server: serverSec === null ? null : serverSec / wallSec,
        load: (childSec ?? selfSec) / wallSec,
        other: otherSec === null ? null : Math.max(0, otherSec / wallSec),
      };
    },
  };
}

/**
 * Server, runner and other CPU over `fn`, in cores, and its wall time (the
 * rows the runner drives itself). `wallOf` takes the wall time from `fn`'s
 * answer instead, in seconds, where that is the row's own measure (f2).
 */
export async function withCores<T>(
  serverPid: number,
  fn: () => Promise<T>,
  wallOf?: (value: T) => number,
): Promise<{ value: T; wallMs: number; cores: Cores }> {
  const window = cpuWindow(serverPid);
  const t0 = performance.now();
  const value = await fn();
  const wall = wallOf ? wallOf(value) : (performance.now() - t0) / 1000;
  return { value, wallMs: wall * 1000, cores: window.stop(wall) };
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
export async function waitForQuiet(pids: number[]): Promise<void> {
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
