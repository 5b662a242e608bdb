import { and, asc, eq, max } from "drizzle-orm";
import { chartedProcedures, treatmentPlanProcedures, treatmentPlans } from "@db/tenant/charted-procedures";
import { all, get, run, type Work } from "@/platform/db/work";
import { Conflict, InvalidTransition, invalid, NotFound } from "@/platform/errors";
import { formatCents } from "@/platform/money";
import { newId } from "@/platform/ids";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import { checkVersion } from "@/platform/records/versions";
import { onChartOf, requirePatientProcedure, serializeProcedures, type ProcedureRow } from "@/domains/clinical/charted-procedures/service";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import type { PatientRow } from "@/domains/patients/record/service";
import { planLinks, touchPlan, treatmentPlanRecords, type PlanRow } from "./records";
import type { PlanCreate, PlanItemAdd, PlanItemPatch, PlanListQuery, PlanPatch, PlanReorder, PlanStatus, PlanStatusChange, TreatmentPlan } from "./schemas";
import { personRef } from "@/platform/records/refs";

/** Where a plan's status may go (docs/clinical/charting.md). completed is final. */
export const PLAN_TRANSITIONS: Record<PlanStatus, readonly PlanStatus[]> = {
  draft: ["proposed", "accepted"],
  proposed: ["draft", "accepted", "rejected"],
  accepted: ["proposed", "rejected", "completed"],
  rejected: ["draft"],
  completed: [],
};
/** Only these procedures can be planned: work still to be done. */
const PLANNABLE = ["treatment_planned", "scheduled", "in_progress", "referred"];

function* itemsOf(db: TenantDb, planIds: string[]): Work<Map<string, { link: typeof treatmentPlanProcedures.$inferSelect; row: ProcedureRow }[]>> {
  const out = new Map<string, { link: typeof treatmentPlanProcedures.$inferSelect; row: ProcedureRow }[]>(planIds.map((id) => [id, []]));
  for (const planId of planIds) {
    const rows = yield* all(
      db
        .select({ link: treatmentPlanProcedures, row: chartedProcedures })
        .from(treatmentPlanProcedures)
        .innerJoin(chartedProcedures, eq(chartedProcedures.id, treatmentPlanProcedures.charted_procedure_id))
        .where(planLinks(planId))
        .orderBy(asc(treatmentPlanProcedures.item_order), asc(treatmentPlanProcedures.id)),
    );
    out.set(planId, rows);
  }
  return out;
}

/** Plans with their procedures in order, and the totals of their effective fees. */
function* serializePlans(db: TenantDb, patient: PatientRow, plans: PlanRow[]): Work<TreatmentPlan[]> {
  const items = yield* itemsOf(
    db,
    plans.map((p) => p.id),
  );
  const procs = yield* serializeProcedures(
    db,
    [...items.values()].flat().map((i) => i.row),
  );
  const byId = new Map(procs.map((p) => [p.id, p]));
  return plans.map((plan) => {
    const list = items.get(plan.id)!;
    const fee = (r: ProcedureRow) => r.fee_override_cents ?? r.office_fee_cents;
    const phases = [...new Set(list.map((i) => i.link.phase))].sort((a, b) => a - b);
    return {
      id: plan.id,
      patient: personRef(patient),
      name: plan.name,
      note: plan.note,
      status: plan.status as PlanStatus,
      status_changed_at: plan.status_changed_at,
      phases: plan.phases,
      procedures: list.map((i, n) => ({ position: n + 1, phase: i.link.phase, procedure: byId.get(i.row.id)! })),
      procedure_count: list.length,
      total_fee: formatCents(list.reduce((sum, i) => sum + fee(i.row), 0))!,
      phase_totals: phases.map((phase) => {
        const inPhase = list.filter((i) => i.link.phase === phase);
        return {
          phase,
          name: plan.phases.find((p) => p.phase === phase)?.name ?? null,
          procedure_count: inPhase.length,
          total_fee: formatCents(inPhase.reduce((sum, i) => sum + fee(i.row), 0))!,
        };
      }),
      version: plan.version,
      created_at: plan.created_at,
      updated_at: plan.updated_at,
      deleted_at: plan.deleted_at,
    };
  });
}

