import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addDays, todayUtc } from "@/platform/time/dates";
import { accountWorld, type AccountWorld } from "@tests/domains/account/fixtures";
import { auditOf, busDrained } from "@tests/helpers";

let w: AccountWorld;
let cash: string;
let check: string;
const TODAY = todayUtc();
const ago = (d: number) => addDays(TODAY, -d);

beforeAll(async () => {
  w = await accountWorld();
  cash = await w.paymentType("Cash");
  check = await w.paymentType("Check");
});
afterAll(() => w.t.close());

const pay = (patientId: string, body: Record<string, unknown>, token = w.token) => w.post(`/patients/${patientId}/payments`, body, token);
const balanceOf = async (id: string) => (await w.readPatient(id)).balance_total;

describe("charges from completed work", () => {
  test("a procedure charted complete posts one charge at its fee, by its provider, on its date; the balance follows", async () => {
    const p = await w.patient("Cora");
    const proc = await w.completed(p, 120.5, w.drA.id, ago(10));
    const rows = await w.entries(p);
    expect(rows.map((r) => [r.entry_type, r.amount_cents, r.source, r.procedure_id, r.provider_id, r.entry_date])).toEqual([
      ["charge", 12050, "procedure", proc.id, w.drA.id, ago(10)],
    ]);
    expect(await balanceOf(p)).toBe("120.50");
  });

  test("completing a planned procedure charges it once; a later fee change posts the correcting adjustment, never edits the charge", async () => {
    const p = await w.patient("Dale");
    const planned = await w.ok(
      w.post(`/clinical/patients/${p}/procedures`, {
        procedure_code_uuid: await w.codeId("D2391"),
        status: "treatment_planned",
        fee_override: 90,
        provider_uuid: w.drB.id,
        tooth_number: "14",
        surfaces: "O",
      }),
    );
    expect(await w.entries(p)).toEqual([]);
    const done = await w.ok(
      w.t.request("PATCH", `${w.A}/clinical/procedures/${planned.id}`, { token: w.token, body: { base_version: planned.version, status: "complete" } }),
      200,
    );
    const moved = await w.ok(
      w.t.request("PATCH", `${w.A}/clinical/procedures/${planned.id}`, { token: w.token, body: { base_version: done.version, fee_override: 100 } }),
      200,
    );
    // the same fee again: no change, nothing posted
    await w.ok(
      w.t.request("PATCH", `${w.A}/clinical/procedures/${planned.id}`, { token: w.token, body: { base_version: moved.version, fee_override: 100 } }),
      200,
    );
    const rows = (await w.entries(p)).sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(rows.map((r) => [r.entry_type, r.amount_cents, r.source, r.procedure_id])).toEqual([
      ["charge", 9000, "procedure", planned.id],
      ["adjustment", 1000, "procedure", planned.id],
    ]);
    expect(await balanceOf(p)).toBe("100.00");
  });

  test("work completed by another office (complete_referred) is not charged", async () => {
    const p = await w.patient("Ezra");
    const referred = await w.ok(
      w.post(`/clinical/patients/${p}/procedures`, {
        procedure_code_uuid: await w.codeId("D2391"),
        status: "referred",
        fee_override: 80,
        tooth_number: "3",
        surfaces: "O",
      }),
    );
    const done = await w.ok(
      w.t.request("PATCH", `${w.A}/clinical/procedures/${referred.id}`, {
        token: w.token,
        body: { base_version: referred.version, status: "complete_referred" },
      }),
      200,
    );
    expect(done.status).toBe("complete_referred");
    expect(await w.entries(p)).toEqual([]);
  });
});

