import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ledgerEntries } from "@db/tenant/ledger";
import { run } from "@/platform/db/work";
import { addDays, todayUtc } from "@/platform/time/dates";
import { accountWorld, type AccountWorld } from "@tests/domains/account/fixtures";
import { orgDb } from "@tests/domains/patients/record/fixtures";

// Production and collections, and the daysheet (docs/account/reports.md), over
// a small practice whose every figure is worked out by hand below. Each test
// reads its own dates: the report is the whole org's.

let w: AccountWorld;
let cash: string;
const TODAY = todayUtc();
const ago = (d: number) => addDays(TODAY, -d);
const D1 = ago(30);
const D2 = ago(29);
const D3 = ago(28);

let summit: { id: string };
let ava: string;
let ben: string;
let fillingA: { id: string };
let fillingB: { id: string };
let insuranceEntry: string;

const report = (query: string, token = w.token) => w.t.request("GET", `${w.A}/reports/production-collections?${query}`, { token });
const daysheet = (query: string, token = w.token) => w.t.request("GET", `${w.A}/reports/daysheet?${query}`, { token });

/** An insurance payment as a claim will post it (claims: issue 33; no route posts one yet), straight into the ledger. */
async function insurancePayment(patientId: string, cents: number, date: string, providerId: string, locationId: string) {
  const id = Bun.randomUUIDv7();
  const now = new Date().toISOString();
  const db = await orgDb(w.t, w.orgA);
  await db.write((tx) =>
    run(
      tx.insert(ledgerEntries).values({
        id,
        patient_id: patientId,
        entry_type: "payment",
        amount_cents: cents,
        entry_date: date,
        description: "Claim payment",
        source: "insurance",
        payer: "insurance",
        provider_id: providerId,
        location_id: locationId,
        created_at: now,
        updated_at: now,
        version: 1,
      }),
    ),
  );
  return id;
}

// The practice, D1..D3 (and one entry each side of the range):
//   D1  Ava: filling by Ann Apex at Harbor, 200.00
//   D2  Ava: crown prep by Ben Bite at Summit, 80.00; a manual charge of 15.00 (no provider, no location)
//       Ben: a 25.00 prepayment (no provider; Harbor, the patient's location)
//   D3  Ava: a 20.00 senior discount on Ann's filling (Ann, Harbor); a 100.00 payment split 60.00 to Ann
//       (the filling), 40.00 to Ben; an insurance payment of 30.00 for Ann's filling (Ann, Harbor)
//       Ben: a finance charge of 5.00 (no provider; Harbor)
//   outside: Ava 50.00 charged the day before D1, Ben paying 10.00 the day after D3
beforeAll(async () => {
  w = await accountWorld();
  cash = await w.paymentType("Cash");
  summit = await w.ok(w.post("/locations", { name: "Summit", timezone: "UTC" }));
  ava = await w.patient("Ava");
  ben = await w.patient("Ben");
  fillingA = await w.completed(ava, 200, w.drA.id, D1);
  fillingB = await w.ok(
    w.post(`/clinical/patients/${ava}/procedures`, {
      procedure_code_uuid: await w.codeId("D2391"),
      status: "complete",
      fee_override: 80,
      provider_uuid: w.drB.id,
      location_uuid: summit.id,
      tooth_number: "14",
      surfaces: "O",
      date_service: D2,
    }),
  );
  await w.ok(w.post(`/patients/${ava}/ledger-entries`, { entry_type: "charge", amount: 15, entry_date: D2, description: "Balance forward" }));
  await w.ok(w.post(`/patients/${ben}/payments`, { amount: 25, payment_type_uuid: cash, payment_date: D2 }));
  await w.ok(
    w.post(`/patients/${ava}/adjustments`, {
      amount: -20,
      adjustment_type_uuid: await w.adjustmentType("Senior discount"),
      procedure_uuid: fillingA.id,
      entry_date: D3,
    }),
  );
  await w.ok(
    w.post(`/patients/${ava}/payments`, {
      amount: 100,
      payment_type_uuid: cash,
      payment_date: D3,
      splits: [
        { provider_uuid: w.drA.id, procedure_uuid: fillingA.id, amount: 60 },
        { provider_uuid: w.drB.id, amount: 40 },
      ],
    }),
  );
  insuranceEntry = await insurancePayment(ava, 3000, D3, w.drA.id, w.location.id);
  await w.ok(w.post(`/patients/${ben}/adjustments`, { amount: 5, adjustment_type_uuid: await w.adjustmentType("Finance charge"), entry_date: D3 }));
  await w.completed(ava, 50, w.drA.id, ago(31));
  await w.ok(w.post(`/patients/${ben}/payments`, { amount: 10, payment_type_uuid: cash, payment_date: ago(27) }));
  // another org's entries on the same days are never counted
  const outsider = (
    await w.t.request("POST", `${w.B}/patients`, { token: w.token, body: { first_name: "Out", last_name: "Side", date_of_birth: "1990-01-01" } })
  ).body.uuid;
  await w.ok(
    w.t.request("POST", `${w.B}/patients/${outsider}/ledger-entries`, { token: w.token, body: { entry_type: "charge", amount: 999, entry_date: D2 } }),
  );
  await w.ok(
    w.t.request("POST", `${w.B}/patients/${outsider}/ledger-entries`, { token: w.token, body: { entry_type: "payment", amount: 777, entry_date: D3 } }),
  );
});
afterAll(() => w.t.close());

