import { connect, type Socket } from "node:net";
import { chunksOf, ScanError, type Scanner, type ScanSource, type ScanVerdict } from "./types";

// A client for clamd's INSTREAM command (clamd(8), "COMMANDS"), written here
// because the protocol is a dozen lines and the npm clients are poorly kept.
// One connection per command; the document is streamed, never held whole.
//
//   "zINSTREAM\0", then frames of <4-byte big-endian length><bytes>, then a
//   zero-length frame; clamd answers one \0-terminated line and closes:
//   "stream: OK", "stream: <Signature> FOUND" or "<message> ERROR".

export type ClamdTarget = { host: string; port: number } | { path: string };

export type ClamdOptions = {
  /** `tcp://host:port` or `unix:///path/to/clamd.sock`. */
  url: string;
  /** The whole command, connecting included, from first byte to reply. */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  /** Largest frame sent; clamd's default StreamMaxLength (25 MiB) bounds the whole stream, not a frame. */
  chunkBytes?: number;
};

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
export const DEFAULT_CHUNK_BYTES = 64 * 1024;
/** How long a scan whose write failed (clamd closed) waits for the reply clamd sent before closing. */
const REPLY_GRACE_MS = 250;

export function parseClamdUrl(url: string): ClamdTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`CLAMD_URL must be tcp://host:port or unix:///path, got "${url}"`);
  }
  if (parsed.protocol === "unix:") {
    if (!parsed.pathname || parsed.pathname === "/") throw new Error(`CLAMD_URL "${url}" names no socket path`);
    return { path: decodeURIComponent(parsed.pathname) };
  }
  if (parsed.protocol === "tcp:") {
    const port = Number(parsed.port || 3310);
    if (!parsed.hostname) throw new Error(`CLAMD_URL "${url}" names no host`);
    // URL keeps IPv6 hosts in brackets; node:net wants them bare
    return { host: parsed.hostname.replace(/^\[(.*)\]$/, "$1"), port };
  }
  throw new Error(`CLAMD_URL must be tcp://host:port or unix:///path, got "${url}"`);
}

/** The 4-byte big-endian length that precedes each INSTREAM frame. */
export function frameHeader(length: number): Uint8Array {
  const header = new Uint8Array(4);
  new DataView(header.buffer).setUint32(0, length, false);
  return header;
}

/** Turns clamd's answer to INSTREAM into a verdict, or the ScanError it stands for. */
export function parseScanReply(reply: string): ScanVerdict {
  const line = reply.replace(/[\0\r\n]+$/, "");
  if (line === "stream: OK") return { clean: true, engine: "clamd" };
  const found = /^stream: (.+) FOUND$/.exec(line);
  if (found) return { clean: false, signature: found[1], engine: "clamd" };
  if (/size limit exceeded\. ERROR$/.test(line)) throw new ScanError("size_limit", `clamd refused the document: ${line}`);
  if (line.endsWith(" ERROR")) throw new ScanError("engine", `clamd could not scan the document: ${line}`);
  throw new ScanError("protocol", `Unexpected reply from clamd: "${line.slice(0, 200)}"`);
}