describe("POST payments", () => {
  test("with splits: 201, one payment entry per split (provider, procedure), balance down, audited, event without amounts", async () => {
    const p = await w.patient("Fay");
    const proc1 = await w.completed(p, 100, w.drA.id, ago(40));
    const proc2 = await w.completed(p, 60, w.drB.id, ago(5));
    const r = await pay(p, {
      amount: 70,
      payment_type_uuid: check,
      check_number: "1042",
      note: "Front desk",
      splits: [
        { provider_uuid: w.drA.id, procedure_uuid: proc1.id, amount: 50 },
        { provider_uuid: w.drB.id, procedure_uuid: proc2.id, amount: 20 },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      patient: { uuid: p, name: "Fay Ledger" },
      amount: "70.00",
      payment_type: { uuid: check, name: "Check" },
      payment_date: TODAY,
      check_number: "1042",
      note: "Front desk",
      location: { uuid: w.location.id, name: "Harbor" },
      status: "active",
      refunded: "0.00",
      unallocated: "0.00",
      version: 1,
    });
    expect(r.body.splits.map((s: any) => [s.provider.uuid, s.procedure_uuid, s.amount, s.left])).toEqual([
      [w.drA.id, proc1.id, "50.00", "50.00"],
      [w.drB.id, proc2.id, "20.00", "20.00"],
    ]);
    expect(await balanceOf(p)).toBe("90.00");
    const get = await w.t.request("GET", `${w.A}/payments/${r.body.id}`, { token: w.token });
    expect(get.body).toEqual(r.body);
    // audited; its event and its entries' events name ids only, never an amount
    expect((await auditOf(w.t, w.orgA, r.body.id)).map((e: { action: string }) => e.action)).toEqual(["payment.created"]);
    await busDrained(w.t.rt.bus);
    const created = w.events.find((e) => e.type === "payment.created" && e.resource_id === r.body.id)!;
    expect(created.data).toEqual({ id: r.body.id, patient_id: p });
    expect(created.practice_id).toBe(w.location.id);
    const splitEvents = w.events.filter((e) => e.type === "ledger_entry.created" && r.body.splits.some((s: any) => s.entry_uuid === e.resource_id));
    expect(splitEvents.map((e) => e.data)).toEqual(r.body.splits.map((s: any) => ({ id: s.entry_uuid, patient_id: p, entry_type: "payment" })));
  });

  test("without splits: the oldest open procedure charges first, by their providers; the rest is an unallocated prepayment", async () => {
    const p = await w.patient("Gil");
    const old = await w.completed(p, 30, w.drB.id, ago(60));
    const recent = await w.completed(p, 50, w.drA.id, ago(2));
    const r = await w.ok(pay(p, { amount: 100, payment_type_uuid: cash }));
    expect(r.splits.map((s: any) => [s.provider?.uuid ?? null, s.procedure_uuid, s.amount])).toEqual([
      [w.drB.id, old.id, "30.00"],
      [w.drA.id, recent.id, "50.00"],
      [null, null, "20.00"],
    ]);
    expect(r.unallocated).toBe("20.00");
    // a credit on account: a negative balance
    expect(await balanceOf(p)).toBe("-20.00");
    // a second payment finds nothing open: all of it is a prepayment
    const again = await w.ok(pay(p, { amount: 5, payment_type_uuid: cash }));
    expect(again.splits.map((s: any) => [s.provider, s.amount])).toEqual([[null, "5.00"]]);
  });

  test("refused with nothing stored: splits that do not add up, three decimals, over 1,000,000.00, 0, unknown fields; archived patient; missing type, provider or another patient's procedure", async () => {
    const p = await w.patient("Hal");
    const other = await w.patient("Ida");
    const theirs = await w.completed(other, 10);
    const before = [await w.entries(p), await w.paymentRows(p)];
    const cases: [Record<string, unknown>, number, unknown[]][] = [
      [{ amount: 50, payment_type_uuid: cash, splits: [{ provider_uuid: w.drA.id, amount: 20 }] }, 422, ["body", "splits"]],
      [{ amount: 10.005, payment_type_uuid: cash }, 422, ["body", "amount"]],
      [{ amount: 1_000_000.01, payment_type_uuid: cash }, 422, ["body", "amount"]],
      [{ amount: 0, payment_type_uuid: cash }, 422, ["body", "amount"]],
      [{ amount: "10", payment_type_uuid: cash }, 422, ["body", "amount"]],
      [{ amount: 10, payment_type_uuid: cash, tip: 1 }, 422, ["body", "tip"]],
      [{ amount: 10, payment_type_uuid: cash, payment_date: addDays(TODAY, 3) }, 422, ["body", "payment_date"]],
    ];
    for (const [body, status, loc] of cases) {
      const r = await pay(p, body);
      expect({ body, status: r.status, locs: r.body.detail.map((d: any) => d.loc) }).toEqual({ body, status, locs: expect.arrayContaining([loc]) });
    }
    const missing = "01a1fe29-0000-7000-8000-000000000000";
    expect((await pay(p, { amount: 10, payment_type_uuid: missing })).body).toEqual({ detail: "Payment type not found", code: "not_found" });
    // an adjustment type is no payment type
    expect((await pay(p, { amount: 10, payment_type_uuid: await w.adjustmentType("Senior discount") })).status).toBe(404);
    expect((await pay(p, { amount: 10, payment_type_uuid: cash, splits: [{ provider_uuid: missing, amount: 10 }] })).body.code).toBe("not_found");
    expect((await pay(p, { amount: 10, payment_type_uuid: cash, splits: [{ provider_uuid: w.drA.id, procedure_uuid: theirs.id, amount: 10 }] })).body).toEqual({
      detail: "Charted procedure not found",
      code: "not_found",
    });
    expect([await w.entries(p), await w.paymentRows(p)]).toEqual(before);
    // archived patients are read-only
    await w.ok(w.t.request("POST", `${w.A}/patients/${p}/archive`, { token: w.token, body: { base_version: (await w.readPatient(p)).version } }), 200);
    const archived = await pay(p, { amount: 10, payment_type_uuid: cash });
    expect(archived.status).toBe(422);
    expect(archived.body.code).toBe("patient_archived");
    expect([await w.entries(p), await w.paymentRows(p)]).toEqual(before);
  });

  test("guarded: 401, 403 without billing.ledger.write (a reader), 404 for another org's member and for another org's patient through this org", async () => {
    const p = await w.patient("Jo");
    expect((await w.t.request("POST", `${w.A}/patients/${p}/payments`, { body: { amount: 1, payment_type_uuid: cash } })).status).toBe(401);
    expect((await pay(p, { amount: 1, payment_type_uuid: cash }, w.tokens.reader)).status).toBe(403);
    expect((await pay(p, { amount: 1, payment_type_uuid: cash }, w.tokens.memberOfB)).status).toBe(404);
    const theirs = (
      await w.t.request("POST", `${w.B}/patients`, { token: w.token, body: { first_name: "Out", last_name: "Side", date_of_birth: "1990-01-01" } })
    ).body.uuid;
    expect((await pay(theirs, { amount: 1, payment_type_uuid: cash })).body).toEqual({ detail: "Patient not found", code: "not_found" });
    expect(await w.paymentRows(p)).toEqual([]);
  });
});

describe("void and refund", () => {
  test("a refund gives back from the prepayment first, then the latest splits; a void reverses what is left; a voided payment adds up to nothing", async () => {
    const p = await w.patient("Kit");
    const proc = await w.completed(p, 40, w.drA.id, ago(20));
    const paid = await w.ok(pay(p, { amount: 100, payment_type_uuid: cash }));
    expect(paid.unallocated).toBe("60.00");
    const refund = await w.t.request("POST", `${w.A}/payments/${paid.id}/refund`, {
      token: w.token,
      body: { base_version: paid.version, amount: 70, reason: "Overpaid" },
    });
    expect(refund.status).toBe(200);
    expect(refund.body).toMatchObject({ refunded: "70.00", unallocated: "0.00", version: 2 });
    expect(refund.body.splits.map((s: any) => [s.procedure_uuid, s.amount, s.left])).toEqual([
      [proc.id, "40.00", "30.00"],
      [null, "60.00", "0.00"],
    ]);
    expect(await balanceOf(p)).toBe("10.00");
    // more than is left: refused, nothing changed
    const tooMuch = await w.t.request("POST", `${w.A}/payments/${paid.id}/refund`, { token: w.token, body: { base_version: 2, amount: 30.01, reason: "x" } });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.code).toBe("refund_exceeds_payment");
    const stale = await w.t.request("POST", `${w.A}/payments/${paid.id}/void`, { token: w.token, body: { base_version: 1 } });
    expect(stale.status).toBe(409);
    const voided = await w.t.request("POST", `${w.A}/payments/${paid.id}/void`, { token: w.token, body: { base_version: 2, reason: "Bounced" } });
    expect(voided.status).toBe(200);
    expect(voided.body).toMatchObject({ status: "voided", void_reason: "Bounced", version: 3 });
    expect(voided.body.splits.every((s: any) => s.left === "0.00")).toBe(true);
    const mine = (await w.entries(p)).filter((e) => e.payment_id === paid.id);
    expect(mine.reduce((n, e) => n + e.amount_cents, 0)).toBe(0);
    // the charge is owed again, at its own date
    expect(await balanceOf(p)).toBe("40.00");
    const again = await w.t.request("POST", `${w.A}/payments/${paid.id}/void`, { token: w.token, body: { base_version: 3 } });
    expect(again.status).toBe(422);
    expect(again.body.code).toBe("payment_voided");
    const refundVoided = await w.t.request("POST", `${w.A}/payments/${paid.id}/refund`, { token: w.token, body: { base_version: 3, amount: 1, reason: "x" } });
    expect(refundVoided.body.code).toBe("payment_voided");
    expect((await w.t.request("POST", `${w.A}/payments/01a1fe29-0000-7000-8000-000000000000/void`, { token: w.token, body: { base_version: 1 } })).status).toBe(
      404,
    );
  });
});

