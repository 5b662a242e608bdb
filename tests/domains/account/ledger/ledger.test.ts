import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { auditOf, twoOrgApp, type TestApp } from "@tests/helpers";
import { patients } from "@db/tenant/patients";
import { ledgerAging, ledgerEntries } from "@db/tenant/ledger";
import { all, get } from "@/platform/db/work";
import { requirePatient } from "@/domains/patients/record/service";
import { addDays, todayUtc } from "@/platform/time/dates";
import { ageDueBalances, reagePatient } from "@/domains/account/ledger/service";
import { ledgerAgeBalances } from "@/domains/account/ledger/age-balances.job";
import ageBalancesJob from "@/domains/account/ledger/age-balances.handler";
import { JOBS } from "@workers/registry";
import { systemActor } from "@/platform/auth/actor";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { captureEvents, MALFORMED, newPatient } from "@tests/domains/patients/record/record-helpers";
import { expectGuarded } from "@tests/helpers";

let t: TestApp;
let token: string;
let a: string;
let b: string;
let A: string;
let locationId: string;
let eventsA: Awaited<ReturnType<typeof captureEvents>>;
const MISSING = "01a1fe29-0000-7000-8000-000000000000";
const TODAY = todayUtc();
const ago = (days: number) => addDays(TODAY, -days);

beforeAll(async () => {
  ({ t, admin: token, orgA: a, orgB: b, pathA: A } = await twoOrgApp());
  eventsA = captureEvents(t, a);
  locationId = (await t.request("POST", `${A}/locations`, { token, body: { name: "Far East", timezone: "Pacific/Kiritimati" } })).body.id;
});
afterAll(() => t.close());

const post = (patientId: string, body: unknown, org = A) => t.request("POST", `${org}/patients/${patientId}/ledger-entries`, { token, body });
const posted = async (patientId: string, body: Record<string, unknown>) => {
  const r = await post(patientId, body);
  if (r.status !== 201) throw new Error(`post failed: ${r.status} ${r.text}`);
  return r.body;
};
const readPatient = async (id: string) => (await t.request("GET", `${A}/patients/${id}`, { token })).body;
const balances = (p: any) => [p.balance_0_30, p.balance_31_60, p.balance_61_90, p.balance_over_90, p.balance_total];
const entryRows = async (org: string, patientId: string) =>
  (await orgDb(t, org)).read((d) => all(d.select().from(ledgerEntries).where(eq(ledgerEntries.patient_id, patientId))));

