import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, inArray } from "drizzle-orm";
import { auditEntries } from "@db/tenant/audit";
import { claimPayments, claimPaymentSplits, claims } from "@db/tenant/claims";
import { ledgerEntries } from "@db/tenant/ledger";
import { all } from "@/platform/db/work";
import { enqueue } from "@/platform/queue/enqueue";
import { ERA_CHUNK } from "@/domains/insurance/claims/eras/import";
import { claimsEraImport } from "@/domains/insurance/claims/eras/import.job";
import { waitFor } from "@tests/helpers";
import { balancedClaim, balancedEra, build835 } from "@tests/support/era835";
import { postgresUnavailable } from "@tests/support/postgres";
import { pgWorkerProcesses } from "@tests/support/worker-processes";
import { claimsWorld, type ClaimsWorld } from "./fixtures";

// claims.era-import on the local PostgreSQL queue with a separate worker
// process (workers/main.ts) SIGKILLed in the middle of posting an ERA of N
// claims: the chunks committed before the kill stay whole (each claim posted
// in the write that marks its CLP posted), the one in flight leaves nothing,
// and the job sent again posts the rest: one claim payment with N splits,
// each claim received once, each patient's ledger one insurance payment and
// one write-off. The same posting cut off by a hook on the embedded queue:
// eras.test.ts ("a posting cut off and run again").

/**
 * Claims in the ERA: four chunks of ERA_CHUNK. A chunk's write takes the worker ~0.6 s here, so the
 * kill, a few ms after the first chunk is seen posted, lands inside the second chunk's write; a kill
 * that came after the whole posting would fail the `counts.posted < N` check, never pass unnoticed.
 */
const N = 200;

const pgUnavailable = await postgresUnavailable("eras-postgres.test", "the claims.era-import worker-process test on PostgreSQL");
// test.skipIf, not describe.skipIf: bun would count the skipped hooks as unnamed tests
const pgTest = test.skipIf(!!pgUnavailable);

