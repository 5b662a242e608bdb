import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { allowedFeeFor, allowedFeesFor, type FeeContext, type FeeLine } from "@/domains/insurance/estimate-books/resolve";
import { startTestApp, type TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { booksPath, codeId, created, insertCarrier, insertPlan, setPlanBook, SETUP_TIMEOUT_MS } from "./fixtures";

// allowedFeeFor over books and fees created through the API (carriers and
// plans written straight to the tables). Each scenario gets its own org:
// a tenant book applies to every plan of its org.

let t: TestApp;
let admin: string;

beforeAll(async () => {
  t = await startTestApp();
  admin = await t.adminToken();
}, SETUP_TIMEOUT_MS);
afterAll(() => t.close());

type World = { org: string; carrier: string; plan: string; d2391: string; d0120: string };

async function world(group: string | null = "G-100"): Promise<World> {
  const org = (await t.createOrg()).id;
  const carrier = await insertCarrier(t, org);
  const plan = await insertPlan(t, org, { carrier_id: carrier, group_number: group });
  return { org, carrier, plan, d2391: await codeId(t, org, "D2391"), d0120: await codeId(t, org, "D0120") };
}

const book = (w: World, body: Record<string, unknown> = {}) =>
  created(t, admin, booksPath(w.org), { name: "Book", rule_type: "manual_fee_schedule", ...body }).then((b) => b.id as string);

const fee = (w: World, bookId: string, body: Record<string, unknown> = {}) =>
  created(t, admin, `${booksPath(w.org)}/${bookId}/allowed-fees`, {
    allowed_fee: 140,
    computed_at: "2025-01-01T00:00:00Z",
    procedure_code_uuid: w.d2391,
    resolution_scope_type: "insurance_carrier",
    ...body,
  }).then((f) => f.id as string);

/** D2391 at the office's UCR fee of $175, on 2025-06-01, for the world's plan. */
async function ask(w: World, q: Partial<FeeContext & FeeLine> = {}) {
  const db = await orgDb(t, w.org);
  return db.read((d) => allowedFeeFor(d, { planId: w.plan, procedureCodeId: w.d2391, feeCents: 17500, onDate: "2025-06-01", ...q }));
}

describe("which book applies", () => {
  test("no live, active book: nothing (allowed fee null, no book)", async () => {
    const w = await world();
    expect(await ask(w)).toEqual({ allowedFeeCents: null, bookId: null, allowedFeeId: null, capped: false });
    const archived = await book(w, { status: "archived" });
    await fee(w, archived);
    const deleted = await book(w);
    await fee(w, deleted);
    await t.request("POST", `${booksPath(w.org)}/${deleted}/archive`, { token: admin });
    expect(await ask(w)).toEqual({ allowedFeeCents: null, bookId: null, allowedFeeId: null, capped: false });
  });

  test("plan-scoped book first, then the carrier's, then a tenant book", async () => {
    const w = await world();
    const tenant = await book(w);
    const tenantFee = await fee(w, tenant, { allowed_fee: 120 });
    expect(await ask(w)).toEqual({ allowedFeeCents: 12000, bookId: tenant, allowedFeeId: tenantFee, capped: false });

    const otherCarrier = await insertCarrier(t, w.org);
    const notOurs = await book(w, { scope_type: "carrier", carrier_uuid: otherCarrier });
    await fee(w, notOurs, { allowed_fee: 99 });
    const carrierBook = await book(w, { scope_type: "carrier", carrier_uuid: w.carrier });
    const carrierFee = await fee(w, carrierBook, { allowed_fee: 130 });
    expect(await ask(w)).toEqual({ allowedFeeCents: 13000, bookId: carrierBook, allowedFeeId: carrierFee, capped: false });

    const planBook = await book(w, { scope_type: "plan", insurance_plan_uuid: w.plan });
    const planFee = await fee(w, planBook, { allowed_fee: 135 });
    expect(await ask(w)).toEqual({ allowedFeeCents: 13500, bookId: planBook, allowedFeeId: planFee, capped: false });

    // another plan of the same carrier gets the carrier's book, a plan of another carrier the tenant book
    const sibling = await insertPlan(t, w.org, { carrier_id: w.carrier });
    expect((await ask(w, { planId: sibling })).bookId).toBe(carrierBook);
    const stranger = await insertPlan(t, w.org, { carrier_id: await insertCarrier(t, w.org) });
    expect((await ask(w, { planId: stranger })).bookId).toBe(tenant);
  });

  test("the plan's own estimate_book_id wins when it is live and active; otherwise the scopes decide", async () => {
    const w = await world();
    const planBook = await book(w, { scope_type: "plan", insurance_plan_uuid: w.plan });
    await fee(w, planBook, { allowed_fee: 135 });
    const chosen = await book(w); // a tenant book the plan names explicitly
    const chosenFee = await fee(w, chosen, { allowed_fee: 111 });
    await setPlanBook(t, w.org, w.plan, chosen);
    expect(await ask(w)).toEqual({ allowedFeeCents: 11100, bookId: chosen, allowedFeeId: chosenFee, capped: false });

    await t.request("PATCH", `${booksPath(w.org)}/${chosen}`, { token: admin, body: { base_version: 1, status: "archived" } });
    expect((await ask(w)).bookId).toBe(planBook);
    await t.request("PATCH", `${booksPath(w.org)}/${chosen}`, { token: admin, body: { base_version: 2, status: "active" } });
    expect((await ask(w)).bookId).toBe(chosen);
    await t.request("POST", `${booksPath(w.org)}/${chosen}/archive`, { token: admin });
    expect((await ask(w)).bookId).toBe(planBook);
  });

  test("several books at one level: the newest", async () => {
    const w = await world();
    await book(w, { scope_type: "carrier", carrier_uuid: w.carrier });
    const newer = await book(w, { scope_type: "carrier", carrier_uuid: w.carrier });
    expect((await ask(w)).bookId).toBe(newer);
  });

  test("the carrier and group number default to the plan's; the caller's values win", async () => {
    const w = await world();
    const carrierBook = await book(w, { scope_type: "carrier", carrier_uuid: w.carrier });
    const other = await insertCarrier(t, w.org);
    const otherBook = await book(w, { scope_type: "carrier", carrier_uuid: other });
    expect((await ask(w)).bookId).toBe(carrierBook);
    expect((await ask(w, { carrierId: other })).bookId).toBe(otherBook);
    expect((await ask(w, { planId: null, carrierId: other })).bookId).toBe(otherBook);
  });
});

describe("which allowed fee applies", () => {
  test("most specific scope first: insurance_plan, then the plan's group_number (any case), then insurance_carrier", async () => {
    const w = await world("g-100");
    const b = await book(w);
    const carrierWide = await fee(w, b, { allowed_fee: 150, computed_at: "2025-05-01T00:00:00Z" });
    expect((await ask(w)).allowedFeeId).toBe(carrierWide);
    await fee(w, b, { allowed_fee: 90, resolution_scope_type: "group_number", group_number: "G-999" });
    expect((await ask(w)).allowedFeeId).toBe(carrierWide);
    const group = await fee(w, b, { allowed_fee: 145, resolution_scope_type: "group_number", group_number: " G-100 " });
    expect(await ask(w)).toEqual({ allowedFeeCents: 14500, bookId: b, allowedFeeId: group, capped: false });
    const planFee = await fee(w, b, { allowed_fee: 138, resolution_scope_type: "insurance_plan", computed_at: "2024-01-01T00:00:00Z" });
    expect(await ask(w)).toEqual({ allowedFeeCents: 13800, bookId: b, allowedFeeId: planFee, capped: false });
  });

  test("a plan without a group number never gets a group_number fee", async () => {
    const w = await world(null);
    const b = await book(w);
    await fee(w, b, { allowed_fee: 90, resolution_scope_type: "group_number", group_number: "G-100" });
    const wide = await fee(w, b, { allowed_fee: 150 });
    expect((await ask(w)).allowedFeeId).toBe(wide);
    expect((await ask(w, { groupNumber: "G-100" })).allowedFeeCents).toBe(9000);
  });

  test("within a scope the latest computed_at wins; fees expired by the date do not apply", async () => {
    const w = await world();
    const b = await book(w);
    await fee(w, b, { allowed_fee: 100, computed_at: "2024-01-01T00:00:00Z" });
    const latest = await fee(w, b, { allowed_fee: 110, computed_at: "2025-01-01T00:00:00Z", expires_at: "2025-07-01T00:00:00Z" });
    expect((await ask(w)).allowedFeeId).toBe(latest);
    // on 2025-07-01 it has expired (it expires at the start of that day): the older fee applies
    expect((await ask(w, { onDate: "2025-07-01" })).allowedFeeCents).toBe(10000);
    expect((await ask(w, { onDate: "2025-06-30T23:59:59Z" })).allowedFeeCents).toBe(11000);
    const other = await world();
    const ob = await book(other);
    await fee(other, ob, { expires_at: "2025-02-01T00:00:00Z" });
    expect(await ask(other)).toEqual({ allowedFeeCents: null, bookId: ob, allowedFeeId: null, capped: false });
  });

  test("exclude_over_ucr caps an allowed fee above the office's UCR fee at that fee", async () => {
    const w = await world();
    const b = await book(w, { exclude_over_ucr: true });
    const high = await fee(w, b, { allowed_fee: 200 });
    expect(await ask(w)).toEqual({ allowedFeeCents: 17500, bookId: b, allowedFeeId: high, capped: true });
    expect(await ask(w, { feeCents: 20000 })).toEqual({ allowedFeeCents: 20000, bookId: b, allowedFeeId: high, capped: false });
    expect(await ask(w, { feeCents: 25000 })).toEqual({ allowedFeeCents: 20000, bookId: b, allowedFeeId: high, capped: false });
    // without the flag the allowed fee stands even above UCR
    await t.request("PATCH", `${booksPath(w.org)}/${b}`, { token: admin, body: { base_version: 1, exclude_over_ucr: false } });
    expect(await ask(w)).toEqual({ allowedFeeCents: 20000, bookId: b, allowedFeeId: high, capped: false });
  });

  test("a book with nothing for the code: null, except a ucr_fallback book, which allows the UCR fee", async () => {
    const w = await world();
    const manual = await book(w, { scope_type: "carrier", carrier_uuid: w.carrier });
    await fee(w, manual, { procedure_code_uuid: w.d0120 });
    expect(await ask(w)).toEqual({ allowedFeeCents: null, bookId: manual, allowedFeeId: null, capped: false });
    const fallback = await book(w, { rule_type: "ucr_fallback", scope_type: "plan", insurance_plan_uuid: w.plan });
    expect(await ask(w)).toEqual({ allowedFeeCents: 17500, bookId: fallback, allowedFeeId: null, capped: false });
    const own = await fee(w, fallback, { allowed_fee: 160 });
    expect(await ask(w)).toEqual({ allowedFeeCents: 16000, bookId: fallback, allowedFeeId: own, capped: false });
  });

  test("the code may be named by its code instead of its id; an unknown code has no fee", async () => {
    const w = await world();
    const b = await book(w);
    const f = await fee(w, b);
    expect((await ask(w, { procedureCodeId: null, code: "D2391" })).allowedFeeId).toBe(f);
    expect(await ask(w, { procedureCodeId: null, code: "D0000" })).toEqual({ allowedFeeCents: null, bookId: b, allowedFeeId: null, capped: false });
  });

  test("allowedFeesFor answers several lines in their order from one book", async () => {
    const w = await world();
    const b = await book(w, { exclude_over_ucr: true });
    const crown = await fee(w, b, { allowed_fee: 60, procedure_code_uuid: w.d0120 });
    const filling = await fee(w, b, { allowed_fee: 140 });
    const db = await orgDb(t, w.org);
    const answers = await db.read((d) =>
      allowedFeesFor(d, { planId: w.plan, onDate: "2025-06-01" }, [
        { procedureCodeId: w.d2391, feeCents: 17500 },
        { code: "D0120", feeCents: 5500 },
        { code: "D9999", feeCents: 100 },
      ]),
    );
    expect(answers).toEqual([
      { allowedFeeCents: 14000, bookId: b, allowedFeeId: filling, capped: false },
      { allowedFeeCents: 5500, bookId: b, allowedFeeId: crown, capped: true },
      { allowedFeeCents: null, bookId: b, allowedFeeId: null, capped: false },
    ]);
  });
});