describe("POST ledger-entries", () => {
  test("a charge: 201 with the entry; the patient's buckets and total follow in the same write; audited; event", async () => {
    const p = await newPatient(t, a, { first_name: "Bill", last_name: "Able", location_uuid: locationId });
    const r = await post(p.id, { entry_type: "charge", amount: 125.5, entry_date: ago(3), description: "Crown prep" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      patient: { uuid: p.id, name: "Bill Able" },
      entry_type: "charge",
      amount: "125.50",
      entry_date: ago(3),
      description: "Crown prep",
      version: 1,
    });
    expect(r.body.id).toMatch(/^[0-9a-f-]{36}$/);
    const after = await readPatient(p.id);
    expect(balances(after)).toEqual(["125.50", "0.00", "0.00", "0.00", "125.50"]);
    // derived values: the patient's version does not move (a PATCH with the version it had still works)
    expect(after.version).toBe(p.version);
    expect((await auditOf(t, a, r.body.id)).map((e: any) => e.action)).toEqual(["ledger_entry.created"]);
    const ev = (await eventsA("ledger_entry.created")).find((e) => e.resource_id === r.body.id)!;
    expect(ev.data).toEqual({ id: r.body.id, patient_id: p.id, entry_type: "charge" });
    expect(ev.practice_id).toBe(locationId);
    expect(JSON.stringify(ev)).not.toContain("Crown");
  });

  test("entry_date defaults to today in the practice's zone (UTC without a location)", async () => {
    const local = await newPatient(t, a, { location_uuid: locationId });
    const plain = await newPatient(t, a);
    expect((await posted(local.id, { entry_type: "charge", amount: 1 })).entry_date).toBe(Temporal.Now.plainDateISO("Pacific/Kiritimati").toString());
    expect((await posted(plain.id, { entry_type: "charge", amount: 1 })).entry_date).toBe(todayUtc());
  });

  test("aging: backdated charges land in their buckets; payments and credit adjustments pay the oldest first", async () => {
    const p = await newPatient(t, a);
    await posted(p.id, { entry_type: "charge", amount: 100, entry_date: ago(10) });
    await posted(p.id, { entry_type: "charge", amount: 200, entry_date: ago(40) });
    await posted(p.id, { entry_type: "charge", amount: 300, entry_date: ago(70) });
    await posted(p.id, { entry_type: "charge", amount: 400, entry_date: ago(100) });
    expect(balances(await readPatient(p.id))).toEqual(["100.00", "200.00", "300.00", "400.00", "1000.00"]);
    await posted(p.id, { entry_type: "payment", amount: 450 });
    expect(balances(await readPatient(p.id))).toEqual(["100.00", "200.00", "250.00", "0.00", "550.00"]);
    await posted(p.id, { entry_type: "adjustment", amount: -250.01, description: "Courtesy discount" });
    expect(balances(await readPatient(p.id))).toEqual(["100.00", "199.99", "0.00", "0.00", "299.99"]);
    await posted(p.id, { entry_type: "adjustment", amount: 0.01, entry_date: ago(95) });
    // a 95-day-old debit is older than every open charge: the credits already on file pay it first
    expect(balances(await readPatient(p.id))).toEqual(["100.00", "200.00", "0.00", "0.00", "300.00"]);
    await posted(p.id, { entry_type: "payment", amount: 400 });
    expect(balances(await readPatient(p.id))).toEqual(["-100.00", "0.00", "0.00", "0.00", "-100.00"]); // credit on account
  });

  test("scheduling_restricted follows the ledger total: 500.00 is fine, 500.01 restricts (record, list, booking check)", async () => {
    const p = await newPatient(t, a, { last_name: "Owesalot" });
    await posted(p.id, { entry_type: "charge", amount: 500 });
    expect((await readPatient(p.id)).scheduling_restricted).toBe(false);
    await posted(p.id, { entry_type: "adjustment", amount: 0.01 });
    const after = await readPatient(p.id);
    expect(after.balance_total).toBe("500.01");
    expect(after.scheduling_restricted).toBe(true);
    const listed = (await t.request("GET", `${A}/patients?search=Owesalot`, { token })).body.items[0];
    expect(listed).toMatchObject({ id: p.id, balance_total: "500.01", scheduling_restricted: true });
    const db = await orgDb(t, a);
    expect((await db.read((d) => requirePatient(d, p.id))).scheduling_restricted).toBe(true);
    await posted(p.id, { entry_type: "payment", amount: 0.01 });
    expect((await db.read((d) => requirePatient(d, p.id))).scheduling_restricted).toBe(false);
  });

  test.each([
    [{ amount: 10 }, ["body", "entry_type"], "missing"],
    [{ entry_type: "refund", amount: 10 }, ["body", "entry_type"], "enum"],
    [{ entry_type: "charge" }, ["body", "amount"], "missing"],
    [{ entry_type: "charge", amount: "10" }, ["body", "amount"], "type_error"],
    [{ entry_type: "charge", amount: 0 }, ["body", "amount"], "value_error"],
    [{ entry_type: "charge", amount: -5 }, ["body", "amount"], "value_error"],
    [{ entry_type: "payment", amount: -5 }, ["body", "amount"], "value_error"],
    [{ entry_type: "adjustment", amount: 0 }, ["body", "amount"], "value_error"],
    [{ entry_type: "charge", amount: 10.005 }, ["body", "amount"], "value_error"],
    [{ entry_type: "charge", amount: 1_000_000.01 }, ["body", "amount"], "out_of_range"],
    [{ entry_type: "charge", amount: 10, entry_date: "2025-02-30" }, ["body", "entry_date"], "format"],
    [{ entry_type: "charge", amount: 10, entry_date: addDays(TODAY, 2) }, ["body", "entry_date"], "value_error"],
    [{ entry_type: "charge", amount: 10, description: "d".repeat(501) }, ["body", "description"], "out_of_range"],
    [{ entry_type: "charge", amount: 10, balance_total: 0 }, ["body", "balance_total"], "extra_forbidden"],
    [{ entry_type: "charge", amount: 10, id: MISSING }, ["body", "id"], "read_only"],
  ])("422 for %j; nothing is posted and the balances stay", async (body, loc, type) => {
    const p = await newPatient(t, a);
    await posted(p.id, { entry_type: "charge", amount: 20 });
    const r = await post(p.id, body);
    expect(r.status).toBe(422);
    expect(r.body.detail).toContainEqual(expect.objectContaining({ loc, type }));
    expect(await entryRows(a, p.id)).toHaveLength(1);
    expect(balances(await readPatient(p.id))).toEqual(["20.00", "0.00", "0.00", "0.00", "20.00"]);
  });

  test("422: malformed JSON; archived patient (patient_archived); nothing is posted", async () => {
    const p = await newPatient(t, a);
    expect((await t.request("POST", `${A}/patients/${p.id}/ledger-entries`, { token, ...MALFORMED })).status).toBe(422);
    await t.request("POST", `${A}/patients/${p.id}/archive`, { token });
    const r = await post(p.id, { entry_type: "charge", amount: 10 });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("patient_archived");
    expect(await entryRows(a, p.id)).toEqual([]);
  });

  test("404 for a missing patient or another org's; nothing is posted in either org; guarded by billing.ledger.write", async () => {
    const p = await newPatient(t, a);
    const pB = await newPatient(t, b);
    for (const id of [MISSING, pB.id]) {
      const r = await post(id, { entry_type: "charge", amount: 10 });
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Patient not found", code: "not_found" });
    }
    expect(await entryRows(b, pB.id)).toEqual([]);
    const writer = await expectGuarded(t, a, b, "POST", `${A}/patients/${p.id}/ledger-entries`, "billing.ledger.write", { entry_type: "charge", amount: 10 });
    expect(await entryRows(a, p.id)).toEqual([]);
    expect((await t.request("POST", `${A}/patients/${p.id}/ledger-entries`, { token: writer, body: { entry_type: "charge", amount: 10 } })).status).toBe(201);
  });
});

