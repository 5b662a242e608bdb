import { and, asc, count, desc, eq, gt, inArray } from "drizzle-orm";
import { paymentPlans } from "@db/tenant/account";
import { ledgerEntries } from "@db/tenant/ledger";
import { patients } from "@db/tenant/patients";
import { locations } from "@db/tenant/practice";
import { all, type Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { PATIENT_NAMES } from "@/platform/records/names";
import { idsOf, namesOf, ref } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { addDays, todayIn } from "@/platform/time/dates";
import { patientForRead } from "@/domains/patients/record/scope";
import { guarantorOf } from "@/domains/patients/record/family";
import type { PatientRow } from "@/domains/patients/record/service";
import { todayAt } from "@/domains/providers/locations/service";
import { postEntries } from "@/domains/account/ledger/service";
import { amortize, scheduleOf, type Frequency, type Installment, type Terms } from "./amortization";
import { openPlansOf, refreshPaymentPlanDue, unpaidInstallments } from "./due";
import { ledgerInOrder } from "@/domains/account/ledger/entries";
import type { PaymentPlan, PaymentPlanClose, PaymentPlanCreate, PaymentPlanDetail, PaymentPlanListQuery } from "./schemas";

// Payment plans (docs/account/payment-plans.md): the plan takes the financed
// debt (principal less down payment) off the patient's aging account with one
// adjustment, and gives it back installment by installment, each a charge on
// its due date carrying that period's interest; closing gives back at once the
// principal not yet posted. What the family owes never counts twice, and the
// plan's entries add up to the interest posted. The guarantor pays with
// ordinary payments, which pay the oldest debts first, as everywhere.

export type PlanRow = typeof paymentPlans.$inferSelect;
const L = ledgerEntries;

const planRecords = defineResource<PlanRow, PlanRow>({
  table: paymentPlans,
  name: "payment_plan",
  label: "Payment plan",
  serialize: (r) => ({ ...r }),
  eventFields: { stripIdSuffix: true },
});

const termsOf = (p: PlanRow): Terms => ({
  financed_cents: p.principal_cents - p.down_payment_cents,
  apr_bps: p.apr_bps,
  frequency: p.frequency as Frequency,
  start_date: p.start_date,
});

/** The plan's schedule: from its stored terms, the same every time (checked when the plan was made). */
export const scheduleOfPlan = (p: PlanRow): Installment[] => scheduleOf(termsOf(p), p.installment_amount_cents, p.installment_count)!;

/** The installments posted so far, by plan id: due date -> ledger entry (the unique index holds one per plan and date). */
function* postedOf(db: TenantDb, planIds: string[]): Work<Map<string, Map<string, { id: string; amount_cents: number }>>> {
  const out = new Map<string, Map<string, { id: string; amount_cents: number }>>();
  if (!planIds.length) return out;
  const rows = yield* all<{ id: string; plan: string | null; entry_date: string; amount_cents: number }>(
    db
      .select({ id: L.id, plan: L.payment_plan_id, entry_date: L.entry_date, amount_cents: L.amount_cents })
      .from(L)
      .where(and(inArray(L.payment_plan_id, planIds), eq(L.source, "payment_plan"), eq(L.entry_type, "charge"))),
  );
  for (const r of rows) {
    const m = out.get(r.plan!) ?? new Map();
    m.set(r.entry_date, { id: r.id, amount_cents: r.amount_cents });
    out.set(r.plan!, m);
  }
  return out;
}

function* serializePlans(db: TenantDb, rows: PlanRow[]): Work<PaymentPlanDetail[]> {
  const names = yield* namesOf(
    db,
    PATIENT_NAMES,
    idsOf(
      rows,
      (r) => r.guarantor_id,
      (r) => r.patient_id,
    ),
  );
  const posted = yield* postedOf(
    db,
    rows.map((r) => r.id),
  );
  // what is unpaid of each open plan: the FIFO of its patient's ledger
  const open = rows.filter((r) => r.status === "open");
  const entries = yield* ledgerInOrder(db, [...new Set(open.map((r) => r.patient_id))]);
  const openPlans = yield* openPlansOf(
    db,
    entries.flatMap((e) => (e.payment_plan_id ? [e.payment_plan_id] : [])),
  );
  const byPatient = new Map<string, typeof entries>();
  for (const e of entries) {
    const list = byPatient.get(e.patient_id);
    if (list) list.push(e);
    else byPatient.set(e.patient_id, [e]);
  }
  const unpaid = new Map<string, number>();
  for (const list of byPatient.values()) for (const [plan, cents] of unpaidInstallments(list, openPlans)) unpaid.set(plan, cents);
  const money = (c: number) => formatCents(c)!;
  return rows.map((r) => {
    const schedule = scheduleOfPlan(r);
    const mine = posted.get(r.id) ?? new Map();
    const isOpen = r.status === "open";
    const done = schedule.filter((i) => mine.has(i.due_date));
    const financed = r.principal_cents - r.down_payment_cents;
    const interest = schedule.reduce((n, i) => n + i.interest_cents, 0);
    return {
      id: r.id,
      version: r.version,
      created_at: r.created_at,
      updated_at: r.updated_at,
      guarantor: ref(r.guarantor_id, names),
      patient: ref(r.patient_id, names),
      principal: money(r.principal_cents),
      down_payment: money(r.down_payment_cents),
      financed: money(financed),
      apr: r.apr_bps / 100,
      frequency: r.frequency as Frequency,
      installment_amount: money(r.installment_amount_cents),
      installment_count: r.installment_count,
      start_date: r.start_date,
      note: r.note,
      status: r.status as PaymentPlan["status"],
      closed_at: r.closed_at,
      total_interest: money(interest),
      total_of_installments: money(financed + interest),
      installments_posted: done.length,
      posted: money([...mine.values()].reduce((n, e) => n + e.amount_cents, 0)),
      principal_remaining: money(isOpen ? financed - done.reduce((n, i) => n + i.principal_cents, 0) : 0),
      due: money(isOpen ? (unpaid.get(r.id) ?? 0) : 0),
      next_due_date: isOpen ? (schedule.find((i) => !mine.has(i.due_date))?.due_date ?? null) : null,
      schedule: schedule.map((i) => ({
        number: i.number,
        due_date: i.due_date,
        amount: money(i.amount_cents),
        principal: money(i.principal_cents),
        interest: money(i.interest_cents),
        balance_after: money(i.balance_after_cents),
        posted: mine.has(i.due_date),
        entry_uuid: mine.get(i.due_date)?.id ?? null,
      })),
    };
  });
}

const withoutSchedule = ({ schedule: _schedule, ...plan }: PaymentPlanDetail): PaymentPlan => plan;

/** A person of the plan named in the body: 404 when missing (or another org's), 422 patient_archived when archived. */
function* personOfPlan(db: TenantDb, id: string, field: "patient_uuid" | "guarantor_uuid"): Work<PatientRow> {
  const row = yield* patientForRead(db, id);
  if (row.deleted_at) throw invalid(["body", field], "The patient is archived; restore them first", "value_error", "patient_archived");
  return row;
}

/**
 * Post, in the caller's write, every installment of the plan due on or before
 * `today` that is not posted yet: each a charge on its due date (the unique
 * index on plan and date stands behind the check). Returns how many.
 */
function* postInstallmentsDue(s: TxScope, plan: PlanRow, patient: PatientRow, today: string): Work<number> {
  const posted = (yield* postedOf(s.tx, [plan.id])).get(plan.id) ?? new Map();
  const due = scheduleOfPlan(plan).filter((i) => i.due_date <= today && !posted.has(i.due_date));
  if (!due.length) return 0;
  yield* postEntries(
    s,
    patient,
    due.map((i) => ({
      entry_type: "charge" as const,
      amount_cents: i.amount_cents,
      entry_date: i.due_date,
      description: `Payment plan installment ${i.number} of ${plan.installment_count}`,
      source: "payment_plan",
      payment_plan_id: plan.id,
      location_id: patient.location_id,
    })),
  );
  return due.length;
}

const balanceTotal = (p: PatientRow) => p.balance_0_30_cents + p.balance_31_60_cents + p.balance_61_90_cents + p.balance_over_90_cents;

/** POST {P}/payment-plans */
export async function createPaymentPlan(ctx: OrgContext, input: PaymentPlanCreate): Promise<PaymentPlanDetail> {
  return withTransaction(ctx, function* (s) {
    const patient = yield* personOfPlan(s.tx, input.patient_uuid, "patient_uuid");
    const guarantor = yield* personOfPlan(s.tx, input.guarantor_uuid, "guarantor_uuid");
    if (guarantor.id !== guarantorOf(patient))
      throw invalid(
        ["body", "guarantor_uuid"],
        "Must be the patient's guarantor: their responsible party, else the patient themself",
        "value_error",
        "guarantor_mismatch",
      );
    const today = yield* todayAt(s.tx, patient.location_id);
    if (input.start_date < today) throw invalid(["body", "start_date"], `Cannot be before today (${today})`, "value_error");
    if (input.start_date > addDays(today, 366)) throw invalid(["body", "start_date"], "At most 366 days ahead", "value_error");
    const principal = centsFromNumber(input.principal);
    const down = centsFromNumber(input.down_payment ?? 0);
    // what the patient owes outside their open plans: a plan finances debt already on the account
    const owed = balanceTotal(patient) - patient.payment_plan_due_cents;
    if (principal > owed)
      throw invalid(
        ["body", "principal"],
        `More than the patient owes outside their payment plans (${formatCents(Math.max(owed, 0))})`,
        "value_error",
        "principal_exceeds_balance",
      );
    const terms: Terms = {
      financed_cents: principal - down,
      apr_bps: centsFromNumber(input.apr ?? 0),
      frequency: input.frequency,
      start_date: input.start_date,
    };
    const a = amortize(
      terms,
      input.installment_count !== undefined ? { count: input.installment_count } : { amount_cents: centsFromNumber(input.installment_amount!) },
    );
    if (!a.ok) throw invalid(["body", a.field], a.reason, "value_error", "installment_too_small");
    const plan = yield* planRecords.create(
      s,
      {
        guarantor_id: guarantor.id,
        patient_id: patient.id,
        principal_cents: principal,
        down_payment_cents: down,
        apr_bps: terms.apr_bps,
        frequency: input.frequency,
        installment_amount_cents: a.amount_cents,
        installment_count: a.count,
        start_date: input.start_date,
        note: input.note || null,
        status: "open",
        closed_at: null,
      },
      { patient_id: patient.id, guarantor_id: guarantor.id },
      patient.location_id,
    );
    yield* postEntries(s, patient, [
      {
        entry_type: "adjustment",
        amount_cents: -terms.financed_cents,
        entry_date: today,
        description: "Payment plan: the amount financed moves to the plan",
        source: "payment_plan",
        payment_plan_id: plan.id,
        location_id: patient.location_id,
      },
    ]);
    yield* postInstallmentsDue(s, plan, patient, today);
    return (yield* serializePlans(s.tx, [plan]))[0]!;
  });
}

/** GET {P}/payment-plans/{plan_uuid}: the plan with its amortization schedule. */
export async function getPaymentPlan(ctx: OrgContext, id: string): Promise<PaymentPlanDetail> {
  return ctx.db.read(function* (db) {
    return (yield* serializePlans(db, [yield* planRecords.require(db, id)]))[0]!;
  });
}

/** GET {P}/payment-plans: newest first, filtered by guarantor, patient and status. */
export async function listPaymentPlans(ctx: OrgContext, q: PaymentPlanListQuery) {
  const P = paymentPlans;
  return ctx.db.read(function* (db) {
    const page = yield* planRecords.list(db, q, {
      where: [
        q.guarantor_uuid ? eq(P.guarantor_id, q.guarantor_uuid) : undefined,
        q.patient_uuid ? eq(P.patient_id, q.patient_uuid) : undefined,
        q.status ? eq(P.status, q.status) : undefined,
      ],
      orderBy: [desc(P.created_at), desc(P.id)],
    });
    return { ...page, items: (yield* serializePlans(db, page.items)).map(withoutSchedule) };
  });
}

/**
 * POST {P}/payment-plans/{plan_uuid}/close: the plan is closed; its
 * installments not yet posted never will be: the principal they held comes
 * back to the account at once (one adjustment dated today), the interest they
 * would have carried is not charged. Installments posted stay owed as charges.
 */
export async function closePaymentPlan(ctx: OrgContext, id: string, input: PaymentPlanClose): Promise<PaymentPlanDetail> {
  return withTransaction(ctx, function* (s) {
    const plan = yield* planRecords.requireCurrent(s.tx, id, input.base_version);
    if (plan.status === "closed") throw invalid(["path", "plan_uuid"], "The plan is closed already", "invalid_transition", "invalid_transition");
    const patient = yield* patientForRead(s.tx, plan.patient_id);
    if (patient.deleted_at) throw invalid(["path", "plan_uuid"], "The plan's patient is archived; restore them first", "value_error", "patient_archived");
    const posted = (yield* postedOf(s.tx, [plan.id])).get(plan.id) ?? new Map();
    const remaining = termsOf(plan).financed_cents - scheduleOfPlan(plan).reduce((n, i) => n + (posted.has(i.due_date) ? i.principal_cents : 0), 0);
    const closed = yield* planRecords.update(
      s,
      plan.id,
      plan.version,
      { status: "closed", closed_at: s.now },
      { action: "closed", practiceId: patient.location_id, eventData: { patient_id: plan.patient_id } },
    );
    if (remaining > 0) {
      yield* postEntries(s, patient, [
        {
          entry_type: "adjustment",
          amount_cents: remaining,
          entry_date: yield* todayAt(s.tx, patient.location_id),
          description: "Payment plan closed: the principal not yet posted returns to the account",
          source: "payment_plan",
          payment_plan_id: plan.id,
          location_id: patient.location_id,
        },
      ]);
    } else yield* refreshPaymentPlanDue(s.tx, patient.id);
    return (yield* serializePlans(s.tx, [closed]))[0]!;
  });
}

// ---- the nightly posting (payment-plans.post-due) ------------------------------------

/** Open plans looked at per read; each plan with something due is then posted in its own short write. */
const PLAN_BATCH = 200;

export type PostDueResult = { plans: number; installments: number; failed: { plan_id: string; error: string }[] };

/**
 * Post every installment due and not yet posted, in one org: due means on or
 * before today in the patient's practice time zone (`asOf` instead, for tests
 * and catch-up by hand). Open plans are read in batches; a plan with something
 * to post gets its own short write, which reads the plan again (closed since:
 * nothing) and posts only what is missing, so a second run, a retry or a late
 * run after missed nights posts each installment exactly once. Plans of
 * archived patients wait for them to be restored. A plan that fails is tried
 * once more, then counted; the others go on.
 */
export async function postDueInstallments(ctx: OrgContext, opts: { asOf?: string; afterPlan?: (planId: string) => void } = {}): Promise<PostDueResult> {
  const out: PostDueResult = { plans: 0, installments: 0, failed: [] };
  let after = "";
  for (;;) {
    const batch = await ctx.db.read(function* (db) {
      const rows = yield* all<{ plan: PlanRow; timezone: string | null; archived: string | null }>(
        db
          .select({ plan: paymentPlans, timezone: locations.timezone, archived: patients.deleted_at })
          .from(paymentPlans)
          .innerJoin(patients, eq(patients.id, paymentPlans.patient_id))
          .leftJoin(locations, eq(locations.id, patients.location_id))
          .where(and(eq(paymentPlans.status, "open"), gt(paymentPlans.id, after)))
          .orderBy(asc(paymentPlans.id))
          .limit(PLAN_BATCH),
      );
      const ids = rows.map((r) => r.plan.id);
      const counts = ids.length
        ? yield* all<{ plan: string | null; n: number }>(
            db
              .select({ plan: L.payment_plan_id, n: count() })
              .from(L)
              .where(and(inArray(L.payment_plan_id, ids), eq(L.source, "payment_plan"), eq(L.entry_type, "charge")))
              .groupBy(L.payment_plan_id),
          )
        : [];
      return { rows, posted: new Map(counts.map((c) => [c.plan!, c.n])) };
    });
    for (const { plan, timezone, archived } of batch.rows) {
      if (archived) continue;
      const today = opts.asOf ?? todayIn(timezone);
      const due = scheduleOfPlan(plan).filter((i) => i.due_date <= today).length;
      if (due <= (batch.posted.get(plan.id) ?? 0)) continue;
      let n = 0;
      try {
        n = await postPlan(ctx, plan.id, today);
      } catch {
        // a failed write left nothing behind: once more, then the next run tries again
        try {
          n = await postPlan(ctx, plan.id, today);
        } catch (err) {
          out.failed.push({ plan_id: plan.id, error: (err as Error).message });
        }
      }
      if (n) {
        out.plans++;
        out.installments += n;
      }
      opts.afterPlan?.(plan.id);
      await new Promise<void>((resolve) => setImmediate(resolve)); // local databases answer synchronously: let requests in
    }
    if (batch.rows.length < PLAN_BATCH) return out;
    after = batch.rows[batch.rows.length - 1]!.plan.id;
  }
}

/** One plan's due installments, in one write that re-reads everything it decides on. */
function postPlan(ctx: OrgContext, planId: string, today: string): Promise<number> {
  return withTransaction(ctx, function* (s) {
    const plan = yield* planRecords.find(s.tx, planId);
    if (!plan || plan.status !== "open") return 0;
    const patient = yield* patientForRead(s.tx, plan.patient_id);
    if (patient.deleted_at) return 0;
    return yield* postInstallmentsDue(s, plan, patient, today);
  });
}
