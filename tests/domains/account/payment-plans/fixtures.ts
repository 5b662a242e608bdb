// Payment plans' test world: org A with a location (UTC) and members who may
// read or also write the account, org B for isolation; patients get a balance
// from a manual charge. With `withQueue` the app runs its queue (job tests).
import { eq } from "drizzle-orm";
import { paymentPlans } from "@db/tenant/account";
import { get, run } from "@/platform/db/work";
import { systemActor } from "@/platform/auth/actor";
import { addDays, todayUtc } from "@/platform/time/dates";
import { paymentPlansPostDue } from "@/domains/account/payment-plans/post-due.job";
import { billingWorld } from "@tests/domains/account/fixtures";

export const TODAY = todayUtc();
export const day = (offset: number) => addDays(TODAY, offset);

export async function planWorld(options: { withQueue?: boolean; env?: Record<string, string> } = {}) {
  const base = await billingWorld(options);
  const { t, token, A, ok, post, definition, person, db, orgA } = base;
  const cash = await definition("payment_types", "Cash");
  /** A patient of org A at the location; `guarantor` makes them a family member. */
  const patient = (first: string, guarantor?: string) => person(first, guarantor ? { responsible_party_uuid: guarantor } : {}, "Plan");
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
  const readPlan = async (id: string) => ok(t.request("GET", `${A}/payment-plans/${id}`, { token }), 200);

  const planRow = async (planId: string) =>
    (await db()).read((d) => get<typeof paymentPlans.$inferSelect>(d.select().from(paymentPlans).where(eq(paymentPlans.id, planId))));
  /** Time passes for a plan: its schedule is moved to start on `start` (the job then finds those installments due). */
  const moveStart = async (planId: string, start: string) =>
    (await db()).write((tx) => run(tx.update(paymentPlans).set({ start_date: start }).where(eq(paymentPlans.id, planId))));
  /** The org as the nightly job sees it. */
  const jobContext = async (requestId = "req-post-due") => (await t.rt.orgs.openOrgForJob(orgA, { actor: systemActor(paymentPlansPostDue.id), requestId }))!;

  return { ...base, cash, patient, charge, pay, debtor, createPlan, readPlan, planRow, moveStart, jobContext };
}

export type PlanWorld = Awaited<ReturnType<typeof planWorld>>;

/** The signed effect of an entry on what is owed. */
export const effect = (e: { entry_type: string; amount_cents: number }) => (e.entry_type === "payment" ? -e.amount_cents : e.amount_cents);
export const cents = (money: string) => Math.round(Number(money) * 100);
