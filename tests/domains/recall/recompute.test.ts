import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray } from "drizzle-orm";
import { auditEntries } from "@db/tenant/audit";
import { all } from "@/platform/db/work";
import { enqueue } from "@/platform/queue/enqueue";
import { recallsRecompute } from "@/domains/recall/patient-recalls/recompute.job";
import { recallRecomputeHooks } from "@/domains/recall/patient-recalls/recompute.handler";
import { RECOMPUTE_CHUNK } from "@/domains/recall/patient-recalls/recompute";
import { busDrained, waitFor } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { PG_URL, dropSchema, postgresUnavailable, scratchSchema } from "@tests/support/postgres";
import { drained, FINAL, plusMonths, recallQueueWorld as queueWorld, SETUP_TIMEOUT_MS, todayUtc, type RecallQueueWorld as World } from "./fixtures";

// recalls.recompute end to end: a write that completes a trigger procedure
// queues the patient's recompute after commit (and an ordinary one queues
// nothing); the worker starts and works out the recall as the system actor.
// A worker killed part-way through the org sweep is retried with nothing lost
// or doubled; on the embedded queue (PGlite) and on the local PostgreSQL.

/** Waits for one job sent outside any write. */
const finished = (w: World, id: string) =>
  waitFor(
    async () => {
      const r = await w.t.rt.queue!.getJob("recalls.recompute", id);
      return r && FINAL.includes(r.state) ? r : null;
    },
    { timeoutMs: 60_000, intervalMs: 25, what: `job recalls.recompute ${id}` },
  );

/**
 * N patients with a completed adult cleaning and no recall yet (their jobs not
 * sent); the org's sweep is killed after its first chunk on the first attempt;
 * the retry starts the rest: one prophy recall each, created once.
 */
async function killedMidSweep(w: World) {
  const N = RECOMPUTE_CHUNK + 30;
  const done = plusMonths(todayUtc(), -2);
  // an org of its own: the sweep's patients are these N
  const org = (await w.t.createOrg(w.admin)).id;
  const P = `/api/v1/${org}`;
  const ids = await w.quietly(async () => {
    const out: string[] = [];
    for (let i = 0; i < N; i += 10) {
      out.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(10, N - i) }, async () => {
            const p = await w.patient({ first_name: "Sweep" }, P);
            await w.complete(p.id, "D1110", done, {}, P);
            return p.id;
          }),
        )),
      );
    }
    return out;
  });
  expect((await Promise.all(ids.slice(0, 5).map((id) => w.rows(id, org)))).flat()).toEqual([]);

  const requestId = `req-recall-${Bun.randomUUIDv7()}`;
  const calls: { size: number; attempt: number }[] = [];
  recallRecomputeHooks.afterChunk = (info) => {
    if (info.requestId !== requestId) return;
    calls.push({ size: info.patientIds.length, attempt: info.attempt });
    if (info.attempt === 1) throw new Error("worker killed after its first chunk");
  };
  try {
    const id = await enqueue(w.t.rt, recallsRecompute, { all: true }, { orgId: org, requestId });
    const job = await finished(w, id!);
    expect(job).toMatchObject({ state: "completed", retryCount: 1 });
    // the retry found the first chunk's recalls made and current (written nothing), and made the rest
    expect(job.output).toMatchObject({ patients: N, created: N - RECOMPUTE_CHUNK, updated: 0 });
  } finally {
    recallRecomputeHooks.afterChunk = undefined;
  }
  expect(calls).toEqual([
    { size: RECOMPUTE_CHUNK, attempt: 1 },
    { size: RECOMPUTE_CHUNK, attempt: 2 },
    { size: N - RECOMPUTE_CHUNK, attempt: 2 },
  ]);
  const prophy = await w.typeOf("prophy", P);
  // nothing lost, nothing doubled: one prophy recall per patient, created once, as the job with the request's id
  const db = await orgDb(w.t, org);
  const recalls = (await Promise.all(ids.map((id) => w.rows(id, org)))).flat();
  expect(recalls.length).toBe(N);
  expect(recalls.filter((r) => r.recall_type_id !== prophy.id || r.date_previous !== done || r.date_due !== plusMonths(done, 6) || r.version !== 1)).toEqual(
    [],
  );
  const audits = await db.read((d) =>
    all<{ resource_id: string; action: string; actor_id: string; request_id: string | null }>(
      d
        .select({ resource_id: auditEntries.resource_id, action: auditEntries.action, actor_id: auditEntries.actor_id, request_id: auditEntries.request_id })
        .from(auditEntries)
        .where(
          and(
            eq(auditEntries.resource_type, "recall"),
            inArray(
              auditEntries.resource_id,
              recalls.map((r) => r.id),
            ),
          ),
        ),
    ),
  );
  expect(audits.length).toBe(N);
  expect(audits.filter((a) => a.action !== "recall.created" || a.actor_id !== "system:recalls.recompute" || a.request_id !== requestId)).toEqual([]);
}

