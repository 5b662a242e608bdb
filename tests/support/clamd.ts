import { existsSync, readFileSync } from "node:fs";
import { CLAMD_URL_FILE } from "@scripts/services/clamd";
import { createClamdScanner } from "@/domains/documents/processing/scan/clamd";

// The real clamd the scanner tests run against: the one scripts/services/clamd.ts
// set up (npm test runs it first and passes CLAMD_TEST_URL), or the one it left
// running for a plain `bun test`. When none answers, a test file says why once
// and its clamd cases are reported as skipped, never passed.

export { CLAMD_TEST_MARKER, CLAMD_TEST_SIGNATURE } from "@scripts/services/clamd";

export const CLAMD_TEST_URL: string | undefined =
  process.env.CLAMD_TEST_URL || (existsSync(CLAMD_URL_FILE) ? readFileSync(CLAMD_URL_FILE, "utf8").trim() : undefined);

/** Null when clamd answers PING; otherwise why not. */
export async function probeClamd(url = CLAMD_TEST_URL): Promise<string | null> {
  // scripts/test.ts passes on why its setup failed
  if (process.env.CLAMD_TEST_UNAVAILABLE) return process.env.CLAMD_TEST_UNAVAILABLE;
  if (!url) return "no clamd was set up (run `bun run scripts/services/clamd.ts`, or `npm test` which runs it)";
  const scanner = createClamdScanner({ url, timeoutMs: 2_000 });
  try {
    await scanner.ping();
    return null;
  } catch (err) {
    return `${url} did not answer PING (${(err as Error).message})`;
  } finally {
    await scanner.close();
  }
}

let reason: Promise<string | null> | undefined;

/** Probes clamd once per file and, when it does not answer, prints which cases of `file` are skipped and why. */
export function clamdUnavailable(file: string, cases: string): Promise<string | null> {
  reason ??= probeClamd().then((down) => {
    if (down) console.log(`${file}: SKIPPED ${cases}: ${down}`);
    return down;
  });
  return reason;
}
