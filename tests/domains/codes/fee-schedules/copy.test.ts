import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, expectGuarded, waitFor } from "@tests/helpers";
import { startWorkers } from "@/platform/queue/workers";
import { JOBS } from "@workers/registry";
import { copyHooks } from "@/domains/codes/fee-schedules/copy.handler";
import { copiedAmount } from "@/domains/codes/fee-schedules/copy";
import { feeWorld, MISSING, WRITE, type FeeWorld } from "./fixtures";

// POST .../copy: a source of up to 500 fees is copied in the request (201 into
// a new schedule, 200 into an existing one); a larger one by the job
// fee-schedules.copy on the embedded queue (202, progress on the target), which
// a killed worker's retry finishes with the same result.

let w: FeeWorld;
let stop: () => Promise<void>;
let downtown: string;
let uptown: string;

beforeAll(async () => {
  w = await feeWorld({}, { withQueue: true });
  stop = await startWorkers(w.t.rt, JOBS);
  downtown = (await w.createLocation({ name: "Downtown" })).id;
  uptown = (await w.createLocation({ name: "Uptown" })).id;
}, 30_000);
afterAll(async () => {
  await stop();
  await w.t.close();
});

const copyPath = (id: string, org = w.orgA) => `${w.S(org)}/${id}/copy`;
const feeList = async (id: string) => {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const r = await w.call("GET", `${w.S()}/${id}/fees?page_size=200&page=${page}`, undefined, 200);
    out.push(...r.body.items);
    if (out.length >= r.body.total) return out;
  }
};
/** What a schedule holds, comparable across schedules: code, location, amount. */
const contents = async (id: string) => (await feeList(id)).map((f) => [f.procedure_code.name, f.location?.name ?? null, f.amount]);

describe("copiedAmount: the percent change, then rounding half up", () => {
  test.each([
    [10250, 0, 5, 10500],
    [10249, 0, 5, 10000],
    [9950, 0, 1, 10000],
    [9949, 0, 1, 9900],
    [1010, 5, 0.01, 1061], // 10.605 -> 10.61
    [1000, 5.5, 0.01, 1055],
    [1001, 5.5, 0.01, 1056], // 10.56055 -> 10.56
    [12345, -10, 1, 11100], // 111.105 -> 111
    [12345, 10.25, 0.01, 13610], // 136.1036... -> 136.10
    [50000, -100, 5, 0],
    [100_000_000, 0, 5, 100_000_000],
  ])("%i cents, %d %%, to %d -> %i", (cents, percent, roundTo, want) => {
    expect(copiedAmount(cents, percent, roundTo)).toBe(want);
  });
});

