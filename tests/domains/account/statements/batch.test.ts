import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, inArray } from "drizzle-orm";
import { statementBatches, statements } from "@db/tenant/account";
import { patients } from "@db/tenant/patients";
import { all, run } from "@/platform/db/work";
import { addDays, todayUtc } from "@/platform/time/dates";
import { BATCH_CHUNK, batchHooks, selectGuarantors } from "@/domains/account/statements/batch";
import type { BatchRow } from "@/domains/account/statements/service";
import { statementHooks } from "@/domains/account/statements/produce";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { auditOf, busDrained, expectGuarded, expectValidationCases } from "@tests/helpers";
import { statementsWorld, type StatementsWorld } from "./fixtures";

// Statement batches: the endpoints (202, errors, nothing stored on a refusal),
// the selection rules (family balance, billing types, statements sent within
// N days, pending ones, who is a guarantor), progress while the statements are
// rendered, and a batch job that dies after its first chunk.

const TODAY = todayUtc();
const ago = (d: number) => addDays(TODAY, -d);

let w: StatementsWorld;
const g: Record<string, string> = {};
let collections: string;
let selfPay: string;

beforeAll(async () => {
  w = await statementsWorld();
  collections = await w.definition("billing_types", "Collections");
  selfPay = await w.definition("billing_types", "Self-pay");
  g.ada = await w.patient("Ada", { billing_type_uuid: selfPay });
  await w.entry(g.ada, "charge", 100, ago(3));
  g.bo = await w.patient("Bo"); // owes nothing himself; his dependent Kid does
  g.zoe = await w.patient("Zoe"); // her family owes nothing
  g.cy = await w.patient("Cy"); // owes nothing himself; his dependent does
  g.cyKid = await w.guarantorOf("Cyril", g.cy);
  await w.entry(g.cyKid, "charge", 30, ago(20));
  g.dee = await w.patient("Dee"); // in credit
  await w.entry(g.dee, "payment", 20, ago(4));
  g.eve = await w.patient("Eve", { billing_type_uuid: collections });
  await w.entry(g.eve, "charge", 500, ago(70));
  g.fay = await w.patient("Fay"); // a statement 5 days ago
  await w.entry(g.fay, "charge", 60, ago(30));
  g.gus = await w.patient("Gus"); // a statement still pending
  await w.entry(g.gus, "charge", 70, ago(30));
  g.hal = await w.patient("Hal"); // a failed statement 2 days ago does not count
  await w.entry(g.hal, "charge", 80, ago(30));
  g.ivy = await w.patient("Ivy", {}, "Self"); // her own responsible party: a guarantor
  await w.t.request("PATCH", `${w.A}/patients/${g.ivy}`, { token: w.token, body: { base_version: 1, responsible_party_uuid: g.ivy } });
  await w.entry(g.ivy, "charge", 15, ago(1));
  g.kid = await w.guarantorOf("Kid", g.bo); // owes 5: Bo's family owes 5 after all
  await w.entry(g.kid, "charge", 5, ago(1));
  g.old = await w.patient("Olaf"); // archived, owing
  await w.entry(g.old, "charge", 90, ago(9));
  g.dead = await w.patient("Dot"); // deceased, owing
  await w.entry(g.dead, "charge", 90, ago(9));
  const db = await orgDb(w.t, w.orgA);
  await db.write(function* (tx) {
    yield* run(tx.update(patients).set({ deleted_at: new Date().toISOString(), status: "archived" }).where(eq(patients.id, g.old!)));
    yield* run(tx.update(patients).set({ status: "deceased" }).where(eq(patients.id, g.dead!)));
  });
  // Fay's statement 5 days ago (sent), Gus's pending one, Hal's failed one
  for (const [who, status, days] of [
    ["fay", "sent", 5],
    ["gus", "pending", 1],
    ["hal", "failed", 2],
  ] as const) {
    const st = await w.ok(w.post("/statements", { guarantor_uuid: g[who] }), 202);
    const at = new Date(Date.now() - days * 86_400_000).toISOString();
    await db.write((tx) => run(tx.update(statements).set({ status, created_at: at }).where(eq(statements.id, st.id))));
  }
}, 60_000);
afterAll(() => w.t.close());

const batchRow = (fields: Partial<BatchRow> = {}): BatchRow => ({
  id: "01970000-0000-7000-8000-00000000ba7c",
  min_balance_cents: 1,
  billing_type_ids: null,
  skip_if_sent_within_days: 25,
  mode: "mail",
  status: "running",
  total: 0,
  done: 0,
  failed: 0,
  version: 1,
  created_at: "",
  updated_at: "",
  ...fields,
});

async function selected(fields: Partial<BatchRow> = {}): Promise<string[]> {
  const db = await orgDb(w.t, w.orgA);
  const rows = await db.read((d) => selectGuarantors(d, batchRow(fields), new Date()));
  const names = new Map(Object.entries(g).map(([k, v]) => [v, k]));
  return rows.map((r) => names.get(r.id) ?? r.id).sort();
}

