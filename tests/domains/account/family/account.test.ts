import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addDays, todayUtc } from "@/platform/time/dates";
import { accountWorld, type AccountWorld } from "@tests/domains/account/fixtures";
import { auditOf } from "@tests/helpers";

let w: AccountWorld;
let cash: string;
const TODAY = todayUtc();
const ago = (d: number) => addDays(TODAY, -d);
const MISSING = "01a1fe29-0000-7000-8000-000000000000";

beforeAll(async () => {
  w = await accountWorld();
  cash = await w.paymentType("Cash");
});
afterAll(() => w.t.close());

const account = (id: string, token = w.token) => w.t.request("GET", `${w.A}/patients/${id}/account`, { token });
const entries = (id: string, query = "", token = w.token) => w.t.request("GET", `${w.A}/patients/${id}/account/entries${query}`, { token });
const adjust = (id: string, body: Record<string, unknown>, token = w.token) => w.post(`/patients/${id}/adjustments`, body, token);

describe("the family account", () => {
  test("the guarantor's family: each member's aging, total, credit; family totals; last payment; read from any member", async () => {
    const mom = await w.patient("Mona");
    const kid = await w.patient("Kai", mom);
    await w.completed(mom, 200, w.drA.id, ago(45));
    await w.completed(kid, 80, w.drB.id, ago(5));
    const paid = await w.ok(w.post(`/patients/${kid}/payments`, { amount: 100, payment_type_uuid: cash, payment_date: ago(1) }));
    const r = await account(kid, w.tokens.reader);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      guarantor: { uuid: mom, name: "Mona Ledger" },
      members: [
        {
          patient: { uuid: mom, name: "Mona Ledger" },
          balance_0_30: "0.00",
          balance_31_60: "200.00",
          balance_61_90: "0.00",
          balance_over_90: "0.00",
          balance_total: "200.00",
          insurance_pending: "0.00",
          patient_portion: "200.00",
          unallocated_credit: "0.00",
        },
        {
          patient: { uuid: kid, name: "Kai Ledger" },
          balance_0_30: "-20.00",
          balance_31_60: "0.00",
          balance_61_90: "0.00",
          balance_over_90: "0.00",
          balance_total: "-20.00",
          insurance_pending: "0.00",
          patient_portion: "-20.00",
          unallocated_credit: "20.00",
        },
      ],
      totals: {
        balance_0_30: "-20.00",
        balance_31_60: "200.00",
        balance_61_90: "0.00",
        balance_over_90: "0.00",
        balance_total: "180.00",
        insurance_pending: "0.00",
        patient_portion: "180.00",
        unallocated_credit: "20.00",
      },
      last_payment: { payment_uuid: paid.id, patient: { uuid: kid, name: "Kai Ledger" }, payment_date: ago(1), amount: "100.00" },
      last_statement: null,
    });
    expect((await account(mom)).body).toEqual(r.body);
  });

  test("the family's entries in ledger order with a running balance; a range pages within it and keeps the balance", async () => {
    const dad = await w.patient("Dan");
    const son = await w.patient("Sol", dad);
    await w.completed(dad, 100, w.drA.id, ago(30));
    await w.completed(son, 40, w.drA.id, ago(20));
    await w.ok(w.post(`/patients/${son}/payments`, { amount: 30, payment_type_uuid: cash, payment_date: ago(10) }));
    const all = await w.ok(entries(son), 200);
    expect(all.total).toBe(3);
    expect(all.items.map((e: any) => [e.patient.name, e.entry_type, e.amount, e.entry_date, e.running_balance])).toEqual([
      ["Dan Ledger", "charge", "100.00", ago(30), "100.00"],
      ["Sol Ledger", "charge", "40.00", ago(20), "140.00"],
      ["Sol Ledger", "payment", "30.00", ago(10), "110.00"],
    ]);
    const ranged = await w.ok(entries(dad, `?date_from=${ago(25)}&page_size=1&page=2`), 200);
    expect(ranged.total).toBe(2);
    expect(ranged.items.map((e: any) => [e.entry_type, e.running_balance])).toEqual([["payment", "110.00"]]);
    expect((await entries(dad, `?date_from=${TODAY}&date_to=${ago(1)}`)).status).toBe(422);
    expect((await entries(dad, "?page_size=501")).status).toBe(422);
  });

  test("404 for a missing patient or another org's; 403 without billing.ledger.read; 401", async () => {
    expect((await account(MISSING)).status).toBe(404);
    const theirs = (
      await w.t.request("POST", `${w.B}/patients`, { token: w.token, body: { first_name: "Out", last_name: "Side", date_of_birth: "1990-01-01" } })
    ).body.uuid;
    expect((await account(theirs)).status).toBe(404);
    expect((await entries(theirs)).status).toBe(404);
    const p = await w.patient("Guard");
    expect((await account(p, w.tokens.clinician)).status).toBe(403);
    expect((await w.t.request("GET", `${w.A}/patients/${p}/account`)).status).toBe(401);
    expect((await account(p, w.tokens.memberOfB)).status).toBe(404);
  });
});

