import { and, eq, isNull } from "drizzle-orm";
import { patientPlans } from "@db/tenant/insurance";
import { all, type Work } from "@/platform/db/work";
import { declareUniqueConflict } from "@/platform/db/constraints";
import type { TenantDb, TxScope } from "@/platform/records/context";
import { withEventContext } from "@/platform/records/events";
import { defineResource } from "@/platform/records/resource";
import { patientRecords } from "@/domains/patients/record/service";

// The patient plan record on its own (no other insurance module), so subscriptions can archive a card's patient plans.

export type PatientPlanRow = typeof patientPlans.$inferSelect;

// The audit trail keeps the stored columns; answers are built by the patient-plan service. A
// negative ordinal is a plan parked for a moment during a swap (service.ts, swapOut): its
// snapshot shows the ordinal it held.
export const patientPlanRecords = defineResource<PatientPlanRow, PatientPlanRow>({
  table: patientPlans,
  name: "patient_plan",
  label: "Patient plan",
  serialize: (r) => (r.ordinal < 0 ? { ...r, ordinal: -r.ordinal } : r),
  eventFields: { stripIdSuffix: true },
});

export const ORDINAL_TAKEN = "The patient already has an active plan at this ordinal";
// The partial unique index patient_plans_live_ordinal_idx backs the check if two writers race past it.
declareUniqueConflict("patient_plans.patient_id, patient_plans.ordinal", ORDINAL_TAKEN, "ordinal_taken");

/** The patient plans (active or not) that are not archived, of one subscription. */
export function livePlansOfSubscription(db: TenantDb, subscriptionId: string): Work<PatientPlanRow[]> {
  const t = patientPlans;
  return all<PatientPlanRow>(
    db
      .select()
      .from(t)
      .where(and(eq(t.subscription_id, subscriptionId), isNull(t.deleted_at)))
      .orderBy(t.id),
  );
}

/** Events about a patient's plans belong to the patient's practice and carry `patient_id`. */
export function* inPatientContext<T>(s: TxScope, patientId: string, work: Work<T>): Work<T> {
  const patient = yield* patientRecords.require(s.tx, patientId, true);
  return yield* withEventContext(s, { practiceId: patient.location_id, data: { patient_id: patientId } }, work);
}