describe("the selection", () => {
  test("families owing at least the minimum, by their guarantor; not archived, deceased, pending or sent within 25 days", async () => {
    expect(await selected()).toEqual(["ada", "bo", "cy", "eve", "hal", "ivy"]);
  });

  test("the minimum is the family's balance (every member's total)", async () => {
    expect(await selected({ min_balance_cents: 8_000 })).toEqual(["ada", "eve", "hal"]);
    expect(await selected({ min_balance_cents: 50_001 })).toEqual([]);
    // 0: a family owing nothing qualifies too; one in credit (Dee) is below it
    expect(await selected({ min_balance_cents: 0 })).toEqual(["ada", "bo", "cy", "eve", "hal", "ivy", "zoe"]);
  });

  test("billing types: only guarantors of those", async () => {
    expect(await selected({ billing_type_ids: [collections] })).toEqual(["eve"]);
    expect(await selected({ billing_type_ids: [collections, selfPay] })).toEqual(["ada", "eve"]);
  });

  test("skip_if_sent_within_days: a statement (not failed) made within N days; 0 skips none but a pending one", async () => {
    expect(await selected({ skip_if_sent_within_days: 0 })).toEqual(["ada", "bo", "cy", "eve", "fay", "hal", "ivy"]);
    expect(await selected({ skip_if_sent_within_days: 4 })).toEqual(["ada", "bo", "cy", "eve", "fay", "hal", "ivy"]);
    expect(await selected({ skip_if_sent_within_days: 6 })).toEqual(["ada", "bo", "cy", "eve", "hal", "ivy"]);
  });
});

describe("POST {P}/statements/batch", () => {
  test("refusals: 422 bad body, 404 an unknown billing type or another category's definition; nothing stored", async () => {
    const db = await orgDb(w.t, w.orgA);
    const count = () => db.read((d) => all(d.select().from(statementBatches)));
    const before = (await count()).length;
    await expectValidationCases(w.t, "POST", `${w.A}/statements/batch`, w.token, [
      [{ min_balance: -1 }, ["body", "min_balance"], expect.any(String)],
      [{ min_balance: 1.005 }, ["body", "min_balance"], expect.any(String)],
      [{ skip_if_sent_within_days: 366 }, ["body", "skip_if_sent_within_days"], expect.any(String)],
      [{ skip_if_sent_within_days: 1.5 }, ["body", "skip_if_sent_within_days"], expect.any(String)],
      [{ billing_type_uuids: ["x"] }, ["body", "billing_type_uuids", 0], expect.any(String)],
      [{ mode: "pigeon" }, ["body", "mode"], expect.any(String)],
      [{ total: 3 }, ["body", "total"], "extra_forbidden"],
    ]);
    const unknown = await w.post("/statements/batch", { billing_type_uuids: ["01970000-0000-7000-8000-00000000f00d"] });
    expect([unknown.status, unknown.body.code]).toEqual([404, "not_found"]);
    const check = await w.definition("payment_types", "Check");
    expect((await w.post("/statements/batch", { billing_type_uuids: [collections, check] })).status).toBe(404);
    expect((await count()).length).toBe(before);
    await expectGuarded(w.t, w.orgA, w.orgB, "POST", `${w.A}/statements/batch`, "billing.ledger.write", {});
    expect((await w.post("/statements/batch", {}, w.tokens.reader)).status).toBe(403);
  });

  test("202 running; the job makes one statement per selected guarantor; progress is readable as they are rendered; done once, with its event", async () => {
    const before = w.events.length;
    const r = await w.post("/statements/batch", { min_balance: 0.01, mode: "in_person" }, w.tokens.writer);
    expect(r.status).toBe(202);
    const batch = r.body;
    expect(batch).toMatchObject({
      min_balance: "0.01",
      billing_types: [],
      skip_if_sent_within_days: 25,
      mode: "in_person",
      status: "running",
      total: 0,
      done: 0,
      failed: 0,
    });
    expect(await w.runBatchJob(batch.id)).toEqual({ batch_id: batch.id, selected: 6, made: 6, total: 6 });
    const progress = () => w.ok(w.get(`/statement-batches/${batch.id}`, w.tokens.reader), 200);
    expect(await progress()).toMatchObject({ status: "running", total: 6, done: 0, failed: 0, version: 2 });
    const made = (await w.ok(w.get(`/statements?batch_uuid=${batch.id}&page_size=200`), 200)).items;
    expect(made.map((s: any) => s.guarantor.uuid).sort()).toEqual([g.ada, g.bo, g.cy, g.eve, g.hal, g.ivy].sort());
    expect(made.every((s: any) => s.status === "pending" && s.mode === "in_person" && s.date_to === TODAY && s.date_from === ago(45))).toBe(true);
    // one fails for good: counted as failed
    const failing = made.find((s: any) => s.guarantor.uuid === g.hal).id;
    statementHooks.beforeStore = ({ statementId }) => {
      if (statementId === failing) throw new Error("printer on fire");
    };
    try {
      const counted = { done: 0, failed: 0 };
      for (const s of made) {
        const out = await w.runRender(s.id, s.id === failing ? 3 : 0);
        expect(out.outcome).toBe(s.id === failing ? "failed" : "ready");
        counted[s.id === failing ? "failed" : "done"]++;
        const finished = counted.done + counted.failed === made.length;
        expect(await progress()).toMatchObject({ ...counted, total: 6, status: finished ? "done" : "running" });
      }
    } finally {
      statementHooks.beforeStore = undefined;
    }
    expect(await progress()).toMatchObject({ status: "done", total: 6, done: 5, failed: 1 });
    // running the job again makes nothing new
    expect(await w.runBatchJob(batch.id)).toMatchObject({ selected: 0, made: 0, total: 6 });
    await busDrained(w.t.rt.bus);
    const events = w.events.slice(before).filter((e) => e.resource_id === batch.id);
    expect(events.map((e) => e.type)).toEqual(["statement_batch.created", "statement_batch.selected", "statement_batch.completed"]);
    expect(events[2]!.data).toEqual({ id: batch.id, changed_fields: ["status"], total: 6, done: 5, failed: 1 });
    for (const e of events) expect(JSON.stringify(e.data)).not.toContain("min_balance_cents");
    const audit = await auditOf(w.t, w.orgA, batch.id);
    expect(audit.map((a) => [a.action, a.actor_id])).toEqual([
      ["statement_batch.created", expect.any(String)],
      ["statement_batch.selected", "system:statements.batch"],
      ["statement_batch.completed", "system:statements.render"],
    ]);
    // every statement made by the batch is audited as created by the batch job
    for (const s of made.slice(0, 2))
      expect((await auditOf(w.t, w.orgA, s.id))[0]).toMatchObject({ action: "statement.created", actor_id: "system:statements.batch" });
  });

  test("a batch that selects nobody is done at once", async () => {
    const r = await w.ok(w.post("/statements/batch", { min_balance: 999_999 }), 202);
    expect(await w.runBatchJob(r.id)).toEqual({ batch_id: r.id, selected: 0, made: 0, total: 0 });
    expect(await w.ok(w.get(`/statement-batches/${r.id}`), 200)).toMatchObject({ status: "done", total: 0, done: 0, failed: 0 });
  });

  test("GET {P}/statement-batches/{id}: 404 missing or another org's, 401, 403", async () => {
    const r = await w.ok(w.post("/statements/batch", { min_balance: 999_999 }), 202);
    expect((await w.get("/statement-batches/01970000-0000-7000-8000-00000000beef")).status).toBe(404);
    expect((await w.t.request("GET", `${w.pathB}/statement-batches/${r.id}`, { token: w.tokens.memberOfB })).status).toBe(404);
    await expectGuarded(w.t, w.orgA, w.orgB, "GET", `${w.A}/statement-batches/${r.id}`, "billing.ledger.read");
  });
});

