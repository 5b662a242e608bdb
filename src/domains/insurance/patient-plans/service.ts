import { and, desc, eq, inArray, isNull, ne, sql } from "drizzle-orm";
import { benefitAdjustments, insurancePlans, insuranceSubscriptions, patientPlans } from "@db/tenant/insurance";
import { all, get, run, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound } from "@/platform/errors";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { PATIENT_NAMES } from "@/platform/records/names";
import { idsOf, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import type { Paging } from "@/platform/records/paging";
import { patientRecords, type PatientRow } from "@/domains/patients/record/service";
import { todayAt } from "@/domains/providers/locations/service";
import { markEstimateInputsChanged } from "@/domains/insurance/plans/changes";
import type { ArchiveQuery } from "@/domains/insurance/plans/schemas";
import { CARRIER_NAMES } from "@/domains/insurance/carriers/service";
import { PLAN_NAMES } from "@/domains/insurance/estimate-books/references";
import type { PlanRow } from "@/domains/insurance/plans/service";
import { requireSubscription, subscriptionRecords, type SubscriptionRow } from "@/domains/insurance/subscriptions/service";
import { benefitsUsed, benefitYear } from "./benefits";
import { inPatientContext, livePlansOfSubscription, ORDINAL_TAKEN, patientPlanRecords, type PatientPlanRow } from "./records";
import {
  MAX_ORDINAL,
  type BenefitAdjustment,
  type BenefitAdjustmentCreate,
  type Benefits,
  type BenefitsQuery,
  type PatientPlan,
  type PatientPlanCreate,
  type PatientPlanListQuery,
  type PatientPlanPatch,
} from "./schemas";

type Relationship = PatientPlan["relationship"];
type AdjustmentRow = typeof benefitAdjustments.$inferSelect;

// The audit trail keeps the stored columns (the note included: the org's own database, never published).
export const adjustmentRecords = defineResource<AdjustmentRow, AdjustmentRow>({
  table: benefitAdjustments,
  name: "insurance_benefit_adjustment",
  label: "Benefit adjustment",
  serialize: (r) => r,
  eventFields: { rename: { annual_max_used_cents: "annual_max_used", deductible_met_cents: "deductible_met" }, stripIdSuffix: true },
});

// ---- references ------------------------------------------------------------------------

type Card = Pick<SubscriptionRow, "id" | "plan_id" | "subscriber_patient_id" | "subscriber_id"> & { carrier_id: string };
type RefNames = Record<"patients" | "plans" | "carriers" | "subscriptions", Names> & { cards: Map<string, Card> };

/** The rows' subscriptions with their plans' carriers (archived ones too: the link stays readable), then the names. */
function* refNames(db: TenantDb, rows: PatientPlanRow[]): Work<RefNames> {
  const ids = idsOf(rows, (r) => r.subscription_id);
  const s = insuranceSubscriptions;
  const found = ids.length
    ? yield* all<Card>(
        db
          .select({
            id: s.id,
            plan_id: s.plan_id,
            subscriber_patient_id: s.subscriber_patient_id,
            subscriber_id: s.subscriber_id,
            carrier_id: insurancePlans.carrier_id,
          })
          .from(s)
          .innerJoin(insurancePlans, eq(insurancePlans.id, s.plan_id))
          .where(inArray(s.id, ids)),
      )
    : [];
  const cards = new Map(found.map((c) => [c.id, c]));
  const names = yield* namesOfEach(db, {
    patients: [PATIENT_NAMES, [...rows.map((r) => r.patient_id), ...found.map((c) => c.subscriber_patient_id)]],
    plans: [PLAN_NAMES, found.map((c) => c.plan_id)],
    carriers: [CARRIER_NAMES, found.map((c) => c.carrier_id)],
  });
  const subscriptions = new Map(found.flatMap((c) => (c.subscriber_id === null ? [] : [[c.id, c.subscriber_id] as const])));
  return { ...names, subscriptions, cards };
}

function serialize(r: PatientPlanRow, n: RefNames): PatientPlan {
  const card = n.cards.get(r.subscription_id)!;
  return {
    id: r.id,
    patient: ref(r.patient_id, n.patients),
    subscription: ref(r.subscription_id, n.subscriptions),
    plan: ref(card.plan_id, n.plans),
    carrier: ref(card.carrier_id, n.carriers),
    subscriber: ref(card.subscriber_patient_id, n.patients),
    relationship: r.relationship as Relationship,
    ordinal: r.ordinal,
    is_active: r.is_active,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  };
}

function* present(db: TenantDb, row: PatientPlanRow): Work<PatientPlan> {
  return serialize(row, yield* refNames(db, [row]));
}

// ---- rules -----------------------------------------------------------------------------

/** The covered patient of a write: 404 when missing; 422 patient_archived when archived (docs/patients/patients.md). */
function* writablePatient(db: TenantDb, id: string, loc: (string | number)[]): Work<PatientRow> {
  const row = yield* patientRecords.require(db, id, true);
  if (row.deleted_at) throw invalid(loc, "Patient is archived; restore it first", "value_error", "patient_archived");
  return row;
}

/** self if and only if the patient is the subscriber. */
function checkRelationship(patientId: string, subscriberId: string, relationship: Relationship): void {
  if (relationship === "self" && patientId !== subscriberId)
    throw invalid(["body", "relationship"], "Only the subscriber's own plan is self", "value_error", "relationship_mismatch");
  if (relationship !== "self" && patientId === subscriberId)
    throw invalid(["body", "relationship"], "The subscriber's relationship to their own subscription is self", "value_error", "relationship_mismatch");
}

/** The patient's other active, live plan at `ordinal`, if any. */
function* activeAt(db: TenantDb, patientId: string, ordinal: number, selfId?: string): Work<PatientPlanRow | undefined> {
  const t = patientPlans;
  return yield* get<PatientPlanRow>(
    db
      .select()
      .from(t)
      .where(and(eq(t.patient_id, patientId), eq(t.ordinal, ordinal), eq(t.is_active, true), isNull(t.deleted_at), selfId ? ne(t.id, selfId) : undefined)),
  );
}

/** The lowest ordinal no active plan of the patient holds; 409 ordinal_taken when 1-4 are all held. */
function* firstFreeOrdinal(db: TenantDb, patientId: string): Work<number> {
  const t = patientPlans;
  const held = new Set(
    (yield* all<{ ordinal: number }>(
      db
        .select({ ordinal: t.ordinal })
        .from(t)
        .where(and(eq(t.patient_id, patientId), eq(t.is_active, true), isNull(t.deleted_at))),
    )).map((r) => r.ordinal),
  );
  for (let o = 1; o <= MAX_ORDINAL; o++) if (!held.has(o)) return o;
  throw new Conflict(`The patient already has active plans at ordinals 1-${MAX_ORDINAL}`, "ordinal_taken");
}

function* assertNotCovered(db: TenantDb, patientId: string, subscriptionId: string): Work<void> {
  const t = patientPlans;
  const clash = yield* get(
    db
      .select({ id: t.id })
      .from(t)
      .where(and(eq(t.patient_id, patientId), eq(t.subscription_id, subscriptionId), isNull(t.deleted_at))),
  );
  if (clash) throw new Conflict("The patient already has a plan for this subscription", "duplicate");
}

/** A live patient plan, else 404. */
function* requirePatientPlan(db: TenantDb, id: string): Work<PatientPlanRow> {
  return yield* patientPlanRecords.require(db, id);
}

/** The patients a subscription covers (live patient plans): a family deductible is shared by all of them. */
function* familyOf(db: TenantDb, subscriptionId: string): Work<string[]> {
  return (yield* livePlansOfSubscription(db, subscriptionId)).map((p) => p.patient_id);
}

// ---- verbs -------------------------------------------------------------------------------

export async function listPatientPlans(ctx: OrgContext, q: PatientPlanListQuery) {
  const t = patientPlans;
  return ctx.db.read(function* (db) {
    if (q.patient_uuid) yield* patientRecords.require(db, q.patient_uuid, true);
    const page = yield* patientPlanRecords.list(db, q, {
      where: [
        q.patient_uuid ? eq(t.patient_id, q.patient_uuid) : undefined,
        q.subscription_uuid ? eq(t.subscription_id, q.subscription_uuid) : undefined,
        q.is_active === undefined ? undefined : eq(t.is_active, q.is_active),
      ],
      orderBy: [t.patient_id, sql`${t.is_active} DESC`, t.ordinal, t.id],
    });
    const names = yield* refNames(db, page.items);
    return { ...page, items: page.items.map((r) => serialize(r, names)) };
  });
}

export async function getPatientPlan(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return yield* present(db, yield* requirePatientPlan(db, id));
  });
}

