import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { systemActor } from "@/platform/auth/actor";
import { enqueue } from "@/platform/queue/enqueue";
import type { QueueSettings } from "@/platform/queue/types";
import { startWorkers } from "@/platform/queue/workers";
import { paymentPlansPostDue } from "@/domains/account/payment-plans/post-due.job";
import postDueJob, { postDueHooks } from "@/domains/account/payment-plans/post-due.handler";
import { postDueInstallments } from "@/domains/account/payment-plans/service";
import { JOBS } from "@workers/registry";
import { auditOf, waitFor } from "@tests/helpers";
import { PG_URL, postgresUnavailable } from "@tests/support/postgres";
import { pgWorkerProcesses } from "@tests/support/worker-processes";
import { and, eq, inArray } from "drizzle-orm";
import { paymentPlans } from "@db/tenant/account";
import { ledgerEntries } from "@db/tenant/ledger";
import { all, run } from "@/platform/db/work";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { day, effect, planWorld, TODAY, type PlanWorld } from "./fixtures";

// payment-plans.post-due: every installment due and not yet posted, posted
// once, whether the job runs twice, after missed nights, twice at once or
// after a worker died part-way; run by hand, through its handler, and end to
// end through pg-boss on the embedded queue (PGlite) and on PostgreSQL.

/**
 * A weekly plan of `count` installments of 100.00 (no interest) on a debt of
 * that much, starting tomorrow: nothing due yet. The debt is old enough that
 * the tests may move the schedule back (time passing) and keep it older.
 */
async function weeklyPlan(w: PlanWorld, first: string, count = 10) {
  const p = await w.debtor(first, count * 100, day(-100));
  const plan = await w.ok(
    w.createPlan({ guarantor_uuid: p, patient_uuid: p, principal: count * 100, frequency: "weekly", installment_count: count, start_date: day(1) }),
  );
  return { patient: p, plan: plan.id as string };
}

/** The plan's installment charges: their dates, each once. */
async function installments(w: PlanWorld, patient: string, plan: string) {
  const rows = (await w.entries(patient)).filter((e) => e.payment_plan_id === plan && e.entry_type === "charge");
  return rows.map((e) => e.entry_date).sort();
}
const weeksFrom = (start: number, n: number) => Array.from({ length: n }, (_, i) => day(start + 7 * i));

