import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { auditEntries } from "@db/tenant/audit";
import { statements } from "@db/tenant/account";
import { all } from "@/platform/db/work";
import { enqueue } from "@/platform/queue/enqueue";
import type { QueueSettings } from "@/platform/queue/types";
import { startWorkers } from "@/platform/queue/workers";
import { addDays, todayUtc } from "@/platform/time/dates";
import { statementsBatch } from "@/domains/account/statements/batch.job";
import { statementsRender } from "@/domains/account/statements/render.job";
import { statementHooks } from "@/domains/account/statements/produce";
import { JOBS } from "@workers/registry";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { waitFor } from "@tests/helpers";
import { postgresUnavailable, PG_URL } from "@tests/support/postgres";
import { pgWorkerProcesses } from "@tests/support/worker-processes";
import { statementsWorld, type StatementsWorld } from "./fixtures";
import { startSmtpReceiver } from "./smtp-receiver";

// The statement jobs end to end through pg-boss: a POST queues statements.render
// after its commit, a batch queues statements.batch, which queues a render per
// statement; workers run them. On the embedded queue (PGlite) and on the local
// PostgreSQL, where a render killed mid-job is retried and makes one document,
// and a worker process (workers/main.ts) killed in the middle of a batch leaves
// nothing half done: each statement ends with exactly one document.

const TODAY = todayUtc();
const ago = (d: number) => addDays(TODAY, -d);

/** Retries at once (the definition waits 10 s, doubling): the retry is picked up at the next 2 s poll. */
async function retryAtOnce(w: StatementsWorld) {
  await w.t.rt.queue!.ensureQueue(statementsRender.id, { ...statementsRender.queue, retryDelay: 0, retryBackoff: false } as QueueSettings);
}

const statusOf = async (w: StatementsWorld, id: string) => (await w.ok(w.get(`/statements/${id}`), 200)).status as string;

/** A guarantor owing `amount` (a charge 6 days ago), with `fields`. */
async function owing(w: StatementsWorld, first: string, amount: number, fields: Record<string, unknown> = {}, last = "Queue") {
  const g = await w.patient(first, fields, last);
  await w.entry(g, "charge", amount, ago(6), "Sealant");
  return g;
}

/** One document per statement of `ids`, one version each, each statement.ready audited once. */
async function expectOneDocumentEach(w: StatementsWorld, ids: string[]) {
  const docs = (await w.documentRows()).filter((d) => ids.includes(d.id));
  expect(docs.length).toBe(ids.length);
  const db = await orgDb(w.t, w.orgA);
  const readies = await db.read((d) =>
    all<{ id: string; n: number }>(
      d
        .select({ id: auditEntries.resource_id, n: sql<number>`count(*)` })
        .from(auditEntries)
        .where(eq(auditEntries.action, "statement.ready"))
        .groupBy(auditEntries.resource_id),
    ),
  );
  const counts = new Map(readies.map((r) => [r.id, r.n]));
  expect(ids.filter((id) => counts.get(id) !== 1)).toEqual([]);
  for (const id of ids.slice(0, 5)) expect(await w.versionRows(id)).toHaveLength(1);
}

/** A render whose first attempt dies after rendering: pg-boss retries it, and it makes one document. */
async function killedMidRender(w: StatementsWorld) {
  const g = await owing(w, "Kim", 45);
  // armed before the POST: an in-process worker may take the job before the answer is back
  const calls: { statementId: string; attempt: number }[] = [];
  statementHooks.beforeStore = (info) => {
    calls.push(info);
    if (info.attempt === 1) throw new Error("worker killed mid-render");
  };
  try {
    const st = await w.ok(w.post("/statements", { guarantor_uuid: g }), 202);
    await waitFor(async () => (await statusOf(w, st.id)) === "ready", { timeoutMs: 20_000, intervalMs: 50, what: "the retried render" });
    expect(calls).toEqual([
      { statementId: st.id, attempt: 1 },
      { statementId: st.id, attempt: 2 },
    ]);
    await expectOneDocumentEach(w, [st.id]);
    expect(await w.ok(w.get(`/statements/${st.id}`), 200)).toMatchObject({ status: "ready", document_uuid: st.id, amount_due: "45.00" });
  } finally {
    statementHooks.beforeStore = undefined;
  }
}