describe("a small copy, in the request", () => {
  test("201 into a new schedule: every fee (schedule-wide and each location's) changed and rounded; the source unchanged; audited", async () => {
    const source = await w.createSchedule({ name: "Standard 2025", schedule_type: "ucr" });
    const [d2740, d1110, d0120] = [await w.codeId("D2740"), await w.codeId("D1110"), await w.codeId("D0120")];
    await w.putFees(source.id, [
      { procedure_code_uuid: d2740, amount: 1000 },
      { procedure_code_uuid: d2740, amount: 1020.4, location_uuid: downtown },
      { procedure_code_uuid: d1110, amount: 97.5 },
      { procedure_code_uuid: d0120, amount: 60, location_uuid: uptown },
    ]);
    const sourceBefore = await contents(source.id);
    const from = w.events.length;
    const r = await w.call("POST", copyPath(source.id), { name: "Standard 2026", percent_change: 5, round_to: 5 });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(String),
      name: "Standard 2026",
      schedule_type: "ucr",
      is_hidden: false,
      is_default: false,
      copy_status: "done",
      copy_total: 4,
      copy_done: 4,
      copy_error: null,
      version: 1,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      deleted_at: null,
    });
    // 1000 * 1.05 = 1050; 1020.40 * 1.05 = 1071.42 -> 1070; 97.50 * 1.05 = 102.375 -> 100; 60 * 1.05 = 63 -> 65
    expect(await contents(r.body.id)).toEqual([
      ["D0120", "Uptown", "65.00"],
      ["D1110", null, "100.00"],
      ["D2740", null, "1050.00"],
      ["D2740", "Downtown", "1070.00"],
    ]);
    expect(await contents(source.id)).toEqual(sourceBefore);
    expect(w.events.slice(from).map((e) => e.type)).toEqual(["fee_schedule.created", "fee.created", "fee.created", "fee.created", "fee.created"]);
    expect(w.events.slice(from)[0]!.data).toEqual({ id: r.body.id, schedule_type: "ucr", is_default: false, source_fee_schedule_id: source.id });
    expect((await auditOf(w.t, w.orgA, r.body.id)).map((a) => a.action)).toEqual(["fee_schedule.created"]);
    // the schedule type may be given; round_to and percent_change default to a cent and nothing
    const ppo = await w.call("POST", copyPath(source.id), { name: "As PPO", schedule_type: "ppo" }, 201);
    expect(ppo.body.schedule_type).toBe("ppo");
    expect(await contents(ppo.body.id)).toEqual(sourceBefore);
  });

  test("200 into an existing schedule: its fees for the copied codes change, its others stay; fees already so are not written", async () => {
    const source = await w.createSchedule();
    const target = await w.createSchedule();
    const [d2740, d1110, d0120] = [await w.codeId("D2740"), await w.codeId("D1110"), await w.codeId("D0120")];
    await w.putFees(source.id, [
      { procedure_code_uuid: d2740, amount: 1000 },
      { procedure_code_uuid: d1110, amount: 100 },
    ]);
    const kept = await w.putFees(target.id, [
      { procedure_code_uuid: d2740, amount: 900 },
      { procedure_code_uuid: d1110, amount: 90 },
      { procedure_code_uuid: d0120, amount: 50 },
    ]);
    const r = await w.call("POST", copyPath(source.id), { to_fee_schedule_uuid: target.id, percent_change: -10 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: target.id, copy_status: "done", copy_total: 2, copy_done: 2, version: 2 });
    expect(await contents(target.id)).toEqual([
      ["D0120", null, "50.00"],
      ["D1110", null, "90.00"],
      ["D2740", null, "900.00"],
    ]);
    // 90.00 was already 100 - 10 %: not written again; 900.00 neither
    const rows = await w.feeRows(target.id);
    expect(rows.map((f) => f.version)).toEqual([1, 1, 1]);
    expect(rows.map((f) => f.id).sort()).toEqual(kept.items.map((f: any) => f.id).sort());
    expect((await auditOf(w.t, w.orgA, target.id)).map((a) => a.action)).toEqual(["fee_schedule.created", "fee_schedule.copied"]);
    const again = await w.call("POST", copyPath(source.id), { to_fee_schedule_uuid: target.id, percent_change: 10 }, 200);
    expect(again.body.version).toBe(3);
    expect(await contents(target.id)).toEqual([
      ["D0120", null, "50.00"],
      ["D1110", null, "110.00"],
      ["D2740", null, "1100.00"],
    ]);
  });

  test("refusals: 404, 422, 409; nothing is stored", async () => {
    const source = await w.createSchedule();
    const target = await w.createSchedule();
    await w.putFees(source.id, [{ procedure_code_uuid: await w.codeId("D2740"), amount: 900_000 }]);
    const theirs = await w.createSchedule({}, w.orgB);
    const archived = await w.createSchedule();
    await w.call("POST", `${w.S()}/${archived.id}/archive`, undefined, 200);
    const before = await w.snapshot();
    const cases: [string, unknown, number, unknown][] = [
      [copyPath(MISSING), { name: "New" }, 404, { detail: "Fee schedule not found", code: "not_found" }],
      [copyPath(theirs.id), { name: "New" }, 404, { detail: "Fee schedule not found", code: "not_found" }],
      [copyPath(archived.id), { name: "New" }, 404, { detail: "Fee schedule not found", code: "not_found" }],
      [copyPath(source.id), { to_fee_schedule_uuid: theirs.id }, 404, { detail: "Fee schedule not found", code: "not_found" }],
      [copyPath(source.id), { to_fee_schedule_uuid: archived.id }, 404, { detail: "Fee schedule not found", code: "not_found" }],
      [copyPath(source.id), { name: target.name.toUpperCase() }, 409, { detail: "Another fee schedule already uses this name", code: "duplicate" }],
      [
        copyPath(source.id),
        { to_fee_schedule_uuid: source.id },
        422,
        {
          detail: [{ loc: ["body", "to_fee_schedule_uuid"], msg: "A fee schedule cannot be copied into itself", type: "value_error" }],
          code: "same_fee_schedule",
        },
      ],
      [
        copyPath(source.id),
        { to_fee_schedule_uuid: target.id, percent_change: 12 },
        422,
        {
          detail: [{ loc: ["body", "percent_change"], msg: "The largest fee would become 1008000.00, over 1000000.00", type: "value_error" }],
          code: "fee_out_of_range",
        },
      ],
    ];
    for (const [path, body, status, answer] of cases) {
      const r = await w.call("POST", path, body);
      expect({ body, status: r.status, answer: r.body }).toEqual({ body, status, answer });
    }
    for (const [body, loc, type] of [
      [{}, ["body", "to_fee_schedule_uuid"], "value_error"],
      [{ name: "Both", to_fee_schedule_uuid: target.id }, ["body", "to_fee_schedule_uuid"], "value_error"],
      [{ to_fee_schedule_uuid: target.id, schedule_type: "ppo" }, ["body", "schedule_type"], "value_error"],
      [{ name: "R", round_to: 2 }, ["body", "round_to"], "enum"],
      [{ name: "R", round_to: "1" }, ["body", "round_to"], "enum"],
      [{ name: "P", percent_change: 1000.5 }, ["body", "percent_change"], "out_of_range"],
      [{ name: "P", percent_change: -100.01 }, ["body", "percent_change"], "out_of_range"],
      [{ name: "P", percent_change: 2.555 }, ["body", "percent_change"], "value_error"],
      [{ name: "T", schedule_type: "hmo" }, ["body", "schedule_type"], "enum"],
      [{ name: "X", to: "y" }, ["body", "to"], "extra_forbidden"],
    ] as const) {
      const r = await w.call("POST", copyPath(source.id), body);
      expect({ body, status: r.status, first: r.body.detail?.[0] }).toEqual({ body, status: 422, first: { loc: [...loc], msg: expect.any(String), type } });
    }
    expect(await w.snapshot()).toEqual(before);
    await expectGuarded(w.t, w.orgA, w.orgB, "POST", copyPath(source.id), WRITE, { to_fee_schedule_uuid: target.id });
    expect((await w.snapshot()).fees).toEqual(before.fees);
  });
});

