// The real service as a child process (`bun run src/server.ts`), for tests that
// need what app.handle cannot give: a port, signals, a process that dies.
import type { Subprocess } from "bun";
import { join } from "node:path";
import { waitFor } from "@tests/support/wait";

const root = join(import.meta.dir, "../..");

/** A port nothing listens on at the moment (the OS picks it). */
export async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, fetch: () => new Response("") });
  const port = s.port!;
  s.stop(true);
  return port;
}

export type ServerProcess = {
  proc: Subprocess<"ignore", "pipe", "pipe">;
  port: number;
  /** http://127.0.0.1:<port> */
  base: string;
  dataDir: string;
  /** What the process wrote to stdout and stderr so far (the last 64 KB). */
  output(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number>;
  /** Sends the signal (SIGKILL unless told) and waits for the process to end. */
  kill(signal?: NodeJS.Signals | number): Promise<number>;
};

const OUTPUT_LIMIT = 64 * 1024;

/** Keeps reading a pipe (so the child never blocks on a full one) into a bounded tail. */
function drain(stream: ReadableStream<Uint8Array>, sink: { text: string }): Promise<void> {
  const decoder = new TextDecoder();
  return (async () => {
    try {
      for await (const chunk of stream) {
        sink.text += decoder.decode(chunk, { stream: true });
        if (sink.text.length > OUTPUT_LIMIT) sink.text = sink.text.slice(-OUTPUT_LIMIT);
      }
    } catch {
      // the process died: what was read is kept
    }
  })();
}

/**
 * Starts `bun run src/server.ts` on a free port with DATA_DIR=`dataDir`,
 * LOG_LEVEL=silent and RATE_LIMITS=off (plus `env`), and waits until
 * GET /api/ping answers. Throws with the process output when it exits first
 * or does not come up in time (the process is then killed).
 */
export async function startServer(dataDir: string, opts: { env?: Record<string, string>; timeoutMs?: number; port?: number } = {}): Promise<ServerProcess> {
  const port = opts.port ?? (await freePort());
  const proc = Bun.spawn([process.execPath, "run", "src/server.ts"], {
    cwd: root,
    env: { PATH: process.env.PATH!, DATA_DIR: dataDir, LOG_LEVEL: "silent", RATE_LIMITS: "off", PORT: String(port), ...opts.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const sink = { text: "" };
  void drain(proc.stdout, sink);
  void drain(proc.stderr, sink);
  let done = false;
  const exited = proc.exited.then((code) => {
    done = true;
    return code;
  });
  const base = `http://127.0.0.1:${port}`;
  const server: ServerProcess = {
    proc,
    port,
    base,
    dataDir,
    output: () => sink.text,
    exited,
    async kill(signal = "SIGKILL") {
      if (!done) proc.kill(signal);
      return exited;
    },
  };
  try {
    await waitFor(
      async () => {
        if (done) throw new Error(`the server exited with ${proc.exitCode} before answering:\n${sink.text}`);
        return fetch(`${base}/api/ping`).then(
          (r) => r.ok,
          () => false,
        );
      },
      { timeoutMs: opts.timeoutMs ?? 60_000, intervalMs: 50, what: () => `${base}/api/ping to answer; output so far:\n${sink.text}` },
    );
  } catch (err) {
    await server.kill("SIGKILL");
    throw err;
  }
  return server;
}