describe("on the embedded queue (PGlite), workers in-process", () => {
  let w: StatementsWorld;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    w = await statementsWorld({ withQueue: true, env: { SMTP_URL: smtp.url } });
    stop = await startWorkers(w.t.rt, JOBS);
    await retryAtOnce(w);
  }, 30_000);
  afterAll(async () => {
    await stop();
    await w.t.close();
    await smtp.close();
  });

  test("POST queues the render after commit; the worker makes it ready", async () => {
    const g = await owing(w, "Una", 25);
    const st = await w.ok(w.post("/statements", { guarantor_uuid: g }), 202);
    await waitFor(async () => (await statusOf(w, st.id)) === "ready", { timeoutMs: 15_000, intervalMs: 50, what: "the statement ready" });
    await expectOneDocumentEach(w, [st.id]);
  }, 30_000);

  test("a render killed mid-job is retried by pg-boss and makes one document", async () => {
    await killedMidRender(w);
  }, 30_000);

  test("a batch by email: selected, rendered and mailed by the workers; progress to done; one document and one mail each", async () => {
    const emailable: string[] = [];
    for (let i = 0; i < 12; i++) {
      const accepts = i % 2 === 0;
      const g = await owing(w, `Bea${i}`, 20 + i, accepts ? { email: `bea${i}@example.com`, receives_email: true } : {}, "Batchmail");
      if (accepts) emailable.push(g);
    }
    // the guarantors of the earlier tests had a statement within 30 days: only the twelve are selected
    const batch = await w.ok(w.post("/statements/batch", { mode: "email", skip_if_sent_within_days: 30 }), 202);
    const done = await waitFor(
      async () => {
        const b = await w.ok(w.get(`/statement-batches/${batch.id}`), 200);
        return b.status === "done" ? b : null;
      },
      { timeoutMs: 30_000, intervalMs: 25, what: "the batch done" },
    );
    expect(done).toMatchObject({ total: 12, done: 12, failed: 0 });
    const made = (await w.ok(w.get(`/statements?batch_uuid=${batch.id}&page_size=200`), 200)).items;
    expect(
      made
        .filter((s: any) => s.status === "sent")
        .map((s: any) => s.guarantor.uuid)
        .sort(),
    ).toEqual(emailable.sort());
    expect(made.filter((s: any) => s.status === "ready").every((s: any) => s.status_reason === "Not emailed: the guarantor does not accept email")).toBe(true);
    await expectOneDocumentEach(
      w,
      made.map((s: any) => s.id),
    );
    const mailed = smtp.received.filter((r) => r.envelope.to.some((to) => /^bea\d+@example\.com$/.test(to)));
    expect(mailed).toHaveLength(6);
    expect(mailed.every((m) => m.mail.attachments.length === 1 && m.mail.attachments[0]!.contentType === "application/pdf")).toBe(true);
  }, 60_000);
});

// --- the local PostgreSQL (QUEUE_DATABASE_URL), when it answers -------------------------------

const pgUnavailable = await postgresUnavailable("statements jobs.test", "the PostgreSQL queue tests");
// test.skipIf, not describe.skipIf: bun would count the skipped hooks as unnamed tests
const pgTest = test.skipIf(!!pgUnavailable);