/** This patient's plan, not deleted: 404 otherwise (also another patient's). */
export function* requirePlan(db: TenantDb, patient: PatientRow, id: string): Work<PlanRow> {
  const plan = yield* treatmentPlanRecords.find(db, id);
  if (!plan || plan.patient_id !== patient.id) throw new NotFound("Treatment plan");
  return plan;
}

/** Rejected and completed plans are read-only. */
function checkEditable(plan: PlanRow) {
  if (plan.status === "rejected" || plan.status === "completed") {
    throw invalid(["path", "plan_uuid"], `A ${plan.status} plan cannot change its procedures`, "value_error", "plan_locked");
  }
}

/** Run an item change on a writable plan of the patient, then answer the plan as it now is. */
async function changeItems(
  ctx: OrgContext,
  patientId: string,
  planId: string,
  baseVersion: number | undefined,
  change: (s: TxScope, plan: PlanRow, patient: PatientRow) => Work<unknown>,
): Promise<TreatmentPlan> {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const plan = yield* requirePlan(s.tx, patient, planId);
    checkVersion(plan, baseVersion);
    checkEditable(plan);
    yield* onChartOf(s, patient, change(s, plan, patient));
    return (yield* serializePlans(s.tx, patient, [yield* treatmentPlanRecords.require(s.tx, planId)]))[0]!;
  });
}

function* linkOf(db: TenantDb, planId: string, procedureId: string) {
  return yield* get(
    db
      .select()
      .from(treatmentPlanProcedures)
      .where(and(planLinks(planId), eq(treatmentPlanProcedures.charted_procedure_id, procedureId))),
  );
}

// ---- verbs -------------------------------------------------------------------------------------

export async function listPlans(ctx: OrgContext, patientId: string, q: PlanListQuery) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const page = yield* treatmentPlanRecords.list(db, q, {
      where: [eq(treatmentPlans.patient_id, patient.id), q.status ? eq(treatmentPlans.status, q.status) : undefined],
      orderBy: [treatmentPlans.id],
    });
    return { ...page, items: yield* serializePlans(db, patient, page.items) };
  });
}

export async function getPlan(ctx: OrgContext, patientId: string, id: string) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    return (yield* serializePlans(db, patient, [yield* requirePlan(db, patient, id)]))[0]!;
  });
}

export async function createPlan(ctx: OrgContext, patientId: string, input: PlanCreate) {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const status = input.status ?? "draft";
    const plan = yield* onChartOf(
      s,
      patient,
      treatmentPlanRecords.create(
        s,
        {
          patient_id: patient.id,
          name: input.name,
          note: input.note ?? null,
          phases: input.phases ?? [],
          status,
          status_changed_at: s.now,
        },
        { status },
      ),
    );
    return (yield* serializePlans(s.tx, patient, [plan]))[0]!;
  });
}

export async function updatePlan(ctx: OrgContext, patientId: string, id: string, input: PlanPatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const plan = yield* requirePlan(s.tx, patient, id);
    checkVersion(plan, base_version);
    const row = yield* onChartOf(s, patient, treatmentPlanRecords.update(s, id, base_version, patch));
    return (yield* serializePlans(s.tx, patient, [row]))[0]!;
  });
}

/** Moves the plan along PLAN_TRANSITIONS (422 invalid_transition otherwise): audited and announced as treatment_plan.status_changed. */
export function* movePlanStatus(s: TxScope, patient: PatientRow, plan: PlanRow, status: PlanStatus): Work<PlanRow> {
  if (!PLAN_TRANSITIONS[plan.status as PlanStatus].includes(status)) throw new InvalidTransition(plan.status, status);
  return yield* onChartOf(
    s,
    patient,
    treatmentPlanRecords.update(
      s,
      plan.id,
      plan.version,
      { status, status_changed_at: s.now },
      { action: "status_changed", eventData: { from_status: plan.status, status } },
    ),
  );
}

export async function changePlanStatus(ctx: OrgContext, patientId: string, id: string, input: PlanStatusChange) {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const plan = yield* requirePlan(s.tx, patient, id);
    checkVersion(plan, input.base_version);
    const row = yield* movePlanStatus(s, patient, plan, input.status);
    return (yield* serializePlans(s.tx, patient, [row]))[0]!;
  });
}

