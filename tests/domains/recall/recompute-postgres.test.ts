import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { count, eq, inArray, isNull } from "drizzle-orm";
import { auditEntries } from "@db/tenant/audit";
import { patientRecalls } from "@db/tenant/recall";
import { all } from "@/platform/db/work";
import { enqueue } from "@/platform/queue/enqueue";
import { RECOMPUTE_CHUNK } from "@/domains/recall/patient-recalls/recompute";
import { recallsRecompute } from "@/domains/recall/patient-recalls/recompute.job";
import { waitFor } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { postgresUnavailable } from "@tests/support/postgres";
import { pgWorkerProcesses } from "@tests/support/worker-processes";
import { plusMonths, recallWorld, SETUP_TIMEOUT_MS, shift, todayUtc, type RecallWorld } from "./fixtures";

// recalls.recompute's nightly sweep (payload {}, every org) on the local
// PostgreSQL queue with a separate worker process (workers/main.ts)
// SIGKILLed in the middle of an org of N patients who each have a completed
// adult cleaning and no recall yet (their own jobs never sent: the state a
// missed job leaves, which the sweep is there to catch). The chunks committed
// before the kill stay whole (each chunk's recalls and audit rows in one
// write), the chunk in flight leaves nothing, and the job sent again starts
// the rest: one prophy recall per patient with its dates, created once. The
// same cut made by a hook on the embedded queue: recompute.test.ts.

/**
 * Patients in the swept org: six chunks of RECOMPUTE_CHUNK. A chunk's write takes the worker ~70-150 ms
 * here, so the kill, 10-40 ms after the first chunk is seen, lands inside the second chunk's write; a kill
 * that came after the whole sweep would fail the `cut < N` check, never pass unnoticed.
 */
const N = 6 * RECOMPUTE_CHUNK;
/** Each patient's cleaning: i days before a date two months back, so every recall has dates of its own. */
const cleanedOn = (i: number) => shift(plusMonths(todayUtc(), -2), -(i % 40));

const pgUnavailable = await postgresUnavailable("recompute-postgres.test", "the recalls.recompute worker-process test on PostgreSQL");
// test.skipIf, not describe.skipIf: bun would count the skipped hooks as unnamed tests
const pgTest = test.skipIf(!!pgUnavailable);

