import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditOf, busDrained, expectGuarded } from "@tests/helpers";
import { cents, day, effect, planWorld, TODAY, type PlanWorld } from "./fixtures";

// Payment plans over HTTP: creating one moves the amount financed off the
// account and posts what is due today; the schedule; payment_plan_due kept by
// every post (payments pay the oldest debts first); closing gives the unposted
// principal back; every refusal leaves the books as they were.

let w: PlanWorld;
const MISSING = "01a1fe29-0000-7000-8000-000000000000";

beforeAll(async () => {
  w = await planWorld();
});
afterAll(() => w.t.close());

const plan = (patient: string, extra: Record<string, unknown> = {}) => ({
  guarantor_uuid: patient,
  patient_uuid: patient,
  principal: 1000,
  down_payment: 100,
  apr: 12,
  frequency: "monthly",
  installment_count: 6,
  start_date: TODAY,
  ...extra,
});
const ledgerSum = async (patient: string) => (await w.entries(patient)).reduce((n, e) => n + effect(e), 0);
/** What a refused request must leave unchanged: the patient's ledger and their plans. */
const books = async (patient: string) => ({
  entries: (await w.entries(patient)).length,
  plans: (await w.t.request("GET", `${w.A}/payment-plans?patient_uuid=${patient}`, { token: w.token })).body.total,
  patient: await w.readPatient(patient),
});