describe("GET ledger-entries", () => {
  test("ordered by entry_date then posting order; paged; entry_type and date filters", async () => {
    const p = await newPatient(t, a);
    const late = await posted(p.id, { entry_type: "payment", amount: 5, entry_date: ago(1) });
    const early = await posted(p.id, { entry_type: "charge", amount: 50, entry_date: ago(20) });
    const sameDay = await posted(p.id, { entry_type: "adjustment", amount: -2.5, entry_date: ago(1) });
    const r = await t.request("GET", `${A}/patients/${p.id}/ledger-entries`, { token });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ page: 1, page_size: 50, total: 3 });
    expect(r.body.items.map((i: any) => i.id)).toEqual([early.id, late.id, sameDay.id]);
    expect(r.body.items[2]).toEqual(sameDay);
    expect(r.body.items[2].amount).toBe("-2.50");
    expect((await t.request("GET", `${A}/patients/${p.id}/ledger-entries?page=2&page_size=2`, { token })).body.items.map((i: any) => i.id)).toEqual([
      sameDay.id,
    ]);
    expect((await t.request("GET", `${A}/patients/${p.id}/ledger-entries?entry_type=charge`, { token })).body.items.map((i: any) => i.id)).toEqual([early.id]);
    expect((await t.request("GET", `${A}/patients/${p.id}/ledger-entries?date_from=${ago(1)}&date_to=${ago(1)}`, { token })).body.total).toBe(2);
  });

  test("422 for bad parameters; 404 missing or foreign patient; archived patients stay readable; guarded by billing.ledger.read", async () => {
    const p = await newPatient(t, a);
    await posted(p.id, { entry_type: "charge", amount: 1 });
    for (const q of ["?page_size=201", "?entry_type=refund", "?date_from=yesterday", `?date_from=${ago(1)}&date_to=${ago(2)}`, "?sort=amount"]) {
      expect([q, (await t.request("GET", `${A}/patients/${p.id}/ledger-entries${q}`, { token })).status]).toEqual([q, 422]);
    }
    const pB = await newPatient(t, b);
    for (const id of [MISSING, pB.id]) expect((await t.request("GET", `${A}/patients/${id}/ledger-entries`, { token })).status).toBe(404);
    await expectGuarded(t, a, b, "GET", `${A}/patients/${p.id}/ledger-entries`, "billing.ledger.read");
    await t.request("POST", `${A}/patients/${p.id}/archive`, { token });
    expect((await t.request("GET", `${A}/patients/${p.id}/ledger-entries`, { token })).body.total).toBe(1);
  });
});

