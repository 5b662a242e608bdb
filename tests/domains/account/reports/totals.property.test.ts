import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { ledgerEntries } from "@db/tenant/ledger";
import { all, run } from "@/platform/db/work";
import { addDays, todayUtc } from "@/platform/time/dates";
import { accountWorld, type AccountWorld } from "@tests/domains/account/fixtures";
import { orgDb } from "@tests/domains/patients/record/fixtures";

// The report's totals are the ledger's (docs/account/reports.md): random
// entries posted through the API (completed procedures at two locations by two
// providers, manual charges, payments and adjustments, payments with up to three
// splits or none, voids, refunds, typed adjustments with or without a
// procedure, payment plans opened and closed), plus insurance payments as
// claims will post them, then a random
// range read grouped by day, provider and location, as JSON and as CSV. Each
// time: every group's figures and the totals are the sums of the org's ledger
// rows over the range (read from the database), the totals are the sums of the
// rows, and production less collections is the change of the balances.

let w: AccountWorld;
let cash: string;
let discount: string;
let locations: string[];
let providers: string[];
const TODAY = todayUtc();
const ago = (d: number) => addDays(TODAY, -d);
const MAX_DAYS_AGO = 40;

beforeAll(async () => {
  w = await accountWorld();
  cash = await w.paymentType("Cash");
  discount = await w.adjustmentType("Courtesy discount");
  locations = [w.location.id, (await w.ok(w.post("/locations", { name: "Summit", timezone: "UTC" }))).id];
  providers = [w.drA.id, w.drB.id];
});
afterAll(() => w.t.close());

type Op =
  | { kind: "procedure"; patient: number; cents: number; provider: number; location: number; daysAgo: number }
  | { kind: "manual"; patient: number; entry_type: "charge" | "payment" | "adjustment"; cents: number; daysAgo: number }
  | { kind: "pay"; patient: number; cents: number; splits: number; daysAgo: number }
  | { kind: "void"; pick: number }
  | { kind: "refund"; pick: number; share: number }
  | { kind: "adjust"; patient: number; cents: number; onProcedure: boolean; daysAgo: number }
  | { kind: "insurance"; patient: number; cents: number; provider: number; daysAgo: number }
  | { kind: "plan"; patient: number; cents: number; share: number; count: number }
  | { kind: "close"; pick: number };

