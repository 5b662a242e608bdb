import { and, asc, eq, gte, inArray, isNull, lte, or, sql } from "drizzle-orm";
import { chartedProcedures, treatmentPlanProcedures } from "@db/tenant/charted-procedures";
import { procedureEstimates } from "@db/tenant/insurance";
import { all, allPrepared, prepared, type Work } from "@/platform/db/work";
import type { TenantDb } from "@/platform/records/context";
import type { PatientRow } from "@/domains/patients/record/service";
import type { ProcedureRow } from "@/domains/clinical/charted-procedures/service";
import { procedureCodesByCode } from "@/domains/codes/procedure-codes/service";
import { loadCoverageCategories, type CategoryWithSpans } from "@/domains/insurance/coverage-categories/service";
import { allowedFeesFor, type FeeLine } from "@/domains/insurance/estimate-books/resolve";
import { benefitsUsed, loadCoverage, type Coverage } from "@/domains/insurance/patient-plans/benefits";
import { patternCovers } from "@/domains/insurance/plans/schemas";
import { FEE_SCHEDULE_NAMES } from "@/platform/records/names";
import { namesOf } from "@/platform/records/refs";
import {
  estimateTreatmentPlan,
  type EngineCoverageCategory,
  type EngineOverride,
  type EnginePlan,
  type EnginePriorProcedure,
  type EstimateInput,
  type PlanEstimate,
  type TreatmentPlanEstimate,
} from "./engine";

// What an estimate is computed from, read from the org's database
// (docs/insurance/insurance-estimates.md, "Service"): the patient's plans in force on the
// estimate date, the coverage categories, the treatment plan's estimable
// procedures, allowed fees, benefits used, history and the stored overrides.
// Each function is a unit of work: it runs inside the caller's read or write.

export type EstimateRow = typeof procedureEstimates.$inferSelect;
type LinkRow = typeof treatmentPlanProcedures.$inferSelect;

/** Planned work that insurance is asked to pay for is estimated; done work keeps its estimate. */
export const ESTIMABLE_STATUSES: readonly string[] = ["treatment_planned", "scheduled", "in_progress"];
const DONE: readonly string[] = ["complete", "complete_referred"];
/** Completed procedures this far back count toward frequency limits. */
const HISTORY_YEARS = 5;

/** The override columns of an estimate row. */
export const OVERRIDE_COLUMNS = [
  "allowed_override_cents",
  "copay_override_cents",
  "deductible_override_cents",
  "insurance_estimate_override_cents",
  "percentage_override",
  "write_off_override_cents",
] as const;
export type OverrideColumns = { [K in (typeof OVERRIDE_COLUMNS)[number]]?: number | null };

/** A pending override change of one estimate, applied to the inputs before they are estimated (PATCH .../overrides). */
export type OverridePatch = { estimateId: string; columns: OverrideColumns };

export const keyOf = (procedureId: string, ordinal: number) => `${procedureId}\u0000${ordinal}`;

export type PlanState = {
  asOf: string;
  /** The plans in force on asOf, in COB order (empty: no active insurance). */
  coverage: Coverage[];
  /** The plan's live procedures in plan order (phase, then item order). */
  items: { link: LinkRow; proc: ProcedureRow }[];
  /** The estimable ones, in plan order: what the engine is given. */
  estimable: ProcedureRow[];
  /** Null without active insurance. */
  input: EstimateInput | null;
  result: TreatmentPlanEstimate | null;
  /** Today's estimate of each (procedure, ordinal), by keyOf. */
  computed: Map<string, PlanEstimate>;
  /** Live estimates of the plan's procedures, in plan order then ordinal: the plan's estimates. */
  rows: EstimateRow[];
  /** Live estimates recorded for this plan whose procedure has left it (a run deletes them unless the work is done). */
  leftovers: { row: EstimateRow; done: boolean }[];
};

