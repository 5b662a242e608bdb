import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { eq } from "drizzle-orm";
import { auditEntries } from "@db/tenant/audit";
import { all } from "@/platform/db/work";
import type { QueueSettings } from "@/platform/queue/types";
import { startWorkers } from "@/platform/queue/workers";
import { batchHooks } from "@/domains/insurance/claims/batches/export";
import { claimsExport837d } from "@/domains/insurance/claims/batches/export.job";
import { check837D } from "@/domains/insurance/claims/x12/837d";
import { JOBS } from "@workers/registry";
import { waitFor } from "@tests/helpers";
import { PG_URL, postgresUnavailable } from "@tests/support/postgres";
import { claimsWorld, type ClaimsWorld } from "./fixtures";

// claims.export-837d on PostgreSQL (QUEUE_DATABASE_URL, workers in-process): a
// batch whose first attempt dies after storing its file and before its commit
// is retried by pg-boss and ends ready, each claim sent once, the file naming
// each once. The same job run by hand and on the embedded queue: batches.test.ts.

const pgUnavailable = await postgresUnavailable("batches-postgres.test", "the claims.export-837d job on PostgreSQL");
// test.skipIf, not describe.skipIf: bun would count the skipped hooks as unnamed tests
const pgTest = test.skipIf(!!pgUnavailable);

describe("claims.export-837d on PostgreSQL", () => {
  const schema = `cusp_claims_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  let w: ClaimsWorld;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    if (pgUnavailable) return;
    w = await claimsWorld({ withQueue: true, env: { QUEUE_DATABASE_URL: `${PG_URL}?schema=${schema}` } });
    stop = await startWorkers(w.t.rt, JOBS);
    // a retry at once (the definition waits 15 s and backs off)
    await w.t.rt.queue!.ensureQueue(claimsExport837d.id, { ...claimsExport837d.queue, retryDelay: 0, retryBackoff: false } as QueueSettings);
  }, 30_000);
  afterAll(async () => {
    if (pgUnavailable) return;
    batchHooks.beforeCommit = undefined;
    await stop();
    await w.t.close();
    const sql = new SQL({ url: PG_URL, max: 1 });
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await sql.close();
  });

  pgTest(
    "a worker killed after storing the file, before the commit: pg-boss retries it; the batch is ready and each claim sent once",
    async () => {
      expect(w.t.rt.queue!.kind).toBe("postgres");
      const claims: { id: string; claim_number: string }[] = [];
      for (const procs of [[["D1110", 120]], [["D2740", 1300, "3"]], [["D2150", 200, "30/MO"]]] as [string, number, string?][][]) {
        claims.push(await w.move(await w.claimFor(await w.patientWith(procs, { secondary: false })), "queued"));
      }
      const attempts: number[] = [];
      // armed before the POST: a worker may take the job before the answer is back
      batchHooks.beforeCommit = ({ attempt }) => {
        attempts.push(attempt);
        if (attempt === 1) throw new Error("worker killed before the commit");
      };
      try {
        const r = await w.post("/insurance/claim-batches", { claim_uuids: claims.map((c) => c.id) });
        expect([r.status, r.body.status]).toEqual([202, "building"]);
        const ready = await waitFor(
          async () => {
            const b = await w.ok(w.get(`/insurance/claim-batches/${r.body.id}`), 200);
            return b.status !== "building" ? b : null;
          },
          { timeoutMs: 30_000, intervalMs: 50, what: "the retried job" },
        );
        expect(attempts).toEqual([1, 2]);
        expect(ready).toMatchObject({ status: "ready", version: 2, written_claim_uuids: claims.map((c) => c.id), errors: [], error: null });
        for (const c of claims) expect(await w.ok(w.get(`/insurance/claims/${c.id}`), 200)).toMatchObject({ status: "sent", batch_uuid: r.body.id });
        // moved to sent once each: one audited move per claim
        const db = await w.db();
        const moves = await db.read((d) =>
          all<{ resource_id: string; after: any }>(
            d
              .select({ resource_id: auditEntries.resource_id, after: auditEntries.after })
              .from(auditEntries)
              .where(eq(auditEntries.action, "claim.status_changed")),
          ),
        );
        expect(claims.map((c) => moves.filter((m) => m.resource_id === c.id && m.after?.status === "sent").length)).toEqual([1, 1, 1]);
        const file = await w.t.request("GET", `${w.A}/insurance/claim-batches/${r.body.id}/file`, { token: w.token });
        expect(file.status).toBe(200);
        expect(check837D(file.text).claims.map((c) => c.claim_number)).toEqual(claims.map((c) => c.claim_number));
      } finally {
        batchHooks.beforeCommit = undefined;
      }
    },
    60_000,
  );
});