const day = fc.nat(MAX_DAYS_AGO);
const patient = fc.nat(2);
const signed = fc.integer({ min: -20_000, max: 20_000 }).filter((c) => c !== 0);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant("procedure" as const),
    patient,
    cents: fc.integer({ min: 0, max: 50_000 }),
    provider: fc.nat(1),
    location: fc.nat(1),
    daysAgo: day,
  }),
  fc.record({
    kind: fc.constant("manual" as const),
    patient,
    entry_type: fc.constantFrom("charge" as const, "payment" as const, "adjustment" as const),
    cents: fc.integer({ min: 1, max: 20_000 }),
    daysAgo: day,
  }),
  fc.record({ kind: fc.constant("pay" as const), patient, cents: fc.integer({ min: 3, max: 60_000 }), splits: fc.nat(3), daysAgo: day }),
  fc.record({ kind: fc.constant("void" as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant("refund" as const), pick: fc.nat(), share: fc.double({ min: 0.01, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant("adjust" as const), patient, cents: signed, onProcedure: fc.boolean(), daysAgo: day }),
  fc.record({ kind: fc.constant("insurance" as const), patient, cents: fc.integer({ min: 1, max: 30_000 }), provider: fc.nat(1), daysAgo: day }),
  fc.record({
    kind: fc.constant("plan" as const),
    patient,
    cents: fc.integer({ min: 100, max: 50_000 }),
    share: fc.double({ min: 0.05, max: 1, noNaN: true }),
    count: fc.integer({ min: 1, max: 4 }),
  }),
  fc.record({ kind: fc.constant("close" as const), pick: fc.nat() }),
);

const dollars = (cents: number) => cents / 100;
const cents = (money: string) => Math.round(Number(money) * 100);
type Row = typeof ledgerEntries.$inferSelect;

/** The report's figures of these ledger rows, by the definitions (cents). */
function figuresOf(rows: Row[]) {
  const sum = (pick: (r: Row) => boolean) => rows.filter(pick).reduce((n, r) => n + r.amount_cents, 0);
  const gross_production = sum((r) => r.entry_type === "charge" && r.source === "procedure");
  const adjustments = sum((r) => r.entry_type === "adjustment" && r.source !== "payment_plan");
  const patient_collections = sum((r) => r.entry_type === "payment" && r.payer === "patient");
  const insurance_collections = sum((r) => r.entry_type === "payment" && r.payer === "insurance");
  return {
    gross_production,
    adjustments,
    net_production: gross_production + adjustments,
    non_production: sum((r) => (r.entry_type === "charge" && r.source !== "procedure") || (r.entry_type === "adjustment" && r.source === "payment_plan")),
    patient_collections,
    insurance_collections,
    net_collections: patient_collections + insurance_collections,
  };
}
type Figures = ReturnType<typeof figuresOf>;
const inCents = (f: Record<string, string>) => Object.fromEntries(Object.entries(f).map(([k, v]) => [k, cents(v)])) as Figures;

async function insurancePayment(patientId: string, amount: number, date: string, providerId: string) {
  const now = new Date().toISOString();
  const db = await orgDb(w.t, w.orgA);
  await db.write((tx) =>
    run(
      tx.insert(ledgerEntries).values({
        id: Bun.randomUUIDv7(),
        patient_id: patientId,
        entry_type: "payment",
        amount_cents: amount,
        entry_date: date,
        source: "insurance",
        payer: "insurance",
        provider_id: providerId,
        location_id: w.location.id,
        created_at: now,
        updated_at: now,
        version: 1,
      }),
    ),
  );
}

/** Three or fewer splits adding up to the amount, over both providers (the first also naming a procedure when there is one). */
function splitsOf(total: number, n: number, procedureId: string | undefined) {
  if (!n) return undefined;
  const parts = Array.from({ length: n }, (_, i) => (i < n - 1 ? Math.floor(total / n) : total - Math.floor(total / n) * (n - 1)));
  return parts.map((c, i) => ({ provider_uuid: providers[i % 2]!, amount: dollars(c), ...(i === 0 && procedureId ? { procedure_uuid: procedureId } : {}) }));
}

describe("production and collections equal the ledger", () => {
  test("over random entries posted through the API, for any range and grouping, JSON and CSV", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 10 }), day, day, async (ops, a, b) => {
        const people = [await w.patient("Prop"), await w.patient("Pam"), await w.patient("Pip")];
        const procedures: (string | undefined)[] = [undefined, undefined, undefined];
        const paid: { id: string; version: number; amount: number; refunded: number; voided: boolean }[] = [];
        const plans: { id: string; version: number; open: boolean }[] = [];
        for (const o of ops) {
          if (o.kind === "procedure") {
            const proc = await w.ok(
              w.post(`/clinical/patients/${people[o.patient]}/procedures`, {
                procedure_code_uuid: await w.codeId("D2391"),
                status: "complete",
                fee_override: dollars(o.cents),
                provider_uuid: providers[o.provider],
                location_uuid: locations[o.location],
                tooth_number: "3",
                surfaces: "O",
                date_service: ago(o.daysAgo),
              }),
            );
            procedures[o.patient] = proc.id;
          } else if (o.kind === "manual") {
            const amount = o.entry_type === "adjustment" && o.cents % 2 ? -o.cents : o.cents;
            await w.ok(
              w.post(`/patients/${people[o.patient]}/ledger-entries`, { entry_type: o.entry_type, amount: dollars(amount), entry_date: ago(o.daysAgo) }),
            );
          } else if (o.kind === "pay") {
            const splits = splitsOf(o.cents, o.splits, procedures[o.patient]);
            const p = await w.ok(
              w.post(`/patients/${people[o.patient]}/payments`, {
                amount: dollars(o.cents),
                payment_type_uuid: cash,
                payment_date: ago(o.daysAgo),
                ...(splits ? { splits } : {}),
              }),
            );
            paid.push({ id: p.id, version: p.version, amount: o.cents, refunded: 0, voided: false });
          } else if (o.kind === "void" && paid.length) {
            const p = paid[o.pick % paid.length]!;
            if (p.voided) continue;
            p.version = (await w.ok(w.t.request("POST", `${w.A}/payments/${p.id}/void`, { token: w.token, body: { base_version: p.version } }), 200)).version;
            p.voided = true;
          } else if (o.kind === "refund" && paid.length) {
            const p = paid[o.pick % paid.length]!;
            const left = p.amount - p.refunded;
            if (p.voided || left <= 0) continue;
            const take = Math.max(1, Math.floor(left * o.share));
            const body = { base_version: p.version, amount: dollars(take), reason: "prop" };
            p.version = (await w.ok(w.t.request("POST", `${w.A}/payments/${p.id}/refund`, { token: w.token, body }), 200)).version;
            p.refunded += take;
          } else if (o.kind === "adjust") {
            const procedure = o.onProcedure ? procedures[o.patient] : undefined;
            await w.ok(
              w.post(`/patients/${people[o.patient]}/adjustments`, {
                amount: dollars(o.cents),
                adjustment_type_uuid: discount,
                entry_date: ago(o.daysAgo),
                ...(procedure ? { procedure_uuid: procedure } : {}),
              }),
            );
          } else if (o.kind === "insurance") {
            await insurancePayment(people[o.patient]!, o.cents, ago(o.daysAgo), providers[o.provider]!);
          } else if (o.kind === "plan") {
            // a plan finances at most what the patient owes outside their plans (a charge first, so that there is some); it posts today's installment at once
            await w.completed(people[o.patient]!, dollars(o.cents), providers[0], ago(1));
            const row = await w.readPatient(people[o.patient]!);
            const owed = cents(row.balance_total) - cents(row.payment_plan_due);
            const principal = Math.floor(owed * o.share);
            // each installment (the principal / count, rounded up) must pay some of it: a principal of at
            // least count² cents is (the plan route refuses fewer: installment_too_small)
            if (principal < o.count * o.count) continue;
            const body = {
              guarantor_uuid: people[o.patient],
              patient_uuid: people[o.patient],
              principal: dollars(principal),
              installment_count: o.count,
              frequency: "weekly",
              start_date: TODAY,
            };
            const plan = await w.ok(w.post("/payment-plans", body));
            plans.push({ id: plan.id, version: plan.version, open: true });
          } else if (o.kind === "close" && plans.length) {
            const plan = plans[o.pick % plans.length]!;
            if (!plan.open) continue;
            await w.ok(w.t.request("POST", `${w.A}/payment-plans/${plan.id}/close`, { token: w.token, body: { base_version: plan.version } }), 200);
            plan.open = false;
          }
        }
        const [from, to] = [ago(Math.max(a, b)), ago(Math.min(a, b))];
        const db = await orgDb(w.t, w.orgA);
        const ledger = (await db.read((d) => all<Row>(d.select().from(ledgerEntries)))).filter((r) => r.entry_date >= from && r.entry_date <= to);
        const expected = figuresOf(ledger);
        const keyOf = { day: (r: Row) => r.entry_date, provider: (r: Row) => r.provider_id ?? "none", location: (r: Row) => r.location_id ?? "none" };
        for (const group_by of ["day", "provider", "location"] as const) {
          const q = `date_from=${from}&date_to=${to}&group_by=${group_by}`;
          const r = await w.ok(w.t.request("GET", `${w.A}/reports/production-collections?${q}`, { token: w.tokens.reader }), 200);
          // the totals are the ledger's sums over the range
          expect(inCents(r.totals)).toEqual(expected);
          // each group is the ledger's sums over its entries, and the rows add up to the totals
          const sumOfRows = { ...figuresOf([]) };
          for (const row of r.rows) {
            const { key, date: _d, provider: _p, location: _l, ...figures } = row;
            expect(inCents(figures)).toEqual(figuresOf(ledger.filter((e) => keyOf[group_by](e) === key)));
            for (const k of Object.keys(sumOfRows) as (keyof Figures)[]) sumOfRows[k] += cents(figures[k]);
          }
          expect(sumOfRows).toEqual(expected);
          // no entry left out: every group with entries has its row (day: every date of the range)
          const keys = new Set(ledger.map(keyOf[group_by]));
          expect(r.rows.filter((row: { key: string }) => keys.has(row.key)).length).toBe(keys.size);
          if (group_by === "day") expect(r.rows.length).toBe(Math.abs(a - b) + 1);
          // the CSV's total row is the JSON's totals
          const csv = await w.t.request("GET", `${w.A}/reports/production-collections?${q}&format=csv`, { token: w.token });
          const lines = csv.text.split("\r\n").filter(Boolean);
          expect(lines.length).toBe(r.rows.length + 2);
          expect(
            lines
              .at(-1)!
              .split(",")
              .slice(group_by === "day" ? 1 : 2),
          ).toEqual(Object.values(r.totals));
        }
        // production less collections is what the balances moved by over the range
        const moved = ledger.reduce((n, e) => n + (e.entry_type === "payment" ? -e.amount_cents : e.amount_cents), 0);
        expect(expected.net_production + expected.non_production - expected.net_collections).toBe(moved);
      }),
      { numRuns: 50 },
    );
  }, 180_000);
});