describe("aging with time (ledger.age-balances)", () => {
  test("ageDueBalances re-ages exactly the patients whose buckets move by that day", async () => {
    const org = (await t.createOrg()).id;
    const p = await newPatient(t, org);
    const still = await newPatient(t, org);
    const P = `/api/v1/${org}/patients`;
    await t.request("POST", `${P}/${p.id}/ledger-entries`, { token, body: { entry_type: "charge", amount: 80, entry_date: ago(30) } });
    await t.request("POST", `${P}/${still.id}/ledger-entries`, { token, body: { entry_type: "charge", amount: 80, entry_date: ago(5) } });
    const db = await orgDb(t, org);
    const aging = async () => db.read((d) => all(d.select().from(ledgerAging)));
    expect((await aging()).find((r) => r.patient_id === p.id)!.next_change_on).toBe(addDays(TODAY, 1));
    expect(await ageDueBalances(db, TODAY)).toBe(0);
    expect(await ageDueBalances(db, addDays(TODAY, 1))).toBe(1);
    const row = await db.read((d) => get(d.select().from(patients).where(eq(patients.id, p.id))));
    expect(row).toMatchObject({ balance_0_30_cents: 0, balance_31_60_cents: 8_000 });
    expect((await aging()).find((r) => r.patient_id === p.id)!.next_change_on).toBe(addDays(TODAY, 31));
    expect(await ageDueBalances(db, addDays(TODAY, 1))).toBe(0); // idempotent
    // once everything is over 90 days there is nothing left to move
    expect(await ageDueBalances(db, addDays(TODAY, 200))).toBe(2);
    expect(await aging()).toEqual([]);
    expect((await db.read((d) => get(d.select().from(patients).where(eq(patients.id, still.id)))))!.balance_over_90_cents).toBe(8_000);
  });

  test("the job is registered with a daily schedule and its handler ages every org's due patients", async () => {
    expect(JOBS.map((j) => j.definition)).toContain(ledgerAgeBalances);
    expect(ledgerAgeBalances).toMatchObject({ id: "ledger.age-balances", cron: "5 0 * * *", missed: "once" });
    expect(ledgerAgeBalances.payload.safeParse({}).success).toBe(true);
    const p = await newPatient(t, b);
    await t.request("POST", `/api/v1/${b}/patients/${p.id}/ledger-entries`, { token, body: { entry_type: "charge", amount: 10, entry_date: ago(31) } });
    const db = await orgDb(t, b);
    // the buckets as they were yesterday: due today
    await db.write((tx) => reagePatient(tx, p.id, ago(1)));
    expect((await t.request("GET", `/api/v1/${b}/patients/${p.id}`, { token })).body.balance_0_30).toBe("10.00");
    const out = await ageBalancesJob({
      rt: t.rt,
      payload: {},
      logger: t.rt.logger,
      actor: systemActor("ledger.age-balances"),
      causedBy: systemActor("ledger.age-balances"),
      orgId: null,
      requestId: null,
      job: { id: "test", name: "ledger.age-balances", retryCount: 0 },
    });
    expect(out).toMatchObject({ today: TODAY, orgs_failed: 0 });
    expect(out.patients_reaged).toBeGreaterThanOrEqual(1);
    const after = (await t.request("GET", `/api/v1/${b}/patients/${p.id}`, { token })).body;
    expect(balances(after)).toEqual(["0.00", "10.00", "0.00", "0.00", "10.00"]);
  });
});
