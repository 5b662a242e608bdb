// Debian's Chromium for the browser tests (tests/platform/docs-browser.test.ts):
// installs Debian's `chromium` package with apt-get when no Chromium is on the
// machine, checks that it starts, and reports the binary. Idempotent and quick
// once installed: it finds /usr/bin/chromium and asks it for its version. When
// Chromium cannot be had it says why and exits 0, and the browser tests are
// reported as skipped.
//
//   bun run scripts/services/chromium.ts      prints CHROMIUM_PATH=/usr/bin/chromium
import { aptInstall, lastLines, run } from "./debian";

const INSTALL_TIMEOUT_MS = 15 * 60_000;
const VERSION_TIMEOUT_MS = 30_000;
/** Debian's package installs the wrapper as /usr/bin/chromium. */
const NAMES = ["chromium", "chromium-browser"];

export type ChromiumAvailability = { path: string } | { unavailable: string };

/** Makes sure a Chromium that starts is installed; says why not when it cannot. Never throws. */
export async function ensureChromium(options: { log?: (line: string) => void } = {}): Promise<ChromiumAvailability> {
  const log = options.log ?? ((line: string) => console.log(`[chromium] ${line}`));
  try {
    return await ensure(log);
  } catch (err) {
    return { unavailable: `setting up chromium failed: ${(err as Error).message}` };
  }
}

function find(): string | null {
  for (const name of NAMES) {
    const path = Bun.which(name, { PATH: `${process.env.PATH ?? ""}:/usr/bin:/usr/local/bin` });
    if (path) return path;
  }
  return null;
}

async function ensure(log: (line: string) => void): Promise<ChromiumAvailability> {
  const present = find();
  if (present) return checked(present);
  if (!Bun.which("apt-get")) return { unavailable: "chromium is not installed and there is no apt-get here to install it" };
  if (process.getuid?.() !== 0) return { unavailable: "chromium is not installed and installing Debian's chromium package needs root" };

  log("chromium is not installed: apt-get install chromium");
  const started = Date.now();
  const failed = await aptInstall("chromium", INSTALL_TIMEOUT_MS, log);
  if (failed) return { unavailable: failed };
  const installed = find();
  if (!installed) return { unavailable: "apt-get installed chromium but no chromium binary was found" };
  log(`installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return checked(installed);
}

/** The binary, once it has answered --version (a broken install, say missing libraries, is reported as such). */
async function checked(path: string): Promise<ChromiumAvailability> {
  const version = await run([path, "--version"], VERSION_TIMEOUT_MS);
  if (version.code !== 0) return { unavailable: `${path} --version failed (exit ${version.code}): ${lastLines(version.output)}` };
  return { path };
}

if (import.meta.main) {
  const outcome = await ensureChromium();
  if ("path" in outcome) console.log(`CHROMIUM_PATH=${outcome.path}`);
  else console.log(`chromium is unavailable, the browser tests will be skipped: ${outcome.unavailable}`);
}