describe("recalls.recompute on the embedded queue (PGlite, workers in-process)", () => {
  let w: World;
  beforeAll(async () => {
    w = await queueWorld();
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    await w.stop();
    await w.t.close();
  });

  test(
    "completing a D1110 over HTTP queues the patient's recompute; the worker starts the prophy recall with its dates and announces it",
    async () => {
      const p = await w.patient({ first_name: "Queued" });
      const on = plusMonths(todayUtc(), -1);
      const from = w.sent.length;
      const seen = w.events.length;
      await w.complete(p.id, "D1110", on);
      const jobs = await drained(w, from);
      // the patient's job only: one patient worked out, one recall started
      expect(jobs.map((j) => [j.state, j.output])).toEqual([["completed", { patients: 1, created: 1, updated: 0 }]]);
      const [recall] = await w.recallsOf(p.id);
      expect(recall).toMatchObject({ recall_type: { name: "Prophy" }, date_previous: on, date_due: plusMonths(on, 6), status: "due", version: 1 });
      await busDrained(w.t.rt.bus);
      expect(
        w.events
          .slice(seen)
          .filter((e) => e.resource_type === "recall")
          .map((e) => [e.type, e.resource_id, e.data.patient_id]),
      ).toEqual([["recall.created", recall.id, p.id]]);

      // the next cleaning moves it on: recall.updated
      const later = plusMonths(todayUtc(), 0);
      const from2 = w.sent.length;
      const seen2 = w.events.length;
      await w.complete(p.id, "D1110", later);
      expect((await drained(w, from2)).map((j) => [j.state, (j.output as any).updated])).toEqual([["completed", 1]]);
      expect((await w.recallsOf(p.id))[0]).toMatchObject({ date_previous: later, date_due: plusMonths(later, 6), version: 2 });
      await busDrained(w.t.rt.bus);
      const updated = w.events.slice(seen2).filter((e) => e.resource_type === "recall");
      expect(updated.map((e) => [e.type, e.resource_id])).toEqual([["recall.updated", recall.id]]);
      expect(updated[0]!.data.changed_fields).toEqual(["date_previous", "date_due"]);
    },
    SETUP_TIMEOUT_MS,
  );

  test(
    "ordinary work queues nothing: a completed filling, a limited exam",
    async () => {
      const p = await w.patient({ first_name: "Ordinary" });
      const from = w.sent.length;
      await w.complete(p.id, "D2391", todayUtc(), { tooth_number: "3", surfaces: "O" });
      await w.complete(p.id, "D0140", todayUtc());
      await busDrained(w.t.rt.bus);
      expect(w.sent.slice(from).filter((j) => j.name === "recalls.recompute")).toEqual([]);
    },
    SETUP_TIMEOUT_MS,
  );

  test(
    "the nightly sweep (no org, payload {}) starts what a missed job left behind",
    async () => {
      const p = await w.quietly(async () => {
        const p = await w.patient({ first_name: "Missed" });
        await w.complete(p.id, "D1120", plusMonths(todayUtc(), -7));
        return p;
      });
      expect(await w.rows(p.id)).toEqual([]);
      const id = await enqueue(w.t.rt, recallsRecompute, {});
      const job = await finished(w, id!);
      expect(job.state).toBe("completed");
      expect(job.output).toMatchObject({ orgs_failed: 0 });
      expect((await w.recallsOf(p.id)).map((r) => [r.recall_type.name, r.status])).toEqual([["Child prophy", "overdue"]]);
    },
    SETUP_TIMEOUT_MS,
  );

  test("an org sweep killed after its first chunk is retried with nothing lost or doubled", () => killedMidSweep(w), SETUP_TIMEOUT_MS);
});

// --- the local PostgreSQL (QUEUE_DATABASE_URL), when it answers ---------------------------------

const pgUnavailable = await postgresUnavailable("recall recompute.test", "the PostgreSQL queue test");
// test.skipIf, not describe.skipIf: bun would count the skipped hooks as unnamed tests
const pgTest = test.skipIf(!!pgUnavailable);

describe("recalls.recompute on PostgreSQL (QUEUE_DATABASE_URL, workers in-process)", () => {
  const schema = scratchSchema("cusp_recall");
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
    "an org sweep killed after its first chunk is retried with nothing lost or doubled",
    async () => {
      expect(w!.t.rt.queue!.kind).toBe("postgres");
      await killedMidSweep(w!);
    },
    SETUP_TIMEOUT_MS,
  );
});
