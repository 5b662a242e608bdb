// The run's scratch directory (wrk scripts, path lists, client configs, server
// logs) and the child processes to kill if the run stops half way.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";

let dir: string | undefined;

/** Made on first use, so that a run refused at start-up (BENCH_ONLY, wrk) leaves nothing behind. */
export function scratchDir(): string {
  dir ??= mkdtempSync(join(tmpdir(), "cusp-bench-"));
  return dir;
}

/** Every child process still running: servers, wrk, clients. */
export const children = new Set<Subprocess>();

/** Writes `lines` to a file of the scratch directory; answers its path (for wrk scripts and clients). */
export function writeLines(file: string, lines: string[]): string {
  const p = join(scratchDir(), file);
  writeFileSync(p, lines.join("\n") + "\n");
  return p;
}

/** Kills what is left and removes the scratch directory, or keeps it (the logs) after a failure. */
export async function cleanup(keep = false) {
  for (const c of children) {
    try {
      c.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
  if (!dir) return;
  if (keep) console.error(`bench: scratch directory (server logs) kept at ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
