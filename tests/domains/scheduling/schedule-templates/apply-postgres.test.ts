import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { blockouts, providerSchedules } from "@db/tenant/scheduling";
import { enqueue } from "@/platform/queue/enqueue";
import { CHUNK_DAYS } from "@/domains/scheduling/schedule-templates/apply";
import { scheduleTemplatesApply } from "@/domains/scheduling/schedule-templates/apply.job";
import { waitFor } from "@tests/helpers";
import { rowsOf } from "@tests/domains/scheduling/provider-schedules/fixtures";
import { postgresUnavailable } from "@tests/support/postgres";
import { pgWorkerProcesses } from "@tests/support/worker-processes";
import { templatesWorld, type TemplatesWorld } from "./fixtures";

// schedule-templates.apply on the local PostgreSQL queue with a separate
// worker process (workers/main.ts) SIGKILLed in the middle of a year's
// application: the weeks committed before the kill stay whole (each week's
// rows and the application's days_done in one write), the week in flight
// leaves nothing, and the job sent again writes the rest: every blockout once,
// the working blocks' schedules once. The same cut made by a hook on the
// embedded queue: apply.test.ts.

/** Reserved quarter hours per date (each a blockout), so a week's write is long enough for the kill to land inside the application. */
const PER_DAY = 12;
const FROM = "2027-01-04";
const TO = "2027-12-31";
const DAYS = Temporal.PlainDate.from(FROM).until(Temporal.PlainDate.from(TO)).days + 1;

const pgUnavailable = await postgresUnavailable("apply-postgres.test", "the schedule-templates.apply worker-process test on PostgreSQL");
// test.skipIf, not describe.skipIf: bun would count the skipped hooks as unnamed tests
const pgTest = test.skipIf(!!pgUnavailable);

describe("schedule-templates.apply on PostgreSQL, a worker process (workers/main.ts) killed mid-application", () => {
  const queue = pgWorkerProcesses("cusp_templates");
  let w: TemplatesWorld | null = null;
  beforeAll(async () => {
    if (!pgUnavailable) w = await templatesWorld({ withQueue: true, env: { QUEUE_DATABASE_URL: queue.queueUrl, WORKERS: "external" } });
  }, 30_000);
  afterAll(async () => {
    if (!pgUnavailable) await queue.cleanup(async () => w?.t.close());
  });

  pgTest(
    `${DAYS} days, ${PER_DAY} blockouts a day: killed after some weeks, the job sent again writes the rest; nothing twice`,
    async () => {
      const wd = w!;
      expect(wd.t.rt.queue!.kind).toBe("postgres");
      const quarter = (i: number) => {
        const m = 6 * 60 + 15 * i;
        return `${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
      };
      const reservedDay = (weekday: number) =>
        Array.from({ length: PER_DAY }, (_, i) =>
          wd.block({ weekday, start_time: quarter(i), end_time: quarter(i + 1), operatory_uuid: null, blockout_type_uuid: wd.newPatients.id }),
        );
      const template = await wd.createTemplate({
        blocks: [
          wd.block({ weekday: 2, start_time: "09:00", end_time: "17:00" }),
          wd.block({ weekday: 4, start_time: "09:00", end_time: "17:00" }),
          ...[0, 1, 2, 3, 4, 5, 6].flatMap(reservedDay),
        ],
      });
      const r = await wd.call("POST", `${wd.S()}/templates/${template.id}/apply`, { date_from: FROM, date_to: TO });
      expect([r.status, r.body.status, r.body.days_total]).toEqual([202, "queued", DAYS]); // its job waits in PostgreSQL
      const id = r.body.id as string;
      const appOf = async () => wd.ok(wd.call("GET", `${wd.S()}/template-applications/${id}`), 200);
      const mine = async () => ({
        schedules: (await rowsOf<typeof providerSchedules.$inferSelect>(wd.t, wd.orgA, providerSchedules)).filter((x) => x.template_application_id === id),
        blockouts: (await rowsOf<typeof blockouts.$inferSelect>(wd.t, wd.orgA, blockouts)).filter((x) => x.template_application_id === id),
      });

      const spawned = performance.now();
      const first = queue.spawn(wd.t.dir);
      const seen = await waitFor(
        async () => {
          const a = await appOf();
          return a.days_done > 0 ? a : null;
        },
        { timeoutMs: 30_000, intervalMs: 5, what: "the worker's first week written" },
      );
      const seenAt = performance.now();
      first.kill("SIGKILL");
      await first.exited;
      const killedAt = performance.now();
      const cut = await appOf();
      console.log(
        `apply-postgres.test: first week seen ${Math.round(seenAt - spawned)} ms after the worker's spawn; killed at days_done ${seen.days_done} (after the kill ${cut.days_done} of ${DAYS})`,
      );
      // killed mid-application (else this test proves nothing): whole weeks only, each one write
      expect(cut.status).toBe("running");
      expect(cut.days_done).toBeGreaterThan(0);
      expect(cut.days_done).toBeLessThan(DAYS);
      expect(cut.days_done % CHUNK_DAYS).toBe(0);
      const atCut = await mine();
      expect([atCut.schedules.length, atCut.blockouts.length]).toEqual([2, PER_DAY * cut.days_done]);
      expect([cut.schedules_written, cut.blockouts_written]).toEqual([2, PER_DAY * cut.days_done]);

      // pg-boss retries a killed attempt once it expires (10 min for this job): the retry is the same job sent again
      queue.spawn(wd.t.dir);
      await enqueue(wd.t.rt, scheduleTemplatesApply, { application_id: id }, { orgId: wd.orgA });
      const done = await waitFor(
        async () => {
          const a = await appOf();
          return a.status === "completed" || a.status === "failed" ? a : null;
        },
        { timeoutMs: 90_000, intervalMs: 100, what: "the application completed by the second worker" },
      );
      console.log(`apply-postgres.test: the rest written ${Math.round(performance.now() - killedAt)} ms after the kill`);
      expect(done).toMatchObject({
        status: "completed",
        error: null,
        days_done: DAYS,
        schedules_written: 2,
        blockouts_written: PER_DAY * DAYS,
        days_skipped: [],
      });

      // every date's blockouts once, the schedules once
      const all = await mine();
      expect(all.schedules.map((x) => [x.weekday, x.effective_from, x.effective_to]).sort()).toEqual([
        [2, "2027-01-05", "2027-12-28"],
        [4, "2027-01-07", "2027-12-30"],
      ]);
      const keys = all.blockouts.map((x) => x.start);
      expect([keys.length, new Set(keys).size]).toEqual([PER_DAY * DAYS, PER_DAY * DAYS]);
      const perDate = new Map<string, number>();
      for (const k of keys) perDate.set(k.slice(0, 10), (perDate.get(k.slice(0, 10)) ?? 0) + 1);
      expect([perDate.size, [...perDate.values()].every((n) => n === PER_DAY)]).toEqual([DAYS, true]);
      // availability follows: a Tuesday in the autumn, after the reserved morning
      const slots = await wd.slotsOn("2027-10-12");
      expect(slots.filter((x) => x.provider_uuid === wd.s.provider.id).map((x) => x.start.slice(11, 16))[0]).toBe("09:00");
    },
    150_000,
  );
});