export async function createPatientPlan(ctx: OrgContext, input: PatientPlanCreate) {
  return withTransaction(ctx, function* (s: TxScope) {
    const patient = yield* writablePatient(s.tx, input.patient_uuid, ["body", "patient_uuid"]);
    const sub = yield* requireSubscription(s.tx, input.subscription_uuid);
    if (input.relationship === undefined && patient.id !== sub.subscriber_patient_id)
      throw invalid(["body", "relationship"], "Required when the patient is not the subscriber", "missing");
    const row = yield* addPatientPlan(s, {
      patientId: patient.id,
      subscription: sub,
      relationship: input.relationship ?? "self",
      ordinal: input.ordinal,
      isActive: input.is_active,
    });
    return yield* present(s.tx, row);
  });
}

/**
 * A patient plan, inside the caller's write (this feature's create, a draft's conversion):
 * the relationship must fit the subscriber, the patient is on the subscription once (409
 * duplicate), the ordinal defaults to the lowest free one and an active plan holds it alone
 * (409 ordinal_taken); estimates computed without it are told.
 */
export function* addPatientPlan(
  s: TxScope,
  input: { patientId: string; subscription: SubscriptionRow; relationship: Relationship; ordinal?: number; isActive?: boolean },
): Work<PatientPlanRow> {
  const { patientId, subscription: sub, relationship } = input;
  checkRelationship(patientId, sub.subscriber_patient_id, relationship);
  yield* assertNotCovered(s.tx, patientId, sub.id);
  const isActive = input.isActive ?? true;
  const ordinal = input.ordinal ?? (yield* firstFreeOrdinal(s.tx, patientId));
  if (isActive && (yield* activeAt(s.tx, patientId, ordinal))) throw new Conflict(ORDINAL_TAKEN, "ordinal_taken");
  const row = yield* inPatientContext(
    s,
    patientId,
    patientPlanRecords.create(
      s,
      { patient_id: patientId, subscription_id: sub.id, relationship, ordinal, is_active: isActive },
      { subscription_id: sub.id, ordinal, relationship, is_active: isActive },
    ),
  );
  markEstimateInputsChanged(s, { patientIds: [patientId] });
  return row;
}