describe("posting due installments, by hand", () => {
  let w: PlanWorld;
  beforeAll(async () => {
    w = await planWorld();
  });
  afterAll(() => w.t.close());

  test("a late run catches up every missed night; a second run, or the same day again, posts nothing", async () => {
    const { patient, plan } = await weeklyPlan(w, "Ava");
    const ctx = await w.jobContext();
    expect(await installments(w, patient, plan)).toEqual([]);
    // three weeks pass without a run: four installments have come due (today's included)
    await w.moveStart(plan, day(-21));
    expect(await postDueInstallments(ctx)).toEqual({ plans: 1, installments: 4, failed: [] });
    expect(await installments(w, patient, plan)).toEqual(weeksFrom(-21, 4));
    expect(await postDueInstallments(ctx)).toEqual({ plans: 0, installments: 0, failed: [] });
    expect(await postDueInstallments(ctx, { asOf: day(6) })).toEqual({ plans: 0, installments: 0, failed: [] });
    // the nights of day 7 and day 14 were missed: the run of day 20 posts both
    expect(await postDueInstallments(ctx, { asOf: day(20) })).toEqual({ plans: 1, installments: 2, failed: [] });
    expect(await postDueInstallments(ctx, { asOf: day(20) })).toMatchObject({ installments: 0 });
    expect(await installments(w, patient, plan)).toEqual(weeksFrom(-21, 6));
    // the books: the financed 1,000.00 left and 600.00 came back; all of it due on the plan
    const rows = await w.entries(patient);
    expect(rows.reduce((n, e) => n + effect(e), 0)).toBe(60_000);
    expect((await w.readPatient(patient)).payment_plan_due).toBe("600.00");
    expect(await w.readPlan(plan)).toMatchObject({
      installments_posted: 6,
      posted: "600.00",
      principal_remaining: "400.00",
      due: "600.00",
      next_due_date: day(21),
    });
    // long after the end: the rest, and nothing more
    expect(await postDueInstallments(ctx, { asOf: day(400) })).toMatchObject({ installments: 4 });
    expect(await installments(w, patient, plan)).toEqual(weeksFrom(-21, 10));
    expect(await w.readPlan(plan)).toMatchObject({ installments_posted: 10, principal_remaining: "0.00", next_due_date: null });
  });

  test("two runs at once post each installment once between them", async () => {
    const { patient, plan } = await weeklyPlan(w, "Ben");
    await w.moveStart(plan, day(-35));
    const [a, b] = await Promise.all([postDueInstallments(await w.jobContext("req-a")), postDueInstallments(await w.jobContext("req-b"))]);
    expect(a.installments + b.installments).toBe(6);
    expect([...a.failed, ...b.failed]).toEqual([]);
    expect(await installments(w, patient, plan)).toEqual(weeksFrom(-35, 6));
  });

  test("a run that dies after its first plan keeps that plan's postings; the next run posts the rest, nothing twice", async () => {
    const one = await weeklyPlan(w, "Cal");
    const two = await weeklyPlan(w, "Dot");
    for (const x of [one, two]) await w.moveStart(x.plan, day(-14));
    const done: string[] = [];
    const crash = postDueInstallments(await w.jobContext(), {
      afterPlan: (id) => {
        done.push(id);
        throw new Error("worker killed");
      },
    });
    await expect(crash).rejects.toThrow("worker killed");
    expect(done).toEqual([one.plan]);
    expect(await installments(w, one.patient, one.plan)).toEqual(weeksFrom(-14, 3));
    expect(await installments(w, two.patient, two.plan)).toEqual([]);
    expect(await postDueInstallments(await w.jobContext())).toEqual({ plans: 1, installments: 3, failed: [] });
    expect(await installments(w, one.patient, one.plan)).toEqual(weeksFrom(-14, 3));
    expect(await installments(w, two.patient, two.plan)).toEqual(weeksFrom(-14, 3));
  });

  test("closed plans post nothing; an archived patient's plan waits, and is caught up once they are restored", async () => {
    const closed = await weeklyPlan(w, "Eli");
    await w.ok(w.post(`/payment-plans/${closed.plan}/close`, { base_version: 1 }), 200);
    await w.moveStart(closed.plan, day(-14));
    const away = await weeklyPlan(w, "Fay");
    await w.moveStart(away.plan, day(-14));
    await w.ok(w.post(`/patients/${away.patient}/archive`, {}), 200);
    expect(await postDueInstallments(await w.jobContext())).toEqual({ plans: 0, installments: 0, failed: [] });
    expect(await installments(w, closed.patient, closed.plan)).toEqual([]);
    expect(await installments(w, away.patient, away.plan)).toEqual([]);
    await w.ok(w.post(`/patients/${away.patient}/restore`, {}), 200);
    expect(await postDueInstallments(await w.jobContext())).toEqual({ plans: 1, installments: 3, failed: [] });
  });

  test("the job: registered, daily at 10:20 UTC with missed runs made up; its handler posts in every org as the system actor with the job's request id", async () => {
    expect(JOBS.map((j) => j.definition)).toContain(paymentPlansPostDue);
    expect(paymentPlansPostDue).toMatchObject({ id: "payment-plans.post-due", cron: "20 10 * * *", missed: "once" });
    expect(paymentPlansPostDue.payload.safeParse({}).success).toBe(true);
    expect(paymentPlansPostDue.payload.safeParse({ org_id: "x" }).success).toBe(false);
    const { patient, plan } = await weeklyPlan(w, "Gus");
    await w.moveStart(plan, day(-7));
    const run = () =>
      postDueJob({
        rt: w.t.rt,
        payload: {},
        logger: w.t.rt.logger,
        actor: systemActor(paymentPlansPostDue.id),
        causedBy: systemActor(paymentPlansPostDue.id),
        orgId: null,
        requestId: "req-nightly",
        job: { id: "test", name: paymentPlansPostDue.id, retryCount: 0 },
      });
    const out = await run();
    expect(out).toMatchObject({ plans: 1, installments: 2, plans_failed: 0, orgs_failed: 0 });
    expect(out.orgs_processed).toBeGreaterThanOrEqual(2);
    expect(await run()).toMatchObject({ plans: 0, installments: 0 });
    const rows = (await w.entries(patient)).filter((e) => e.entry_type === "charge" && e.payment_plan_id === plan);
    expect(rows.map((e) => e.entry_date).sort()).toEqual([day(-7), TODAY]);
    for (const e of rows) {
      expect((await auditOf(w.t, w.orgA, e.id)).map((a: any) => [a.action, a.actor_id, a.request_id])).toEqual([
        ["ledger_entry.created", "system:payment-plans.post-due", "req-nightly"],
      ]);
    }
  });
});

