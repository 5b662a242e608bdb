import { emit } from "@/platform/records/events";
import type { TxScope } from "@/platform/records/context";
import { queueRecompute } from "@/domains/insurance/estimates/recompute.job";

/** What changed: the patients whose coverage changed, and the plans whose rules changed (their holders are found from them). */
export type CoverageChange = { patientIds?: readonly string[]; planIds?: readonly string[] };

/**
 * Every write to plans, subscriptions, patient plans and benefit adjustments
 * calls this inside its transaction (`s` is the write's scope): estimates
 * computed from what changed may now be stale. It queues the event
 * `insurance.coverage_changed` (published after commit, like every event)
 * with the distinct ids; the estimate recomputation job is enqueued here too
 * (docs/insurance/insurance.md, "Telling estimates").
 */
export function markEstimateInputsChanged(s: TxScope, change: CoverageChange): void {
  const patientIds = [...new Set(change.patientIds ?? [])];
  const planIds = [...new Set(change.planIds ?? [])];
  const first = patientIds[0] ?? planIds[0];
  if (!first) return;
  emit(s, {
    type: "insurance.coverage_changed",
    resource_type: patientIds.length ? "patient" : "insurance_plan",
    resource_id: first,
    data: { patient_ids: patientIds, plan_ids: planIds },
  });
  queueRecompute(s, { patient_ids: patientIds, plan_ids: planIds });
}
