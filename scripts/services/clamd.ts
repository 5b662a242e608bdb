// The project's own clamd for tests: installs Debian's clamav-daemon when
// clamd is missing, writes a local signature database (freshclam cannot
// download here), starts clamd on 127.0.0.1 and waits for PONG. Idempotent: a
// second run finds it up and returns at once. When clamd cannot be had it says
// why and exits 0, and the real-clamd tests are reported as skipped.
//
//   bun run scripts/services/clamd.ts      prints CLAMD_URL=tcp://127.0.0.1:<port>
import { aptInstall, lastLines, run } from "./debian";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { createClamdScanner } from "@/domains/documents/processing/scan/clamd";

const ROOT = resolve(import.meta.dir, "../..");
/** Everything clamd needs lives here, git-ignored, so nothing is written outside the work tree. */
export const CLAMD_DIR = join(ROOT, ".cache", "clamd");
const DB_DIR = join(CLAMD_DIR, "db");
const CONF_FILE = join(CLAMD_DIR, "clamd.conf");
const PID_FILE = join(CLAMD_DIR, "clamd.pid");
const LOG_FILE = join(CLAMD_DIR, "clamd.log");
/** The URL of the clamd this script started, for the next run and for tests/support/clamd.ts. */
export const CLAMD_URL_FILE = join(CLAMD_DIR, "url");
const PREFERRED_PORT = 3310;
const START_TIMEOUT_MS = 60_000;
const INSTALL_TIMEOUT_MS = 10 * 60_000;

const EICAR = "X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*";
/** A body signature of our own (.ndb, matched anywhere in a file), so tests prove clamd uses this database and not another. */
export const CLAMD_TEST_MARKER = "CUSP-CLAMD-TEST-MARKER-9c41e7";
export const CLAMD_TEST_SIGNATURE = "Cusp-Test-Marker";

/** What the body signature for EICAR embedded in a file is called (clamd reports it with ".UNOFFICIAL"); the builtin scanner uses the same name. */
export const CLAMD_EICAR_EMBEDDED_SIGNATURE = "Eicar-Test-Signature.Embedded";

/**
 * The local database: EICAR as an MD5 hash signature (hash:size:name, the same
 * name as ClamAV's own); the EICAR string as a body signature, so that an
 * upload carrying it inside an allowed file (a PDF stream, bytes after %%EOF)
 * is found: uploads only accept PDF, images and DICOM, so the bare test file
 * never reaches the scan; and our marker as a body signature. Body signatures
 * are .ndb lines name:target-type (0 = any file):offset (* = anywhere):hex.
 * clamd loads any non-empty set of .hdb/.ndb files as a complete database (an
 * .hdb alone too) and reports their names with ".UNOFFICIAL" appended, as it
 * does for any database not signed by ClamAV. The bare test file matches both
 * EICAR signatures; clamd stops at the body match before it compares the
 * whole-file hash, so it reports "Eicar-Test-Signature.Embedded.UNOFFICIAL".
 */
const DATABASE: Record<string, string> = {
  "eicar.hdb": `${createHash("md5").update(EICAR).digest("hex")}:${EICAR.length}:Eicar-Test-Signature\n`,
  "eicar-embedded.ndb": `${CLAMD_EICAR_EMBEDDED_SIGNATURE}:0:*:${Buffer.from(EICAR).toString("hex")}\n`,
  "cusp-test.ndb": `${CLAMD_TEST_SIGNATURE}:0:*:${Buffer.from(CLAMD_TEST_MARKER).toString("hex")}\n`,
};

function clamdConf(port: number): string {
  return [
    "# Written by scripts/services/clamd.ts; rewritten on each start.",
    "Foreground no",
    `DatabaseDirectory ${DB_DIR}`,
    `PidFile ${PID_FILE}`,
    `LogFile ${LOG_FILE}`,
    "LogTime yes",
    `TemporaryDirectory ${join(CLAMD_DIR, "tmp")}`,
    "TCPAddr 127.0.0.1",
    `TCPSocket ${port}`,
    "StreamMaxLength 60M",
    // A database this small reloads in milliseconds: no second copy in memory while it does
    "ConcurrentDatabaseReload no",
    "",
  ].join("\n");
}

export type ClamdAvailability = { url: string } | { unavailable: string };

/** Makes sure the project's clamd answers and knows our signatures; says why not when it cannot. Never throws. */
export async function ensureClamd(options: { log?: (line: string) => void } = {}): Promise<ClamdAvailability> {
  const log = options.log ?? ((line: string) => console.log(`[clamd] ${line}`));
  try {
    return await ensure(log);
  } catch (err) {
    return { unavailable: `setting up clamd failed: ${(err as Error).message}` };
  }
}

