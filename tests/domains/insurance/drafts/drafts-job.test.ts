import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { systemActor } from "@/platform/auth/actor";
import type { EventEnvelope } from "@/platform/events/envelope";
import type { QueuedJob, QueueSettings } from "@/platform/queue/types";
import { draftsMatch } from "@/domains/insurance/drafts/drafts-match.job";
import draftsMatchJob from "@/domains/insurance/drafts/drafts-match.handler";
import { matchImportDrafts, MATCH_BATCH_SIZE } from "@/domains/insurance/drafts/batches";
import { JOBS } from "@workers/registry";
import { enqueue } from "@/platform/queue/enqueue";
import { startWorkers } from "@/platform/queue/workers";
import { busDrained, startTestApp, waitFor, type TestApp } from "@tests/helpers";
import { attemptedCount, carrier, created, draftRows, generatedRow, insurancePath, matchedAuditsPerDraft, patient, plan, runMatchJob } from "./fixtures";
import { postgresUnavailable } from "@tests/support/postgres";
import { pgWorkerProcesses } from "@tests/support/worker-processes";

// The matching job end to end: idempotent, a crash between batches loses and doubles nothing,
// through pg-boss on the embedded PGlite queue (a 10,000-row import) and on PostgreSQL with a
// separate worker process killed mid-job (skipped when 127.0.0.1:5432 does not answer).

/** A 10,000-row import is ~2.6 MB and ~190,000 JSON values: above the default body bounds (docs/insurance/insurance-drafts.md). */
const SUBSCRIBER = { first: "Dana", last: "Reyes", dob: "1985-03-02" };

type World = { t: TestApp; admin: string; orgId: string; patientId: string; events: EventEnvelope[] };

/** An org with Delta (plans G-100 and G-200) and the patient Dana Reyes; generated rows match 2 in 3 (G-999 is pending). */
async function world(t: TestApp): Promise<World> {
  const admin = await t.adminToken();
  const orgId = (await t.createOrg()).id;
  const events: EventEnvelope[] = [];
  t.rt.events.subscribe(orgId, (e) => events.push(e));
  const delta = await carrier(t, admin, orgId, "Delta Dental of California", "94276");
  await plan(t, admin, orgId, delta.id, { group_number: "G-100" });
  await plan(t, admin, orgId, delta.id, { group_number: "G-200" });
  const p = await patient(t, admin, orgId, SUBSCRIBER.first, SUBSCRIBER.last, SUBSCRIBER.dob);
  return { t, admin, orgId, patientId: p.id, events };
}

const rowsOf = (n: number) => Array.from({ length: n }, (_, i) => generatedRow(i, SUBSCRIBER));
const importOf = (w: World, n: number) => created(w.t, w.admin, `${insurancePath(w.orgId)}/drafts/import`, { patient_uuid: w.patientId, rows: rowsOf(n) });

/** Every draft of the import attempted once: version 2, exactly one matched audit entry, 2 in 3 matched. */
async function expectMatchedOnce(w: World, importId: string, n: number) {
  const rows = await draftStates(w, importId);
  expect(rows.length).toBe(n);
  expect(rows.filter((r: any) => !r.match_attempted || r.version !== 2)).toEqual([]);
  expect(rows.map((r: any) => r.review_status)).toEqual(rows.map((_: unknown, i: number) => (i % 3 === 2 ? "pending" : "matched")));
  const audits = await matchedAuditsPerDraft(w.t, w.orgId, importId);
  expect(audits.size).toBe(n);
  expect([...audits.values()].filter((c) => c !== 1)).toEqual([]);
}

/** The stored drafts of the import, in row order. */
const draftStates = (w: World, importId: string) => draftRows(w.t, w.orgId, importId);

async function importOutcomes(w: World, importId: string) {
  await busDrained(w.t.rt.bus);
  return w.events.filter((e) => e.type === "insurance_draft_import.matched" && e.resource_id === importId);
}