const zero = {
  gross_production: "0.00",
  adjustments: "0.00",
  net_production: "0.00",
  non_production: "0.00",
  patient_collections: "0.00",
  insurance_collections: "0.00",
  net_collections: "0.00",
};
const TOTALS = {
  gross_production: "280.00",
  adjustments: "-15.00",
  net_production: "265.00",
  non_production: "15.00",
  patient_collections: "125.00",
  insurance_collections: "30.00",
  net_collections: "155.00",
};

describe("GET reports/production-collections", () => {
  test("by day: every date of the range, with the totals of the ledger over it (a reader may read it)", async () => {
    const r = await report(`date_from=${D1}&date_to=${D3}&group_by=day`, w.tokens.reader);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      date_from: D1,
      date_to: D3,
      group_by: "day",
      rows: [
        { key: D1, date: D1, ...zero, gross_production: "200.00", net_production: "200.00" },
        {
          key: D2,
          date: D2,
          ...zero,
          gross_production: "80.00",
          net_production: "80.00",
          non_production: "15.00",
          patient_collections: "25.00",
          net_collections: "25.00",
        },
        {
          key: D3,
          date: D3,
          ...zero,
          adjustments: "-15.00",
          net_production: "-15.00",
          patient_collections: "100.00",
          insurance_collections: "30.00",
          net_collections: "130.00",
        },
      ],
      totals: TOTALS,
    });
    // group_by defaults to day
    expect((await report(`date_from=${D1}&date_to=${D3}`)).body.rows.map((row: { key: string }) => row.key)).toEqual([D1, D2, D3]);
    // a day without entries is a row of zeros
    expect((await report(`date_from=${ago(40)}&date_to=${ago(40)}`)).body).toEqual({
      date_from: ago(40),
      date_to: ago(40),
      group_by: "day",
      rows: [{ key: ago(40), date: ago(40), ...zero }],
      totals: zero,
    });
  });

  test("by provider: by name, the entries without a provider (a manual charge, a prepayment, a finance charge) in `none`", async () => {
    const r = await report(`date_from=${D1}&date_to=${D3}&group_by=provider`);
    expect(r.status).toBe(200);
    expect(r.body.rows).toEqual([
      {
        key: w.drA.id,
        provider: { uuid: w.drA.id, name: "Ann Apex" },
        ...zero,
        gross_production: "200.00",
        adjustments: "-20.00",
        net_production: "180.00",
        patient_collections: "60.00",
        insurance_collections: "30.00",
        net_collections: "90.00",
      },
      {
        key: w.drB.id,
        provider: { uuid: w.drB.id, name: "Ben Bite" },
        ...zero,
        gross_production: "80.00",
        net_production: "80.00",
        patient_collections: "40.00",
        net_collections: "40.00",
      },
      {
        key: "none",
        provider: null,
        ...zero,
        adjustments: "5.00",
        net_production: "5.00",
        non_production: "15.00",
        patient_collections: "25.00",
        net_collections: "25.00",
      },
    ]);
    expect(r.body.totals).toEqual(TOTALS);
  });

  test("by location: a procedure's location, a payment's the patient's; a manual ledger entry has none", async () => {
    const r = await report(`date_from=${D1}&date_to=${D3}&group_by=location`);
    expect(r.body.rows).toEqual([
      {
        key: w.location.id,
        location: { uuid: w.location.id, name: "Harbor" },
        gross_production: "200.00",
        adjustments: "-15.00",
        net_production: "185.00",
        non_production: "0.00",
        patient_collections: "125.00",
        insurance_collections: "30.00",
        net_collections: "155.00",
      },
      { key: summit.id, location: { uuid: summit.id, name: "Summit" }, ...zero, gross_production: "80.00", net_production: "80.00" },
      { key: "none", location: null, ...zero, non_production: "15.00" },
    ]);
    expect(r.body.totals).toEqual(TOTALS);
  });

  test("format=csv: text/csv, a header row, one row per group, a total row; money as plain decimals, negatives unquoted", async () => {
    const r = await report(`date_from=${D1}&date_to=${D3}&group_by=provider&format=csv`, w.tokens.reader);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(r.headers.get("content-disposition")).toBe(`attachment; filename="production-collections-${D1}-${D3}-provider.csv"`);
    expect(r.text).toBe(
      [
        "provider_uuid,provider,gross_production,adjustments,net_production,non_production,patient_collections,insurance_collections,net_collections",
        `${w.drA.id},Ann Apex,200.00,-20.00,180.00,0.00,60.00,30.00,90.00`,
        `${w.drB.id},Ben Bite,80.00,0.00,80.00,0.00,40.00,0.00,40.00`,
        "none,,0.00,5.00,5.00,15.00,25.00,0.00,25.00",
        "total,,280.00,-15.00,265.00,15.00,125.00,30.00,155.00",
        "",
      ].join("\r\n"),
    );
    const byDay = await report(`date_from=${D1}&date_to=${D3}&format=csv`);
    expect(byDay.text.split("\r\n")).toEqual([
      "date,gross_production,adjustments,net_production,non_production,patient_collections,insurance_collections,net_collections",
      `${D1},200.00,0.00,200.00,0.00,0.00,0.00,0.00`,
      `${D2},80.00,0.00,80.00,15.00,25.00,0.00,25.00`,
      `${D3},0.00,-15.00,-15.00,0.00,100.00,30.00,130.00`,
      "total,280.00,-15.00,265.00,15.00,125.00,30.00,155.00",
      "",
    ]);
    const byLocation = await report(`date_from=${D1}&date_to=${D3}&group_by=location&format=csv`);
    expect(byLocation.text.split("\r\n")[0]).toBe(
      "location_uuid,location,gross_production,adjustments,net_production,non_production,patient_collections,insurance_collections,net_collections",
    );
    expect(byLocation.text.split("\r\n")[2]).toBe(`${summit.id},Summit,80.00,0.00,80.00,0.00,0.00,0.00,0.00`);
  });

  test("a name a spreadsheet would run as a formula is quoted in the CSV", async () => {
    const evil = await w.ok(w.post("/providers", { abbreviation: "EVL", first_name: "=cmd", last_name: "Eve, Jr" }));
    const p = await w.patient("Cal");
    await w.completed(p, 12.5, evil.id, ago(60));
    const r = await report(`date_from=${ago(60)}&date_to=${ago(60)}&group_by=provider&format=csv`);
    expect(r.text.split("\r\n")[1]).toBe(`${evil.id},"'=cmd Eve, Jr",12.50,0.00,12.50,0.00,0.00,0.00,0.00`);
  });

  test("a void or refund counts on its own date: the day the payment was taken never changes", async () => {
    const p = await w.patient("Dot");
    const proc = await w.completed(p, 100, w.drA.id, ago(5));
    const paid = await w.ok(
      w.post(`/patients/${p}/payments`, {
        amount: 100,
        payment_type_uuid: cash,
        payment_date: ago(5),
        splits: [{ provider_uuid: w.drA.id, procedure_uuid: proc.id, amount: 100 }],
      }),
    );
    const paidDay = `date_from=${ago(5)}&date_to=${ago(5)}&group_by=provider`;
    const before = (await report(paidDay)).body;
    expect(before.totals).toEqual({ ...zero, gross_production: "100.00", net_production: "100.00", patient_collections: "100.00", net_collections: "100.00" });
    const todayBefore = (await report(`date_from=${TODAY}&date_to=${TODAY}`)).body.totals;
    const refunded = await w.ok(
      w.t.request("POST", `${w.A}/payments/${paid.id}/refund`, { token: w.token, body: { base_version: 1, amount: 30, reason: "Overpaid" } }),
      200,
    );
    await w.ok(w.t.request("POST", `${w.A}/payments/${paid.id}/void`, { token: w.token, body: { base_version: refunded.version } }), 200);
    expect((await report(paidDay)).body).toEqual(before);
    const todayAfter = (await report(`date_from=${TODAY}&date_to=${TODAY}`)).body.totals;
    const cents = (m: string) => Math.round(Number(m) * 100);
    expect(cents(todayAfter.patient_collections) - cents(todayBefore.patient_collections)).toBe(-10_000);
    // over both days the payment nets to nothing; the production stays
    const both = (await report(`date_from=${ago(5)}&date_to=${ago(5)}`)).body.totals;
    expect(cents(both.patient_collections) + cents(todayAfter.patient_collections) - cents(todayBefore.patient_collections)).toBe(0);
  });

  test("a payment plan moves debt already produced: its adjustments and installments are non_production, never production", async () => {
    const p = await w.patient("Eve");
    await w.completed(p, 300, w.drB.id, ago(3));
    const todayReport = async () => (await report(`date_from=${TODAY}&date_to=${TODAY}`)).body.totals;
    const before = await todayReport();
    const plan = await w.ok(
      w.post("/payment-plans", { guarantor_uuid: p, patient_uuid: p, principal: 300, installment_count: 3, frequency: "monthly", start_date: TODAY }),
    );
    const cents = (m: string) => Math.round(Number(m) * 100);
    const delta = (after: Record<string, string>) => Object.fromEntries(Object.entries(after).map(([k, v]) => [k, cents(v) - cents(before[k])]));
    // created: -300.00 financed and the first installment (100.00) posted today, both the plan's
    const planEntries = (await w.entries(p)).filter((e) => e.payment_plan_id === plan.id).map((e) => [e.entry_type, e.amount_cents, e.entry_date]);
    expect(planEntries.sort()).toEqual([
      ["adjustment", -30_000, TODAY],
      ["charge", 10_000, TODAY],
    ]);
    expect(delta(await todayReport())).toEqual({ ...Object.fromEntries(Object.keys(zero).map((k) => [k, 0])), non_production: -20_000 });
    // closed: the 200.00 the plan still held comes back, also the plan's
    await w.ok(w.t.request("POST", `${w.A}/payment-plans/${plan.id}/close`, { token: w.token, body: { base_version: plan.version } }), 200);
    expect(delta(await todayReport())).toEqual(Object.fromEntries(Object.keys(zero).map((k) => [k, 0])));
    // the procedure's day keeps its production
    expect((await report(`date_from=${ago(3)}&date_to=${ago(3)}`)).body.totals).toMatchObject({ gross_production: "300.00", net_production: "300.00" });
  });

  test("refused with 422: a missing date, date_to before date_from, more than 366 days, an unknown group or format, an unknown parameter", async () => {
    const cases: [string, unknown[], string | undefined][] = [
      [`date_to=${D3}`, ["query", "date_from"], undefined],
      [`date_from=${D1}`, ["query", "date_to"], undefined],
      [`date_from=${D3}&date_to=${D1}`, ["query", "date_to"], "invalid_date_range"],
      [`date_from=2025-01-01&date_to=2026-01-02`, ["query", "date_to"], "invalid_date_range"],
      [`date_from=${D1}&date_to=${D3}&group_by=patient`, ["query", "group_by"], undefined],
      [`date_from=${D1}&date_to=${D3}&format=xlsx`, ["query", "format"], undefined],
      [`date_from=2026-02-30&date_to=${D3}`, ["query", "date_from"], undefined],
      [`date_from=${D1}&date_to=${D3}&provider=x`, ["query", "provider"], undefined],
    ];
    for (const [query, loc, code] of cases) {
      const r = await report(query);
      expect({ query, status: r.status, locs: r.body.detail.map((d: { loc: unknown[] }) => d.loc), code: r.body.code }).toEqual({
        query,
        status: 422,
        locs: [loc],
        code,
      });
    }
    // 366 days, both counted, is the most: a leap year
    expect((await report("date_from=2024-01-01&date_to=2024-12-31")).status).toBe(200);
    expect((await report("date_from=2024-01-01&date_to=2025-01-01")).body.code).toBe("invalid_date_range");
    // one day is a range
    expect((await report(`date_from=${D1}&date_to=${D1}`)).status).toBe(200);
  });

  test("guarded: 401 without a token, 403 without billing.ledger.read, 404 for a member of another org; another org's path shows only its own entries", async () => {
    const q = `date_from=${D1}&date_to=${D3}`;
    const anonymous = await w.t.request("GET", `${w.A}/reports/production-collections?${q}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.code).toBe("unauthorized");
    expect((await report(q, w.tokens.clinician)).body).toEqual({ detail: expect.any(String), code: "forbidden" });
    expect((await report(q, w.tokens.memberOfB)).body).toEqual({ detail: expect.any(String), code: "not_found" });
    // refusals come before validation: a foreign caller learns nothing from a bad range
    expect((await report(`date_from=${D3}&date_to=${D1}`, w.tokens.memberOfB)).status).toBe(404);
    const inB = await w.t.request("GET", `${w.B}/reports/production-collections?${q}&group_by=provider`, { token: w.tokens.memberOfB });
    expect(inB.body.rows).toEqual([
      { key: "none", provider: null, ...zero, non_production: "999.00", patient_collections: "777.00", net_collections: "777.00" },
    ]);
  });
});

describe("GET reports/daysheet", () => {
  test("the day's entries by provider (by name, then none), each as the ledger answers it, with totals by kind", async () => {
    const r = await daysheet(`date=${D3}`, w.tokens.reader);
    expect(r.status).toBe(200);
    const ann = { uuid: w.drA.id, name: "Ann Apex" };
    const bob = { uuid: w.drB.id, name: "Ben Bite" };
    const harbor = { uuid: w.location.id, name: "Harbor" };
    expect(r.body.date).toBe(D3);
    expect(
      r.body.providers.map((g: any) => [g.provider, g.entries.map((e: any) => [e.patient.name, e.entry_type, e.source, e.payer, e.amount]), g.totals]),
    ).toEqual([
      [
        ann,
        [
          ["Ava Ledger", "adjustment", "adjustment", "patient", "-20.00"],
          ["Ava Ledger", "payment", "payment", "patient", "60.00"],
          ["Ava Ledger", "payment", "insurance", "insurance", "30.00"],
        ],
        { entries: 3, charges: "0.00", payments: "90.00", adjustments: "-20.00" },
      ],
      [bob, [["Ava Ledger", "payment", "payment", "patient", "40.00"]], { entries: 1, charges: "0.00", payments: "40.00", adjustments: "0.00" }],
      [null, [["Ben Ledger", "adjustment", "adjustment", "patient", "5.00"]], { entries: 1, charges: "0.00", payments: "0.00", adjustments: "5.00" }],
    ]);
    expect(r.body.totals).toEqual({ entries: 5, charges: "0.00", payments: "130.00", adjustments: "-15.00" });
    // an entry is the ledger's own answer for it
    const insurance = r.body.providers[0].entries[2];
    expect(insurance).toMatchObject({
      id: insuranceEntry,
      provider: ann,
      location: harbor,
      entry_date: D3,
      description: "Claim payment",
      procedure_uuid: null,
    });
    const ledger = await w.ok(w.t.request("GET", `${w.A}/patients/${ava}/ledger-entries?date_from=${D3}&date_to=${D3}`, { token: w.token }), 200);
    expect(r.body.providers[0].entries[0]).toEqual(ledger.items.find((e: { entry_type: string }) => e.entry_type === "adjustment"));
  });

  test("a day with charges by two locations' providers; a day without entries is empty", async () => {
    const r = await daysheet(`date=${D2}`);
    expect(r.body.providers.map((g: any) => [g.provider?.name ?? null, g.entries.map((e: any) => [e.entry_type, e.amount, e.location?.name ?? null])])).toEqual(
      [
        ["Ben Bite", [["charge", "80.00", "Summit"]]],
        [
          null,
          [
            ["charge", "15.00", null],
            ["payment", "25.00", "Harbor"],
          ],
        ],
      ],
    );
    expect(r.body.providers[0].entries[0].procedure_uuid).toBe(fillingB.id);
    expect(r.body.totals).toEqual({ entries: 3, charges: "95.00", payments: "25.00", adjustments: "0.00" });
    expect((await daysheet(`date=${ago(45)}`)).body).toEqual({
      date: ago(45),
      providers: [],
      totals: { entries: 0, charges: "0.00", payments: "0.00", adjustments: "0.00" },
    });
  });

  test("refused: 422 without a date or with a bad one; 401, 403, 404 for another org's member; another org's day is its own", async () => {
    for (const query of ["", "date=2026-13-01", `date=${D3}&provider=x`]) expect((await daysheet(query)).status).toBe(422);
    expect((await w.t.request("GET", `${w.A}/reports/daysheet?date=${D3}`)).status).toBe(401);
    expect((await daysheet(`date=${D3}`, w.tokens.clinician)).status).toBe(403);
    expect((await daysheet(`date=${D3}`, w.tokens.memberOfB)).status).toBe(404);
    const inB = await w.t.request("GET", `${w.B}/reports/daysheet?date=${D3}`, { token: w.tokens.memberOfB });
    expect(inB.body.totals).toEqual({ entries: 1, charges: "0.00", payments: "777.00", adjustments: "0.00" });
    expect(inB.body.providers[0].entries.map((e: { patient: { name: string } }) => e.patient.name)).toEqual(["Out Side"]);
  });
});