/**
 * Moving an active plan onto the ordinal of another active plan of the patient swaps the two:
 * the other takes the ordinal this one leaves (both are audited and published as updated).
 * Activating a plan at an ordinal another active plan holds is 409 ordinal_taken.
 */
export async function updatePatientPlan(ctx: OrgContext, id: string, input: PatientPlanPatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const current = yield* patientPlanRecords.requireCurrent(s.tx, id, base_version);
    yield* writablePatient(s.tx, current.patient_id, ["path", "patient_plan_uuid"]);
    const next = { ...current, ...patch };
    if (patch.relationship !== undefined) {
      const sub = yield* subscriptionOf(s.tx, current);
      checkRelationship(current.patient_id, sub.subscriber_patient_id, next.relationship as Relationship);
    }
    const row = yield* inPatientContext(
      s,
      current.patient_id,
      (function* () {
        const holder = next.is_active ? yield* activeAt(s.tx, current.patient_id, next.ordinal, id) : undefined;
        if (holder) {
          const moving = current.is_active && next.ordinal !== current.ordinal;
          if (!moving) throw new Conflict(ORDINAL_TAKEN, "ordinal_taken");
          return yield* swapOut(s, holder, current.ordinal, () => patientPlanRecords.update(s, id, base_version, patch));
        }
        return yield* patientPlanRecords.update(s, id, base_version, patch);
      })(),
    );
    markEstimateInputsChanged(s, { patientIds: [current.patient_id] });
    return yield* present(s.tx, row);
  });
}