describe("the insurance.drafts-match job, run by hand", () => {
  let w: World;
  beforeAll(async () => {
    w = await world(await startTestApp());
  });
  afterAll(() => w.t.close());

  test("it is registered, one-off, with a strict payload of ids", () => {
    expect(JOBS.map((j) => j.definition)).toContain(draftsMatch);
    expect(draftsMatch.id).toBe("insurance.drafts-match");
    expect(draftsMatch.cron).toBeUndefined();
    expect(draftsMatch.payload.safeParse({ import_id: w.patientId, patient_id: w.patientId }).success).toBe(true);
    expect(draftsMatch.payload.safeParse({ import_id: w.patientId }).success).toBe(false);
    expect(draftsMatch.payload.safeParse({ import_id: w.patientId, patient_id: w.patientId, rows: [] }).success).toBe(false);
  });

  test("batches of 500; run twice, the second run finds nothing and changes nothing", async () => {
    const r = await importOf(w, 1_200);
    const first = await runMatchJob(w.t, w.orgId, r.import_id, w.patientId);
    expect(first).toEqual({ import_id: r.import_id, drafts_matched: 1_200, matched: 800, pending: 400, error: 0, batches: 3 });
    await expectMatchedOnce(w, r.import_id, 1_200);
    const before = await draftStates(w, r.import_id);
    const again = await runMatchJob(w.t, w.orgId, r.import_id, w.patientId);
    expect(again).toEqual({ import_id: r.import_id, drafts_matched: 0, matched: 0, pending: 0, error: 0, batches: 0 });
    expect(await draftStates(w, r.import_id)).toEqual(before);
    await expectMatchedOnce(w, r.import_id, 1_200);
    expect(await importOutcomes(w, r.import_id)).toHaveLength(1);
  });

  test("a crash after the first batch keeps that batch; the retry matches the rest, each draft exactly once", async () => {
    const r = await importOf(w, 1_200);
    const ctx = (await w.t.rt.orgs.openOrgForJob(w.orgId, { actor: systemActor(draftsMatch.id), requestId: "req-crash" }))!;
    const crash = matchImportDrafts(ctx, r.import_id, w.patientId, {
      onBatch: () => {
        throw new Error("worker killed");
      },
    });
    await expect(crash).rejects.toThrow("worker killed");
    expect(await attemptedCount(w.t, w.orgId, r.import_id)).toBe(MATCH_BATCH_SIZE);
    expect(await importOutcomes(w, r.import_id)).toHaveLength(0);
    const retry = await runMatchJob(w.t, w.orgId, r.import_id, w.patientId);
    expect(retry).toMatchObject({ drafts_matched: 700, batches: 2 });
    await expectMatchedOnce(w, r.import_id, 1_200);
    expect(await importOutcomes(w, r.import_id)).toHaveLength(1);
  });

  test("two copies of the job at once: each draft matched once between them", async () => {
    const r = await importOf(w, 1_100);
    const [a, b] = await Promise.all([runMatchJob(w.t, w.orgId, r.import_id, w.patientId), runMatchJob(w.t, w.orgId, r.import_id, w.patientId)]);
    expect((a as any).drafts_matched + (b as any).drafts_matched).toBe(1_100);
    await expectMatchedOnce(w, r.import_id, 1_100);
    expect(await importOutcomes(w, r.import_id)).toHaveLength(1);
  });

  test("an org that no longer exists: nothing to do", async () => {
    const out = await draftsMatchJob({
      rt: w.t.rt,
      payload: { import_id: w.patientId, patient_id: w.patientId },
      logger: w.t.rt.logger,
      actor: systemActor(draftsMatch.id),
      causedBy: systemActor(draftsMatch.id),
      orgId: "01970000-0000-7000-8000-0000000000ee",
      requestId: null,
      job: { id: "x", name: draftsMatch.id, retryCount: 0 },
    });
    expect(out).toMatchObject({ org_missing: true });
  });
});

