// Redis and PostgreSQL processes of a test's own, on their own ports and data
// directories, so a fault test can kill and restart them (never the machine's
// shared services). Started from the binaries Debian's packages install; where
// one cannot be run, `unavailable` says why and the test is reported skipped.
import type { Subprocess } from "bun";
import { chownSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@tests/support/server-process";
import { waitFor } from "@tests/support/wait";

export type OwnService = {
  readonly name: string;
  readonly port: number;
  readonly url: string;
  /** Start (again) on the same port and data directory; resolves once it answers. */
  start(): Promise<void>;
  /** Kill it the hard way (Redis: SIGKILL; PostgreSQL: an immediate shutdown, as after a crash). */
  kill(): Promise<void>;
  /** Stop answering without closing connections (SIGSTOP), and answer again (SIGCONT); Redis only (one process). */
  freeze?(): void;
  thaw?(): void;
  /** Stop it and remove its data directory. */
  close(): Promise<void>;
};

/** Can this process answer on the port? A bare TCP connect. */
async function listening(port: number): Promise<boolean> {
  try {
    const socket = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {}, error() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}

/** The service started, or why it could not be (its files removed). */
async function started(service: OwnService, what: string): Promise<OwnService | string> {
  try {
    await service.start();
    return service;
  } catch (err) {
    await service.close();
    return `${what} did not start: ${(err as Error).message}`;
  }
}

function which(paths: string[]): string | null {
  return paths.find((p) => existsSync(p)) ?? null;
}

const REDIS = ["/usr/bin/redis-server", "/usr/local/bin/redis-server"];

/** A redis-server of the test's own (no persistence), or the reason there is none. */
export async function ownRedis(): Promise<OwnService | string> {
  const bin = which(REDIS);
  if (!bin) return "no redis-server binary (Debian's redis-server package)";
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "cusp-own-redis-"));
  let proc: Subprocess | null = null;
  const service: OwnService = {
    name: "redis",
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      proc = Bun.spawn([bin, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir], {
        stdout: "ignore",
        stderr: "ignore",
      });
      await waitFor(() => listening(port), { timeoutMs: 10_000, intervalMs: 20, what: `redis on ${port}` });
    },
    async kill() {
      proc?.kill("SIGKILL");
      await proc?.exited;
      proc = null;
    },
    freeze: () => proc?.kill("SIGSTOP"),
    thaw: () => proc?.kill("SIGCONT"),
    async close() {
      proc?.kill("SIGCONT");
      await service.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return started(service, "redis-server");
}

const PG_BIN = ["/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"].find((d) => existsSync(join(d, "postgres")));
const SETPRIV = which(["/usr/bin/setpriv", "/bin/setpriv"]);

/**
 * A PostgreSQL cluster of the test's own (initdb into a temporary directory,
 * trust authentication on 127.0.0.1, fsync off), run as the `postgres` user
 * when this process is root (PostgreSQL refuses to run as root).
 */
export async function ownPostgres(): Promise<OwnService | string> {
  if (!PG_BIN) return "no PostgreSQL server binaries (Debian's postgresql package)";
  const asRoot = process.getuid?.() === 0;
  if (asRoot && !SETPRIV) return "running as root and setpriv (util-linux) is missing to run PostgreSQL as its own user";
  const user = asRoot ? Bun.spawnSync(["id", "-u", "postgres"]) : null;
  if (asRoot && user!.exitCode !== 0) return "running as root and there is no postgres user to run PostgreSQL as";
  const uid = asRoot ? Number(user!.stdout.toString().trim()) : null;
  const gid = asRoot ? Number(Bun.spawnSync(["id", "-g", "postgres"]).stdout.toString().trim()) : null;
  const run = (args: string[]) => (asRoot ? [SETPRIV!, `--reuid=${uid}`, `--regid=${gid}`, "--init-groups", ...args] : args);

  const dir = mkdtempSync(join(tmpdir(), "cusp-own-pg-"));
  const data = join(dir, "data");
  if (asRoot) chownSync(dir, uid!, gid!);
  const init = Bun.spawnSync(run([join(PG_BIN, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]), {
    stderr: "pipe",
    stdout: "pipe",
  });
  if (init.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return `initdb failed: ${init.stderr.toString().trim().split("\n").slice(-2).join(" ")}`;
  }
  const port = await freePort();
  let proc: Subprocess | null = null;
  const service: OwnService = {
    name: "postgresql",
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async start() {
      proc = Bun.spawn(
        run([
          join(PG_BIN, "postgres"),
          "-D",
          data,
          "-p",
          String(port),
          "-k",
          dir,
          "-c",
          "listen_addresses=127.0.0.1",
          "-c",
          "fsync=off",
          "-c",
          "full_page_writes=off",
          "-c",
          "max_connections=100",
        ]),
        { stdout: "ignore", stderr: "ignore" },
      );
      await waitFor(
        async () => {
          if (!(await listening(port))) return false;
          const probe = Bun.spawnSync([join(PG_BIN, "pg_isready"), "-h", "127.0.0.1", "-p", String(port)]);
          return probe.exitCode === 0;
        },
        { timeoutMs: 20_000, intervalMs: 50, what: `postgresql on ${port}` },
      );
    },
    async kill() {
      // an immediate shutdown: every backend is gone at once, nothing is flushed (as after a crash)
      proc?.kill("SIGQUIT");
      await proc?.exited;
      proc = null;
    },
    async close() {
      await service.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return started(service, "postgres");
}