describe("a batch job that dies after its first chunk", () => {
  test("the retry makes only the missing statements: every guarantor once, the total right", async () => {
    const n = BATCH_CHUNK + 20;
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const id = await w.patient(`Many${i}`, { billing_type_uuid: collections }, "Crowd");
      await w.entry(id, "charge", 10 + i, ago(2));
      ids.push(id);
    }
    const batch = await w.ok(w.post("/statements/batch", { billing_type_uuids: [collections], skip_if_sent_within_days: 0 }), 202);
    batchHooks.afterChunk = ({ batchId }) => {
      if (batchId === batch.id) throw new Error("worker killed after a chunk");
    };
    try {
      await expect(w.runBatchJob(batch.id)).rejects.toThrow("worker killed after a chunk");
    } finally {
      batchHooks.afterChunk = undefined;
    }
    const db = await orgDb(w.t, w.orgA);
    const inBatch = () => db.read((d) => all<typeof statements.$inferSelect>(d.select().from(statements).where(eq(statements.batch_id, batch.id))));
    expect((await inBatch()).length).toBe(BATCH_CHUNK);
    // Eve is of billing type collections too: the batch selected her as well
    expect((await w.ok(w.get(`/statement-batches/${batch.id}`), 200)).total).toBe(n + 1);
    expect(await w.runBatchJob(batch.id)).toMatchObject({ selected: n + 1 - BATCH_CHUNK, made: n + 1 - BATCH_CHUNK, total: n + 1 });
    const rows = await inBatch();
    expect(rows.length).toBe(n + 1);
    expect(new Set(rows.map((r) => r.guarantor_id)).size).toBe(n + 1);
    expect(rows.map((r) => r.guarantor_id)).toEqual(expect.arrayContaining([...ids, g.eve]));
    const pending = await db.read((d) => all<typeof statements.$inferSelect>(d.select().from(statements).where(inArray(statements.guarantor_id, ids))));
    expect(pending.every((r) => r.status === "pending")).toBe(true);
  }, 60_000);
});