describe("claims.era-import on PostgreSQL, a worker process (workers/main.ts) killed mid-posting", () => {
  const queue = pgWorkerProcesses("cusp_eras");
  let w: ClaimsWorld | null = null;
  const spawnWorker = () => queue.spawn(w!.t.dir);
  beforeAll(async () => {
    if (!pgUnavailable) w = await claimsWorld({ withQueue: true, env: { QUEUE_DATABASE_URL: queue.queueUrl, WORKERS: "external" } });
  }, 30_000);
  afterAll(async () => {
    if (!pgUnavailable) await queue.cleanup(async () => w?.t.close());
  });

  pgTest(
    `an ERA of ${N} claims: killed after some chunks, the job sent again posts the rest; one payment, each claim and ledger entry once`,
    async () => {
      const wd = w!;
      expect(wd.t.rt.queue!.kind).toBe("postgres");
      const t0 = performance.now();
      // N patients, each with one sent cleaning claim (billed 120.00): twenty at a time
      const sent: { patient: string; procedure: string; claim: { id: string; claim_number: string } }[] = [];
      for (let i = 0; i < N; i += 20) {
        sent.push(
          ...(await Promise.all(
            Array.from({ length: Math.min(20, N - i) }, async (_, j) => {
              const p = await wd.patientWith([["D1110", 120, ""]], { first: `Era${i + j}`, secondary: false });
              const claim = await wd.claimFor(p);
              await wd.move(claim, "sent", { date: "2025-03-10" });
              return { patient: p.patient, procedure: p.procedures[0]!, claim };
            }),
          )),
        );
      }
      const made = performance.now();
      // allowed 100.00, paid 80.00: 20.00 written off (CO-45), 20.00 the patient's (PR-2)
      const text = build835(
        balancedEra(
          sent.map((c) =>
            balancedClaim(c.claim.claim_number, [{ code: "D1110", billed: 12000, allowed: 10000, paid: 8000, line_control: c.procedure, date: "2025-03-05" }], {
              patient: { first_name: "MARIA", last_name: "LOPEZ", member_id: "W1" },
              date_service: "2025-03-05",
            }),
          ),
          { payer: { name: "DELTA DENTAL", id: "CDCA1" }, trace_number: "EFTKILL1", payment_date: "2025-04-01" },
        ),
      );
      const r = await wd.t.request("POST", `${wd.A}/insurance/eras`, { token: wd.token, rawBody: text, headers: { "content-type": "text/plain" } });
      expect([r.status, r.body.status]).toEqual([202, "received"]); // its job waits in PostgreSQL
      const eraOf = async () =>
        (await wd.ok(wd.get(`/insurance/eras/${r.body.id}`), 200)) as {
          status: string;
          version: number;
          claim_payment_uuid: string | null;
          counts: Record<string, number>;
        };

      const spawned = performance.now();
      const first = spawnWorker();
      const seen = await waitFor(
        async () => {
          const era = await eraOf();
          return era.counts.posted > 0 ? era : null;
        },
        { timeoutMs: 30_000, intervalMs: 5, what: "the worker's first chunk posted" },
      );
      const seenAt = performance.now();
      first.kill("SIGKILL");
      await first.exited;
      const killedAt = performance.now();
      const cut = await eraOf();
      console.log(
        `eras-postgres.test: ${N} sent claims made in ${Math.round(made - t0)} ms; first chunk seen posted ${Math.round(seenAt - spawned)} ms after the worker's spawn; killed at counts.posted ${seen.counts.posted} (after the kill ${cut.counts.posted})`,
      );
      // killed mid-posting (else this test proves nothing): some chunks posted, not all; whole chunks only (each is one write)
      expect(cut.status).toBe("processing");
      expect(cut.counts.posted).toBeGreaterThan(0);
      expect(cut.counts.posted).toBeLessThan(N);
      expect(cut.counts.posted % ERA_CHUNK).toBe(0);
      expect(cut.counts).toMatchObject({ claims: N, matched: N, unmatched: 0, needs_review: 0 });
      // nothing half done: the payment, its splits, the received claims and the ledger are those of the posted chunks
      const db = await wd.db();
      const ids = sent.map((c) => c.claim.id);
      const patients = sent.map((c) => c.patient);
      const atCut = await db.read(function* (d) {
        return {
          payments: yield* all<{ id: string }>(d.select({ id: claimPayments.id }).from(claimPayments).where(eq(claimPayments.era_id, r.body.id))),
          splits: yield* all<{ claim_id: string }>(
            d
              .select({ claim_id: claimPaymentSplits.claim_id })
              .from(claimPaymentSplits)
              .innerJoin(claimPayments, eq(claimPayments.id, claimPaymentSplits.claim_payment_id))
              .where(eq(claimPayments.era_id, r.body.id)),
          ),
          received: yield* all<{ id: string }>(
            d
              .select({ id: claims.id })
              .from(claims)
              .where(and(inArray(claims.id, ids), eq(claims.status, "received"))),
          ),
          insurance: yield* all<{ entry_type: string }>(
            d
              .select({ entry_type: ledgerEntries.entry_type })
              .from(ledgerEntries)
              .where(and(inArray(ledgerEntries.patient_id, patients), eq(ledgerEntries.source, "insurance"))),
          ),
        };
      });
      expect(atCut.payments.map((x) => x.id)).toEqual([cut.claim_payment_uuid!]);
      expect([atCut.splits.length, new Set(atCut.splits.map((x) => x.claim_id)).size, atCut.received.length]).toEqual([
        cut.counts.posted,
        cut.counts.posted,
        cut.counts.posted,
      ]);
      expect(atCut.insurance.length).toBe(2 * cut.counts.posted);

      // pg-boss retries a killed attempt once it expires (10 min for this job): the retry is the same job sent again
      spawnWorker();
      await enqueue(wd.t.rt, claimsEraImport, { era_id: r.body.id, post: false }, { orgId: wd.orgA });
      const done = await waitFor(
        async () => {
          const era = await eraOf();
          return era.status !== "processing" ? era : null;
        },
        { timeoutMs: 30_000, intervalMs: 50, what: "the ERA posted by the second worker" },
      );
      console.log(`eras-postgres.test: the rest posted ${Math.round(performance.now() - killedAt)} ms after the kill`);
      expect(done).toMatchObject({ status: "posted", problems: [], counts: { claims: N, matched: N, posted: N, unmatched: 0, needs_review: 0, denied: 0 } });

      // one claim payment for the ERA, one split per claim
      const payments = (await wd.ok(wd.get("/insurance/claim-payments?page_size=200"), 200)).items.filter((x: any) => x.era_uuid === r.body.id);
      expect(payments.map((x: any) => [x.id, x.amount, x.splits.length])).toEqual([[done.claim_payment_uuid, `${(N * 80).toFixed(2)}`, N]]);
      const splitClaims = payments[0].splits.map((x: any) => x.claim.uuid).sort();
      expect(splitClaims).toEqual(sent.map((c) => c.claim.id).sort());
      expect(payments[0].splits.filter((x: any) => x.paid !== "80.00" || x.write_off !== "20.00")).toEqual([]);

      // every claim received with its amounts, moved to received once
      const answered = await Promise.all(sent.map((c) => wd.ok(wd.get(`/insurance/claims/${c.claim.id}`), 200)));
      expect(answered.filter((c: any) => c.status !== "received" || c.insurance_paid !== "80.00" || c.write_off !== "20.00").map((c: any) => c.id)).toEqual([]);
      const moves = await db.read((d) =>
        all<{ resource_id: string; after: any }>(
          d
            .select({ resource_id: auditEntries.resource_id, after: auditEntries.after })
            .from(auditEntries)
            .where(eq(auditEntries.action, "claim.status_changed")),
        ),
      );
      const received = new Map<string, number>();
      for (const m of moves) if (m.after?.status === "received") received.set(m.resource_id, (received.get(m.resource_id) ?? 0) + 1);
      expect(ids.filter((id) => received.get(id) !== 1)).toEqual([]);

      // each patient's ledger: the charge, one insurance payment, one write-off
      const ledger = await db.read((d) =>
        all<typeof ledgerEntries.$inferSelect>(d.select().from(ledgerEntries).where(inArray(ledgerEntries.patient_id, patients)).orderBy(ledgerEntries.id)),
      );
      const byPatient = new Map<string, [string, number, string][]>();
      for (const e of ledger) byPatient.set(e.patient_id, [...(byPatient.get(e.patient_id) ?? []), [e.entry_type, e.amount_cents, e.source]]);
      const expected = [
        ["charge", 12000, "procedure"],
        ["payment", 8000, "insurance"],
        ["adjustment", -2000, "insurance"],
      ];
      expect(
        sent.filter((c) => JSON.stringify(byPatient.get(c.patient)) !== JSON.stringify(expected)).map((c) => [c.patient, byPatient.get(c.patient)]),
      ).toEqual([]);
    },
    90_000,
  );
});
