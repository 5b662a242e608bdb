import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";
import { ownPostgres, ownRedis, type OwnService } from "@tests/support/own-services";
import { startServer, type ServerProcess } from "@tests/support/server-process";
import { openEventStream } from "@tests/support/sse";
import { waitFor } from "@tests/support/wait";
import { bitewingPng } from "@tests/support/documents/fixtures";

// The fault suite (docs/platform/reliability.md): two API instances on one
// DATA_DIR share a Redis and a queue PostgreSQL that this file starts itself
// (tests/support/own-services.ts) and kills and restarts while a bounded load
// of bookings, location and IAM writes, uploads and completed procedures runs
// over both instances. Every write's outcome is checked against what is stored.

const redis = await ownRedis();
const pg = typeof redis === "string" ? null : await ownPostgres();
const down = typeof redis === "string" ? redis : typeof pg === "string" ? pg : null;
if (down) console.warn(`faults.test: SKIPPED the fault suite: ${down}`);
const it = test.skipIf(!!down);
const R = redis as OwnService;
const PG = pg as OwnService;
const SCHEMA = "cusp_faults";

type Reply = { status: number; body: any; text: string; headers: Headers; ms: number };
async function call(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; form?: FormData; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const started = performance.now();
  const res = await fetch(`${base}${path}`, { method, headers, body: opts.form ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {}
  return { status: res.status, body, text, headers: res.headers, ms: performance.now() - started } as Reply;
}
async function ok(p: Promise<Reply>, want = 200) {
  const r = await p;
  if (r.status !== want) throw new Error(`expected ${want}, got ${r.status} ${r.text}`);
  return r.body;
}

let dir = "";
let A: ServerProcess;
let B: ServerProcess;
let admin = "";
let P = "";
const fx = { location: "", provider: "", type: "", readers: "", patients: [] as string[], code: "" };

beforeAll(async () => {
  if (down) return;
  dir = mkdtempSync(join(tmpdir(), "cusp-faults-"));
  const env = { REDIS_URL: R.url, QUEUE_DATABASE_URL: `${PG.url}?schema=${SCHEMA}`, LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? "silent" };
  // the first instance migrates the control database and creates the administrator; it runs the workers
  A = await startServer(dir, { env: { ...env, WORKERS: "in-process" } });
  B = await startServer(dir, { env: { ...env, WORKERS: "external" } });
  admin = (await ok(call(A.base, "POST", "/api/v1/auth/login", { body: { email: "admin@example.com", password: "admin-password" } }))).access_token;
  const org = (
    await ok(call(A.base, "POST", "/api/v1/admin/orgs", { token: admin, body: { name: "Faults Dental", slug: `faults-${Date.now().toString(36)}` } }), 201)
  ).id;
  P = `/api/v1/${org}`;
  const post = (path: string, body: unknown) => ok(call(A.base, "POST", `${P}${path}`, { token: admin, body }), 201);
  fx.location = (await post("/locations", { name: "Harbor", timezone: "America/New_York" })).id;
  fx.provider = (await post("/providers", { abbreviation: "DRF", first_name: "Fay", last_name: "Ult" })).id;
  fx.type = (await post("/appointment-types", { code: "EXAM", name: "Exam", duration_minutes: 30, color: "#336699" })).id;
  fx.readers = (await post("/iam/groups", { name: "Readers", permission_keys: ["patients.read"] })).id;
  for (let i = 0; i < 4; i++) fx.patients.push((await post("/patients", { first_name: `Pat${i}`, last_name: "Fault", date_of_birth: "1980-01-01" })).uuid);
  const codes = await ok(call(A.base, "GET", `${P}/codes/procedure-codes?search=D1110`, { token: admin }));
  fx.code = codes.items.find((c: { code: string }) => c.code === "D1110").id;
}, 120_000);

afterAll(async () => {
  if (process.env.FAULTS_LOG_LEVEL) await Bun.write("/tmp/faults-out.txt", `A:\n${A?.output()}\nB:\n${B?.output()}`);
  await Promise.all([A, B].filter(Boolean).map((s) => s.kill("SIGTERM")));
  if (!down) {
    R.thaw?.();
    await R.close();
    await PG.close();
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
}, 60_000);

/** A member holding patients.read, signed in on `base`. */
async function reader(base: string) {
  const email = `reader-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}@example.com`;
  const member = await ok(
    call(A.base, "POST", `${P}/iam/users`, { token: admin, body: { email, display_name: "Rae Reader", group_uuids: [fx.readers], password: "correct-horse" } }),
    201,
  );
  const token = (await ok(call(base, "POST", "/api/v1/auth/login", { body: { email, password: "correct-horse" } }))).access_token;
  return { id: member.id as string, token: token as string };
}

type Outcome = { kind: "location" | "booking" | "member"; via: string; status: number; id?: string };

/** Writes over both instances until `until` resolves: location creates, bookings and IAM writes (new members), each outcome kept. */
async function writeLoad(until: Promise<unknown>, slot0: number) {
  const outcomes: Outcome[] = [];
  let stop = false;
  void until.then(() => (stop = true));
  let i = 0;
  const loop = async (base: string, via: string) => {
    while (!stop) {
      const n = i++;
      if (n % 5 === 4) {
        const email = `load-${n}-${Date.now().toString(36)}@example.com`;
        const r = await call(base, "POST", `${P}/iam/users`, {
          token: admin,
          body: { email, display_name: `Load ${n}`, group_uuids: [fx.readers], password: "correct-horse" },
        });
        outcomes.push({ kind: "member", via, status: r.status, id: r.body?.id });
      } else if (n % 2 === 0) {
        const r = await call(base, "POST", `${P}/locations`, { token: admin, body: { name: `Load ${slot0}-${n}`, timezone: "UTC" } });
        outcomes.push({ kind: "location", via, status: r.status, id: r.body?.id });
      } else {
        const start = new Date(Date.UTC(2031, 0, 1) + (slot0 + n) * 30 * 60_000);
        const end = new Date(start.getTime() + 30 * 60_000);
        const r = await call(base, "POST", `${P}/appointments`, {
          token: admin,
          body: {
            patient_uuid: fx.patients[n % fx.patients.length],
            appointment_type_uuid: fx.type,
            location_uuid: fx.location,
            provider_uuid: fx.provider,
            scheduled_start: start.toISOString().replace(/\.\d+Z$/, "Z"),
            scheduled_end: end.toISOString().replace(/\.\d+Z$/, "Z"),
          },
        });
        outcomes.push({ kind: "booking", via, status: r.status, id: r.body?.uuid });
      }
    }
  };
  await Promise.all([loop(A.base, "A"), loop(B.base, "B"), loop(A.base, "A"), loop(B.base, "B")]);
  return outcomes;
}

/** Every write answered below 500, and every one answered 2xx is stored (read back through the other instance). */
async function expectTruthfulAnswers(outcomes: Outcome[]) {
  expect(outcomes.length).toBeGreaterThan(10);
  expect(outcomes.filter((o) => o.status >= 500)).toEqual([]);
  const created = outcomes.filter((o) => o.status === 201);
  expect(created.length).toBeGreaterThan(5);
  for (const o of created) {
    const other = o.via === "A" ? B.base : A.base;
    const path = { location: `${P}/locations/${o.id}`, booking: `${P}/appointments/${o.id}`, member: `${P}/iam/users/${o.id}` }[o.kind];
    expect({ o, status: (await call(other, "GET", path, { token: admin })).status }).toEqual({ o, status: 200 });
  }
}

describe("Redis away", () => {
  it("killed under load: writes answer truthfully, login is refused at once, a removal holds on the other instance within a second, and all is back within 5 s of its return", async () => {
    const victim = await reader(B.base);
    expect((await call(B.base, "GET", `${P}/patients`, { token: victim.token })).status).toBe(200);
    let release!: () => void;
    const load = writeLoad(new Promise<void>((r) => (release = r)), 0);
    await Bun.sleep(300);
    await R.kill();

    // login fails closed, at once, telling the client when to try again
    const logins: Reply[] = [];
    for (let i = 0; i < 6; i++)
      logins.push(await call(A.base, "POST", "/api/v1/auth/login", { body: { email: "admin@example.com", password: "admin-password" } }));
    expect(logins.map((r) => r.status)).toEqual(Array(6).fill(503));
    expect(logins.map((r) => r.headers.get("retry-after"))).toEqual(Array(6).fill("1"));
    expect(logins.filter((r) => r.ms > 250).map((r) => Math.round(r.ms))).toEqual([]);

    // the removal answers its own status, and instance B stops the member within a second
    const removed = await call(A.base, "POST", `${P}/iam/users/${victim.id}/remove`, { token: admin });
    expect(removed.status).toBe(200);
    const answered = performance.now();
    const late: number[] = [];
    await waitFor(
      async () => {
        const r = await call(B.base, "GET", `${P}/patients`, { token: victim.token });
        if (r.status === 200 && performance.now() - answered > 1_000) late.push(Math.round(performance.now() - answered));
        return r.status === 404;
      },
      { timeoutMs: 3_000, intervalMs: 25, what: "the removed member refused on B" },
    );
    expect(performance.now() - answered).toBeLessThan(1_000);
    expect(late).toEqual([]);

    await Bun.sleep(500);
    await R.start();
    const back = performance.now();
    // everything works again within 5 s: sign-in, and events across instances
    await waitFor(
      async () => (await call(A.base, "POST", "/api/v1/auth/login", { body: { email: "admin@example.com", password: "admin-password" } })).status === 200,
      {
        timeoutMs: 5_000,
        intervalMs: 50,
        what: "login after Redis came back",
      },
    );
    const stream = await openEventStream(B.base, P.split("/")[3]!, admin);
    await waitFor(
      async () => {
        const loc = await ok(call(A.base, "POST", `${P}/locations`, { token: admin, body: { name: `After ${Date.now()}`, timezone: "UTC" } }), 201);
        return stream.events.some((e) => e.resource_id === loc.id) || (await Bun.sleep(200), stream.events.some((e) => e.resource_id === loc.id));
      },
      { timeoutMs: 5_000 - (performance.now() - back), intervalMs: 50, what: "an event written on A reaching a stream on B" },
    );
    await stream.close();
    release();
    await expectTruthfulAnswers(await load);
  }, 60_000);

  it("frozen (not answering, connections open): login is refused within 250 ms, writes go on; it answers again on thaw", async () => {
    R.freeze!();
    try {
      const logins: Reply[] = [];
      for (let i = 0; i < 5; i++)
        logins.push(await call(B.base, "POST", "/api/v1/auth/login", { body: { email: "admin@example.com", password: "admin-password" } }));
      expect(logins.map((r) => r.status)).toEqual(Array(5).fill(503));
      expect(logins.filter((r) => r.ms > 300).map((r) => Math.round(r.ms))).toEqual([]);
      const write = await call(B.base, "POST", `${P}/locations`, { token: admin, body: { name: "While frozen", timezone: "UTC" } });
      expect(write.status).toBe(201);
      expect(write.ms).toBeLessThan(1_000);
    } finally {
      R.thaw!();
    }
    await waitFor(
      async () => (await call(B.base, "POST", "/api/v1/auth/login", { body: { email: "admin@example.com", password: "admin-password" } })).status === 200,
      {
        timeoutMs: 5_000,
        intervalMs: 50,
      },
    );
  }, 30_000);
});

describe("the queue's PostgreSQL away", () => {
  it("killed: uploads and completions answer 2xx, their jobs wait in the outboxes, and once it is back every document reaches active and every recompute runs once", async () => {
    const patient = fx.patients[0]!;
    const planned: { id: string; version: number }[] = [];
    for (let i = 0; i < 4; i++) {
      const p = await ok(
        call(A.base, "POST", `${P}/clinical/patients/${patient}/procedures`, {
          token: admin,
          body: { procedure_code_uuid: fx.code, status: "treatment_planned" },
        }),
        201,
      );
      planned.push({ id: p.id, version: p.version });
    }
    const sql = new SQL(PG.url);
    const before = await recomputesOf(sql);
    await sql.close();

    await PG.kill();
    const png = await bitewingPng();
    const uploads: string[] = [];
    for (let i = 0; i < 4; i++) {
      const form = new FormData();
      form.append("file", new Blob([png as Uint8Array<ArrayBuffer>], { type: "image/png" }), `bitewing-${i}.png`);
      const r = await call(i % 2 ? B.base : A.base, "POST", `${P}/documents`, { token: admin, form });
      expect({ status: r.status, fast: r.ms < 1_000 }).toEqual({ status: 201, fast: true });
      expect(r.body.status).toBe("processing");
      uploads.push(r.body.id);
    }
    for (const [i, p] of planned.entries()) {
      const r = await call(i % 2 ? B.base : A.base, "PATCH", `${P}/clinical/procedures/${p.id}`, {
        token: admin,
        body: { base_version: p.version, status: "complete" },
      });
      expect({ status: r.status, fast: r.ms < 1_000 }).toEqual({ status: 200, fast: true });
    }
    const healthA = await call(A.base, "GET", "/api/health");
    expect(healthA.status).toBe(503);
    expect(healthA.body.failing).toContain("queue");
    expect(healthA.body.effects.jobs_pending).toBeGreaterThan(0);

    await PG.start();
    const back = performance.now();
    // handed over within seconds of the return (not at the 30-minute resume sweep)
    await waitFor(
      async () => {
        const [a, b] = await Promise.all([call(A.base, "GET", "/api/health"), call(B.base, "GET", "/api/health")]);
        return a.body.effects.jobs_pending === 0 && b.body.effects.jobs_pending === 0;
      },
      {
        timeoutMs: 5_000,
        intervalMs: 100,
        what: "every instance's outbox handed over",
      },
    );
    expect(performance.now() - back).toBeLessThan(5_000);
    await waitFor(
      async () => {
        const docs = await Promise.all(uploads.map((id) => call(A.base, "GET", `${P}/documents/${id}`, { token: admin })));
        return docs.every((d) => d.body.status === "active");
      },
      { timeoutMs: 60_000, intervalMs: 250, what: "every uploaded document active" },
    );
    const sql2 = new SQL(PG.url);
    try {
      await waitFor(async () => (await recomputesOf(sql2)) - before >= planned.length, { timeoutMs: 20_000, intervalMs: 100, what: "the recomputes" });
      // once each: one job per completion, none twice
      expect((await recomputesOf(sql2)) - before).toBe(planned.length);
    } finally {
      await sql2.close();
    }
  }, 120_000);
});

const recomputesOf = async (sql: SQL) =>
  Number((await sql.unsafe(`SELECT count(*)::int AS n FROM ${SCHEMA}.job WHERE name = 'estimates.recompute' AND state = 'completed'`))[0].n);