describe("POST adjustments", () => {
  test("a typed, signed entry for a procedure (its provider by default); the balance follows; audited", async () => {
    const p = await w.patient("Ada");
    const proc = await w.completed(p, 150, w.drB.id, ago(3));
    const senior = await w.adjustmentType("Senior discount");
    const r = await adjust(p, { amount: -15, adjustment_type_uuid: senior, procedure_uuid: proc.id, reason: "Over 65" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      entry_type: "adjustment",
      amount: "-15.00",
      source: "adjustment",
      description: "Over 65",
      adjustment_type: { uuid: senior, name: "Senior discount" },
      procedure_uuid: proc.id,
      provider: { uuid: w.drB.id, name: "Ben Bite" },
      entry_date: TODAY,
    });
    expect((await w.readPatient(p)).balance_total).toBe("135.00");
    expect((await auditOf(w.t, w.orgA, r.body.id)).map((e: { action: string }) => e.action)).toEqual(["ledger_entry.created"]);
    const finance = await adjust(p, { amount: 2.5, adjustment_type_uuid: await w.adjustmentType("Finance charge"), provider_uuid: w.drA.id });
    expect(finance.body).toMatchObject({ amount: "2.50", provider: { uuid: w.drA.id }, procedure_uuid: null });
    expect((await w.readPatient(p)).balance_total).toBe("137.50");
  });

  test("refused with nothing stored: 0, three decimals, out of range, a payment type as its type, another patient's procedure, unknown fields, a future date; 403 for a reader", async () => {
    const p = await w.patient("Bea");
    const other = await w.patient("Cid");
    const theirs = await w.completed(other, 10);
    const type = await w.adjustmentType("Courtesy discount");
    const before = await w.entries(p);
    for (const [body, loc] of [
      [{ amount: 0, adjustment_type_uuid: type }, ["body", "amount"]],
      [{ amount: -1.001, adjustment_type_uuid: type }, ["body", "amount"]],
      [{ amount: -1_000_000.01, adjustment_type_uuid: type }, ["body", "amount"]],
      [{ amount: -1, adjustment_type_uuid: type, note: "x" }, ["body", "note"]],
      [{ amount: -1, adjustment_type_uuid: type, entry_date: addDays(TODAY, 3) }, ["body", "entry_date"]],
    ] as const) {
      const r = await adjust(p, body);
      expect({ body, status: r.status, locs: r.body.detail.map((d: any) => d.loc) }).toEqual({ body, status: 422, locs: expect.arrayContaining([loc]) });
    }
    expect((await adjust(p, { amount: -1, adjustment_type_uuid: cash })).body).toEqual({ detail: "Adjustment type not found", code: "not_found" });
    expect((await adjust(p, { amount: -1, adjustment_type_uuid: type, procedure_uuid: theirs.id })).status).toBe(404);
    expect((await adjust(p, { amount: -1, adjustment_type_uuid: type, provider_uuid: MISSING })).status).toBe(404);
    expect((await adjust(p, { amount: -1, adjustment_type_uuid: type }, w.tokens.reader)).status).toBe(403);
    expect(await w.entries(p)).toEqual(before);
  });
});