/** A procedure's fee billed: the override when set, else the office fee it was charted with. */
export const feeOf = (p: Pick<ProcedureRow, "fee_override_cents" | "office_fee_cents">) => p.fee_override_cents ?? p.office_fee_cents;

/** The estimate was computed from exactly the inputs of the state it is judged against; estimates of done work are kept as they were (never stale). */
export function isStale(state: PlanState, row: EstimateRow, procStatus: string | undefined): boolean {
  if (procStatus !== undefined && DONE.includes(procStatus)) return false;
  const now = state.computed.get(keyOf(row.charted_procedure_id, row.ordinal));
  return !now || now.inputs_hash !== row.inputs_hash;
}

/** The status of each of the plan's procedures, by id (for isStale). */
export const statusesOf = (state: PlanState) => new Map(state.items.map((i) => [i.proc.id, i.proc.status]));

// The reads below run on every estimate, re-estimate and staleness check:
// prepared once per connection (building a drizzle query costs more than running it).
const L = treatmentPlanProcedures;
const P = chartedProcedures;
const E = procedureEstimates;

const planItemsQuery = prepared<{ link: LinkRow; proc: ProcedureRow }>((db) =>
  db
    .select({ link: L, proc: P })
    .from(L)
    .innerJoin(P, eq(P.id, L.charted_procedure_id))
    .where(and(eq(L.treatment_plan_id, sql.placeholder("plan")), isNull(P.deleted_at)))
    .orderBy(asc(L.phase), asc(L.item_order), asc(L.id))
    .prepare(),
);

/** Live estimates recorded for the plan, or of a live procedure the plan holds (whichever plan they were recorded for). */
const planEstimatesQuery = prepared<EstimateRow>((db) =>
  db
    .select()
    .from(E)
    .where(
      and(
        isNull(E.deleted_at),
        or(
          eq(E.treatment_plan_id, sql.placeholder("plan")),
          inArray(
            E.charted_procedure_id,
            db
              .select({ id: L.charted_procedure_id })
              .from(L)
              .innerJoin(P, eq(P.id, L.charted_procedure_id))
              .where(and(eq(L.treatment_plan_id, sql.placeholder("plan")), isNull(P.deleted_at))),
          ),
        ),
      ),
    )
    .prepare(),
);

const historyQuery = prepared<{ code: string; date: string; tooth: string | null }>((db) =>
  db
    .select({ code: P.procedure_code, date: P.date_service, tooth: P.tooth_number })
    .from(P)
    .where(
      and(
        eq(P.patient_id, sql.placeholder("patient")),
        eq(P.status, "complete"),
        isNull(P.deleted_at),
        gte(P.date_service, sql.placeholder("from")),
        lte(P.date_service, sql.placeholder("to")),
      ),
    )
    .orderBy(asc(P.date_service), asc(P.id))
    .prepare(),
);

const planItems = (db: TenantDb, planId: string) => allPrepared(db, planItemsQuery, { plan: planId });

/** Live estimates of the plan's procedures, in plan order then ordinal; and those recorded for the plan whose procedure left it. */
export function* planEstimates(db: TenantDb, planId: string, linked: readonly string[]): Work<{ rows: EstimateRow[]; strays: EstimateRow[] }> {
  const live = yield* allPrepared(db, planEstimatesQuery, { plan: planId });
  const position = new Map(linked.map((id, i) => [id, i]));
  const rows = live
    .filter((r) => position.has(r.charted_procedure_id))
    .sort((a, b) => position.get(a.charted_procedure_id)! - position.get(b.charted_procedure_id)! || a.ordinal - b.ordinal);
  return { rows, strays: live.filter((r) => !position.has(r.charted_procedure_id)) };
}

/** Completed work of the last five years, oldest first: what frequency limits count. */
function* history(db: TenantDb, patientId: string, asOf: string): Work<EnginePriorProcedure[]> {
  const from = Temporal.PlainDate.from(asOf).subtract({ years: HISTORY_YEARS }).toString();
  return yield* allPrepared(db, historyQuery, { patient: patientId, from, to: asOf });
}