async function ensure(log: (line: string) => void): Promise<ClamdAvailability> {
  mkdirSync(DB_DIR, { recursive: true });
  mkdirSync(join(CLAMD_DIR, "tmp"), { recursive: true });
  const databaseChanged = writeDatabase();

  const previousUrl = existsSync(CLAMD_URL_FILE) ? readFileSync(CLAMD_URL_FILE, "utf8").trim() : "";
  // A changed database means a restart: a start takes milliseconds, while RELOAD waits for idle connections to time out
  if (previousUrl && !databaseChanged && (await answers(previousUrl))) {
    const check = await selfCheck(previousUrl);
    if (!check) {
      log(`already up at ${previousUrl}`);
      return { url: previousUrl };
    }
    log(`the clamd at ${previousUrl} does not use this database (${check}); restarting it`);
  }

  const binary = await findOrInstallClamd(log);
  if ("unavailable" in binary) return binary;

  await stopOurOwnClamd();
  const port = (await portIsFree(PREFERRED_PORT)) ? PREFERRED_PORT : await anyFreePort();
  const url = `tcp://127.0.0.1:${port}`;
  writeFileSync(CONF_FILE, clamdConf(port));
  const started = Date.now();
  const launch = await run([binary.path, "--config-file", CONF_FILE], 30_000);
  if (launch.code !== 0) return { unavailable: `clamd did not start (exit ${launch.code}): ${lastLines(launch.output + readLog())}` };
  while (!(await answers(url))) {
    if (Date.now() - started > START_TIMEOUT_MS) return { unavailable: `clamd gave no PONG within ${START_TIMEOUT_MS / 1000} s: ${lastLines(readLog())}` };
    await Bun.sleep(100);
  }
  const check = await selfCheck(url);
  if (check) return { unavailable: `clamd answers at ${url} but ${check}` };
  writeFileSync(CLAMD_URL_FILE, `${url}\n`);
  log(`started at ${url}, answering PING ${Date.now() - started} ms after launch`);
  return { url };
}

/** Writes the database files that differ; true when any did (a running clamd must reload). */
function writeDatabase(): boolean {
  let changed = false;
  for (const [name, text] of Object.entries(DATABASE)) {
    const file = join(DB_DIR, name);
    if (existsSync(file) && readFileSync(file, "utf8") === text) continue;
    writeFileSync(file, text);
    changed = true;
  }
  return changed;
}

async function findOrInstallClamd(log: (line: string) => void): Promise<{ path: string } | { unavailable: string }> {
  const find = () => Bun.which("clamd", { PATH: `${process.env.PATH ?? ""}:/usr/sbin:/sbin` });
  const present = find();
  if (present) return { path: present };
  if (!Bun.which("apt-get")) return { unavailable: "clamd is not installed and there is no apt-get here to install clamav-daemon" };
  if (process.getuid?.() !== 0) return { unavailable: "clamd is not installed and installing clamav-daemon needs root" };

  log("clamd is not installed: apt-get install clamav-daemon");
  const started = Date.now();
  const failed = await aptInstall("clamav-daemon", INSTALL_TIMEOUT_MS, log);
  if (failed) return { unavailable: failed };
  const installed = find();
  if (!installed) return { unavailable: "apt-get installed clamav-daemon but no clamd binary was found" };
  log(`installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { path: installed };
}

/** Ends a clamd this script started earlier (found by its pid file, checked by its command line) and waits until it is gone. */
async function stopOurOwnClamd() {
  if (!existsSync(PID_FILE)) return;
  const pid = Number(readFileSync(PID_FILE, "utf8").trim());
  const ours = () => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(CONF_FILE);
    } catch {
      return false; // gone already
    }
  };
  if (!Number.isInteger(pid) || pid <= 1 || !ours()) return;
  process.kill(pid, "SIGTERM");
  const until = Date.now() + 10_000;
  while (ours() && Date.now() < until) await Bun.sleep(50);
}

async function answers(url: string): Promise<boolean> {
  const scanner = createClamdScanner({ url, timeoutMs: 2_000 });
  try {
    await scanner.ping();
    return true;
  } catch {
    return false;
  } finally {
    await scanner.close();
  }
}

/**
 * Null when clamd finds our signatures: the marker, the bare EICAR file, and
 * EICAR inside a PDF under the embedded name. The last also catches a clamd
 * still running an older database (one written by a run that did not get to
 * restart it), which is then restarted.
 */
async function selfCheck(url: string): Promise<string | null> {
  const scanner = createClamdScanner({ url, timeoutMs: 10_000 });
  try {
    const marker = await scanner.scan(new TextEncoder().encode(`some bytes, then ${CLAMD_TEST_MARKER}, then more`));
    if (marker.clean || !marker.signature.startsWith(CLAMD_TEST_SIGNATURE)) return `our test marker scanned as ${JSON.stringify(marker)}`;
    const eicar = await scanner.scan(new TextEncoder().encode(EICAR));
    if (eicar.clean) return "EICAR scanned clean";
    const pdf = await scanner.scan(new TextEncoder().encode(`%PDF-1.4\n1 0 obj\n<< /Length ${EICAR.length} >>\nstream\n${EICAR}\nendstream\nendobj\n%%EOF\n`));
    if (pdf.clean || !pdf.signature.startsWith(CLAMD_EICAR_EMBEDDED_SIGNATURE)) return `a PDF carrying EICAR scanned as ${JSON.stringify(pdf)}`;
    return null;
  } catch (err) {
    return `the self-check scan failed: ${(err as Error).message}`;
  } finally {
    await scanner.close();
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once("error", () => done(false));
    server.listen(port, "127.0.0.1", () => server.close(() => done(true)));
  });
}

function anyFreePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once("error", fail);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? done(address.port) : fail(new Error("no free port"))));
    });
  });
}

function readLog(): string {
  return existsSync(LOG_FILE) ? readFileSync(LOG_FILE, "utf8") : "";
}

if (import.meta.main) {
  const outcome = await ensureClamd();
  if ("url" in outcome) console.log(`CLAMD_URL=${outcome.url}`);
  else console.log(`clamd is unavailable, the real-clamd tests will be skipped: ${outcome.unavailable}`);
}