export function createClamdScanner(options: ClamdOptions): Scanner {
  const target = parseClamdUrl(options.url);
  const where = "path" in target ? target.path : `${target.host}:${target.port}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const connectTimeoutMs = Math.min(options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS, timeoutMs);
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  /** How to end each exchange in flight, for close(). */
  const inFlight = new Set<(error: ScanError) => void>();
  let closed = false;

  /** Sends `command`, then `body` as INSTREAM frames when given, and resolves with the reply line. */
  function exchange(command: string, body?: ScanSource): Promise<string> {
    if (closed) return Promise.reject(new ScanError("closed", "The clamd scanner is closed"));
    return new Promise<string>((resolve, reject) => {
      const socket = connect("path" in target ? { path: target.path } : { host: target.host, port: target.port });
      const received: Buffer[] = [];
      let connected = false;
      let settled = false;

      const settle = (outcome: { reply: string } | { error: ScanError }) => {
        if (settled) return;
        settled = true;
        clearTimeout(connectTimer);
        clearTimeout(overallTimer);
        inFlight.delete(abort);
        socket.destroy();
        if ("reply" in outcome) resolve(outcome.reply);
        else reject(outcome.error);
      };
      const abort = (error: ScanError) => settle({ error });
      inFlight.add(abort);
      const replySoFar = () => Buffer.concat(received).toString("utf8");

      const connectTimer = setTimeout(
        () => settle({ error: new ScanError("timeout", `Connecting to clamd at ${where} took longer than ${connectTimeoutMs} ms`) }),
        connectTimeoutMs,
      );
      const overallTimer = setTimeout(() => settle({ error: new ScanError("timeout", `clamd at ${where} gave no answer within ${timeoutMs} ms`) }), timeoutMs);
      socket.on("data", (data: Buffer) => {
        received.push(data);
        // Replies to z-commands end with \0; clamd may close right after, or a FOUND may come before the body ends
        if (data.includes(0)) settle({ reply: replySoFar().split("\0")[0] });
      });
      socket.on("end", () => {
        if (received.length) settle({ reply: replySoFar() });
        else settle({ error: new ScanError("unreachable", `clamd at ${where} closed the connection without a reply`) });
      });
      socket.on("error", (err: NodeJS.ErrnoException) => {
        // clamd answers "size limit exceeded" and closes while we still write: the reply wins over our EPIPE
        if (received.length) return settle({ reply: replySoFar() });
        const stage = connected ? "talking to" : "connecting to";
        const error = new ScanError("unreachable", `${stage} clamd at ${where} failed: ${err.code ?? err.message}`, { cause: err });
        // the EPIPE may come before that reply is read: give it until the socket closes (at most REPLY_GRACE_MS)
        if (connected && (err.code === "EPIPE" || err.code === "ECONNRESET")) {
          socket.once("close", () => settle(received.length ? { reply: replySoFar() } : { error }));
          setTimeout(() => settle(received.length ? { reply: replySoFar() } : { error }), REPLY_GRACE_MS).unref?.();
          return;
        }
        settle({ error });
      });

      socket.once("connect", () => {
        connected = true;
        clearTimeout(connectTimer);
        socket.setNoDelay(true);
        send(socket, command, body, () => settled).catch((err) => {
          if (err instanceof ScanError) settle({ error: err });
          // A failed write shows up as the socket's own "error" event too; that one names the cause
          else if (!socket.destroyed)
            settle({ error: new ScanError("unreachable", `Writing to clamd at ${where} failed: ${(err as Error).message}`, { cause: err }) });
        });
      });
    });
  }

  async function send(socket: Socket, command: string, body: ScanSource | undefined, finished: () => boolean) {
    await write(socket, new TextEncoder().encode(command));
    if (body === undefined) return;
    try {
      for await (const chunk of chunksOf(body)) {
        // A zero-length frame would end the stream early: empty chunks are skipped
        for (let at = 0; at < chunk.length; at += chunkBytes) {
          if (finished()) return; // clamd already answered (FOUND early, or a refusal): stop reading the source
          const piece = chunk.subarray(at, at + chunkBytes);
          await write(socket, frameHeader(piece.length));
          await write(socket, piece);
        }
      }
    } catch (err) {
      if (err instanceof ScanError || finished()) throw err;
      throw new ScanError("source", `Reading the document failed: ${(err as Error).message}`, { cause: err });
    }
    if (!finished()) await write(socket, frameHeader(0));
  }

  return {
    kind: "clamd",
    async scan(source) {
      return parseScanReply(await exchange("zINSTREAM\0", source));
    },
    async ping() {
      const reply = (await exchange("zPING\0")).trim();
      if (reply !== "PONG") throw new ScanError("protocol", `clamd at ${where} answered PING with "${reply.slice(0, 200)}"`);
    },
    async close() {
      closed = true;
      for (const abort of inFlight) abort(new ScanError("closed", "The clamd scanner was closed during the scan"));
    },
  };
}

/** Writes with backpressure; resolves early when the socket is gone (the reply handlers settle the scan). */
function write(socket: Socket, bytes: Uint8Array): Promise<void> {
  if (socket.destroyed) return Promise.resolve();
  if (socket.write(bytes)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      socket.off("drain", done);
      socket.off("close", done);
      resolve();
    };
    socket.on("drain", done);
    socket.on("close", done);
  });
}