/**
 * A plan's allowed fees for the procedures' codes and the codes its downgrades
 * pay them as, keyed by code (only codes a fee schedule or book has a fee
 * for), and the fee schedule each came from, by name (the waterfall names it).
 * Where one code is billed at two fees, the higher answer is kept: the engine
 * caps the allowed fee at each procedure's fee, so an exclude_over_ucr cap
 * still lands on each.
 */
function* allowedFeesOf(
  db: TenantDb,
  c: Coverage,
  procs: ProcedureRow[],
  asOf: string,
  homeLocationId: string | null,
): Work<{ fees: Record<string, number>; sources: Record<string, string> }> {
  const lines: FeeLine[] = procs.map((p) => ({
    procedureCodeId: p.procedure_code_id,
    code: p.procedure_code,
    feeCents: feeOf(p),
    locationId: p.location_id ?? homeLocationId,
  }));
  const codes = new Set(procs.map((p) => p.procedure_code.toUpperCase()));
  const targets = [
    ...new Set(c.plan.downgrades.filter((d) => [...codes].some((code) => d.codes.some((spec) => patternCovers(spec, code)))).map((d) => d.to_code)),
  ];
  if (targets.length) {
    // a substitution code is capped (exclude_over_ucr) at the office's own fee for it
    const catalogue = yield* procedureCodesByCode(db, targets);
    for (const code of targets) {
      const row = catalogue.get(code);
      if (row) lines.push({ procedureCodeId: row.id, code, feeCents: row.default_fee_cents });
    }
  }
  const answers = yield* allowedFeesFor(db, { planId: c.plan.id, onDate: asOf }, lines);
  const names = yield* namesOf(
    db,
    FEE_SCHEDULE_NAMES,
    answers.map((a) => a.feeScheduleId),
  );
  const fees: Record<string, number> = {};
  const sources: Record<string, string> = {};
  answers.forEach((a, i) => {
    const code = lines[i]!.code!.toUpperCase();
    if (a.allowedFeeCents === null || (fees[code] !== undefined && a.allowedFeeCents <= fees[code]!)) return;
    fees[code] = a.allowedFeeCents;
    if (a.feeScheduleId) sources[code] = `fee schedule "${names.get(a.feeScheduleId) ?? a.feeScheduleId}"`;
    else delete sources[code];
  });
  return { fees, sources };
}

/** One patient plan as the engine sees it: the plan's rules, the card's effective date, allowed fees, benefits used, history. */
function* enginePlan(
  db: TenantDb,
  c: Coverage,
  procs: ProcedureRow[],
  prior: EnginePriorProcedure[],
  asOf: string,
  homeLocationId: string | null,
): Work<EnginePlan> {
  const used = yield* benefitsUsed(db, c.patientPlan.id, asOf);
  const allowed = yield* allowedFeesOf(db, c, procs, asOf, homeLocationId);
  const p = c.plan;
  return {
    ordinal: c.patientPlan.ordinal,
    plan_id: c.patientPlan.id,
    carrier_id: c.carrierId,
    plan_type: p.plan_type as EnginePlan["plan_type"],
    cob_method: p.cob_method as EnginePlan["cob_method"],
    benefit_year_start_month: p.benefit_year_start_month,
    effective_date: c.subscription.effective_date,
    annual_max_cents: p.annual_max_cents,
    deductible_individual_cents: p.deductible_individual_cents,
    deductible_family_cents: p.deductible_family_cents,
    deductible_category_ids: p.deductible_category_ids,
    coverage: p.coverage,
    frequency_limits: p.frequency_limits,
    waiting_periods: p.waiting_periods,
    age_limits: p.age_limits,
    downgrades: p.downgrades,
    copays: p.copays,
    allowed_fees: allowed.fees,
    allowed_fee_sources: allowed.sources,
    benefits_used: {
      years: [
        {
          start: used.benefit_year.start,
          deductible_met_cents: used.deductible_met_cents,
          annual_max_used_cents: used.annual_max_used_cents,
          ...(used.family_deductible_met_cents === null ? {} : { family_deductible_met_cents: used.family_deductible_met_cents }),
        },
      ],
      prior_procedures: prior,
    },
  };
}

