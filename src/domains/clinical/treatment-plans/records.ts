import { eq, inArray } from "drizzle-orm";
import { treatmentPlanProcedures, treatmentPlans } from "@db/tenant/charted-procedures";
import { all, run, type Work } from "@/platform/db/work";
import type { TxScope } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";

// The plan record mechanics, apart from the plan service so that charting
// (deleting a procedure removes its plan links) can use them without a cycle.

export type PlanRow = typeof treatmentPlans.$inferSelect;

export const treatmentPlanRecords = defineResource<PlanRow, PlanRow>({
  table: treatmentPlans,
  name: "treatment_plan",
  label: "Treatment plan",
  serialize: (r) => ({ ...r }),
});

/**
 * The plan's list of procedures changed: bump its version (audit and event
 * `treatment_plan.<action>`) so a client holding the old version sees it.
 */
export function* touchPlan(s: TxScope, planId: string, action: string, data: Record<string, unknown> = {}): Work<PlanRow> {
  return yield* treatmentPlanRecords.update(s, planId, undefined, {}, { action, includeDeleted: true, eventData: { ...data, changed_fields: ["procedures"] } });
}

/** Remove these procedures from every plan that holds them (procedure deleted); each plan is touched once. */
export function* unlinkFromPlans(s: TxScope, procedureIds: string[]): Work<void> {
  if (!procedureIds.length) return;
  const links = yield* all(s.tx.select().from(treatmentPlanProcedures).where(inArray(treatmentPlanProcedures.charted_procedure_id, procedureIds)));
  if (!links.length) return;
  yield* run(s.tx.delete(treatmentPlanProcedures).where(inArray(treatmentPlanProcedures.charted_procedure_id, procedureIds)));
  for (const planId of new Set(links.map((l) => l.treatment_plan_id))) {
    const removed = links.filter((l) => l.treatment_plan_id === planId).map((l) => l.charted_procedure_id);
    yield* touchPlan(s, planId, "procedure_removed", { procedure_ids: removed });
  }
}

export const planLinks = (planId: string) => eq(treatmentPlanProcedures.treatment_plan_id, planId);
