import { eq, inArray } from "drizzle-orm";
import { insurancePlans, insuranceSubscriptions } from "@db/tenant/insurance";
import { all, type Work } from "@/platform/db/work";
import { invalid, NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { withEventContext } from "@/platform/records/events";
import { PATIENT_NAMES } from "@/platform/records/names";
import { idsOf, nameSource, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { patientRecords, type PatientRow } from "@/domains/patients/record/service";
import { markEstimateInputsChanged } from "@/domains/insurance/plans/changes";
import type { ArchiveQuery } from "@/domains/insurance/plans/schemas";
import { CARRIER_NAMES } from "@/domains/insurance/carriers/service";
// plans are named by their plan name, else group name, else group number (one definition, beside the books that name plans too)
import { PLAN_NAMES } from "@/domains/insurance/estimate-books/references";
import { requirePlan } from "@/domains/insurance/plans/service";
import { inPatientContext, livePlansOfSubscription, patientPlanRecords } from "@/domains/insurance/patient-plans/records";
import type { Subscription, SubscriptionCreate, SubscriptionListQuery, SubscriptionPatch } from "./schemas";

export type SubscriptionRow = typeof insuranceSubscriptions.$inferSelect;

// The audit trail keeps the stored columns (the member id included: the org's own database, never published).
export const subscriptionRecords = defineResource<SubscriptionRow, SubscriptionRow>({
  table: insuranceSubscriptions,
  name: "insurance_subscription",
  label: "Subscription",
  serialize: (r) => r,
  // subscriber_id is the member id (a field of its own), not a reference
  eventFields: { rename: { subscriber_id: "subscriber_id", subscriber_patient_id: "subscriber" }, stripIdSuffix: true },
});

/** A subscription in references: its member id (the card's identifier). */
export const SUBSCRIPTION_NAMES = nameSource(insuranceSubscriptions.id, { subscriber_id: insuranceSubscriptions.subscriber_id }, (r) => r.subscriber_id);

// ---- for patient plans and the estimate service ---------------------------------------------

/** A subscription a patient plan may name: 404 when missing or archived. */
export function* requireSubscription(db: TenantDb, id: string): Work<SubscriptionRow> {
  return yield* subscriptionRecords.require(db, id);
}

/** In force on `date` (YYYY-MM-DD): on or after effective_date and on or before termination_date, each when set. */
export const inForce = (r: Pick<SubscriptionRow, "effective_date" | "termination_date">, date: string) =>
  (r.effective_date === null || r.effective_date <= date) && (r.termination_date === null || date <= r.termination_date);

// ---- references -------------------------------------------------------------------------

type RefNames = Record<"plans" | "carriers" | "patients", Names> & { carrierOf: Map<string, string> };

/** The plans' carriers, then the names of plans, carriers and subscribers: one query per kind. */
function* refNames(db: TenantDb, rows: SubscriptionRow[]): Work<RefNames> {
  const planIds = idsOf(rows, (r) => r.plan_id);
  const plans = planIds.length
    ? yield* all<{ id: string; carrier_id: string }>(
        db.select({ id: insurancePlans.id, carrier_id: insurancePlans.carrier_id }).from(insurancePlans).where(inArray(insurancePlans.id, planIds)),
      )
    : [];
  const carrierOf = new Map(plans.map((p) => [p.id, p.carrier_id]));
  const names = yield* namesOfEach(db, {
    plans: [PLAN_NAMES, planIds],
    carriers: [CARRIER_NAMES, carrierOf.values()],
    patients: [PATIENT_NAMES, idsOf(rows, (r) => r.subscriber_patient_id)],
  });
  return { ...names, carrierOf };
}

function serialize(r: SubscriptionRow, n: RefNames): Subscription {
  return {
    id: r.id,
    plan: ref(r.plan_id, n.plans),
    carrier: ref(n.carrierOf.get(r.plan_id)!, n.carriers),
    subscriber: ref(r.subscriber_patient_id, n.patients),
    subscriber_id: r.subscriber_id,
    effective_date: r.effective_date,
    termination_date: r.termination_date,
    notes: r.notes,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  };
}

function* present(db: TenantDb, row: SubscriptionRow): Work<Subscription> {
  return serialize(row, yield* refNames(db, [row]));
}

// ---- rules ------------------------------------------------------------------------------

function checkDates(r: Pick<SubscriptionRow, "effective_date" | "termination_date">): void {
  if (r.effective_date && r.termination_date && r.termination_date < r.effective_date) {
    throw invalid(["body", "termination_date"], "Must not be before effective_date", "value_error", "termination_before_effective");
  }
}

function* requireSubscriber(db: TenantDb, id: string): Work<PatientRow> {
  const row = yield* patientRecords.find(db, id);
  if (!row) throw new NotFound("Subscriber patient");
  return row;
}

/** Events of a subscription belong to the subscriber's practice. */
function* inSubscriberPractice<T>(s: TxScope, patientId: string, work: Work<T>): Work<T> {
  const subscriber = yield* patientRecords.require(s.tx, patientId, true);
  return yield* withEventContext(s, { practiceId: subscriber.location_id }, work);
}

// ---- verbs ------------------------------------------------------------------------------

export async function listSubscriptions(ctx: OrgContext, q: SubscriptionListQuery) {
  const t = insuranceSubscriptions;
  return ctx.db.read(function* (db) {
    const page = yield* subscriptionRecords.list(db, q, {
      where: [
        q.subscriber_patient_uuid ? eq(t.subscriber_patient_id, q.subscriber_patient_uuid) : undefined,
        q.plan_uuid ? eq(t.plan_id, q.plan_uuid) : undefined,
      ],
      orderBy: [t.id],
    });
    const names = yield* refNames(db, page.items);
    return { ...page, items: page.items.map((r) => serialize(r, names)) };
  });
}

export async function getSubscription(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return yield* present(db, yield* subscriptionRecords.require(db, id));
  });
}

