import { and, eq, isNull, sql } from "drizzle-orm";
import { insuranceSubscriptions } from "@db/tenant/insurance";
import { get, type Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import type { TxScope } from "@/platform/records/context";
import { withEventContext } from "@/platform/records/events";
import { patientRecords } from "@/domains/patients/record/service";
import { planRecords } from "@/domains/insurance/plans/service";
import { addPatientPlan } from "@/domains/insurance/patient-plans/service";
import { subscriptionRecords, type SubscriptionRow } from "@/domains/insurance/subscriptions/service";
import { relationshipOf } from "./match";
import { readRow } from "./row";
import type { DraftRow } from "./records";

// Converting a matched draft, inside the convert's write: the subscription, then the patient plan.
//
// The patient plan goes through the patient-plans feature's own rules (addPatientPlan: one plan
// per patient per subscription, the lowest free ordinal, the relationship, the coverage-change
// notice); the subscriber's card is reused when they already hold the plan under the same member id.

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
  const card =
    (yield* liveSubscription(s, plan.id, subscriber.id, memberId)) ??
    (yield* withEventContext(
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
    ));
  const patientPlan = yield* addPatientPlan(s, { patientId: patient.id, subscription: card, relationship });
  return { subscriptionId: card.id, patientPlanId: patientPlan.id };
}