describe("GET payments (the deposit list)", () => {
  test("filters by date, type, provider, patient and status; totals over every match not voided, and by type", async () => {
    const p = await w.patient("Lou");
    const proc = await w.completed(p, 300, w.drB.id, ago(3));
    const a = await w.ok(pay(p, { amount: 100, payment_type_uuid: cash, payment_date: ago(1) }));
    const b = await w.ok(
      pay(p, { amount: 50, payment_type_uuid: check, payment_date: ago(1), splits: [{ provider_uuid: w.drB.id, procedure_uuid: proc.id, amount: 50 }] }),
    );
    const c = await w.ok(pay(p, { amount: 25, payment_type_uuid: cash, payment_date: ago(1) }));
    await w.ok(w.t.request("POST", `${w.A}/payments/${c.id}/void`, { token: w.token, body: { base_version: 1 } }), 200);
    const list = await w.ok(w.t.request("GET", `${w.A}/payments?patient_uuid=${p}&date_from=${ago(1)}&date_to=${ago(1)}`, { token: w.tokens.reader }), 200);
    expect(list.total).toBe(3);
    expect(list.totals).toEqual({
      count: 2,
      amount: "150.00",
      refunded: "0.00",
      net: "150.00",
      by_type: [
        {
          payment_type: expect.objectContaining({ name: expect.any(String) }),
          count: 1,
          amount: expect.any(String),
          refunded: "0.00",
          net: expect.any(String),
        },
        {
          payment_type: expect.objectContaining({ name: expect.any(String) }),
          count: 1,
          amount: expect.any(String),
          refunded: "0.00",
          net: expect.any(String),
        },
      ],
    });
    expect(Object.fromEntries(list.totals.by_type.map((t: any) => [t.payment_type.name, t.amount]))).toEqual({ Cash: "100.00", Check: "50.00" });
    const byProvider = await w.ok(w.t.request("GET", `${w.A}/payments?patient_uuid=${p}&provider_uuid=${w.drB.id}`, { token: w.token }), 200);
    // a (auto-split to drB's open charge) and b name drB; c voided also did
    expect(byProvider.items.map((i: any) => i.id).sort()).toEqual([a.id, b.id, c.id].sort());
    const voided = await w.ok(w.t.request("GET", `${w.A}/payments?patient_uuid=${p}&status=voided`, { token: w.token }), 200);
    expect(voided.items.map((i: any) => i.id)).toEqual([c.id]);
    expect((await w.t.request("GET", `${w.A}/payments?date_from=${TODAY}&date_to=${ago(1)}`, { token: w.token })).status).toBe(422);
    expect((await w.t.request("GET", `${w.A}/payments`, { token: w.tokens.clinician })).status).toBe(403);
  });
});
