// What the project's service scripts (clamd.ts, chromium.ts) share: running a
// command to its end, and installing a Debian package with apt-get.
import { spawn } from "node:child_process";

/** Runs a command to its end, output collected, killed after `timeoutMs`. */
export function run(argv: string[], timeoutMs: number): Promise<{ code: number; output: string }> {
  return new Promise((done) => {
    const child = spawn(argv[0]!, argv.slice(1), { env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n(killed after ${timeoutMs / 1000} s)`;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      done({ code: -1, output: err.message });
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code: code ?? -1, output });
    });
  });
}

/** The last lines of a command's output, on one line: what an "unavailable" reason quotes. */
export function lastLines(text: string, count = 5): string {
  return text.trim().split("\n").slice(-count).join(" | ");
}

/**
 * `apt-get install` one package (no recommends; waits up to 2 minutes for the
 * dpkg lock). An image shipped without package lists, or with stale ones,
 * knows no such package or 404s on it: then the lists are updated once and
 * the install tried again. Resolves to null when installed, else why not.
 */
export async function aptInstall(pkg: string, timeoutMs: number, log: (line: string) => void): Promise<string | null> {
  const install = ["apt-get", "install", "-y", "--no-install-recommends", "-o", "DPkg::Lock::Timeout=120", pkg];
  let result = await run(install, timeoutMs);
  if (result.code !== 0 && /Unable to locate package|has no installation candidate|Failed to fetch|404\s+Not Found/i.test(result.output)) {
    log("the package lists are missing or stale: apt-get update");
    await run(["apt-get", "update"], timeoutMs);
    result = await run(install, timeoutMs);
  }
  return result.code === 0 ? null : `apt-get install ${pkg} failed (exit ${result.code}): ${lastLines(result.output)}`;
}