// --- through pg-boss: the embedded queue, and PostgreSQL when it answers ----------------------

type QueueWorld = { w: PlanWorld; stop: () => Promise<void> };

async function queueWorld(env: Record<string, string> = {}): Promise<QueueWorld> {
  const w = await planWorld({ withQueue: true, env });
  const stop = await startWorkers(w.t.rt, JOBS);
  // a retry at once (the definition waits 60 s and backs off)
  await w.t.rt.queue!.ensureQueue(paymentPlansPostDue.id, { ...paymentPlansPostDue.queue, retryDelay: 0, retryBackoff: false } as QueueSettings);
  return { w, stop };
}

/**
 * Two plans with installments due; the job's first attempt dies after the
 * first plan's write; pg-boss retries it; the retry posts the second plan's
 * and finds the first's done: every installment exactly once, as the job's
 * actor carrying its request id.
 */
async function killedMidJob({ w }: QueueWorld) {
  const one = await weeklyPlan(w, "Hana");
  const two = await weeklyPlan(w, "Ivo");
  for (const x of [one, two]) await w.moveStart(x.plan, day(-14));
  const requestId = `req-post-due-${Bun.randomUUIDv7()}`;
  const calls: { planId: string; attempt: number }[] = [];
  postDueHooks.afterPlan = (info) => {
    if (info.requestId !== requestId) return;
    calls.push({ planId: info.planId, attempt: info.attempt });
    if (info.attempt === 1) throw new Error("worker killed after its first plan");
  };
  try {
    const id = (await enqueue(w.t.rt, paymentPlansPostDue, {}, { requestId }))!;
    const job = await waitFor(
      async () => {
        const j = await w.t.rt.queue!.getJob(paymentPlansPostDue.id, id);
        return j && ["completed", "failed"].includes(j.state) ? j : null;
      },
      { timeoutMs: 25_000, intervalMs: 50, what: "the post-due job" },
    );
    expect(job).toMatchObject({ state: "completed", retryCount: 1 });
    expect(job.output).toMatchObject({ plans: 1, installments: 3, plans_failed: 0, orgs_failed: 0 });
  } finally {
    postDueHooks.afterPlan = undefined;
  }
  expect(calls).toEqual([
    { planId: one.plan, attempt: 1 },
    { planId: two.plan, attempt: 2 },
  ]);
  for (const x of [one, two]) {
    expect(await installments(w, x.patient, x.plan)).toEqual(weeksFrom(-14, 3));
    for (const e of (await w.entries(x.patient)).filter((r) => r.entry_type === "charge" && r.payment_plan_id === x.plan)) {
      expect((await auditOf(w.t, w.orgA, e.id)).map((a: any) => [a.actor_id, a.request_id])).toEqual([["system:payment-plans.post-due", requestId]]);
    }
    expect((await w.readPatient(x.patient)).payment_plan_due).toBe("300.00");
  }
}

describe("payment-plans.post-due on the embedded queue (PGlite, workers in-process)", () => {
  let q: QueueWorld;
  beforeAll(async () => {
    q = await queueWorld();
  }, 30_000);
  afterAll(async () => {
    await q.stop();
    await q.w.t.close();
  });

  test("a worker killed mid-job is retried by pg-boss: each installment posted exactly once", async () => {
    await killedMidJob(q);
  }, 30_000);

  test("the job sent again finds nothing to post", async () => {
    const id = (await enqueue(q.w.t.rt, paymentPlansPostDue, {}))!;
    const job = await waitFor(
      async () => {
        const j = await q.w.t.rt.queue!.getJob(paymentPlansPostDue.id, id);
        return j && j.state === "completed" ? j : null;
      },
      { timeoutMs: 10_000, intervalMs: 50, what: "the second job" },
    );
    expect(job.output).toMatchObject({ plans: 0, installments: 0 });
  }, 20_000);
});

