import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { JobRecord } from "@/platform/queue/types";
import { auditOf, waitFor } from "@tests/helpers";
import { startWorkers } from "@/platform/queue/workers";
import { JOBS } from "@workers/registry";
import { recordSentJobs } from "@tests/support/jobs";
import { recomputeHooks } from "@/domains/insurance/estimates/recompute.handler";
import { coveredPatient, estimateRows, estimateWorld, eventsOfType, setUpOffice, SETUP_TIMEOUT_MS, type Office } from "./fixtures";
import { PG_URL, dropSchema, postgresUnavailable, scratchSchema } from "@tests/support/postgres";

// estimates.recompute end to end: a write that changes an estimate's inputs
// enqueues the job after commit; the worker re-estimates the stale estimates
// of the affected treatment plans as the system actor carrying the request's
// id. On the embedded queue (PGlite) and on the local PostgreSQL.

type World = Awaited<ReturnType<typeof estimateWorld>> & {
  sent: { name: string; id: string }[];
  stop: () => Promise<void>;
  /** Run set-up writes without their jobs: the test builds (and estimates) the state those jobs would find. */
  quietly<T>(work: () => Promise<T>): Promise<T>;
};

/** A world whose queue records every job sent, with workers running in-process. */
async function queueWorld(env: Record<string, string> = {}): Promise<World> {
  const w = await estimateWorld(env, { withQueue: true });
  const { sent, quietly } = recordSentJobs(w.t, "estimates.recompute");
  const stop = await startWorkers(w.t.rt, JOBS);
  return { ...w, sent, stop, quietly };
}

const FINAL = ["completed", "failed", "cancelled"];

/** Wait until every job sent so far has finished; answers the recompute jobs sent from index `from`. */
async function drained(w: World, from = 0): Promise<JobRecord[]> {
  const jobs = [...w.sent];
  const records: JobRecord[] = [];
  for (const j of jobs) {
    records.push(
      await waitFor(
        async () => {
          const r = await w.t.rt.queue!.getJob(j.name, j.id);
          return r && FINAL.includes(r.state) ? r : null;
        },
        { timeoutMs: 25_000, intervalMs: 25, what: `job ${j.name} ${j.id}` },
      ),
    );
  }
  return records.slice(from).filter((r) => r.name === "estimates.recompute");
}

const ok = async (p: Promise<{ status: number; text: string; body: any }>, want = 200) => {
  const r = await p;
  if (r.status !== want) throw new Error(`${r.status} ${r.text}`);
  return r.body;
};

/** Plan A's crowns percent, as a plan PATCH (which enqueues the job) carrying our own request id. */
async function setCrowns(w: World, office: Office, percent: number, requestId: string) {
  const url = `/api/v1/${w.orgA}/insurance/plans/${office.planA}`;
  const plan = await ok(w.t.request("GET", url, { token: w.admin }));
  const coverage = plan.coverage.map((c: any) => ({
    category_uuid: c.category.uuid,
    percent: c.category.uuid === office.categories.crowns ? percent : c.percent,
  }));
  await ok(w.t.request("PATCH", url, { token: w.admin, body: { base_version: plan.version, coverage }, headers: { "x-request-id": requestId } }));
}

/**
 * Two patients holding plan A (and B), a third on other plans; all estimated.
 * Plan A changes; the job's first attempt is killed after its first treatment
 * plan; the retry finishes the second; every stale estimate is written exactly
 * once, as the job's actor with the request's id, and the third patient's not at all.
 */
