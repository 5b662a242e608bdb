import { and, eq, isNull, sql } from "drizzle-orm";
import { insuranceSubscriptions, patientPlans } from "@db/tenant/insurance";
import { all, get, type Work } from "@/platform/db/work";
import { Conflict, invalid } from "@/platform/errors";
import type { TxScope } from "@/platform/records/context";
import { withEventContext } from "@/platform/records/events";
import { patientRecords } from "@/domains/patients/record/service";
import { markEstimateInputsChanged } from "@/domains/insurance/plans/changes";
import { planRecords } from "@/domains/insurance/plans/service";
import { inPatientContext, patientPlanRecords } from "@/domains/insurance/patient-plans/records";
import { MAX_ORDINAL } from "@/domains/insurance/patient-plans/schemas";
import { subscriptionRecords, type SubscriptionRow } from "@/domains/insurance/subscriptions/service";
import { relationshipOf } from "./match";
import { readRow } from "./row";
import type { DraftRow } from "./records";

// Converting a matched draft, inside the convert's write: the subscription, then the patient plan.
//
// The subscriptions and patient-plans features expose their creates only as whole requests
// (createSubscription / createPatientPlan, each its own transaction), so the few rules a
// conversion needs are applied here on their exported records until they export the
// transaction-level creates (docs/insurance-drafts.md, "Convert"). Kept to what those creates
// check: live subscriber and plan, an unarchived patient, one plan per patient per subscription
// (409 duplicate), the lowest free ordinal 1-4 (409 ordinal_taken), the relationship (checked
// when the draft was matched), the coverage-change notice.

export type Conversion = { subscriptionId: string; patientPlanId: string };

/** A matched reference that is no longer live: the draft must be matched again (422 draft_match_outdated). */
const outdated = (what: string) =>
  invalid(["path", "draft_uuid"], `The matched ${what} is archived or gone; rematch the draft`, "value_error", "draft_match_outdated");

function* liveSubscription(s: TxScope, planId: string, subscriberId: string, memberId: string | null): Work<SubscriptionRow | undefined> {
  const t = insuranceSubscriptions;
  return yield* get<SubscriptionRow>(
    s.tx
      .select()
      .from(t)
      .where(
        and(
          eq(t.plan_id, planId),
          eq(t.subscriber_patient_id, subscriberId),
          isNull(t.deleted_at),
          memberId === null ? isNull(t.subscriber_id) : sql`${t.subscriber_id} = ${memberId} COLLATE NOCASE`,
        ),
      )
      .orderBy(t.id),
  );
}

function* firstFreeOrdinal(s: TxScope, patientId: string): Work<number> {
  const t = patientPlans;
  const held = new Set(
    (yield* all<{ ordinal: number }>(
      s.tx
        .select({ ordinal: t.ordinal })
        .from(t)
        .where(and(eq(t.patient_id, patientId), eq(t.is_active, true), isNull(t.deleted_at))),
    )).map((r) => r.ordinal),
  );
  for (let o = 1; o <= MAX_ORDINAL; o++) if (!held.has(o)) return o;
  throw new Conflict(`The patient already has active plans at ordinals 1-${MAX_ORDINAL}`, "ordinal_taken");
}

export function* convertMatched(s: TxScope, draft: DraftRow): Work<Conversion> {
  const { fields } = readRow(draft.raw_data_json);
  const relationship = relationshipOf(draft);
  if (!draft.matched_plan_id || !draft.subscriber_patient_id || !relationship) throw outdated("plan or subscriber");
  const plan = yield* planRecords.find(s.tx, draft.matched_plan_id);
  if (!plan || plan.carrier_id !== draft.matched_carrier_id) throw outdated("plan");
  const subscriber = yield* patientRecords.find(s.tx, draft.subscriber_patient_id);
  if (!subscriber) throw outdated("subscriber");
  const patient = yield* patientRecords.require(s.tx, draft.patient_id, true);
  if (patient.deleted_at) throw invalid(["path", "draft_uuid"], "The draft's patient is archived; restore it first", "value_error", "patient_archived");

  // the subscriber's card: reused when they already hold this plan with the same member id (a family's second draft)
  const memberId = fields.subscriber_id;
  let card = yield* liveSubscription(s, plan.id, subscriber.id, memberId);
  if (card) {
    const covered = yield* get(
      s.tx
        .select({ id: patientPlans.id })
        .from(patientPlans)
        .where(and(eq(patientPlans.patient_id, patient.id), eq(patientPlans.subscription_id, card.id), isNull(patientPlans.deleted_at))),
    );
    if (covered) throw new Conflict("The patient already has a plan for this subscription", "duplicate");
  } else {
    card = yield* withEventContext(
      s,
      { practiceId: subscriber.location_id },
      subscriptionRecords.create(
        s,
        {
          plan_id: plan.id,
          subscriber_patient_id: subscriber.id,
          subscriber_id: memberId,
          effective_date: fields.effective_date,
          termination_date: fields.termination_date,
          notes: null,
        },
        { plan_id: plan.id, subscriber_patient_id: subscriber.id },
      ),
    );
  }
  const ordinal = yield* firstFreeOrdinal(s, patient.id);
  const patientPlan = yield* inPatientContext(
    s,
    patient.id,
    patientPlanRecords.create(
      s,
      { patient_id: patient.id, subscription_id: card.id, relationship, ordinal, is_active: true },
      { subscription_id: card.id, ordinal, relationship, is_active: true },
    ),
  );
  markEstimateInputsChanged(s, { patientIds: [patient.id] });
  return { subscriptionId: card.id, patientPlanId: patientPlan.id };
}