describe("a large copy, by the job", () => {
  let source: { id: string; name: string };
  let expected: (string | null)[][];
  let total: number;

  beforeAll(async () => {
    // every starter code schedule-wide and at enough locations for more than 500 fees
    const codes = await w.allCodes();
    const places = [null, downtown, uptown, (await w.createLocation({ name: "Westside" })).id];
    source = await w.createSchedule({ name: "Big source" });
    const rows = codes.flatMap((c, i) => places.map((place, j) => ({ procedure_code_uuid: c.id, amount: 40 + i + j * 0.37, location_uuid: place })));
    for (let i = 0; i < rows.length; i += 1000) await w.putFees(source.id, rows.slice(i, i + 1000));
    total = rows.length;
    expect(total).toBeGreaterThan(500);
    // the copy at +3 %, to the dollar
    expected = (await contents(source.id)).map(([code, place, amount]) => [
      code,
      place,
      (copiedAmount(Math.round(Number(amount) * 100), 3, 1) / 100).toFixed(2),
    ]);
  }, 30_000);

  const finished = (id: string) =>
    waitFor(
      async () => {
        const s = await w.readSchedule(id);
        return s.copy_status !== "running" ? s : null;
      },
      { timeoutMs: 30_000, intervalMs: 50, what: "the copy to end" },
    );

  test("202 with the target running and its progress; the job copies every fee; each written once; progress readable; writes wait (409)", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const progress: number[] = [];
    copyHooks.afterBatch = async (info) => {
      progress.push(info.copied);
      if (info.batch === 1) await held;
    };
    try {
      const r = await w.call("POST", copyPath(source.id), { name: "Big copy", percent_change: 3, round_to: 1 });
      expect(r.status).toBe(202);
      expect(r.body).toMatchObject({ name: "Big copy", copy_status: "running", copy_total: total, copy_done: 0, copy_error: null });
      const target = r.body.id;
      // held after its first batch: the target shows how far it is
      const midway = await waitFor(async () => {
        const s = await w.readSchedule(target);
        return s.copy_done === 500 ? s : null;
      });
      expect(midway).toMatchObject({ copy_status: "running", copy_total: total, copy_done: 500 });
      // while it runs, the target takes no other fee writes, and neither schedule another copy
      const before = await w.snapshot();
      const d0120 = await w.codeId("D0120");
      expect((await w.call("PUT", `${w.S()}/${target}/fees`, { fees: [{ procedure_code_uuid: d0120, amount: 1 }] })).body).toEqual({
        detail: "A copy into this fee schedule is running; wait until it is done",
        code: "copy_in_progress",
      });
      expect((await w.call("POST", copyPath(source.id), { to_fee_schedule_uuid: target })).status).toBe(409);
      expect((await w.call("POST", copyPath(target), { name: "From a running copy" })).status).toBe(409);
      expect(await w.snapshot()).toEqual(before);
      release();
      const done = await finished(target);
      expect(done).toMatchObject({ copy_status: "done", copy_total: total, copy_done: total, copy_error: null });
      expect(await contents(target)).toEqual(expected);
      const rows = await w.feeRows(target);
      expect(rows.length).toBe(total);
      expect(rows.every((f) => f.version === 1 && f.deleted_at === null)).toBe(true);
      expect(progress.length).toBeGreaterThanOrEqual(1);
      // the job wrote as its own actor, carrying the request's id
      const audit = await auditOf(w.t, w.orgA, rows[rows.length - 1]!.id);
      expect(audit.map((a) => [a.action, a.actor_type, a.actor_id, a.request_id])).toEqual([
        ["fee.created", "system", "system:fee-schedules.copy", r.headers.get("x-request-id")],
      ]);
      expect((await auditOf(w.t, w.orgA, target)).map((a) => a.action)).toEqual(["fee_schedule.created", "fee_schedule.copy_progress", "fee_schedule.copied"]);
    } finally {
      copyHooks.afterBatch = undefined;
      release();
    }
  }, 60_000);

  test("a worker killed after its first batch: the retry finishes with the same result, nothing written twice", async () => {
    const target = await w.createSchedule({ name: "Retried copy" });
    // the target already holds a few fees, one of them what the copy will make it
    const first = expected[0]!;
    const firstCode = (await w.allCodes()).find((c) => c.code === first[0])!;
    await w.putFees(target.id, [{ procedure_code_uuid: firstCode.id, amount: Number(first[2]) }]);
    const attempts: number[] = [];
    copyHooks.afterBatch = (info) => {
      if (info.targetId !== target.id) return;
      attempts.push(info.attempt);
      if (info.attempt === 1) throw new Error("worker killed after its first batch");
    };
    try {
      const r = await w.call("POST", copyPath(source.id), { to_fee_schedule_uuid: target.id, percent_change: 3, round_to: 1 });
      expect(r.status).toBe(202);
      const done = await finished(target.id);
      expect(done).toMatchObject({ copy_status: "done", copy_total: total, copy_done: total });
      expect(attempts[0]).toBe(1);
      expect(attempts).toContain(2);
      expect(await contents(target.id)).toEqual(expected);
      const rows = await w.feeRows(target.id);
      expect(rows.length).toBe(total);
      // each fee created once: none updated (the retry found the first batch unchanged), none twice
      expect(rows.every((f) => f.version === 1 && f.deleted_at === null)).toBe(true);
      const audits = await Promise.all(rows.slice(0, 5).map((f) => auditOf(w.t, w.orgA, f.id)));
      expect(audits.map((a) => a.map((e) => e.action))).toEqual(rows.slice(0, 5).map(() => ["fee.created"]));
    } finally {
      copyHooks.afterBatch = undefined;
    }
  }, 60_000);

  test("archiving the target stops a running copy (copy_status failed); the job then writes nothing", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const outcomes: string[] = [];
    let target = "";
    copyHooks.afterBatch = async () => held;
    // (another test's job may still be returning: only this copy's outcome counts)
    copyHooks.ended = (info) => void (info.targetId === target && outcomes.push(info.outcome));
    try {
      const r = await w.call("POST", copyPath(source.id), { name: "Abandoned copy" }, 202);
      target = r.body.id;
      await waitFor(async () => (await w.readSchedule(r.body.id)).copy_done === 500);
      const archived = await w.call("POST", `${w.S()}/${r.body.id}/archive`, undefined, 200);
      expect(archived.body).toMatchObject({ copy_status: "failed", copy_error: "The fee schedule was archived during the copy" });
      const rowsThen = await w.feeRows(r.body.id);
      expect(rowsThen.length).toBe(500);
      release();
      await waitFor(() => outcomes.length > 0, { timeoutMs: 10_000 });
      expect(outcomes).toEqual(["skipped"]);
      expect(await w.feeRows(r.body.id)).toEqual(rowsThen);
    } finally {
      copyHooks.afterBatch = undefined;
      copyHooks.ended = undefined;
      release();
    }
  }, 60_000);
});