export async function deletePlan(ctx: OrgContext, patientId: string, id: string, baseVersion: number) {
  await withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const plan = yield* requirePlan(s.tx, patient, id);
    checkVersion(plan, baseVersion);
    yield* run(s.tx.delete(treatmentPlanProcedures).where(planLinks(id)));
    yield* onChartOf(s, patient, treatmentPlanRecords.update(s, id, baseVersion, { deleted_at: s.now }, { action: "deleted" }));
  });
}

export async function addPlanProcedure(ctx: OrgContext, patientId: string, planId: string, input: PlanItemAdd) {
  return changeItems(ctx, patientId, planId, input.base_version, function* (s, plan, patient) {
    const proc = yield* requirePatientProcedure(s.tx, patient.id, input.procedure_uuid);
    if (!PLANNABLE.includes(proc.status)) {
      throw invalid(["body", "procedure_uuid"], `A ${proc.status} procedure cannot be planned`, "value_error", "procedure_not_plannable");
    }
    if (yield* linkOf(s.tx, plan.id, proc.id)) throw new Conflict("The procedure is already in this plan", "duplicate");
    const last = yield* get(
      s.tx
        .select({ n: max(treatmentPlanProcedures.item_order) })
        .from(treatmentPlanProcedures)
        .where(planLinks(plan.id)),
    );
    yield* run(
      s.tx.insert(treatmentPlanProcedures).values({
        id: newId(),
        treatment_plan_id: plan.id,
        charted_procedure_id: proc.id,
        phase: input.phase ?? 1,
        item_order: (last?.n ?? 0) + 1,
        created_at: s.now,
      }),
    );
    yield* touchPlan(s, plan.id, "procedure_added", { procedure_id: proc.id });
  });
}

export async function updatePlanProcedure(ctx: OrgContext, patientId: string, planId: string, procedureId: string, input: PlanItemPatch) {
  return changeItems(ctx, patientId, planId, input.base_version, function* (s, plan) {
    const link = yield* linkOf(s.tx, plan.id, procedureId);
    if (!link) throw new NotFound("Charted procedure in this plan");
    yield* run(s.tx.update(treatmentPlanProcedures).set({ phase: input.phase }).where(eq(treatmentPlanProcedures.id, link.id)));
    yield* touchPlan(s, plan.id, "procedure_updated", { procedure_id: procedureId });
  });
}

export async function removePlanProcedure(ctx: OrgContext, patientId: string, planId: string, procedureId: string, baseVersion?: number) {
  return changeItems(ctx, patientId, planId, baseVersion, function* (s, plan) {
    const link = yield* linkOf(s.tx, plan.id, procedureId);
    if (!link) throw new NotFound("Charted procedure in this plan");
    yield* run(s.tx.delete(treatmentPlanProcedures).where(eq(treatmentPlanProcedures.id, link.id)));
    yield* touchPlan(s, plan.id, "procedure_removed", { procedure_ids: [procedureId] });
  });
}

export async function reorderPlan(ctx: OrgContext, patientId: string, planId: string, input: PlanReorder) {
  const order = input.procedure_uuids;
  return changeItems(ctx, patientId, planId, input.base_version, function* (s, plan) {
    const links = yield* all(s.tx.select().from(treatmentPlanProcedures).where(planLinks(plan.id)));
    const held = new Set(links.map((l) => l.charted_procedure_id));
    if (new Set(order).size !== order.length || order.length !== held.size || !order.every((id) => held.has(id))) {
      throw invalid(["body", "procedure_uuids"], "Must list every procedure of the plan exactly once", "value_error", "reorder_mismatch");
    }
    for (const [i, id] of order.entries()) {
      yield* run(
        s.tx
          .update(treatmentPlanProcedures)
          .set({ item_order: i + 1 })
          .where(and(planLinks(plan.id), eq(treatmentPlanProcedures.charted_procedure_id, id))),
      );
    }
    yield* touchPlan(s, plan.id, "reordered");
  });
}