describe("on PostgreSQL, workers in-process", () => {
  const schema = `cusp_stmt_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  let w: StatementsWorld | null = null;
  let stop: (() => Promise<void>) | null = null;
  beforeAll(async () => {
    if (pgUnavailable) return;
    w = await statementsWorld({ withQueue: true, env: { QUEUE_DATABASE_URL: `${PG_URL}?schema=${schema}` } });
    stop = await startWorkers(w.t.rt, JOBS);
    await retryAtOnce(w);
  }, 30_000);
  afterAll(async () => {
    if (pgUnavailable) return;
    await stop?.();
    await w?.t.close();
    const { SQL } = await import("bun");
    const pg = new SQL({ url: PG_URL, max: 1 });
    await pg.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await pg.close();
  });

  pgTest(
    "a render killed mid-job is retried by pg-boss and makes one document",
    async () => {
      expect(w!.t.rt.queue!.kind).toBe("postgres");
      await killedMidRender(w!);
    },
    30_000,
  );
});

describe("on PostgreSQL, a worker process (workers/main.ts) killed in the middle of a batch", () => {
  const queue = pgWorkerProcesses("cusp_stmt_proc");
  let w: StatementsWorld | null = null;
  const spawnWorker = () => queue.spawn(w!.t.dir);
  beforeAll(async () => {
    if (!pgUnavailable) w = await statementsWorld({ withQueue: true, env: { QUEUE_DATABASE_URL: queue.queueUrl, WORKERS: "external" } });
  }, 30_000);
  afterAll(async () => {
    if (!pgUnavailable) await queue.cleanup(async () => w?.t.close());
  });

  pgTest(
    "every statement ends with exactly one document; a statement has its document exactly when it is ready",
    async () => {
      const wd = w!;
      expect(wd.t.rt.queue!.kind).toBe("postgres");
      const n = 150;
      for (let i = 0; i < n; i++) await owing(wd, `Pat${i}`, 10 + i, {}, "Crowd");
      const batch = await wd.ok(wd.post("/statements/batch", {}), 202); // its job waits in PostgreSQL
      const db = await orgDb(wd.t, wd.orgA);
      const rows = () => db.read((d) => all<typeof statements.$inferSelect>(d.select().from(statements).where(eq(statements.batch_id, batch.id))));
      const first = spawnWorker();
      await waitFor(async () => (await rows()).filter((r) => r.status !== "pending").length >= 20, {
        timeoutMs: 40_000,
        intervalMs: 5,
        what: "the worker's first statements",
      });
      first.kill("SIGKILL");
      await first.exited;
      const cut = await rows();
      const finished = cut.filter((r) => r.status !== "pending");
      expect(finished.length).toBeGreaterThanOrEqual(20);
      expect(finished.length).toBeLessThan(n);
      // nothing half done: a document exists exactly for the statements that are ready
      const docs = new Set((await wd.documentRows()).map((d) => d.id));
      expect(cut.filter((r) => docs.has(r.id) !== (r.status === "ready"))).toEqual([]);

      // pg-boss retries a killed attempt once it expires: the retries are the same jobs sent again
      spawnWorker();
      await enqueue(wd.t.rt, statementsBatch, { batch_id: batch.id }, { orgId: wd.orgA });
      for (const r of cut.filter((x) => x.status === "pending")) await enqueue(wd.t.rt, statementsRender, { statement_id: r.id }, { orgId: wd.orgA });
      const done = await waitFor(
        async () => {
          const b = await wd.ok(wd.get(`/statement-batches/${batch.id}`), 200);
          return b.status === "done" ? b : null;
        },
        { timeoutMs: 60_000, intervalMs: 50, what: "the batch done" },
      );
      expect(done).toMatchObject({ total: n, done: n, failed: 0 });
      const all_ = await rows();
      expect(all_.length).toBe(n);
      expect(new Set(all_.map((r) => r.guarantor_id)).size).toBe(n);
      expect(all_.every((r) => r.status === "ready" && r.document_id === r.id)).toBe(true);
      await expectOneDocumentEach(
        wd,
        all_.map((r) => r.id),
      );
    },
    120_000,
  );
});
