import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { waitFor } from "@tests/helpers";
import { PG_URL, postgresUnavailable } from "@tests/support/postgres";
import { startWorkers } from "@/platform/queue/workers";
import type { QueueSettings } from "@/platform/queue/types";
import { JOBS } from "@workers/registry";
import { copyHooks } from "@/domains/codes/fee-schedules/copy.handler";
import { copiedAmount } from "@/domains/codes/fee-schedules/copy";
import { feeSchedulesCopy } from "@/domains/codes/fee-schedules/copy.job";
import { feeWorld, type FeeWorld } from "./fixtures";

// fee-schedules.copy on PostgreSQL (QUEUE_DATABASE_URL, workers in-process): a
// copy of more than 500 fees whose first attempt dies after its first batch is
// retried by pg-boss and ends with every fee copied once. The same job on the
// embedded queue: copy.test.ts.

const pgUnavailable = await postgresUnavailable("copy-postgres.test", "the fee-schedules.copy job on PostgreSQL");
// test.skipIf, not describe.skipIf: bun would count the skipped hooks as unnamed tests
const pgTest = test.skipIf(!!pgUnavailable);

describe("fee-schedules.copy on PostgreSQL", () => {
  const schema = `cusp_fees_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  let w: FeeWorld;
  let stop: () => Promise<void>;
  beforeAll(async () => {
    if (pgUnavailable) return;
    w = await feeWorld({}, { withQueue: true, env: { QUEUE_DATABASE_URL: `${PG_URL}?schema=${schema}` } });
    stop = await startWorkers(w.t.rt, JOBS);
    // a retry at once (the definition waits and backs off)
    await w.t.rt.queue!.ensureQueue(feeSchedulesCopy.id, { ...feeSchedulesCopy.queue, retryDelay: 0, retryBackoff: false } as QueueSettings);
  }, 30_000);
  afterAll(async () => {
    if (pgUnavailable) return;
    await stop();
    await w.t.close();
    const sql = new SQL({ url: PG_URL, max: 1 });
    await sql.unsafe(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await sql.close();
  });

  pgTest(
    "a worker killed after its first batch: pg-boss retries it and every fee is copied once",
    async () => {
      expect(w.t.rt.queue!.kind).toBe("postgres");
      const codes = await w.allCodes();
      const places = [null, (await w.createLocation({ name: "Downtown" })).id, (await w.createLocation({ name: "Uptown" })).id];
      const source = await w.createSchedule({ name: "Big source" });
      const rows = codes.flatMap((c, i) => places.map((place, j) => ({ procedure_code_uuid: c.id, amount: 50 + i + j * 0.41, location_uuid: place })));
      for (let i = 0; i < rows.length; i += 1000) await w.putFees(source.id, rows.slice(i, i + 1000));
      expect(rows.length).toBeGreaterThan(500);
      const sourceRows = await w.feeRows(source.id);
      const expected = new Map(sourceRows.map((f) => [`${f.procedure_code_id}|${f.location_id}`, copiedAmount(f.amount_cents, -10, 5)]));

      const attempts: number[] = [];
      copyHooks.afterBatch = (info) => {
        attempts.push(info.attempt);
        if (info.attempt === 1) throw new Error("worker killed after its first batch");
      };
      try {
        const r = await w.call("POST", `${w.S()}/${source.id}/copy`, { name: "Less ten", percent_change: -10, round_to: 5 });
        expect(r.status).toBe(202);
        const done = await waitFor(
          async () => {
            const s = await w.readSchedule(r.body.id);
            return s.copy_status !== "running" ? s : null;
          },
          { timeoutMs: 30_000, intervalMs: 50, what: "the copy to end" },
        );
        expect(done).toMatchObject({ copy_status: "done", copy_total: rows.length, copy_done: rows.length, copy_error: null });
        expect(attempts[0]).toBe(1);
        expect(attempts).toContain(2);
        const copied = await w.feeRows(r.body.id);
        expect(copied.length).toBe(rows.length);
        expect(new Map(copied.map((f) => [`${f.procedure_code_id}|${f.location_id}`, f.amount_cents]))).toEqual(expected);
        // written once each: the retry found the first batch already so
        expect(copied.every((f) => f.version === 1 && f.deleted_at === null)).toBe(true);
      } finally {
        copyHooks.afterBatch = undefined;
      }
    },
    60_000,
  );
});