const overrideOf = (row: EstimateRow, patch: OverridePatch | undefined): EngineOverride => {
  const o = { ...row, ...(patch?.estimateId === row.id ? patch.columns : {}) };
  return {
    procedure_id: row.charted_procedure_id,
    ordinal: row.ordinal,
    allowed: o.allowed_override_cents,
    copay: o.copay_override_cents,
    deductible: o.deductible_override_cents,
    insurance_estimate: o.insurance_estimate_override_cents,
    percentage: o.percentage_override,
    write_off: o.write_off_override_cents,
  };
};

const categoriesOf = (rows: CategoryWithSpans[]): EngineCoverageCategory[] =>
  rows.map((c) => ({
    id: c.id,
    name: c.category_name,
    spans: c.spans.map((s) => ({ from_code: s.from_code, to_code: s.to_code, is_exclusion: s.is_exclusion })),
  }));

/**
 * Everything about one treatment plan's estimates as of `asOf`: today's
 * inputs and what the engine makes of them, and the stored estimates to
 * compare. `patch` applies a pending override change to the inputs.
 */
export function* loadPlanState(db: TenantDb, patient: PatientRow, planId: string, asOf: string, patch?: OverridePatch): Work<PlanState> {
  const items = yield* planItems(db, planId);
  const estimable = items.filter((i) => ESTIMABLE_STATUSES.includes(i.proc.status) && !i.proc.do_not_bill_insurance).map((i) => i.proc);
  const linked = items.map((i) => i.proc.id);
  const { rows, strays } = yield* planEstimates(db, planId, linked);
  const strayProcs = strays.length
    ? yield* all<{ id: string; status: string; deleted_at: string | null }>(
        db
          .select({ id: chartedProcedures.id, status: chartedProcedures.status, deleted_at: chartedProcedures.deleted_at })
          .from(chartedProcedures)
          .where(
            inArray(
              chartedProcedures.id,
              strays.map((r) => r.charted_procedure_id),
            ),
          ),
      )
    : [];
  const strayStatus = new Map(strayProcs.map((p) => [p.id, p]));
  const leftovers = strays.map((row) => {
    const p = strayStatus.get(row.charted_procedure_id);
    return { row, done: !!p && !p.deleted_at && DONE.includes(p.status) };
  });

  const coverage = yield* loadCoverage(db, patient.id, asOf);
  if (!coverage.length) return { asOf, coverage, items, estimable, input: null, result: null, computed: new Map(), rows, leftovers };

  const prior = yield* history(db, patient.id, asOf);
  const plans: EnginePlan[] = [];
  for (const c of coverage) plans.push(yield* enginePlan(db, c, estimable, prior, asOf, patient.location_id));
  const estimableIds = new Set(estimable.map((p) => p.id));
  const input: EstimateInput = {
    as_of: asOf,
    patient: { date_of_birth: patient.date_of_birth },
    categories: categoriesOf(yield* loadCoverageCategories(db)),
    plans,
    // planned work is estimated as if done on the estimate date
    procedures: estimable.map((p) => ({ id: p.id, code: p.procedure_code, fee_cents: feeOf(p), date: asOf, tooth: p.tooth_number, surfaces: p.surfaces })),
    overrides: rows.filter((r) => estimableIds.has(r.charted_procedure_id)).map((r) => overrideOf(r, patch)),
  };
  const result = estimateTreatmentPlan(input);
  const computed = new Map(result.procedures.flatMap((p) => p.estimates.map((e) => [keyOf(e.procedure_id, e.ordinal), e] as const)));
  return { asOf, coverage, items, estimable, input, result, computed, rows, leftovers };
}