describe("POST payment-plans", () => {
  test("201: the plan and its schedule; the amount financed leaves the account, today's installment is posted; audited; events without amounts", async () => {
    const p = await w.debtor("Ann", 1200);
    const from = w.events.length;
    const r = await w.createPlan(plan(p, { note: "Crown, 6 months" }));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      version: 1,
      guarantor: { uuid: p, name: "Ann Plan" },
      patient: { uuid: p, name: "Ann Plan" },
      principal: "1000.00",
      down_payment: "100.00",
      financed: "900.00",
      apr: 12,
      frequency: "monthly",
      installment_amount: "155.29",
      installment_count: 6,
      start_date: TODAY,
      note: "Crown, 6 months",
      status: "open",
      closed_at: null,
      total_interest: "31.77",
      total_of_installments: "931.77",
      installments_posted: 1,
      posted: "155.29",
      principal_remaining: "753.71",
      due: "155.29",
    });
    expect(r.body.schedule.map((i: any) => [i.number, i.amount, i.principal, i.interest, i.balance_after, i.posted])).toEqual([
      [1, "155.29", "146.29", "9.00", "753.71", true],
      [2, "155.29", "147.75", "7.54", "605.96", false],
      [3, "155.29", "149.23", "6.06", "456.73", false],
      [4, "155.29", "150.72", "4.57", "306.01", false],
      [5, "155.29", "152.23", "3.06", "153.78", false],
      [6, "155.32", "153.78", "1.54", "0.00", false],
    ]);
    expect(r.body.schedule[0].due_date).toBe(TODAY);
    expect(r.body.next_due_date).toBe(r.body.schedule[1].due_date);
    // the ledger: the debt, the plan taking the financed 900.00, the first installment (its interest included)
    const rows = await w.entries(p);
    expect(rows.map((e) => [e.entry_type, e.amount_cents, e.source, e.entry_date, e.payment_plan_id])).toEqual([
      ["charge", 120_000, "manual", day(-3), null],
      ["adjustment", -90_000, "payment_plan", TODAY, r.body.id],
      ["charge", 15_529, "payment_plan", TODAY, r.body.id],
    ]);
    expect(r.body.schedule[0].entry_uuid).toBe(rows[2]!.id);
    // what the family owes never counts twice: the 300.00 outside the plan, and the installment due
    const patient = await w.readPatient(p);
    expect([patient.balance_total, patient.payment_plan_due]).toEqual(["455.29", "155.29"]);
    expect(await w.ok(w.t.request("GET", `${w.A}/payment-plans/${r.body.id}`, { token: w.tokens.reader }), 200)).toEqual(r.body);

    expect((await auditOf(w.t, w.orgA, r.body.id)).map((a: any) => [a.action, a.after.principal_cents])).toEqual([["payment_plan.created", 100_000]]);
    await busDrained(w.t.rt.bus);
    const events = w.events.slice(from);
    const created = events.find((e) => e.type === "payment_plan.created")!;
    expect(created).toMatchObject({ resource_id: r.body.id, practice_id: w.location.id, data: { id: r.body.id, patient_id: p, guarantor_id: p } });
    expect(Object.keys(created.data).sort()).toEqual(["guarantor_id", "id", "patient_id"]);
    const entryEvents = events.filter((e) => e.type === "ledger_entry.created");
    expect(entryEvents.map((e) => e.data)).toEqual(rows.slice(1).map((e) => ({ id: e.id, patient_id: p, entry_type: e.entry_type })));
    // an amount as a JSON value (ids are hex and may hold the same digits)
    expect(JSON.stringify(events)).not.toMatch(/[:[,](155|900|1000)(\.\d+)?[,\]}]|"(155|900|1000)(\.\d\d)?"/);
  });

  test("installment_amount: the count follows, the last installment smaller; a future start posts nothing yet", async () => {
    const p = await w.debtor("Bo", 500);
    const r = await w.ok(
      w.createPlan(
        plan(p, {
          principal: 500,
          down_payment: undefined,
          apr: undefined,
          frequency: "weekly",
          installment_count: undefined,
          installment_amount: 120,
          start_date: day(10),
        }),
      ),
    );
    expect(r).toMatchObject({
      down_payment: "0.00",
      financed: "500.00",
      apr: 0,
      installment_amount: "120.00",
      installment_count: 5,
      total_interest: "0.00",
      installments_posted: 0,
      posted: "0.00",
      principal_remaining: "500.00",
      due: "0.00",
      next_due_date: day(10),
    });
    expect(r.schedule.map((i: any) => [i.due_date, i.amount])).toEqual([
      [day(10), "120.00"],
      [day(17), "120.00"],
      [day(24), "120.00"],
      [day(31), "120.00"],
      [day(38), "20.00"],
    ]);
    const patient = await w.readPatient(p);
    expect([patient.balance_total, patient.payment_plan_due]).toEqual(["0.00", "0.00"]);
  });

  test("the guarantor is the patient's: a child's plan is signed by their responsible party", async () => {
    const mom = await w.patient("Mona");
    const kid = await w.patient("Kai", mom);
    await w.charge(kid, 400);
    const before = await books(kid);
    for (const guarantor of [kid, await w.debtor("Stranger", 10)]) {
      const r = await w.createPlan(plan(kid, { guarantor_uuid: guarantor, principal: 400, down_payment: 0 }));
      expect({ status: r.status, code: r.body.code, loc: r.body.detail[0].loc }).toEqual({
        status: 422,
        code: "guarantor_mismatch",
        loc: ["body", "guarantor_uuid"],
      });
    }
    expect(await books(kid)).toEqual(before);
    const r = await w.ok(w.createPlan(plan(kid, { guarantor_uuid: mom, principal: 400, down_payment: 0, apr: 0, installment_count: 4 })));
    expect(r).toMatchObject({ guarantor: { uuid: mom, name: "Mona Plan" }, patient: { uuid: kid, name: "Kai Plan" }, installment_amount: "100.00" });
    // the family's balance: the 400.00 moved into the plan, the first installment back
    expect(await ledgerSum(kid)).toBe(10_000);
    expect(await ledgerSum(mom)).toBe(0);
  });

  test("422 on the body, nothing written: both or neither of amount and count, a down payment not below the principal, an APR over 30 %, dates", async () => {
    const p = await w.debtor("Cy", 800);
    const before = await books(p);
    const cases: [Record<string, unknown>, (string | number)[], string][] = [
      [{ installment_amount: 100 }, ["body", "installment_count"], "value_error"],
      [{ installment_count: undefined }, ["body", "installment_amount"], "value_error"],
      [{ down_payment: 1000 }, ["body", "down_payment"], "value_error"],
      [{ down_payment: -1 }, ["body", "down_payment"], "out_of_range"],
      [{ apr: 30.01 }, ["body", "apr"], "out_of_range"],
      [{ apr: 7.125 }, ["body", "apr"], "value_error"],
      [{ principal: 0 }, ["body", "principal"], "value_error"],
      [{ frequency: "daily" }, ["body", "frequency"], "enum"],
      [{ installment_count: 361 }, ["body", "installment_count"], "out_of_range"],
      [{ installment_count: 0 }, ["body", "installment_count"], "out_of_range"],
      [{ start_date: day(-1) }, ["body", "start_date"], "value_error"],
      [{ start_date: day(367) }, ["body", "start_date"], "value_error"],
      [{ start_date: "2025-02-30" }, ["body", "start_date"], "format"],
      [{ status: "closed" }, ["body", "status"], "extra_forbidden"],
      [{ guarantor_uuid: undefined }, ["body", "guarantor_uuid"], "missing"],
    ];
    for (const [change, loc, type] of cases) {
      const r = await w.createPlan(plan(p, { principal: 800, ...change }));
      expect({ change, status: r.status, loc: r.body.detail?.[0]?.loc }).toEqual({ change, status: 422, loc });
      if (type !== "enum") expect(r.body.detail[0].type).toBe(type);
    }
    expect(await books(p)).toEqual(before);
  });

  test("422 principal_exceeds_balance past what the patient owes outside their plans; 422 installment_too_small when installments never pay it off", async () => {
    const p = await w.debtor("Dee", 1000);
    const before = await books(p);
    const over = await w.createPlan(plan(p, { principal: 1000.01 }));
    expect({ status: over.status, code: over.body.code, loc: over.body.detail[0].loc }).toEqual({
      status: 422,
      code: "principal_exceeds_balance",
      loc: ["body", "principal"],
    });
    expect(over.body.detail[0].msg).toContain("1000.00");
    // 24 % a year is 2 % a month: 18.00 a month on 900.00 financed only pays the interest
    for (const body of [
      { apr: 24, installment_count: undefined, installment_amount: 18 },
      { apr: 24, installment_count: undefined, installment_amount: 18.01 },
    ]) {
      const r = await w.createPlan(plan(p, body));
      expect({ status: r.status, code: r.body.code, loc: r.body.detail[0].loc }).toEqual({
        status: 422,
        code: "installment_too_small",
        loc: ["body", "installment_amount"],
      });
    }
    expect(await books(p)).toEqual(before);
    // a second plan may finance only what the first left on the account (here the 100.00 down payment)
    await w.ok(w.createPlan(plan(p, { start_date: day(5) })));
    const second = await w.createPlan(plan(p, { principal: 100.01, down_payment: 0 }));
    expect([second.status, second.body.code]).toEqual([422, "principal_exceeds_balance"]);
    await w.ok(w.createPlan(plan(p, { principal: 100, down_payment: 0, installment_count: 2 })));
    // a patient in credit finances nothing
    const credit = await w.patient("Eve");
    await w.pay(credit, 50);
    expect((await w.createPlan(plan(credit, { principal: 10, down_payment: 0 }))).body.code).toBe("principal_exceeds_balance");
  });

  test("404 for a missing patient or guarantor and for another org's; 422 patient_archived for an archived one", async () => {
    const p = await w.debtor("Fin", 300);
    const other = (await w.t.request("POST", `${w.pathB}/patients`, { token: w.token, body: { first_name: "Bea", last_name: "Other" } })).body.id;
    for (const body of [plan(MISSING), plan(p, { guarantor_uuid: MISSING }), plan(other), plan(p, { guarantor_uuid: other })]) {
      const r = await w.createPlan({ ...body, principal: 300, down_payment: 0 });
      expect([r.status, r.body.code]).toEqual([404, "not_found"]);
    }
    const archived = await w.debtor("Gil", 300);
    await w.ok(w.post(`/patients/${archived}/archive`, {}), 200);
    const r = await w.createPlan(plan(archived, { principal: 300, down_payment: 0 }));
    expect({ status: r.status, code: r.body.code, loc: r.body.detail[0].loc }).toEqual({
      status: 422,
      code: "patient_archived",
      loc: ["body", "patient_uuid"],
    });
    expect((await w.entries(archived)).length).toBe(1);
  });

  test("guarded: 401, 403 for a reader, 404 for another org's member", async () => {
    const p = await w.debtor("Hal", 200);
    const body = plan(p, { principal: 200, down_payment: 0 });
    expect((await w.t.request("POST", `${w.A}/payment-plans`, { body })).status).toBe(401);
    expect((await w.createPlan(body, w.tokens.reader)).status).toBe(403);
    expect((await w.createPlan(body, w.tokens.memberOfB)).status).toBe(404);
    expect(await w.entries(p)).toHaveLength(1);
    expect((await w.createPlan(body, w.tokens.writer)).status).toBe(201);
  });
});