/**
 * The swap: `holder` leaves its ordinal for a moment (SQLite checks the partial unique index row by
 * row, so two rows cannot trade places in one statement), `move` puts the plan there, and `holder`
 * takes `vacated`. The parked value is the negated ordinal, which the audit snapshot reads back as
 * the ordinal (records.ts), so the holder's trail shows one change from its old ordinal to `vacated`.
 */
function* swapOut(s: TxScope, holder: PatientPlanRow, vacated: number, move: () => Work<PatientPlanRow>): Work<PatientPlanRow> {
  yield* run(
    s.tx
      .update(patientPlans)
      .set({ ordinal: -holder.ordinal })
      .where(and(eq(patientPlans.id, holder.id), eq(patientPlans.version, holder.version))),
  );
  const moved = yield* move();
  yield* patientPlanRecords.update(s, holder.id, holder.version, { ordinal: vacated });
  return moved;
}

/** The subscription a patient plan names (a live patient plan's is live: archiving a subscription archives its patient plans). */
function subscriptionOf(db: TenantDb, row: PatientPlanRow): Work<SubscriptionRow> {
  return subscriptionRecords.require(db, row.subscription_id, true);
}

export async function archivePatientPlan(ctx: OrgContext, id: string, q: ArchiveQuery) {
  return withTransaction(ctx, function* (s) {
    const current = yield* patientPlanRecords.requireCurrent(s.tx, id, q.base_version);
    yield* writablePatient(s.tx, current.patient_id, ["path", "patient_plan_uuid"]);
    const family = yield* familyOf(s.tx, current.subscription_id);
    const row = yield* inPatientContext(s, current.patient_id, patientPlanRecords.archive(s, id, q.base_version));
    // what this patient used leaves the family deductible: everyone on the card
    markEstimateInputsChanged(s, { patientIds: family });
    return yield* present(s.tx, row);
  });
}

// ---- benefits -------------------------------------------------------------------------------

function* planOf(db: TenantDb, row: PatientPlanRow): Work<PlanRow> {
  const found = yield* get<{ plan: PlanRow }>(
    db
      .select({ plan: insurancePlans })
      .from(insuranceSubscriptions)
      .innerJoin(insurancePlans, eq(insurancePlans.id, insuranceSubscriptions.plan_id))
      .where(eq(insuranceSubscriptions.id, row.subscription_id)),
  );
  if (!found) throw new NotFound("Insurance plan");
  return found.plan;
}

const money = (cents: number) => formatCents(cents)!;

export async function getBenefits(ctx: OrgContext, id: string, q: BenefitsQuery): Promise<Benefits> {
  return ctx.db.read(function* (db) {
    const pp = yield* requirePatientPlan(db, id);
    const asOf = q.as_of ?? (yield* todayAt(db, (yield* patientRecords.require(db, pp.patient_id, true)).location_id));
    const b = yield* benefitsUsed(db, id, asOf);
    const names = yield* namesOfEach(db, { plans: [PLAN_NAMES, [b.plan_id]] });
    return {
      patient_plan_uuid: pp.id,
      plan: ref(b.plan_id, names.plans),
      as_of: asOf,
      benefit_year_start: b.benefit_year.start,
      benefit_year_end: b.benefit_year.end,
      annual_max: formatCents(b.annual_max_cents),
      annual_max_used: money(b.annual_max_used_cents),
      annual_max_remaining: formatCents(b.annual_max_remaining_cents),
      deductible_individual: money(b.deductible_individual_cents),
      deductible_met: money(b.deductible_met_cents),
      deductible_family: formatCents(b.deductible_family_cents),
      family_deductible_met: formatCents(b.family_deductible_met_cents),
      deductible_remaining: money(b.deductible_remaining_cents),
      from_procedures: { annual_max_used: money(b.from_procedures.annual_max_used_cents), deductible_met: money(b.from_procedures.deductible_met_cents) },
      from_adjustments: { annual_max_used: money(b.from_adjustments.annual_max_used_cents), deductible_met: money(b.from_adjustments.deductible_met_cents) },
    };
  });
}

