import { readFileSync } from "node:fs";
import { createBuiltinScanner, parseSignatures } from "./builtin";
import { createClamdScanner } from "./clamd";
import type { Scanner } from "./types";

export type ScannerConfig = { clamdUrl?: string; signaturesFile?: string; timeoutMs?: number };

/**
 * clamd when CLAMD_URL is set, else the embedded scanner with the signatures
 * of SCAN_SIGNATURES_FILE. Called at start-up: a bad URL, an unreadable file or
 * a malformed signature line throws here, naming what is wrong.
 */
export function createScanner(config: ScannerConfig): Scanner {
  if (config.clamdUrl) {
    // Silently ignoring the file would leave someone believing their hashes are checked
    if (config.signaturesFile) {
      throw new Error("SCAN_SIGNATURES_FILE is for the builtin scanner; with CLAMD_URL set, add the hashes to clamd's database (a .hsb file) instead");
    }
    return createClamdScanner({ url: config.clamdUrl, timeoutMs: config.timeoutMs });
  }
  if (!config.signaturesFile) return createBuiltinScanner();
  let text: string;
  try {
    text = readFileSync(config.signaturesFile, "utf8");
  } catch (err) {
    throw new Error(`SCAN_SIGNATURES_FILE ${config.signaturesFile} cannot be read: ${(err as Error).message}`);
  }
  return createBuiltinScanner({ signatures: parseSignatures(text, config.signaturesFile) });
}
