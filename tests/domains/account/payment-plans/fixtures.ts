// Payment plans' test world: org A with a location (UTC) and members who may
// read or also write the account, org B for isolation; patients get a balance
// from a manual charge. With `withQueue` the app runs its queue (job tests).
import { eq } from "drizzle-orm";
import { paymentPlans } from "@db/tenant/account";
import { ledgerEntries } from "@db/tenant/ledger";
import { all, get, run } from "@/platform/db/work";
import { systemActor } from "@/platform/auth/actor";
import { addDays, todayUtc } from "@/platform/time/dates";
import { paymentPlansPostDue } from "@/domains/account/payment-plans/post-due.job";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { BILLING } from "@tests/domains/account/fixtures";
import { twoOrgApp } from "@tests/support/two-orgs";
import type { TestResponse } from "@tests/helpers";

export const TODAY = todayUtc();
export const day = (offset: number) => addDays(TODAY, offset);

export async function planWorld(options: { withQueue?: boolean; env?: Record<string, string> } = {}) {
  const w = await twoOrgApp(
    { writer: BILLING, reader: ["billing.ledger.read"], memberOfB: { org: "B", keys: BILLING } },
    { events: true, withQueue: options.withQueue, env: options.env },
  );
  const { t, admin: token, pathA: A, orgA } = w;
  const ok = async (r: Promise<TestResponse>, status = 201) => {
    const res = await r;
    if (res.status !== status) throw new Error(`expected ${status}, got ${res.status} ${res.text}`);
    return res.body;
  };
  const post = (path: string, body: unknown, as = token) => t.request("POST", `${A}${path}`, { token: as, body });
  const location = await ok(post("/locations", { name: "Harbor", timezone: "UTC" }));
  const cash = (await t.request("GET", `${A}/definitions?category=payment_types`, { token })).body.items.find(
    (d: { item_name: string }) => d.item_name === "Cash",
  ).id as string;

  /** A patient of org A at the location; `guarantor` makes them a family member. */
  const patient = async (first: string, guarantor?: string) =>
    (
      await ok(
        post("/patients", {
          first_name: first,
          last_name: "Plan",
          date_of_birth: "1980-02-03",
          location_uuid: location.id,
          ...(guarantor ? { responsible_party_uuid: guarantor } : {}),
        }),
      )
    ).uuid as string;
  /** A charge of `dollars` on the patient's ledger. */
  const charge = (patientId: string, dollars: number, date = TODAY) =>
    ok(post(`/patients/${patientId}/ledger-entries`, { entry_type: "charge", amount: dollars, entry_date: date }));
  const pay = (patientId: string, dollars: number) => ok(post(`/patients/${patientId}/payments`, { amount: dollars, payment_type_uuid: cash }));
  /** A patient owing `owed` dollars since `since`: their own guarantor. */
  const debtor = async (first: string, owed: number, since = day(-3)) => {
    const p = await patient(first);
    await charge(p, owed, since);
    return p;
  };
  const createPlan = (body: Record<string, unknown>, as = token) => post("/payment-plans", body, as);
  const readPatient = async (id: string) => (await t.request("GET", `${A}/patients/${id}`, { token })).body;
  const readPlan = async (id: string) => ok(t.request("GET", `${A}/payment-plans/${id}`, { token }), 200);

  const db = () => orgDb(t, orgA);
  /** A patient's ledger rows, straight from the database. */
  const entries = async (patientId: string) =>
    (await db()).read((d) => all<typeof ledgerEntries.$inferSelect>(d.select().from(ledgerEntries).where(eq(ledgerEntries.patient_id, patientId))));
  const planRow = async (planId: string) =>
    (await db()).read((d) => get<typeof paymentPlans.$inferSelect>(d.select().from(paymentPlans).where(eq(paymentPlans.id, planId))));
  /** Time passes for a plan: its schedule is moved to start on `start` (the job then finds those installments due). */
  const moveStart = async (planId: string, start: string) =>
    (await db()).write((tx) => run(tx.update(paymentPlans).set({ start_date: start }).where(eq(paymentPlans.id, planId))));
  /** The org as the nightly job sees it. */
  const jobContext = async (requestId = "req-post-due") => (await t.rt.orgs.openOrgForJob(orgA, { actor: systemActor(paymentPlansPostDue.id), requestId }))!;

  return { ...w, token, A, ok, post, location, cash, patient, charge, pay, debtor, createPlan, readPatient, readPlan, entries, planRow, moveStart, jobContext };
}

export type PlanWorld = Awaited<ReturnType<typeof planWorld>>;

/** The signed effect of an entry on what is owed. */
export const effect = (e: { entry_type: string; amount_cents: number }) => (e.entry_type === "payment" ? -e.amount_cents : e.amount_cents);
export const cents = (money: string) => Math.round(Number(money) * 100);