function serializeAdjustment(r: AdjustmentRow, planId: string, plans: Names): BenefitAdjustment {
  const start = Temporal.PlainDate.from(r.benefit_year_start);
  return {
    id: r.id,
    patient_plan: { uuid: r.patient_plan_id, name: plans.get(planId) ?? null },
    benefit_year_start: r.benefit_year_start,
    benefit_year_end: start.add({ years: 1 }).subtract({ days: 1 }).toString(),
    annual_max_used: money(r.annual_max_used_cents),
    deductible_met: money(r.deductible_met_cents),
    note: r.note,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  };
}

function* planNames(db: TenantDb, planId: string): Work<Names> {
  return (yield* namesOfEach(db, { plans: [PLAN_NAMES, [planId]] })).plans;
}

export async function listAdjustments(ctx: OrgContext, id: string, q: Paging) {
  const t = benefitAdjustments;
  return ctx.db.read(function* (db) {
    const pp = yield* requirePatientPlan(db, id);
    const plan = yield* planOf(db, pp);
    const page = yield* adjustmentRecords.list(db, q, { where: [eq(t.patient_plan_id, id)], orderBy: [desc(t.benefit_year_start), t.id] });
    const names = yield* planNames(db, plan.id);
    return { ...page, items: page.items.map((r) => serializeAdjustment(r, plan.id, names)) };
  });
}

/** Benefits used outside this system (another office, before go-live), recorded against the benefit year holding as_of. */
export async function createAdjustment(ctx: OrgContext, id: string, input: BenefitAdjustmentCreate) {
  return withTransaction(ctx, function* (s) {
    const pp = yield* requirePatientPlan(s.tx, id);
    const patient = yield* writablePatient(s.tx, pp.patient_id, ["path", "patient_plan_uuid"]);
    const plan = yield* planOf(s.tx, pp);
    const year = benefitYear(plan.benefit_year_start_month, input.as_of ?? (yield* todayAt(s.tx, patient.location_id)));
    const row = yield* inPatientContext(
      s,
      pp.patient_id,
      adjustmentRecords.create(
        s,
        {
          patient_plan_id: pp.id,
          benefit_year_start: year.start,
          annual_max_used_cents: centsFromNumber(input.annual_max_used ?? 0),
          deductible_met_cents: centsFromNumber(input.deductible_met ?? 0),
          note: input.note ?? null,
        },
        { patient_plan_id: pp.id, benefit_year_start: year.start },
      ),
    );
    markEstimateInputsChanged(s, { patientIds: yield* familyOf(s.tx, pp.subscription_id) });
    return serializeAdjustment(row, plan.id, yield* planNames(s.tx, plan.id));
  });
}

export async function archiveAdjustment(ctx: OrgContext, id: string, adjustmentId: string, q: ArchiveQuery) {
  return withTransaction(ctx, function* (s) {
    const pp = yield* requirePatientPlan(s.tx, id);
    const current = yield* adjustmentRecords.requireCurrent(s.tx, adjustmentId, q.base_version);
    if (current.patient_plan_id !== pp.id) throw new NotFound("Benefit adjustment");
    yield* writablePatient(s.tx, pp.patient_id, ["path", "patient_plan_uuid"]);
    const plan = yield* planOf(s.tx, pp);
    const row = yield* inPatientContext(s, pp.patient_id, adjustmentRecords.archive(s, adjustmentId, q.base_version));
    markEstimateInputsChanged(s, { patientIds: yield* familyOf(s.tx, pp.subscription_id) });
    return serializeAdjustment(row, plan.id, yield* planNames(s.tx, plan.id));
  });
}