const pgUnavailable = await postgresUnavailable("post-due.test", "the PostgreSQL queue test");
// test.skipIf, not describe.skipIf: bun would count the skipped hooks as unnamed tests
const pgTest = test.skipIf(!!pgUnavailable);

describe("payment-plans.post-due on PostgreSQL (QUEUE_DATABASE_URL, workers in-process)", () => {
  const schema = `cusp_plans_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  let q: QueueWorld | null = null;
  beforeAll(async () => {
    if (!pgUnavailable) q = await queueWorld({ QUEUE_DATABASE_URL: `${PG_URL}?schema=${schema}` });
  }, 30_000);
  afterAll(async () => {
    if (pgUnavailable) return;
    await q?.stop();
    await q?.w.t.close();
    const sql = new SQL({ url: PG_URL, max: 1 });
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await sql.close();
  });

  pgTest(
    "a worker killed mid-job is retried by pg-boss: each installment posted exactly once",
    async () => {
      expect(q!.w.t.rt.queue!.kind).toBe("postgres");
      await killedMidJob(q!);
    },
    30_000,
  );
});

describe("payment-plans.post-due on PostgreSQL, a worker process (workers/main.ts) killed mid-job", () => {
  const queue = pgWorkerProcesses("cusp_plans");
  let w: PlanWorld | null = null;
  beforeAll(async () => {
    if (!pgUnavailable) w = await planWorld({ withQueue: true, env: { QUEUE_DATABASE_URL: queue.queueUrl, WORKERS: "external" } });
  }, 30_000);
  afterAll(async () => {
    if (!pgUnavailable) await queue.cleanup(async () => w?.t.close());
  });

  pgTest(
    "the job waits in PostgreSQL, a worker process takes it; killed part-way, the job sent again finishes: every installment once",
    async () => {
      const n = 240;
      const plans: { patient: string; plan: string }[] = [];
      for (let i = 0; i < n; i += 20) plans.push(...(await Promise.all(Array.from({ length: 20 }, (_, j) => weeklyPlan(w!, `P${i + j}`, 3)))));
      const ids = plans.map((x) => x.plan);
      const db = await orgDb(w!.t, w!.orgA);
      // two weeks pass: three installments due on each plan
      await db.write((tx) =>
        run(
          tx
            .update(paymentPlans)
            .set({ start_date: day(-14) })
            .where(inArray(paymentPlans.id, ids)),
        ),
      );
      const postedPerPlan = async () => {
        const rows = await db.read((d) =>
          all<{ plan: string | null }>(
            d
              .select({ plan: ledgerEntries.payment_plan_id })
              .from(ledgerEntries)
              .where(and(inArray(ledgerEntries.payment_plan_id, ids), eq(ledgerEntries.entry_type, "charge"))),
          ),
        );
        const counts = new Map<string, number>();
        for (const r of rows) counts.set(r.plan!, (counts.get(r.plan!) ?? 0) + 1);
        return counts;
      };
      await enqueue(w!.t.rt, paymentPlansPostDue, {}); // before any worker exists
      const first = queue.spawn(w!.t.dir);
      await waitFor(async () => (await postedPerPlan()).size >= 5, { timeoutMs: 20_000, intervalMs: 5, what: "the worker's first plans" });
      first.kill("SIGKILL");
      await first.exited;
      const partial = await postedPerPlan();
      expect(partial.size).toBeGreaterThanOrEqual(5);
      expect(partial.size).toBeLessThan(n);
      expect([...partial.values()].filter((c) => c !== 3)).toEqual([]); // whole plans only: each is one write

      // pg-boss retries a killed attempt once it expires; the retry is the same job sent again
      queue.spawn(w!.t.dir);
      await enqueue(w!.t.rt, paymentPlansPostDue, {});
      await waitFor(async () => (await postedPerPlan()).size === n, { timeoutMs: 30_000, intervalMs: 50, what: "every plan posted" });
      const done = await postedPerPlan();
      expect([...done.values()].filter((c) => c !== 3)).toEqual([]);
      for (const x of plans.slice(0, 5)) expect(await installments(w!, x.patient, x.plan)).toEqual(weeksFrom(-14, 3));
      expect((await w!.readPatient(plans[n - 1]!.patient)).payment_plan_due).toBe("300.00");
    },
    90_000,
  );
});
