// Runs the whole suite with bun test, echoes its output, and ends with the line
// CI reads: "N passed, M failed", preceded by "K skipped" when bun skipped any
// (say PostgreSQL or Redis did not answer). The exit code is bun test's.
// First it makes sure of the project's clamd and of Debian's Chromium, installing
// them with apt-get where missing (scripts/services/).
import { ensureChromium } from "./services/chromium";
import { ensureClamd } from "./services/clamd";

const args = process.argv.slice(2);
// A real clamd for the scanner tests (docs/documents/virus-scanning.md); without one they are skipped, saying why
const clamd = process.env.CLAMD_TEST_URL ? { url: process.env.CLAMD_TEST_URL } : await ensureClamd();
if ("url" in clamd) process.env.CLAMD_TEST_URL = clamd.url;
else {
  process.env.CLAMD_TEST_UNAVAILABLE = clamd.unavailable;
  console.log(`clamd is unavailable, its tests will be skipped: ${clamd.unavailable}`);
}
// Debian's Chromium for the browser test of /docs (docs/system/api-reference.md); without one it is skipped, saying why
const browser = process.env.CHROMIUM_PATH ? { path: process.env.CHROMIUM_PATH } : await ensureChromium();
if ("path" in browser) process.env.CHROMIUM_PATH = browser.path;
else {
  process.env.CHROMIUM_UNAVAILABLE = browser.unavailable;
  console.log(`chromium is unavailable, the browser test will be skipped: ${browser.unavailable}`);
}
const proc = Bun.spawn([process.execPath, "test", ...args], { stdout: "pipe", stderr: "pipe", env: process.env });
let passed = 0;
let failed = 0;
let skipped = 0;

async function pump(stream: ReadableStream<Uint8Array>, out: NodeJS.WriteStream) {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of stream) {
    const text = decoder.decode(chunk, { stream: true });
    out.write(text);
    buffer += text;
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const line of lines) {
      const p = line.match(/^\s*(\d+) pass$/);
      const f = line.match(/^\s*(\d+) fail$/);
      const s = line.match(/^\s*(\d+) skip$/);
      if (p) passed = Number(p[1]);
      if (f) failed = Number(f[1]);
      if (s) skipped = Number(s[1]);
    }
  }
}

await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)]);
const code = await proc.exited;
if (code !== 0 && failed === 0) failed = 1; // a crash before the summary still counts as a failure
if (skipped > 0) console.log(`${skipped} skipped`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(code);

export {};
