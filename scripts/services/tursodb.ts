// tursodb sync servers for the edge-replica path (docs/platform/edge-replicas.md).
// A tursodb sync server serves exactly one database file, and an edge shard's
// URL template names one database per org (`http://host:port/{db}`, as a
// hosted service names one host per database). This router stands in for that
// service on one machine: the first request for `/{db}/...` starts
// `tursodb <dir>/{db}.db --sync-server 127.0.0.1:<port>` (from the `turso` npm
// package's own binary; nothing downloads) and every request is passed on to
// that database's server. Used by the tests, and by `bun run
// scripts/services/tursodb.ts <dir>` for a local edge setup.
//
//   bun run scripts/services/tursodb.ts /tmp/shard     prints SYNC_ROUTER_URL=http://127.0.0.1:<port>
import type { Subprocess } from "bun";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const READY_TIMEOUT_MS = 10_000;
/** Database names the router accepts: the org database names of platform/db/open.ts. */
const DB_NAME = /^[A-Za-z0-9_]{1,64}$/;

/** The tursodb binary of the `turso` package's platform package. */
export function tursodbBinary(): string {
  const require = createRequire(import.meta.url);
  const arch = process.arch === "arm64" ? "arm64" : "x64";
  const platform = process.platform === "darwin" ? `darwin-${arch}` : `linux-${arch}-gnu`;
  const pkg = require.resolve(`@tursodatabase/cli-${platform}/package.json`);
  return join(pkg, "..", "tursodb");
}

async function freePort(): Promise<number> {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

export type SyncServer = { db: string; url: string; proc: Subprocess; file: string };

/** Starts one sync server for `file`; resolves once it answers HTTP. */
export async function startSyncServer(file: string): Promise<{ url: string; proc: Subprocess }> {
  const port = await freePort();
  const proc = Bun.spawn([tursodbBinary(), file, "--sync-server", `127.0.0.1:${port}`], { stdout: "ignore", stderr: "pipe" });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(500) });
      return { url, proc };
    } catch {
      if (proc.exitCode !== null || Date.now() > deadline) {
        proc.kill();
        const err = await new Response(proc.stderr as ReadableStream).text().catch(() => "");
        throw new Error(`tursodb sync server for ${file} did not start: ${err.trim().slice(-500)}`);
      }
      await Bun.sleep(25);
    }
  }
}

export class SyncRouter {
  readonly servers = new Map<string, SyncServer>();
  private readonly starting = new Map<string, Promise<SyncServer>>();
  private server?: ReturnType<typeof Bun.serve>;
  /** While set, every request answers 503 (a shard briefly unreachable, in tests). */
  down = false;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  get url(): string {
    return `http://127.0.0.1:${this.server!.port}`;
  }

  /** The URL template of an edge shard served by this router. */
  get template(): string {
    return `${this.url}/{db}`;
  }

  start(port = 0): this {
    this.server = Bun.serve({
      port,
      hostname: "127.0.0.1",
      idleTimeout: 60,
      fetch: (req) => this.pass(req),
    });
    return this;
  }

  /** The sync server of one database, started on first use. */
  serverFor(db: string): Promise<SyncServer> {
    const running = this.servers.get(db);
    if (running) return Promise.resolve(running);
    let p = this.starting.get(db);
    if (!p) {
      const file = join(this.dir, `${db}.db`);
      p = startSyncServer(file)
        .then(({ url, proc }) => {
          const s = { db, url, proc, file };
          this.servers.set(db, s);
          return s;
        })
        .finally(() => this.starting.delete(db));
      this.starting.set(db, p);
    }
    return p;
  }

  private async pass(req: Request): Promise<Response> {
    if (this.down) return new Response("shard unreachable", { status: 503 });
    const url = new URL(req.url);
    const [, db, ...rest] = url.pathname.split("/");
    if (!db || !DB_NAME.test(db)) return new Response("unknown database", { status: 404 });
    const target = await this.serverFor(db);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
    const headers = new Headers(req.headers);
    headers.delete("host");
    const res = await fetch(`${target.url}/${rest.join("/")}${url.search}`, { method: req.method, headers, body });
    // the body is passed on as bytes: fetch has already undone any content-encoding
    const out = new Headers(res.headers);
    out.delete("content-encoding");
    out.delete("content-length");
    return new Response(await res.arrayBuffer(), { status: res.status, headers: out });
  }

  /** Stops one database's server (its file stays): the next request starts it again. `SIGKILL` is a crash. */
  async stopServer(db: string, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
    const s = this.servers.get(db);
    if (!s) return;
    this.servers.delete(db);
    s.proc.kill(signal);
    await s.proc.exited;
  }

  async stop(): Promise<void> {
    this.server?.stop(true);
    await Promise.all([...this.servers.keys()].map((db) => this.stopServer(db)));
  }
}

if (import.meta.main) {
  const dir = process.argv[2];
  if (!dir) {
    console.error("usage: bun run scripts/services/tursodb.ts <directory> [port]");
    process.exit(2);
  }
  const router = new SyncRouter(dir).start(Number(process.argv[3] ?? 0));
  console.log(`SYNC_ROUTER_URL=${router.url}`);
  console.log(`edge shard template: ${router.template}`);
  const stop = () => void router.stop().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
