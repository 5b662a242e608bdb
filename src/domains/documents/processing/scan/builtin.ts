import { createHash } from "node:crypto";
import { chunksOf, ScanError, type Scanner, type ScanSource, type ScanVerdict } from "./types";

// The embedded default scanner: no daemon, no database download. It knows the
// EICAR test string (as the test file itself, and embedded anywhere in a file)
// and a list of SHA-256 hashes of whole files, which is enough to prove the
// pipeline end to end, from upload to quarantine, and to block known files;
// real detection needs clamd (CLAMD_URL, docs/documents/virus-scanning.md).

export const EICAR_SIGNATURE = "Eicar-Test-Signature";
/** The EICAR string found anywhere but as the test file itself (the name scripts/services/clamd.ts gives its .ndb rule). */
export const EICAR_EMBEDDED_SIGNATURE = "Eicar-Test-Signature.Embedded";
export const EICAR = new TextEncoder().encode("X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*");
/** eicar.org: the file may be padded with whitespace up to this many bytes in all. */
const EICAR_MAX_FILE_BYTES = 128;
/** The padding eicar.org allows: space, tab, LF, CR and Ctrl-Z. */
const EICAR_PADDING = new Set([0x20, 0x09, 0x0a, 0x0d, 0x1a]);

export type HashSignature = { name: string; sha256: string };

/**
 * The EICAR file rule, as eicar.org states it and AV vendors apply it: the file
 * starts with the 68-byte string and is followed only by space, tab, LF, CR or
 * Ctrl-Z, 128 bytes at most in all. The string anywhere else (in a PDF, after
 * %%EOF, in a text quoting it) is not the test file; `eicarFinder` flags it.
 */
export function isEicar(head: Uint8Array, totalBytes: number): boolean {
  if (totalBytes < EICAR.length || totalBytes > EICAR_MAX_FILE_BYTES) return false;
  for (let i = 0; i < EICAR.length; i++) if (head[i] !== EICAR[i]) return false;
  for (let i = EICAR.length; i < totalBytes; i++) if (!EICAR_PADDING.has(head[i])) return false;
  return true;
}

/**
 * Looks for the 68-byte EICAR string anywhere in a stream fed chunk by chunk,
 * without buffering it: each chunk is searched on its own, and the last 67
 * bytes of what came before are kept so that a string split across chunks (even
 * 1-byte ones) is found too. Uploads only accept PDF, images and DICOM, so the
 * bare test file never reaches the scan; this is what makes "an upload carrying
 * EICAR is quarantined" hold on a fresh install, as most AV products flag it.
 */
export function eicarFinder(): { push(chunk: Uint8Array): void; readonly found: boolean } {
  const keep = EICAR.length - 1;
  const needle = Buffer.from(EICAR);
  // The last `tailLength` bytes seen, at most 67, and room for 67 bytes of the next chunk after them
  const window = Buffer.alloc(keep * 2);
  let tailLength = 0;
  let found = false;
  return {
    get found() {
      return found;
    },
    push(chunk: Uint8Array) {
      if (found || chunk.length === 0) return;
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      // A match that starts in the kept tail ends within the chunk's first 67 bytes
      const head = Math.min(bytes.length, keep);
      window.set(bytes.subarray(0, head), tailLength);
      if (window.subarray(0, tailLength + head).indexOf(needle) >= 0 || bytes.indexOf(needle) >= 0) {
        found = true;
        return;
      }
      if (bytes.length >= keep) {
        window.set(bytes.subarray(bytes.length - keep));
        tailLength = keep;
      } else {
        const length = Math.min(tailLength + head, keep);
        window.copyWithin(0, tailLength + head - length, tailLength + head);
        tailLength = length;
      }
    },
  };
}

/**
 * Parses a signatures file: one `name:sha256hex` a line; blank lines and lines
 * starting with `#` are skipped. A malformed line or a hash listed twice is an
 * error naming `origin` and the line number, so a typo stops start-up instead
 * of silently disabling a signature.
 */
export function parseSignatures(text: string, origin = "signatures"): HashSignature[] {
  const seen = new Map<string, number>();
  const signatures: HashSignature[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const lineNo = index + 1;
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const m = /^([^\s:]+):([0-9a-fA-F]{64})$/.exec(line);
    if (!m) throw new Error(`${origin} line ${lineNo}: expected "name:sha256hex" (64 hex digits), got "${line.slice(0, 120)}"`);
    const sha256 = m[2].toLowerCase();
    const earlier = seen.get(sha256);
    if (earlier !== undefined) throw new Error(`${origin} line ${lineNo}: the hash of "${m[1]}" is already listed on line ${earlier}`);
    seen.set(sha256, lineNo);
    signatures.push({ name: m[1], sha256 });
  });
  return signatures;
}

export function createBuiltinScanner(options: { signatures?: HashSignature[] } = {}): Scanner {
  const byHash = new Map((options.signatures ?? []).map((s) => [s.sha256.toLowerCase(), s.name]));
  const engine = "builtin";
  return {
    kind: "builtin",
    async scan(source: ScanSource): Promise<ScanVerdict> {
      const hash = createHash("sha256");
      // Only the first 128 bytes are kept: all the EICAR file rule ever looks at.
      const head = new Uint8Array(EICAR_MAX_FILE_BYTES);
      const embedded = eicarFinder();
      let total = 0;
      try {
        for await (const chunk of chunksOf(source)) {
          if (total < head.length) head.set(chunk.subarray(0, head.length - total), total);
          total += chunk.length;
          hash.update(chunk);
          embedded.push(chunk);
        }
      } catch (err) {
        throw new ScanError("source", `Reading the document failed: ${(err as Error).message}`, { cause: err });
      }
      // The test file itself first (it contains the string too), then the string anywhere, then the hash list
      if (isEicar(head, total)) return { clean: false, signature: EICAR_SIGNATURE, engine };
      if (embedded.found) return { clean: false, signature: EICAR_EMBEDDED_SIGNATURE, engine };
      const listed = byHash.get(hash.digest("hex"));
      return listed ? { clean: false, signature: listed, engine } : { clean: true, engine };
    },
    async ping() {},
    async close() {},
  };
}