async function killedMidJob(w: World) {
  const { office, holders, bystander } = await w.quietly(async () => {
    const office = await setUpOffice(w.t, w.admin, w.orgA);
    const elsewhere = await setUpOffice(w.t, w.admin, w.orgA);
    const holders = [await coveredPatient(w.t, w.admin, office), await coveredPatient(w.t, w.admin, office)];
    const bystander = await coveredPatient(w.t, w.admin, elsewhere);
    for (const p of [...holders, bystander]) await ok(w.t.request("POST", `${p.P}/estimate`, { token: w.admin }));
    return { office, holders, bystander };
  });
  const rowsOf = async (p: { patient: string }) => estimateRows(w.t, w.orgA, p.patient);
  const bystanderRows = await rowsOf(bystander);
  const from = w.events.length;
  const sentBefore = w.sent.length;

  const requestId = `req-recompute-${Bun.randomUUIDv7()}`;
  const calls: { planId: string; attempt: number }[] = [];
  recomputeHooks.afterPlan = (info) => {
    if (info.requestId !== requestId) return;
    calls.push({ planId: info.planId, attempt: info.attempt });
    if (info.attempt === 1) throw new Error("worker killed after its first treatment plan");
  };
  try {
    await setCrowns(w, office, 60, requestId);
    const [job] = await drained(w, sentBefore);
    expect(job).toMatchObject({ state: "completed", retryCount: 1 });
    // the retry found the first plan fresh (not written again) and recomputed the second
    expect(job!.output).toMatchObject({ treatment_plans: 2, recomputed: 2, created: 0, updated: 2, deleted: 0, no_active_insurance: 0 });
  } finally {
    recomputeHooks.afterPlan = undefined;
  }
  const plans = holders.map((h) => h.plan).sort();
  expect(calls).toEqual([
    { planId: plans[0]!, attempt: 1 },
    { planId: plans[0]!, attempt: 2 },
    { planId: plans[1]!, attempt: 2 },
  ]);

  // nothing lost: every holder's estimates are fresh with the new percent; nothing doubled: version 2 each
  for (const h of holders) {
    const list = await ok(w.t.request("GET", `${h.P}/estimates`, { token: w.admin }));
    expect(list.items.map((e: any) => [e.ordinal, e.version, e.is_stale, e.insurance_estimate, e.patient_estimate])).toEqual([
      [1, 2, false, "540.00", "360.00"],
      [2, 2, false, "360.00", "0.00"],
    ]);
    for (const e of list.items) {
      const audit = await auditOf(w.t, w.orgA, e.id);
      expect(audit.map((a) => [a.action, a.actor_id, a.request_id])).toEqual([
        ["procedure_estimate.created", expect.any(String), expect.any(String)],
        ["procedure_estimate.updated", "system:estimates.recompute", requestId],
      ]);
    }
  }
  const updated = await eventsOfType(w.t, w.events, "procedure_estimate.", from);
  expect(updated.map((e) => e.type)).toEqual(Array(4).fill("procedure_estimate.updated"));
  expect(new Set(updated.map((e) => e.resource_id)).size).toBe(4);
  expect(await rowsOf(bystander)).toEqual(bystanderRows);
  return { office, holders };
}

