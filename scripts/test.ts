// Runs the whole suite with bun test, echoes its output, and ends with the line
// CI reads: "N passed, M failed". The exit code is bun test's.
const args = process.argv.slice(2);
const proc = Bun.spawn([process.execPath, "test", ...args], { stdout: "pipe", stderr: "pipe", env: process.env });
let passed = 0;
let failed = 0;

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
      if (p) passed = Number(p[1]);
      if (f) failed = Number(f[1]);
    }
  }
}

await Promise.all([pump(proc.stdout, process.stdout), pump(proc.stderr, process.stderr)]);
const code = await proc.exited;
if (code !== 0 && failed === 0) failed = 1; // a crash before the summary still counts as a failure
console.log(`${passed} passed, ${failed} failed`);
process.exit(code);

export {};
