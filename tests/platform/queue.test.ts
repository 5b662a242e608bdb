import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { count } from "drizzle-orm";
import { SQL } from "bun";
import { loadConfig, type Config } from "@/config";
import { closeRuntime, createRuntime } from "@/platform/bootstrap/create-runtime";
import type { Runtime } from "@/platform/runtime";
import type { JobQueue, JobRecord } from "@/platform/queue/types";
import { createPgBossQueue, parseQueueUrl } from "@/platform/queue/pg-boss";
import { auditIndex, idempotencyRecords, orgs, shards } from "@db/control/schema";
import { auditEntries } from "@db/tenant/audit";
import { get, run } from "@/platform/db/work";
import { newId, nowIso } from "@/platform/ids";
import { JOBS } from "@workers/registry";
import { enqueue } from "@/platform/queue/enqueue";
import { startWorkers } from "@/platform/queue/workers";
import { auditRetention } from "@workers/jobs/audit-retention";
import { healthProbe } from "@workers/jobs/health-probe";
import { waitFor } from "@tests/support/wait";
import { PG_URL, postgresUnavailable } from "@tests/support/postgres";
import { REACTIONS } from "@/reactions";

const ROOT = resolve(import.meta.dir, "../..");
const TMP = mkdtempSync(join(tmpdir(), "cusp-queue-"));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

const RETENTION_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;
const ago = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();

function configFor(dir: string, extra: Record<string, string> = {}): Config {
  return loadConfig({ DATA_DIR: join(TMP, dir), LOG_LEVEL: "silent", AUDIT_RETENTION_DAYS: String(RETENTION_DAYS), ...extra });
}

/** Poll until the job has finished (completed, failed or cancelled). */
async function waitForJob(queue: JobQueue, name: string, id: string, timeoutMs = 20_000, diagnostics = () => ""): Promise<JobRecord> {
  let state = "missing";
  const finished = async () => {
    const job = await queue.getJob(name, id);
    state = job?.state ?? "missing";
    return job && (job.state === "completed" || job.state === "failed" || job.state === "cancelled") ? job : null;
  };
  return waitFor(finished, { timeoutMs, intervalMs: 25, what: () => `job ${name} ${id}, still ${state} ${diagnostics()}` });
}

type Seeded = { orgIds: string[] };

/**
 * Two orgs with 3 audit entries past the retention period and 2 within it each;
 * 4 old and 3 recent audit index rows; 2 expired and 1 live idempotency record.
 */
async function seed(rt: Runtime): Promise<Seeded> {
  const shard = (await rt.control.read((db) => get(db.select().from(shards).limit(1))))!;
  const now = nowIso();
  const orgIds: string[] = [];
  for (const n of [1, 2]) {
    const orgId = newId();
    orgIds.push(orgId);
    await rt.control.write((tx) =>
      run(
        tx.insert(orgs).values({
          id: orgId,
          name: `Practice ${n}`,
          slug: `practice-${n}-${orgId.slice(-6)}`,
          account_type: "practice",
          status: "active",
          onboarding_status: "pending",
          max_locations: 5,
          schema_name: `org_${n}`,
          shard_id: shard.id,
          created_at: now,
          updated_at: now,
          version: 1,
        }),
      ),
    );
    const db = await rt.orgDbs.provision(orgId, { id: shard.id, dsn: shard.dsn, auth_token: shard.auth_token });
    const entry = (created_at: string) => ({
      id: newId(),
      actor_id: "u1",
      actor_type: "user",
      actor_display_name: "Dr. Test",
      action: "update",
      resource_type: "patient",
      resource_id: newId(),
      before: null,
      after: null,
      request_id: null,
      ip_address: null,
      created_at,
    });
    await db.write((tx) => run(tx.insert(auditEntries).values([ago(RETENTION_DAYS + 1), ago(45), ago(400), ago(RETENTION_DAYS - 1), ago(1)].map(entry))));
  }
  const indexRow = (created_at: string) => ({
    id: newId(),
    org_id: orgIds[0]!,
    org_name: "Practice 1",
    actor_id: "u1",
    actor_type: "user",
    actor_display_name: "Dr. Test",
    action: "update",
    resource_type: "patient",
    resource_id: newId(),
    request_id: null,
    ip_address: null,
    created_at,
  });
  await rt.control.write((tx) =>
    run(tx.insert(auditIndex).values([ago(RETENTION_DAYS + 1), ago(60), ago(365), ago(2000), ago(RETENTION_DAYS - 1), ago(10), now].map(indexRow))),
  );
  const idem = (key: string, expires_at: string) => ({ scope_key: key, request_hash: "h", status: 201, body: "{}", created_at: ago(2), expires_at });
  await rt.control.write((tx) =>
    run(
      tx.insert(idempotencyRecords).values([idem("expired-1", ago(1)), idem("expired-2", ago(0.5)), idem("live", new Date(Date.now() + DAY_MS).toISOString())]),
    ),
  );
  return { orgIds };
}