describe("recalls.recompute on PostgreSQL, a worker process (workers/main.ts) killed mid-sweep", () => {
  const queue = pgWorkerProcesses("cusp_recall_kill");
  let w: RecallWorld | null = null;
  beforeAll(async () => {
    if (!pgUnavailable) w = await recallWorld({}, { withQueue: true, env: { QUEUE_DATABASE_URL: queue.queueUrl, WORKERS: "external" } });
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    if (!pgUnavailable) await queue.cleanup(async () => w?.t.close());
  });

  pgTest(
    `the nightly sweep over an org of ${N} patients: killed after some chunks, the job sent again starts the rest; one prophy recall each, created once`,
    async () => {
      const wd = w!;
      const q = wd.t.rt.queue!;
      expect(q.kind).toBe("postgres");
      const t0 = performance.now();
      // an org of its own: the sweep's patients are these N (the world's two orgs have none)
      const org = (await wd.t.createOrg(wd.admin)).id;
      const P = `/api/v1/${org}`;
      // the patients' own recall jobs are not sent (what a missed job leaves); everything else is
      const send = q.send.bind(q);
      q.send = async (name, envelope, options) => (name === recallsRecompute.id ? null : send(name, envelope, options));
      const ids: string[] = [];
      try {
        for (let i = 0; i < N; i += 20) {
          ids.push(
            ...(await Promise.all(
              Array.from({ length: Math.min(20, N - i) }, async (_, j) => {
                const p = await wd.patient({ first_name: `Sweep${i + j}` }, P);
                await wd.complete(p.id, "D1110", cleanedOn(i + j), {}, P);
                return p.id;
              }),
            )),
          );
        }
      } finally {
        q.send = send;
      }
      const made = performance.now();
      const db = await orgDb(wd.t, org);
      const liveRecalls = async () =>
        (await db.read((d) => all<{ n: number }>(d.select({ n: count() }).from(patientRecalls).where(isNull(patientRecalls.deleted_at)))))[0]!.n;
      const recallAudits = () =>
        db.read((d) =>
          all<{ resource_id: string; action: string; actor_id: string; request_id: string | null }>(
            d
              .select({
                resource_id: auditEntries.resource_id,
                action: auditEntries.action,
                actor_id: auditEntries.actor_id,
                request_id: auditEntries.request_id,
              })
              .from(auditEntries)
              .where(eq(auditEntries.resource_type, "recall")),
          ),
        );
      expect([ids.length, await liveRecalls(), (await recallAudits()).length]).toEqual([N, 0, 0]);

      // the nightly sweep's payload: every org
      const requestId = `req-recall-kill-${Bun.randomUUIDv7()}`;
      const firstId = (await enqueue(wd.t.rt, recallsRecompute, {}, { requestId }))!;
      const spawned = performance.now();
      const first = queue.spawn(wd.t.dir);
      const seen = await waitFor(
        async () => {
          const n = await liveRecalls();
          return n > 0 ? n : null;
        },
        { timeoutMs: 30_000, intervalMs: 5, what: "the worker's first chunk of recalls" },
      );
      const seenAt = performance.now();
      first.kill("SIGKILL");
      await first.exited;
      const killedAt = performance.now();
      const cut = await liveRecalls();
      console.log(
        `recompute-postgres.test: ${N} patients made in ${Math.round(made - t0)} ms; first chunk seen ${Math.round(seenAt - spawned)} ms after the worker's spawn; killed ${Math.round(killedAt - seenAt)} ms later at ${seen} recalls (after the kill ${cut} of ${N})`,
      );
      // killed mid-sweep (else this test proves nothing): some chunks written, not all; whole chunks only (each is one write)
      expect(cut).toBeGreaterThan(0);
      expect(cut).toBeLessThan(N);
      expect(cut % RECOMPUTE_CHUNK).toBe(0);
      expect((await q.getJob(recallsRecompute.id, firstId))?.state).toBe("active");
      // nothing half done: the audit rows are those of the recalls written, once each
      const atCut = await recallAudits();
      expect([atCut.length, new Set(atCut.map((a) => a.resource_id)).size]).toEqual([cut, cut]);

      // pg-boss retries a killed attempt once it expires (30 min for this job): the retry is the same job sent again
      queue.spawn(wd.t.dir);
      const againId = (await enqueue(wd.t.rt, recallsRecompute, {}, { requestId }))!;
      // the retry's chunks as they commit (recalls counted every few ms): how long one chunk's write takes, the window the kill above fell in
      const commits: { at: number; n: number }[] = [{ at: performance.now(), n: cut }];
      const done = await waitFor(
        async () => {
          const n = await liveRecalls();
          if (n !== commits.at(-1)!.n) commits.push({ at: performance.now(), n });
          const r = await q.getJob(recallsRecompute.id, againId);
          return r && ["completed", "failed", "cancelled"].includes(r.state) ? r : null;
        },
        { timeoutMs: 60_000, intervalMs: 5, what: "the sweep completed by the second worker" },
      );
      const gaps = commits.slice(2).map((c, i) => `${c.n - commits[i + 1]!.n} in ${Math.round(c.at - commits[i + 1]!.at)} ms`);
      console.log(
        `recompute-postgres.test: the rest started ${Math.round(performance.now() - killedAt)} ms after the kill (the retry's chunks after its first: ${gaps.join(", ") || "none seen apart"}); the retry's output ${JSON.stringify(done.output)}`,
      );
      // the retry found the first chunks' recalls made and current (wrote nothing to them), and made the rest
      expect(done).toMatchObject({ state: "completed", output: { patients: N, created: N - cut, updated: 0, orgs_failed: 0 } });

      // nothing lost, nothing doubled: one prophy recall per patient (and no other row), its dates from the patient's cleaning, version 1
      const prophy = await wd.typeOf("prophy", P);
      const rows = await db.read((d) =>
        all<typeof patientRecalls.$inferSelect>(d.select().from(patientRecalls).where(inArray(patientRecalls.patient_id, ids))),
      );
      expect([rows.length, new Set(rows.map((r) => r.patient_id)).size, await liveRecalls()]).toEqual([N, N, N]);
      const index = new Map(ids.map((id, i) => [id, i]));
      const wrong = rows.filter((r) => {
        const on = cleanedOn(index.get(r.patient_id)!);
        return r.deleted_at !== null || r.recall_type_id !== prophy.id || r.date_previous !== on || r.date_due !== plusMonths(on, 6) || r.version !== 1;
      });
      expect(wrong).toEqual([]);
      // one recall.created per recall, as the job with the request's id; no recall.updated (the retry rewrote nothing)
      const audits = await recallAudits();
      expect([audits.length, new Set(audits.map((a) => a.resource_id)).size]).toEqual([N, N]);
      expect(new Set(audits.map((a) => a.resource_id))).toEqual(new Set(rows.map((r) => r.id)));
      expect(audits.filter((a) => a.action !== "recall.created" || a.actor_id !== "system:recalls.recompute" || a.request_id !== requestId)).toEqual([]);
      // the API answers the same: the sweep's first patient (written before the kill) and its last (by the retry)
      const sorted = [...ids].sort(); // the sweep's order
      for (const id of [sorted[0]!, sorted[N - 1]!]) {
        const on = cleanedOn(index.get(id)!);
        const recalls = (await wd.get(`/patients/${id}/recalls?page_size=200`, P)).items;
        expect(recalls.map((r: any) => [r.recall_type.name, r.date_previous, r.date_due, r.status])).toEqual([["Prophy", on, plusMonths(on, 6), "due"]]);
      }
    },
    180_000,
  );
});