describe("the body of a write", () => {
  test("415 for another media type, 413 over the size limit, 409 idempotency_conflict for a key reused with another body; the same key replays", async () => {
    const p = await w.debtor("Rae", 300);
    const before = await books(p);
    for (const path of ["/payment-plans", "/payment-plans/" + MISSING + "/close"]) {
      const form = await w.t.request("POST", `${w.A}${path}`, {
        token: w.token,
        rawBody: "principal=1",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect([form.status, form.body.code]).toEqual([415, "unsupported_media_type"]);
      const huge = await w.post(path, { ...plan(p), note: "x".repeat(1024 * 1024 + 1) });
      expect([huge.status, huge.body.code]).toEqual([413, "payload_too_large"]);
    }
    expect(await books(p)).toEqual(before);
    const key = { "idempotency-key": `plan-${p}` };
    const body = plan(p, { principal: 300, down_payment: 0, start_date: day(3) });
    const first = await w.t.request("POST", `${w.A}/payment-plans`, { token: w.token, body, headers: key });
    expect(first.status).toBe(201);
    const replay = await w.t.request("POST", `${w.A}/payment-plans`, { token: w.token, body, headers: key });
    expect([replay.status, replay.body.id]).toEqual([201, first.body.id]);
    const other = await w.t.request("POST", `${w.A}/payment-plans`, { token: w.token, body: { ...body, installment_count: 3 }, headers: key });
    expect([other.status, other.body.code]).toEqual([409, "idempotency_conflict"]);
    expect((await books(p)).plans).toBe(1);
  });
});

describe("GET payment-plans", () => {
  test("paged, newest first, filtered by guarantor, patient and status; without the schedule", async () => {
    const mom = await w.patient("Ida");
    const kid = await w.patient("Ike", mom);
    await w.charge(mom, 300);
    await w.charge(kid, 300);
    const a = await w.ok(w.createPlan(plan(mom, { principal: 300, down_payment: 0, start_date: day(1) })));
    const b = await w.ok(w.createPlan(plan(kid, { guarantor_uuid: mom, principal: 300, down_payment: 0, start_date: day(1) })));
    await w.ok(w.post(`/payment-plans/${a.id}/close`, { base_version: 1 }), 200);
    const list = (query: string, token = w.token) => w.t.request("GET", `${w.A}/payment-plans${query}`, { token });
    const ids = async (query: string) => (await list(query)).body.items.map((i: any) => i.id);
    expect(await ids(`?guarantor_uuid=${mom}`)).toEqual([b.id, a.id]);
    expect(await ids(`?patient_uuid=${kid}`)).toEqual([b.id]);
    expect(await ids(`?guarantor_uuid=${mom}&status=open`)).toEqual([b.id]);
    expect(await ids(`?guarantor_uuid=${mom}&status=closed`)).toEqual([a.id]);
    const page = await list(`?guarantor_uuid=${mom}&page=2&page_size=1`, w.tokens.reader);
    expect(page.status).toBe(200);
    expect({ ...page.body, items: page.body.items.map((i: any) => i.id) }).toEqual({ items: [a.id], page: 2, page_size: 1, total: 2 });
    const { schedule, ...withoutSchedule } = b;
    expect(schedule).toHaveLength(6);
    expect((await list(`?patient_uuid=${kid}`)).body.items[0]).toEqual(withoutSchedule);
    for (const q of ["?page_size=201", "?status=paid", "?patient_uuid=nope", "?sort=x"]) expect((await list(q)).status).toBe(422);
    await expectGuarded(w.t, w.orgA, w.orgB, "GET", `${w.A}/payment-plans`, "billing.ledger.read");
  });

  test("by id: 200 with the schedule; 404 when missing and for another org's plan", async () => {
    const p = await w.debtor("Jo", 90);
    const mine = await w.ok(w.createPlan(plan(p, { principal: 90, down_payment: 0, installment_count: 3 })));
    expect((await w.t.request("GET", `${w.A}/payment-plans/${mine.id}`, { token: w.tokens.reader })).body.schedule).toHaveLength(3);
    const other = (await w.t.request("POST", `${w.pathB}/patients`, { token: w.token, body: { first_name: "Bea", last_name: "Other" } })).body.id;
    await w.t.request("POST", `${w.pathB}/patients/${other}/ledger-entries`, { token: w.token, body: { entry_type: "charge", amount: 50 } });
    const theirs = await w.t.request("POST", `${w.pathB}/payment-plans`, { token: w.token, body: plan(other, { principal: 50, down_payment: 0 }) });
    expect(theirs.status).toBe(201);
    for (const id of [MISSING, theirs.body.id]) {
      const r = await w.t.request("GET", `${w.A}/payment-plans/${id}`, { token: w.token });
      expect([r.status, r.body.code]).toEqual([404, "not_found"]);
      expect((await w.post(`/payment-plans/${id}/close`, { base_version: 1 })).status).toBe(404);
    }
    expect((await w.t.request("GET", `${w.pathB}/payment-plans/${theirs.body.id}`, { token: w.token })).body.status).toBe("open");
    await expectGuarded(w.t, w.orgA, w.orgB, "GET", `${w.A}/payment-plans/${mine.id}`, "billing.ledger.read");
  });
});

describe("POST payment-plans/{id}/close", () => {
  test("200: closed; the principal not yet posted returns to the account without its interest; posted installments stay owed; audited, an event without amounts", async () => {
    const p = await w.debtor("Kim", 1200);
    const r = await w.ok(w.createPlan(plan(p)));
    const before = await ledgerSum(p);
    const from = w.events.length;
    const closed = await w.post(`/payment-plans/${r.id}/close`, { base_version: 1 });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({
      version: 2,
      status: "closed",
      closed_at: expect.any(String),
      installments_posted: 1,
      posted: "155.29",
      principal_remaining: "0.00",
      due: "0.00",
      next_due_date: null,
    });
    const back = (await w.entries(p)).at(-1)!;
    expect([back.entry_type, back.amount_cents, back.source, back.payment_plan_id, back.entry_date]).toEqual([
      "adjustment",
      75_371,
      "payment_plan",
      r.id,
      TODAY,
    ]);
    // the family owes what it owed, with the interest of the one installment posted (9.00)
    expect(await ledgerSum(p)).toBe(before + 75_371);
    expect(await ledgerSum(p)).toBe(120_000 + 900);
    const patient = await w.readPatient(p);
    expect([patient.balance_total, patient.payment_plan_due]).toEqual(["1209.00", "0.00"]);
    expect((await auditOf(w.t, w.orgA, r.id)).map((a: any) => a.action)).toEqual(["payment_plan.created", "payment_plan.closed"]);
    await busDrained(w.t.rt.bus);
    const event = w.events.slice(from).find((e) => e.type === "payment_plan.closed")!;
    expect(event).toMatchObject({ resource_id: r.id, practice_id: w.location.id, data: { id: r.id, patient_id: p } });
    expect([...(event.data.changed_fields as string[])].sort()).toEqual(["closed_at", "status"]);
  });

  test("409 on a stale base_version, 422 invalid_transition when closed already, 422 patient_archived, 403 for a reader: nothing written", async () => {
    const p = await w.debtor("Lou", 300);
    const r = await w.ok(w.createPlan(plan(p, { principal: 300, down_payment: 0 })));
    const close = (body: unknown, token = w.token) => w.t.request("POST", `${w.A}/payment-plans/${r.id}/close`, { token, body });
    const before = await books(p);
    expect((await close({ base_version: 2 })).status).toBe(409);
    expect((await close({ base_version: 1 }, w.tokens.reader)).status).toBe(403);
    expect((await close({})).status).toBe(422);
    expect(await books(p)).toEqual(before);
    expect((await close({ base_version: 1 })).status).toBe(200);
    const again = await close({ base_version: 2 });
    expect({ status: again.status, code: again.body.code, loc: again.body.detail[0].loc }).toEqual({
      status: 422,
      code: "invalid_transition",
      loc: ["path", "plan_uuid"],
    });

    const q = await w.debtor("Max", 300);
    const open = await w.ok(w.createPlan(plan(q, { principal: 300, down_payment: 0 })));
    await w.ok(w.post(`/patients/${q}/archive`, {}), 200);
    const archived = await w.post(`/payment-plans/${open.id}/close`, { base_version: 1 });
    expect([archived.status, archived.body.code]).toEqual([422, "patient_archived"]);
    expect((await w.readPlan(open.id)).status).toBe("open");
  });

  test("a plan whose installments are all posted closes without an entry", async () => {
    const p = await w.debtor("Ned", 100);
    const r = await w.ok(w.createPlan(plan(p, { principal: 100, down_payment: 0, apr: 0, installment_count: 1 })));
    expect(r).toMatchObject({ installments_posted: 1, principal_remaining: "0.00", due: "100.00", next_due_date: null });
    const count = (await w.entries(p)).length;
    const closed = await w.ok(w.post(`/payment-plans/${r.id}/close`, { base_version: 1 }), 200);
    expect((await w.entries(p)).length).toBe(count);
    // the installment stays owed, now as an ordinary charge
    expect(closed.due).toBe("0.00");
    expect((await w.readPatient(p)).balance_total).toBe("100.00");
  });
});

describe("payment_plan_due", () => {
  test("ordinary payments pay the oldest debts first: the balance outside the plan, then the installments; a void opens them again", async () => {
    const p = await w.debtor("Ola", 1200);
    const r = await w.ok(w.createPlan(plan(p)));
    const due = async () => (await w.readPatient(p)).payment_plan_due;
    expect(await due()).toBe("155.29");
    await w.pay(p, 250); // the 300.00 outside the plan is older: it is paid first
    expect(await due()).toBe("155.29");
    const paid = await w.pay(p, 100);
    expect(await due()).toBe("105.29");
    expect((await w.readPlan(r.id)).due).toBe("105.29");
    await w.ok(w.post(`/payments/${paid.id}/void`, { base_version: paid.version }), 200);
    expect(await due()).toBe("155.29");
    await w.pay(p, 205.29);
    expect(await due()).toBe("0.00");
    expect((await w.readPatient(p)).balance_total).toBe("0.00");
  });

  test("the revenue filter field payment_plan_due reads the same value", async () => {
    const p = await w.debtor("Pia", 600);
    await w.ok(w.createPlan(plan(p, { principal: 600, down_payment: 0, apr: 0, installment_count: 3 })));
    const q = await w.debtor("Quin", 600);
    await w.ok(w.createPlan(plan(q, { principal: 600, down_payment: 0, apr: 0, installment_count: 3 })));
    await w.pay(q, 200);
    const fields = (await w.t.request("GET", `${w.A}/revenue-module/fields`, { token: w.token })).body;
    const field = fields.categories.find((c: any) => c.key === "balances").fields.find((f: any) => f.key === "payment_plan_due");
    expect(field).toMatchObject({ type: "money", sortable: true });
    const count = async (value: number) =>
      (
        await w.t.request("POST", `${w.A}/revenue-module/count`, {
          token: w.token,
          body: {
            expected_source_snapshot_version: fields.source_version,
            filter_definition: { groups: [{ conditions: [{ field: "payment_plan_due", operator: "eq", value }] }] },
          },
        })
      ).body.count;
    expect(cents((await w.readPatient(p)).payment_plan_due)).toBe(20_000);
    expect(await count(200)).toBeGreaterThanOrEqual(1);
    const execute = await w.t.request("POST", `${w.A}/revenue-module/execute`, {
      token: w.token,
      body: {
        expected_source_snapshot_version: fields.source_version,
        filter_definition: { groups: [{ conditions: [{ field: "payment_plan_due", operator: "gt", value: 0 }] }] },
      },
    });
    const found = execute.body.patients.map((x: any) => x.uuid ?? x.id);
    expect(found).toContain(p);
    expect(found).not.toContain(q);
  });
});