async function counts(rt: Runtime, seeded: Seeded) {
  const n = (row: { n: number } | undefined) => row?.n ?? -1;
  const perOrg: number[] = [];
  const shard = (await rt.control.read((db) => get(db.select().from(shards).limit(1))))!;
  for (const orgId of seeded.orgIds) {
    const db = await rt.orgDbs.get(orgId, { id: shard.id, dsn: shard.dsn, auth_token: shard.auth_token });
    perOrg.push(n(await db.read((d) => get(d.select({ n: count() }).from(auditEntries)))));
  }
  return {
    auditIndex: n(await rt.control.read((db) => get(db.select({ n: count() }).from(auditIndex)))),
    auditEntries: perOrg,
    idempotency: n(await rt.control.read((db) => get(db.select({ n: count() }).from(idempotencyRecords)))),
  };
}

function expectRetentionDone(job: JobRecord, after: Awaited<ReturnType<typeof counts>>) {
  expect(job.state).toBe("completed");
  expect(job.output).toMatchObject({
    retention_days: RETENTION_DAYS,
    audit_index_deleted: 4,
    audit_entries_deleted: 6,
    orgs_processed: 2,
    orgs_failed: 0,
  });
  expect(after).toEqual({ auditIndex: 3, auditEntries: [2, 2], idempotency: 1 });
}

describe("job queue on PGlite, workers in-process", () => {
  const config = configFor("pglite");
  let rt: Runtime | null = null;
  let stopWorkers: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    rt = await createRuntime(config, { reactions: REACTIONS });
    stopWorkers = await startWorkers(rt, JOBS);
  }, 60_000);

  afterAll(async () => {
    await stopWorkers?.();
    if (rt) await closeRuntime(rt);
  });

  test("the default queue is PGlite in the data directory, and answers", async () => {
    expect(config.queue.url).toBeUndefined();
    expect(rt!.queue!.kind).toBe("pglite");
    await rt!.queue!.ping();
  });

  test("startWorkers schedules the cron jobs of the registry", async () => {
    expect(await rt!.queue!.schedules()).toEqual([
      { name: "audit.retention", cron: "17 3 * * *", timezone: "UTC" },
      { name: "documents.resume", cron: "*/10 * * * *", timezone: "UTC" },
      { name: "iam.approvals.expire", cron: "17 * * * *", timezone: "UTC" },
      { name: "ledger.age-balances", cron: "5 0 * * *", timezone: "UTC" },
      { name: "orgs.purge", cron: "23 4 * * *", timezone: "UTC" },
      { name: "payment-plans.post-due", cron: "20 10 * * *", timezone: "UTC" },
      { name: "queue.outbox-sweep", cron: "*/5 * * * *", timezone: "UTC" },
      { name: "recalls.recompute", cron: "40 10 * * *", timezone: "UTC" },
      { name: "revenue.lists.drift", cron: "41 5 * * *", timezone: "UTC" },
    ]);
  });

  test("audit.retention enqueued on demand deletes old audit rows and expired idempotency records, keeps recent ones", async () => {
    const seeded = await seed(rt!);
    expect(await counts(rt!, seeded)).toEqual({ auditIndex: 7, auditEntries: [5, 5], idempotency: 3 });

    const id = (await enqueue(rt!, auditRetention, {}))!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const job = await waitForJob(rt!.queue!, "audit.retention", id);
    expectRetentionDone(job, await counts(rt!, seeded));

    // Idempotent: a second run finds nothing left to delete and changes nothing.
    const again = await waitForJob(rt!.queue!, "audit.retention", (await enqueue(rt!, auditRetention, {}))!);
    expect(again.state).toBe("completed");
    expect(again.output).toMatchObject({ audit_index_deleted: 0, audit_entries_deleted: 0, orgs_processed: 2, orgs_failed: 0 });
    expect(await counts(rt!, seeded)).toEqual({ auditIndex: 3, auditEntries: [2, 2], idempotency: 1 });
  });

  test("a job runs as its system actor and records who caused it", async () => {
    const id = (await enqueue(rt!, healthProbe, { note: "ping" }, { actor: { type: "user", id: "user-1", display_name: "Dr. Test" }, requestId: "req-1" }))!;
    const job = await waitForJob(rt!.queue!, "system.health-probe", id);
    expect(job.state).toBe("completed");
    expect(job.output).toEqual({ ok: true, note: "ping", actor: "system:system.health-probe", caused_by: "user-1", attempt: 1, pid: process.pid });
  });

  test("enqueue validates the payload against the job's schema and refuses unknown job types", async () => {
    await expect(enqueue(rt!, auditRetention, { unexpected: true } as never)).rejects.toThrow();
    await expect(enqueue(rt!, healthProbe, { note: 42 } as never)).rejects.toThrow();
    await expect(enqueue(rt!, "no.such-job", {})).rejects.toThrow('unknown job type "no.such-job"');
  });

  test("the PGlite directory is held by one instance, and jobs survive a restart", async () => {
    await expect(createPgBossQueue(config, rt!.logger)).rejects.toThrow("already open in this process");
    const id = (await enqueue(rt!, healthProbe, {}))!;
    await waitForJob(rt!.queue!, "system.health-probe", id);

    await stopWorkers!();
    stopWorkers = null;
    await closeRuntime(rt!);
    rt = null;

    rt = await createRuntime(config, { reactions: REACTIONS });
    const job = await rt.queue!.getJob("system.health-probe", id);
    expect(job?.state).toBe("completed");
    expect(job?.output).toMatchObject({ ok: true, note: null });
  }, 30_000);
});