describe("through pg-boss on the embedded queue (PGlite), workers in-process", () => {
  let w: World;
  let stopWorkers: (() => Promise<void>) | null = null;
  beforeAll(async () => {
    w = await world(await startTestApp({}, { withQueue: true }));
  }, 30_000);
  afterAll(async () => {
    await stopWorkers?.();
    await w.t.close();
  });

  test("an attempt that dies after its first batch is retried by pg-boss; every draft matched exactly once", async () => {
    const queue = w.t.rt.queue!;
    // retry at once, and poll every 0.5 s: with NOTIFY on, pg-boss polls only every 30 s, and a retry sends no NOTIFY
    await queue.ensureQueue(draftsMatch.id, { ...draftsMatch.queue, retryDelay: 0, retryBackoff: false, notify: false } as QueueSettings);
    const attempts: number[] = [];

    // the registry's runner, except that the first attempt stops dead after its first batch
    await queue.work(draftsMatch.id, { pollingIntervalSeconds: 0.5 }, async (job: QueuedJob<any>) => {
      attempts.push(job.retryCount);
      if (job.retryCount > 0) return runMatchJob(w.t, job.data.org_id!, job.data.payload.import_id, job.data.payload.patient_id);
      const ctx = (await w.t.rt.orgs.openOrgForJob(job.data.org_id!, { actor: systemActor(draftsMatch.id), requestId: job.data.request_id }))!;
      return matchImportDrafts(ctx, job.data.payload.import_id, job.data.payload.patient_id, {
        onBatch: () => {
          throw new Error("worker killed after its first batch");
        },
      });
    });
    const r = await importOf(w, 1_200);
    await waitFor(async () => (await attemptedCount(w.t, w.orgId, r.import_id)) === 1_200, {
      timeoutMs: 20_000,
      intervalMs: 50,
      what: () => `every draft attempted (attempts so far: ${attempts})`,
    });
    await queue.offWork(draftsMatch.id);
    expect(attempts).toEqual([0, 1]);
    await expectMatchedOnce(w, r.import_id, 1_200);
    // the event follows the last batch's commit (after its audit index write)
    await waitFor(async () => (await importOutcomes(w, r.import_id)).length > 0);
    expect(await importOutcomes(w, r.import_id)).toHaveLength(1);
  }, 30_000);

  test("10,000 rows: the import answers at once, the worker matches them all in the background; sending the job again changes nothing", async () => {
    stopWorkers = await startWorkers(w.t.rt, JOBS);
    const started = performance.now();
    const r = await importOf(w, 10_000);
    const answeredMs = performance.now() - started;
    expect(r.draft_count).toBe(10_000);
    expect(r.drafts.items.every((d: any) => d.match_attempted === false)).toBe(true);
    expect(answeredMs).toBeLessThan(3_000);
    await waitFor(async () => (await attemptedCount(w.t, w.orgId, r.import_id)) === 10_000, {
      timeoutMs: 40_000,
      intervalMs: 100,
      what: "10,000 drafts attempted",
    });
    await expectMatchedOnce(w, r.import_id, 10_000);
    // the event follows the last batch's commit (after its audit index write): wait for it
    const [outcome] = await waitFor(async () => {
      const found = await importOutcomes(w, r.import_id);
      return found.length ? found : null;
    });
    expect(outcome!.data).toMatchObject({ import_id: r.import_id, draft_count: 10_000, matched: 6_667, pending: 3_333, error: 0 });
    expect(outcome!.data).not.toHaveProperty("rows");

    const before = await draftStates(w, r.import_id);
    const id = (await enqueue(w.t.rt, draftsMatch, { import_id: r.import_id, patient_id: w.patientId }, { orgId: w.orgId }))!;
    const job = await waitFor(
      async () => {
        const j = await w.t.rt.queue!.getJob(draftsMatch.id, id);
        return j && j.state === "completed" ? j : null;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: "the second job" },
    );
    expect(job.output).toMatchObject({ drafts_matched: 0, batches: 0 });
    expect(await draftStates(w, r.import_id)).toEqual(before);
    expect(await importOutcomes(w, r.import_id)).toHaveLength(1);
    console.log(`drafts-job.test: 10,000-row import answered in ${Math.round(answeredMs)} ms`);
  }, 60_000);
});

// --- PostgreSQL (QUEUE_DATABASE_URL), a separate worker process ----------------------------

const pgUnavailable = await postgresUnavailable("drafts-job.test", "the PostgreSQL queue test");
// test.skipIf, not describe.skipIf: bun would count the skipped hooks as unnamed tests
const pgTest = test.skipIf(!!pgUnavailable);

describe("through pg-boss on PostgreSQL, a worker process (workers/main.ts) killed mid-job", () => {
  const queue = pgWorkerProcesses("cusp_drafts");
  let w: World | null = null;
  const spawnWorker = () => queue.spawn(w!.t.dir);

  beforeAll(async () => {
    if (!pgUnavailable) w = await world(await startTestApp({ QUEUE_DATABASE_URL: queue.queueUrl, WORKERS: "external" }, { withQueue: true }));
  }, 30_000);

  afterAll(async () => {
    if (!pgUnavailable) await queue.cleanup(async () => w?.t.close());
  });

  pgTest(
    "the import's job waits in PostgreSQL, a worker process takes it; killed after a batch, the job sent again finishes: nothing lost or doubled",
    async () => {
      expect(w!.t.rt.queue!.kind).toBe("postgres");
      const n = 4_000;
      const r = await importOf(w!, n); // enqueued after commit, before any worker exists
      const first = spawnWorker();
      await waitFor(async () => (await attemptedCount(w!.t, w!.orgId, r.import_id)) >= MATCH_BATCH_SIZE, {
        timeoutMs: 20_000,
        intervalMs: 10,
        what: "the worker's first batch",
      });
      first.kill("SIGKILL");
      await first.exited;
      const done = await attemptedCount(w!.t, w!.orgId, r.import_id);
      expect(done).toBeGreaterThanOrEqual(MATCH_BATCH_SIZE);
      expect(done).toBeLessThan(n);
      expect(done % MATCH_BATCH_SIZE).toBe(0); // whole batches only: each is one write

      // pg-boss retries a killed attempt once it expires; the retry is the same job sent again
      spawnWorker();
      await enqueue(w!.t.rt, draftsMatch, { import_id: r.import_id, patient_id: w!.patientId }, { orgId: w!.orgId });
      await waitFor(async () => (await attemptedCount(w!.t, w!.orgId, r.import_id)) === n, {
        timeoutMs: 30_000,
        intervalMs: 50,
        what: "every draft attempted",
      });
      await expectMatchedOnce(w!, r.import_id, n);
    },
    60_000,
  );
});