describe("estimates.recompute on the embedded queue (PGlite, workers in-process)", () => {
  let w: World;
  let office: Office;
  let holders: Awaited<ReturnType<typeof coveredPatient>>[];
  beforeAll(async () => {
    w = await queueWorld();
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await w.stop();
    await w.t.close();
  });

  test(
    "a plan change re-estimates its holders' stale estimates; a worker killed mid-job is retried with nothing lost or doubled",
    async () => {
      ({ office, holders } = await killedMidJob(w));
    },
    SETUP_TIMEOUT_MS,
  );

  test(
    "an allowed fee and a procedure's fee change are followed by the job: only the affected estimates change",
    async () => {
      const [p1, p2] = holders as [Awaited<ReturnType<typeof coveredPatient>>, Awaited<ReturnType<typeof coveredPatient>>];
      // a newer allowed fee for D2740 in plan A's book (payload all: every treatment plan with estimates is looked at)
      let from = w.sent.length;
      await ok(
        w.t.request("POST", `${office.api}/insurance/estimate-books/${office.bookA}/allowed-fees`, {
          token: w.admin,
          body: { allowed_fee: 950, computed_at: new Date().toISOString(), procedure_code_uuid: office.codes.D2740, resolution_scope_type: "insurance_plan" },
        }),
        201,
      );
      expect((await drained(w, from)).map((j) => j.state)).toEqual(["completed"]);
      for (const p of [p1, p2]) {
        const list = await ok(w.t.request("GET", `${p.P}/estimates`, { token: w.admin }));
        expect(list.items.map((e: any) => [e.version, e.is_stale, e.allowed_fee, e.insurance_estimate])).toEqual([
          [3, false, "950.00", "570.00"],
          [3, false, "850.00", "380.00"],
        ]);
      }

      // p1's crown is now billed 1,400.00: p1's estimates only
      const procUrl = `${office.api}/clinical/procedures/${p1.procedures[0]}`;
      const proc = await ok(w.t.request("GET", procUrl, { token: w.admin }));
      from = w.sent.length;
      const p2Rows = await estimateRows(w.t, w.orgA, p2.patient);
      await ok(w.t.request("PATCH", procUrl, { token: w.admin, body: { base_version: proc.version, fee_override: 1400 } }));
      const [job] = await drained(w, from);
      expect(job!.output).toMatchObject({ treatment_plans: 1, recomputed: 1, updated: 2 });
      const list = await ok(w.t.request("GET", `${p1.P}/estimates`, { token: w.admin }));
      expect(list.items.map((e: any) => [e.version, e.is_stale, e.fee_billed, e.write_off_estimate])).toEqual([
        [4, false, "1400.00", "450.00"],
        [4, false, "1400.00", "0.00"],
      ]);
      expect(await estimateRows(w.t, w.orgA, p2.patient)).toEqual(p2Rows);
    },
    SETUP_TIMEOUT_MS,
  );

  test(
    "completing a procedure is followed by the job (its estimate now counts as benefits used); the completed estimate is kept",
    async () => {
      const p = await w.quietly(() =>
        coveredPatient(w.t, w.admin, office, {
          procedures: [
            ["D2740", 1300, "3"],
            ["D7140", 200, "30"],
          ],
        }),
      );
      await ok(w.t.request("POST", `${p.P}/estimate`, { token: w.admin }));
      const procUrl = `${office.api}/clinical/procedures/${p.procedures[0]}`;
      const proc = await ok(w.t.request("GET", procUrl, { token: w.admin }));
      const from = w.sent.length;
      await ok(w.t.request("PATCH", procUrl, { token: w.admin, body: { base_version: proc.version, status: "complete" } }));
      const jobs = await drained(w, from);
      expect(jobs.map((j) => [j.name, j.state])).toEqual([["estimates.recompute", "completed"]]);
      const list = await ok(w.t.request("GET", `${p.P}/estimates`, { token: w.admin }));
      // the crown's estimates stay (completed work), the extraction's are fresh
      expect(list.items.map((e: any) => [e.charted_procedure_uuid === p.procedures[0], e.is_stale])).toEqual([
        [true, false],
        [true, false],
        [false, false],
        [false, false],
      ]);
    },
    SETUP_TIMEOUT_MS,
  );

  test(
    "a patient with no active insurance any more keeps their estimates, stale",
    async () => {
      const p = await w.quietly(() => coveredPatient(w.t, w.admin, office, { secondary: false }));
      await ok(w.t.request("POST", `${p.P}/estimate`, { token: w.admin }));
      const before = await estimateRows(w.t, w.orgA, p.patient);
      const from = w.sent.length;
      const url = `${office.api}/insurance/patient-plans/${p.patientPlans[0]}`;
      const pp = await ok(w.t.request("GET", url, { token: w.admin }));
      await ok(w.t.request("PATCH", url, { token: w.admin, body: { base_version: pp.version, is_active: false } }));
      const jobs = await drained(w, from);
      expect(jobs.map((j) => [j.state, (j.output as any).treatment_plans, (j.output as any).no_active_insurance])).toEqual([["completed", 1, 1]]);
      expect(await estimateRows(w.t, w.orgA, p.patient)).toEqual(before);
      expect(await ok(w.t.request("GET", `${p.P}/staleness`, { token: w.admin }))).toMatchObject({ total_estimates: 1, stale_count: 1 });
    },
    SETUP_TIMEOUT_MS,
  );
});

// --- the local PostgreSQL (QUEUE_DATABASE_URL), when it answers ---------------------------------

const pgUnavailable = await postgresUnavailable("recompute.test", "the PostgreSQL queue test");
// test.skipIf, not describe.skipIf: bun would count the skipped hooks as unnamed tests
const pgTest = test.skipIf(!!pgUnavailable);

describe("estimates.recompute on PostgreSQL (QUEUE_DATABASE_URL, workers in-process)", () => {
  const schema = scratchSchema("cusp_est");
  let w: World | null = null;
  beforeAll(async () => {
    if (!pgUnavailable) w = await queueWorld({ QUEUE_DATABASE_URL: `${PG_URL}?schema=${schema}` });
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    if (pgUnavailable) return;
    await w?.stop();
    await w?.t.close();
    await dropSchema(schema);
  });

  pgTest(
    "a plan change re-estimates its holders' stale estimates; a worker killed mid-job is retried with nothing lost or doubled",
    async () => {
      expect(w!.t.rt.queue!.kind).toBe("postgres");
      await killedMidJob(w!);
    },
    SETUP_TIMEOUT_MS,
  );
});