// --- PostgreSQL (QUEUE_DATABASE_URL), worker in a separate process ---------

const pgUnavailable = await postgresUnavailable("queue.test", "the PostgreSQL queue tests");
// test.skipIf, not describe.skipIf: bun would count the skipped hooks as unnamed tests
const pgTest = test.skipIf(!!pgUnavailable);

describe("job queue on PostgreSQL, worker process (workers/main.ts)", () => {
  const schema = `cusp_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const queueUrl = `${PG_URL}?schema=${schema}`;
  const config = configFor("postgres", { QUEUE_DATABASE_URL: queueUrl, WORKERS: "external" });
  let rt: Runtime | null = null;

  beforeAll(async () => {
    if (!pgUnavailable) rt = await createRuntime(config, { reactions: REACTIONS });
  }, 30_000);

  afterAll(async () => {
    if (pgUnavailable) return;
    if (rt) await closeRuntime(rt);
    const sql = new SQL({ url: PG_URL, max: 1 });
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await sql.close();
  });

  pgTest("QUEUE_DATABASE_URL selects PostgreSQL; its schema parameter names the pg-boss schema", async () => {
    expect(parseQueueUrl(queueUrl)).toEqual({ connectionString: PG_URL, schema });
    expect(rt!.queue!.kind).toBe("postgres");
    await rt!.queue!.ping();
  });

  pgTest(
    "a worker process picks up audit.retention end to end and stops cleanly on SIGTERM",
    async () => {
      const seeded = await seed(rt!);
      // Enqueued by the API side before any worker exists: the job waits in PostgreSQL.
      const retentionId = (await enqueue(rt!, auditRetention, {}))!;
      const probeId = (await enqueue(rt!, healthProbe, { note: "from api" }))!;

      const worker = Bun.spawn([process.execPath, "run", "workers/main.ts"], {
        cwd: ROOT,
        env: {
          ...process.env,
          DATA_DIR: config.dataDir,
          QUEUE_DATABASE_URL: queueUrl,
          AUDIT_RETENTION_DAYS: String(RETENTION_DAYS),
          LOG_LEVEL: "info",
          WORKERS: "external",
        },
        stdout: "pipe",
        stderr: "pipe",
      });
      const output = Promise.all([new Response(worker.stdout).text(), new Response(worker.stderr).text()]).then(([o, e]) => o + e);
      let exited = false;
      void worker.exited.then(() => {
        exited = true;
      });
      const diagnostics = () => (exited ? `(worker exited with ${worker.exitCode})` : "(worker still running)");
      try {
        const job = await waitForJob(rt!.queue!, "audit.retention", retentionId, 25_000, diagnostics);
        expectRetentionDone(job, await counts(rt!, seeded));
        const probe = await waitForJob(rt!.queue!, "system.health-probe", probeId, 10_000, diagnostics);
        expect(probe.output).toMatchObject({ ok: true, note: "from api", actor: "system:system.health-probe" });
        expect((probe.output as { pid: number }).pid).toBe(worker.pid);
        expect(await rt!.queue!.schedules()).toEqual([
          { name: "audit.retention", cron: "17 3 * * *", timezone: "UTC" },
          { name: "documents.resume", cron: "*/10 * * * *", timezone: "UTC" },
          { name: "iam.approvals.expire", cron: "17 * * * *", timezone: "UTC" },
          { name: "ledger.age-balances", cron: "5 0 * * *", timezone: "UTC" },
          { name: "orgs.purge", cron: "23 4 * * *", timezone: "UTC" },
          { name: "payment-plans.post-due", cron: "20 10 * * *", timezone: "UTC" },
          { name: "queue.outbox-sweep", cron: "*/5 * * * *", timezone: "UTC" },
          { name: "recalls.recompute", cron: "40 10 * * *", timezone: "UTC" },
          { name: "revenue.lists.drift", cron: "41 5 * * *", timezone: "UTC" },
        ]);
      } finally {
        worker.kill("SIGTERM");
      }
      expect(await worker.exited).toBe(0);
      const log = await output;
      expect(log).toContain('"msg":"workers started"');
      expect(log).toContain('"msg":"worker stopped"');
    },
    45_000,
  );
});
