import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SQL } from "bun";
import { PG_URL, postgresUnavailable } from "@tests/support/postgres";
import { REDIS_URL, redisUnavailable } from "@tests/support/redis";
import { waitFor } from "@tests/support/wait";
import { openEventStream } from "@tests/support/sse";
import { freePort, startServer, type ServerProcess } from "@tests/support/server-process";

// Several instances on one machine (docs/operations/deploy.md): two API processes and two
// worker processes share PostgreSQL (jobs), Redis (events, cache invalidation,
// login counters) and one DATA_DIR (control database, org shards). Each
// process is a real `bun run` of src/server.ts or workers/main.ts; the test
// talks to them over HTTP only. `npm run start:cluster` (scripts/cluster.ts)
// is checked at the end. Reported as skipped, with the reason, where
// PostgreSQL or Redis does not answer.

const ROOT = resolve(import.meta.dir, "../..");
const why = "the multi-instance tests";
const down = (await postgresUnavailable("multi-instance.test", why)) ?? (await redisUnavailable("multi-instance.test", why));
// test.skipIf, not describe.skipIf: bun would count the skipped hooks as unnamed tests
const it = test.skipIf(!!down);

const CLIENT = "x-test-client";
const dirs: string[] = [];
const schemas: string[] = [];
const procs: ReturnType<typeof Bun.spawn>[] = [];
const servers: ServerProcess[] = [];
const newSchema = () => {
  const s = `cusp_multi_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  schemas.push(s);
  return s;
};
const newDir = () => {
  const d = mkdtempSync(join(tmpdir(), "cusp-multi-"));
  dirs.push(d);
  return d;
};

type Reply = { status: number; body: any; text: string };
async function call(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: res.status, body, text };
}
async function ok(p: Promise<Reply>, want = 200) {
  const r = await p;
  if (r.status !== want) throw new Error(`expected ${want}, got ${r.status} ${r.text}`);
  return r.body;
}

describe("two API processes and two worker processes on one PostgreSQL, Redis and DATA_DIR", () => {
  let A = "";
  let B = "";
  let schema = "";
  let admin = "";
  let org1 = "";
  let org2 = "";

  beforeAll(async () => {
    if (down) return;
    const dir = newDir();
    schema = newSchema();
    const env = {
      REDIS_URL,
      QUEUE_DATABASE_URL: `${PG_URL}?schema=${schema}`,
      WORKERS: "external",
      CLIENT_IP_HEADER: CLIENT,
      LOGIN_MAX_FAILURES: "3",
      LOGIN_LOCKOUT_SECONDS: "2",
    };
    // the first process migrates the control database and creates the administrator; then the rest
    const a = await startServer(dir, { env });
    servers.push(a);
    const b = await startServer(dir, { env });
    servers.push(b);
    [A, B] = [a.base, b.base];
    for (let i = 0; i < 2; i++)
      procs.push(
        Bun.spawn([process.execPath, "run", "workers/main.ts"], {
          cwd: ROOT,
          env: { ...process.env, ...env, DATA_DIR: dir, LOG_LEVEL: "warn" },
          stdout: "ignore",
          stderr: "inherit",
        }),
      );
    admin = (await ok(call(A, "POST", "/api/v1/auth/login", { body: { email: "admin@example.com", password: "admin-password" } }))).access_token;
    const org = async (base: string, slug: string) =>
      (await ok(call(base, "POST", "/api/v1/admin/orgs", { token: admin, body: { name: slug, slug } }), 201)).id;
    org1 = await org(A, `multi-a-${Date.now().toString(36)}`);
    org2 = await org(B, `multi-b-${Date.now().toString(36)}`);
  }, 60_000);

  afterAll(async () => {
    for (const p of procs) p.kill("SIGTERM");
    await Promise.all([...procs.map((p) => p.exited), ...servers.map((x) => x.kill("SIGTERM"))]);
  }, 60_000);

  it("an event written through A reaches the org's stream held on B, and no other org's stream", async () => {
    const s1 = await openEventStream(B, org1, admin);
    const s2 = await openEventStream(B, org2, admin);
    const loc = await ok(call(A, "POST", `/api/v1/${org1}/locations`, { token: admin, body: { name: "Across", timezone: "UTC" } }), 201);
    await s1.until((x) => x.includes(loc.id), "org 1's event on B");
    // org 2's stream works (its own event arrives) and never carried org 1's
    const other = await ok(call(A, "POST", `/api/v1/${org2}/locations`, { token: admin, body: { name: "Elsewhere", timezone: "UTC" } }), 201);
    await s2.until((x) => x.includes(other.id), "org 2's event on B");
    expect(s2.text).not.toContain(loc.id);
    expect(s1.text).not.toContain(other.id);
    await s1.close();
    await s2.close();
  }, 30_000);

  it("a write on A is never followed by a stale read on B: kept reads and permissions", async () => {
    const P = `/api/v1/${org1}`;
    const group = await ok(call(A, "POST", `${P}/iam/groups`, { token: admin, body: { name: "Readers", permission_keys: ["locations.read"] } }), 201);
    const email = `reader-${Date.now().toString(36)}@example.com`;
    const member = await ok(
      call(A, "POST", `${P}/iam/users`, { token: admin, body: { email, display_name: "Rita Reader", group_uuids: [group.id], password: "correct-horse" } }),
      201,
    );
    const reader = (await ok(call(B, "POST", "/api/v1/auth/login", { body: { email, password: "correct-horse" } }))).access_token;
    const loc = await ok(call(A, "POST", `${P}/locations`, { token: admin, body: { name: "Round 0", timezone: "UTC" } }), 201);

    const stale: string[] = [];
    let version = loc.version as number;
    for (let round = 1; round <= 20; round++) {
      // B reads twice (the second answer may be kept), A writes, B reads at once
      await ok(call(B, "GET", `${P}/locations/${loc.id}`, { token: reader }));
      await ok(call(B, "GET", `${P}/locations/${loc.id}`, { token: reader }));
      version = (await ok(call(A, "PATCH", `${P}/locations/${loc.id}`, { token: admin, body: { base_version: version, name: `Round ${round}` } }))).version;
      const seen = (await ok(call(B, "GET", `${P}/locations/${loc.id}`, { token: reader }))).name;
      if (seen !== `Round ${round}`) stale.push(`round ${round}: read ${seen}`);
    }
    expect(stale).toEqual([]);

    let userVersion = (await ok(call(A, "GET", `${P}/iam/users/${member.id}`, { token: admin }))).version as number;
    const refused: string[] = [];
    for (let round = 1; round <= 10; round++) {
      expect((await call(B, "GET", `${P}/locations/${loc.id}`, { token: reader })).status).toBe(200);
      userVersion = (await ok(call(A, "PATCH", `${P}/iam/users/${member.id}`, { token: admin, body: { base_version: userVersion, group_uuids: [] } }))).version;
      const without = await call(B, "GET", `${P}/locations/${loc.id}`, { token: reader });
      if (without.status !== 403) refused.push(`round ${round}: ${without.status} after the group was removed on A`);
      userVersion = (await ok(call(A, "PATCH", `${P}/iam/users/${member.id}`, { token: admin, body: { base_version: userVersion, group_uuids: [group.id] } })))
        .version;
      const back = await call(B, "GET", `${P}/locations/${loc.id}`, { token: reader });
      if (back.status !== 200) refused.push(`round ${round}: ${back.status} after the group was given back on A`);
    }
    expect(refused).toEqual([]);
  }, 60_000);

  it("jobs enqueued by either API process run once, in the worker processes", async () => {
    const P = `/api/v1/${org1}`;
    const patient = await ok(call(A, "POST", `${P}/patients`, { token: admin, body: { first_name: "Job", last_name: "Once" } }), 201);
    const rows = (tag: string) =>
      [1, 2, 3].map((i) => ({
        carrier_name: "Nobody Mutual",
        group_number: `G-${tag}-${i}`,
        subscriber_first_name: "Job",
        subscriber_last_name: "Once",
        source_ref: `${tag}-${i}`,
      }));
    const viaA = await ok(call(A, "POST", `${P}/insurance/drafts/import`, { token: admin, body: { patient_uuid: patient.id, rows: rows("a") } }), 201);
    const viaB = await ok(call(B, "POST", `${P}/insurance/drafts/import`, { token: admin, body: { patient_uuid: patient.id, rows: rows("b") } }), 201);
    expect([viaA.draft_count, viaB.draft_count]).toEqual([3, 3]);
    const drafts = await waitFor(
      async () => {
        const page = await ok(call(B, "GET", `${P}/insurance/drafts?patient_uuid=${patient.id}&page_size=100`, { token: admin }));
        return page.items.length === 6 && page.items.every((d: { match_attempted: boolean }) => d.match_attempted) ? page.items : null;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: "the six drafts to be matched by a worker process" },
    );
    // no carrier of that name: looked at, left pending for a person to review
    expect(drafts.map((d: { review_status: string }) => d.review_status)).toEqual(Array(6).fill("pending"));
    // one job per import, each run once: completed on its first attempt, having looked at its three rows
    const sql = new SQL({ url: PG_URL, max: 1 });
    try {
      // the drafts are marked in the job's last write; the job is recorded completed just after it
      type JobRow = { state: string; retry_count: number; output: { import_id: string } | null };
      const jobs = await waitFor(
        async () => {
          const rows = (await sql.unsafe(
            `SELECT state, retry_count, output FROM ${schema}.job WHERE name = 'insurance.drafts-match' ORDER BY created_on`,
          )) as JobRow[];
          return rows.length >= 2 && rows.every((j) => j.state !== "created" && j.state !== "active" && j.state !== "retry") ? rows : null;
        },
        { timeoutMs: 15_000, intervalMs: 50, what: "both drafts-match jobs to finish" },
      );
      expect(jobs.map((j) => [j.state, j.retry_count, j.output?.import_id])).toEqual([
        ["completed", 0, viaA.import_id],
        ["completed", 0, viaB.import_id],
      ]);
    } finally {
      await sql.close();
    }
  }, 60_000);

  it("login failures count across instances (one counter in Redis)", async () => {
    const P = `/api/v1/${org1}`;
    const email = `locked-${Date.now().toString(36)}@example.com`;
    await ok(
      call(A, "POST", `${P}/iam/users`, { token: admin, body: { email, display_name: "Lou Locked", group_uuids: [], password: "right-password" } }),
      201,
    );
    const login = (base: string, password: string, n: number) =>
      call(base, "POST", "/api/v1/auth/login", { body: { email, password }, headers: { [CLIENT]: `10.77.0.${n}` } });
    expect((await login(A, "wrong-password", 1)).status).toBe(401);
    expect((await login(B, "wrong-password", 2)).status).toBe(401);
    expect((await login(A, "wrong-password", 3)).status).toBe(401);
    // the third failure (on two instances, from three addresses) locked the account everywhere
    const locked = await login(B, "right-password", 4);
    expect({ status: locked.status, code: locked.body.code }).toEqual({ status: 429, code: "rate_limited" });
  }, 30_000);
});

describe("npm run start:cluster (scripts/cluster.ts)", () => {
  it("starts two API processes on one port and a worker; a killed API process is started again; SIGTERM stops all", async () => {
    const port = await freePort();
    const cluster = Bun.spawn([process.execPath, "run", "scripts/cluster.ts"], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: newDir(), PORT: String(port), LOG_LEVEL: "warn", REDIS_URL, QUEUE_DATABASE_URL: `${PG_URL}?schema=${newSchema()}` },
      stdout: "pipe",
      stderr: "ignore",
    });
    let out = "";
    const pump = (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of cluster.stdout as ReadableStream<Uint8Array>) out += decoder.decode(chunk);
    })();
    try {
      const started = await waitFor(() => /cluster: 2 API processes on port \d+ \(pids (\d+), (\d+)\), 1 worker processes \(pids (\d+)\)/.exec(out), {
        timeoutMs: 60_000,
        intervalMs: 50,
        what: () => `the cluster to start; output so far: ${out}`,
      });
      const [apiPid1, apiPid2, workerPid] = started.slice(1).map(Number);
      for (const pid of [apiPid1, apiPid2, workerPid]) expect(() => process.kill(pid!, 0)).not.toThrow();
      const base = `http://127.0.0.1:${port}`;
      for (let i = 0; i < 10; i++) expect((await fetch(`${base}/api/health`)).status).toBe(200);

      process.kill(apiPid2!, "SIGKILL");
      await waitFor(() => out.includes(`api 1 (pid ${apiPid2}) exited`), { timeoutMs: 10_000, intervalMs: 20, what: () => `the restart note; output: ${out}` });
      // the other process answers meanwhile; then the replacement is up too
      for (let i = 0; i < 10; i++) expect((await fetch(`${base}/api/health`, { headers: { connection: "close" } })).status).toBe(200);
    } finally {
      cluster.kill("SIGTERM");
      expect(await cluster.exited).toBe(0);
      await pump;
    }
    expect(out).toContain("cluster: stopped");
  }, 90_000);
});

afterAll(async () => {
  if (!down) {
    const sql = new SQL({ url: PG_URL, max: 1 });
    for (const s of schemas) await sql.unsafe(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await sql.close();
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