export async function createSubscription(ctx: OrgContext, input: SubscriptionCreate) {
  const { plan_uuid, subscriber_patient_uuid, ...rest } = input;
  const values = { subscriber_id: null, effective_date: null, termination_date: null, notes: null, ...rest };
  checkDates(values);
  return withTransaction(ctx, function* (s) {
    const subscriber = yield* requireSubscriber(s.tx, subscriber_patient_uuid);
    yield* requirePlan(s.tx, plan_uuid);
    const row = yield* withEventContext(
      s,
      { practiceId: subscriber.location_id },
      subscriptionRecords.create(
        s,
        { ...values, plan_id: plan_uuid, subscriber_patient_id: subscriber.id },
        { plan_id: plan_uuid, subscriber_patient_id: subscriber.id },
      ),
    );
    // no patient holds the card yet: nothing to re-estimate
    return yield* present(s.tx, row);
  });
}

export async function updateSubscription(ctx: OrgContext, id: string, input: SubscriptionPatch) {
  const { base_version, plan_uuid, ...rest } = input;
  const patch: Partial<SubscriptionRow> = { ...rest, ...(plan_uuid === undefined ? {} : { plan_id: plan_uuid }) };
  return withTransaction(ctx, function* (s) {
    const current = yield* subscriptionRecords.requireCurrent(s.tx, id, base_version);
    checkDates({ ...current, ...patch });
    if (plan_uuid !== undefined && plan_uuid !== current.plan_id) yield* requirePlan(s.tx, plan_uuid);
    const row = yield* inSubscriberPractice(s, current.subscriber_patient_id, subscriptionRecords.update(s, id, base_version, patch));
    const holders = yield* livePlansOfSubscription(s.tx, id);
    markEstimateInputsChanged(s, { patientIds: holders.map((p) => p.patient_id), planIds: [current.plan_id, row.plan_id] });
    return yield* present(s.tx, row);
  });
}

/** Archive the card: its patient plans (active or not) are archived with it, each with its own event. */
export async function archiveSubscription(ctx: OrgContext, id: string, q: ArchiveQuery) {
  return withTransaction(ctx, function* (s) {
    const current = yield* subscriptionRecords.requireCurrent(s.tx, id, q.base_version);
    const holders = yield* livePlansOfSubscription(s.tx, id);
    const row = yield* inSubscriberPractice(
      s,
      current.subscriber_patient_id,
      (function* () {
        for (const p of holders) yield* inPatientContext(s, p.patient_id, patientPlanRecords.archive(s, p.id, p.version));
        return yield* subscriptionRecords.archive(s, id, q.base_version);
      })(),
    );
    markEstimateInputsChanged(s, { patientIds: holders.map((p) => p.patient_id), planIds: [current.plan_id] });
    return yield* present(s.tx, row);
  });
}
