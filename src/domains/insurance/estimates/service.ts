import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { insuranceSubscriptions, patientPlans, procedureEstimates } from "@db/tenant/insurance";
import { all, get, getPrepared, prepared, type Work } from "@/platform/db/work";
import { invalid, NotFound, ValidationFailed } from "@/platform/errors";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { checkVersion } from "@/platform/records/versions";
import { todayUtc } from "@/platform/time/dates";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import { patientRecords, type PatientRow } from "@/domains/patients/record/service";
import { isDone, onChartOf, requirePatientProcedure } from "@/domains/clinical/charted-procedures/service";
import { treatmentPlanRecords, type PlanRow } from "@/domains/clinical/treatment-plans/records";
import type { EstimateDetail as EngineDetail, PlanEstimate } from "./engine";
import { ENGINE_VERSION } from "./engine";
import {
  isStale,
  keyOf,
  loadPlanState,
  planEstimates,
  OVERRIDE_COLUMNS,
  statusesOf,
  type EstimateRow,
  type OverrideColumns,
  type OverridePatch,
  type PlanState,
} from "./inputs";
import { queueRecompute, type RecomputePayload } from "./recompute.job";
import type { EstimateDetailOut, EstimateRunOut, OverridesInput, PlanEstimatesOut, ProcedureEstimateOut, StalenessOut } from "./schemas";

// Procedure estimates (docs/insurance/insurance-estimates.md, "Service"): the engine's
// answers for a treatment plan's procedures against the patient's plans,
// stored one row per (procedure, ordinal), explained in `detail`, and told
// stale by their inputs_hash.

// Audit snapshots are the stored columns without the explanation (derived from them, and large).
export const estimateRecords = defineResource<EstimateRow, Omit<EstimateRow, "detail">>({
  table: procedureEstimates,
  name: "procedure_estimate",
  label: "Procedure estimate",
  serialize: ({ detail: _detail, ...r }) => r,
  eventFields: {
    rename: {
      charted_procedure_id: "charted_procedure_uuid",
      treatment_plan_id: "treatment_plan_uuid",
      patient_id: "patient_uuid",
      patient_plan_id: "patient_plan_uuid",
      fee_billed_cents: "fee_billed",
      allowed_fee_cents: "allowed_fee",
      ppo_fee_cents: "ppo_fee",
      write_off_cents: "write_off_estimate",
      deductible_applied_cents: "deductible_applied",
      base_estimate_cents: "base_estimate",
      insurance_estimate_cents: "insurance_estimate",
      paid_other_insurance_cents: "paid_other_insurance",
      patient_estimate_cents: "patient_estimate",
      copay_cents: "copay_amount",
      preauth_amount_cents: "preauth_amount",
      allowed_override_cents: "allowed_override",
      copay_override_cents: "copay_override",
      deductible_override_cents: "deductible_override",
      insurance_estimate_override_cents: "insurance_estimate_override",
      write_off_override_cents: "write_off_override",
    },
  },
});

/** The values the engine used for the six overridable figures (the override, clamped, when set). */
type Effective = { allowed: number; copay: number; coverage_percent: number; deductible: number; insurance_estimate: number; write_off: number };

/** What `detail` holds: the engine's explanation, and what the figures were computed with. */
type StoredDetail = EngineDetail & {
  engine_version: number;
  fee_source: "fee_schedule" | "override";
  /** null once an override changed without a recomputation: the effective values are then the overrides as entered. */
  effective: Effective | null;
};

// ---- answers ---------------------------------------------------------------------------------

const money = (cents: number) => formatCents(cents)!;

export function serializeEstimate(r: EstimateRow, stale: boolean): ProcedureEstimateOut {
  const used = (r.detail as StoredDetail | null)?.effective ?? null;
  const allowed = used?.allowed ?? r.allowed_override_cents ?? r.allowed_fee_cents;
  return {
    id: r.id,
    charted_procedure_uuid: r.charted_procedure_id,
    treatment_plan_uuid: r.treatment_plan_id,
    patient_plan_uuid: r.patient_plan_id,
    ordinal: r.ordinal,
    estimate_status: r.estimate_status as ProcedureEstimateOut["estimate_status"],
    fee_billed: money(r.fee_billed_cents),
    allowed_fee: formatCents(r.allowed_fee_cents),
    ppo_fee: formatCents(r.ppo_fee_cents),
    write_off_estimate: money(r.write_off_cents),
    deductible_applied: money(r.deductible_applied_cents),
    coverage_percent: r.coverage_percent,
    base_estimate: money(r.base_estimate_cents),
    insurance_estimate: money(r.insurance_estimate_cents),
    paid_other_insurance: money(r.paid_other_insurance_cents),
    patient_estimate: money(r.patient_estimate_cents),
    copay_amount: money(r.copay_cents),
    is_excluded: r.is_excluded,
    exclusion_reason: r.exclusion_reason as ProcedureEstimateOut["exclusion_reason"],
    substitution_code: r.substitution_code,
    estimate_note: r.estimate_note,
    code_sent: r.code_sent,
    date_estimated: r.date_estimated,
    calculated_at: r.calculated_at,
    inputs_hash: r.inputs_hash,
    is_stale: stale,
    preauth_amount: formatCents(r.preauth_amount_cents),
    preauth_date: r.preauth_date,
    preauth_number: r.preauth_number,
    effective_allowed_fee: formatCents(allowed),
    effective_copay: money(used?.copay ?? r.copay_override_cents ?? r.copay_cents),
    effective_coverage_percent: String(used?.coverage_percent ?? r.percentage_override ?? r.coverage_percent),
    effective_deductible: money(used?.deductible ?? r.deductible_override_cents ?? r.deductible_applied_cents),
    effective_insurance_estimate: money(used?.insurance_estimate ?? r.insurance_estimate_override_cents ?? r.insurance_estimate_cents),
    effective_write_off: money(used?.write_off ?? r.write_off_override_cents ?? r.write_off_cents),
    has_allowed_override: r.allowed_override_cents !== null,
    has_copay_override: r.copay_override_cents !== null,
    has_deductible_override: r.deductible_override_cents !== null,
    has_insurance_estimate_override: r.insurance_estimate_override_cents !== null,
    has_percentage_override: r.percentage_override !== null,
    has_write_off_override: r.write_off_override_cents !== null,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** Amounts in the explanation as the API writes money: `annual_max_cents: 150000` becomes `annual_max: "1500.00"`. */
function moneyKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(moneyKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k.endsWith("_cents") && (typeof v === "number" || v === null)) out[k.slice(0, -"_cents".length)] = formatCents(v as number | null);
    else out[k] = moneyKeys(v);
  }
  return out;
}

function serializeDetail(r: EstimateRow, stale: boolean): EstimateDetailOut {
  const d = r.detail as StoredDetail | null;
  const tracker = { inputs_hash: r.inputs_hash, is_stale: stale, calculated_at: r.calculated_at, engine_version: d ? String(d.engine_version) : null };
  const exclusion_reason = r.exclusion_reason as EstimateDetailOut["exclusion_reason"];
  if (!d) {
    return {
      estimate_uuid: r.id,
      has_detail: false,
      benefit_match: null,
      coverage: null,
      exclusion_reason,
      fee_source: null,
      is_excluded: r.is_excluded,
      plan_context: null,
      substitution_code: r.substitution_code,
      tracker,
      warnings: [],
      waterfall: [],
    };
  }
  return {
    estimate_uuid: r.id,
    has_detail: true,
    benefit_match: moneyKeys(d.benefit_match) as Record<string, unknown>,
    coverage: moneyKeys(d.coverage) as Record<string, unknown>,
    exclusion_reason,
    fee_source: d.fee_source,
    is_excluded: r.is_excluded,
    plan_context: moneyKeys(d.plan_context) as Record<string, unknown>,
    substitution_code: r.substitution_code,
    tracker,
    warnings: d.warnings,
    waterfall: d.waterfall.map((w) => ({ step: w.step, label: w.label, amount: money(w.amount_cents), running: money(w.running_cents), note: w.note })),
  };
}

function runOf(plan: PlanRow, state: PlanState, rows: EstimateRow[], staleBefore: number): EstimateRunOut {
  const statuses = statusesOf(state);
  const totals = state.result?.totals ?? { fee_billed: 0, insurance_estimate: 0, write_off: 0, patient_estimate: 0 };
  return {
    treatment_plan_uuid: plan.id,
    estimate_count: rows.length,
    stale_count: staleBefore,
    total_fee_billed: money(totals.fee_billed),
    total_insurance_estimate: money(totals.insurance_estimate),
    total_patient_estimate: money(totals.patient_estimate),
    total_write_off: money(totals.write_off),
    estimates: rows.map((r) => serializeEstimate(r, isStale(state, r, statuses.get(r.charted_procedure_id)))),
  };
}

// ---- lookups ---------------------------------------------------------------------------------

/** The patient's live treatment plan: 404 when missing, deleted or another patient's. */
function* requirePatientPlan(db: TenantDb, patient: PatientRow, planId: string): Work<PlanRow> {
  const plan = yield* treatmentPlanRecords.find(db, planId);
  if (!plan || plan.patient_id !== patient.id) throw new NotFound("Treatment plan");
  return plan;
}

/** The live estimates of the plan's procedures, in plan order then ordinal (read again after a run that wrote). */
function* planRows(db: TenantDb, planId: string, state: PlanState): Work<EstimateRow[]> {
  return (yield* planEstimates(
    db,
    planId,
    state.items.map((i) => i.proc.id),
  )).rows;
}

/** Whether one estimate is stale, judged against its treatment plan's inputs today (no plan any more: stale, unless the work is done). */
function* staleOne(db: TenantDb, row: EstimateRow, asOf: string): Work<boolean> {
  const proc = yield* get<{ status: string; deleted_at: string | null }>(
    db
      .select({ status: chartedProcedures.status, deleted_at: chartedProcedures.deleted_at })
      .from(chartedProcedures)
      .where(eq(chartedProcedures.id, row.charted_procedure_id)),
  );
  if (proc && !proc.deleted_at && isDone(proc.status)) return false;
  const plan = row.treatment_plan_id ? yield* treatmentPlanRecords.find(db, row.treatment_plan_id) : undefined;
  if (!plan) return true;
  const patient = yield* patientRecords.require(db, plan.patient_id, true);
  const state = yield* loadPlanState(db, patient, plan.id, row.date_estimated ?? asOf);
  return isStale(state, row, statusesOf(state).get(row.charted_procedure_id));
}

/**
 * The date a plan's estimates were computed for (the latest of them; `today` when there are
 * none). Staleness is judged as of that date: a day passing does not make an estimate stale,
 * only a change to what it was computed from does. A run estimates as of today.
 */
const latestEstimateDate = prepared<{ d: string | null }>((db) =>
  db
    .select({ d: sql<string | null>`max(${procedureEstimates.date_estimated})` })
    .from(procedureEstimates)
    .where(and(eq(procedureEstimates.treatment_plan_id, sql.placeholder("plan")), isNull(procedureEstimates.deleted_at)))
    .prepare(),
);

function* estimatedOn(db: TenantDb, planId: string, today: string): Work<string> {
  return (yield* getPrepared(db, latestEstimateDate, { plan: planId }))?.d ?? today;
}

/** As of its own date: how many of the plan's estimates are stale, and whether any the plan needs is missing. */
function* datedCheck(db: TenantDb, patient: PatientRow, planId: string, today: string, todays: PlanState): Work<{ stale: number; missing: boolean }> {
  const on = yield* estimatedOn(db, planId, today);
  // estimated today (the usual case): today's state is the one to judge by, already loaded
  const dated = on === today ? todays : yield* loadPlanState(db, patient, planId, on);
  const statuses = statusesOf(dated);
  const stale = dated.rows.filter((r) => isStale(dated, r, statuses.get(r.charted_procedure_id))).length;
  const held = new Set(dated.rows.map((r) => keyOf(r.charted_procedure_id, r.ordinal)));
  const missing = !dated.result || [...dated.computed.keys()].some((k) => !held.has(k));
  return { stale, missing };
}

const noActiveInsurance = () =>
  invalid(["path", "patient_uuid"], "The patient has no active insurance plan on the estimate date", "value_error", "no_active_insurance");

// ---- the run ---------------------------------------------------------------------------------

/** A stored estimate's columns from the engine's answer (calculated values; the overrides are kept as they are). */
function columnsOf(e: PlanEstimate, state: PlanState, planId: string, patientId: string): Partial<EstimateRow> {
  const proc = state.estimable.find((p) => p.id === e.procedure_id)!;
  const detail: StoredDetail = {
    engine_version: ENGINE_VERSION,
    fee_source: proc.fee_override_cents === null ? "fee_schedule" : "override",
    ...e.detail,
    effective: {
      allowed: e.effective_allowed_fee,
      copay: e.effective_copay,
      coverage_percent: e.effective_coverage_percent,
      deductible: e.effective_deductible,
      insurance_estimate: e.effective_insurance_estimate,
      write_off: e.effective_write_off,
    },
  };
  return {
    charted_procedure_id: e.procedure_id,
    treatment_plan_id: planId,
    patient_id: patientId,
    patient_plan_id: e.plan_id,
    ordinal: e.ordinal,
    fee_billed_cents: e.fee_billed,
    allowed_fee_cents: e.allowed_fee,
    ppo_fee_cents: e.ppo_fee,
    write_off_cents: e.write_off_estimate,
    deductible_applied_cents: e.deductible_applied,
    coverage_percent: e.coverage_percent,
    base_estimate_cents: e.base_estimate,
    insurance_estimate_cents: e.insurance_estimate,
    paid_other_insurance_cents: e.paid_other_insurance,
    patient_estimate_cents: e.patient_estimate,
    copay_cents: e.copay_amount,
    is_excluded: e.is_excluded,
    exclusion_reason: e.exclusion_reason,
    substitution_code: e.substitution_code,
    code_sent: e.code_sent,
    date_estimated: state.asOf,
    inputs_hash: e.inputs_hash,
    detail: detail as unknown as Record<string, unknown>,
  };
}

/** True when writing `next` would change nothing stored. */
function sameContent(row: EstimateRow, next: Partial<EstimateRow>): boolean {
  return Object.entries(next).every(([k, v]) => {
    const held = (row as Record<string, unknown>)[k];
    // the explanation as stored (parsed JSON) against the engine's: key order and undefined members do not count
    return k === "detail" ? Bun.deepEquals(held, v) : held === v;
  });
}

export type RunCounts = { created: number; updated: number; deleted: number };
const changed = (c: RunCounts) => c.created + c.updated + c.deleted > 0;

/**
 * Store a computed state: create the missing estimates, rewrite those whose
 * content changed (mode `stale`: only those whose inputs changed, and the one
 * being patched), and soft-delete the plan's estimates the run no longer
 * makes (ordinals no longer covered, procedures no longer estimable or no
 * longer in the plan) unless their work is done. Unchanged rows are not
 * written: a second run changes no version.
 */
function* applyRun(s: TxScope, planId: string, patientId: string, state: PlanState, mode: "force" | "stale", patch?: OverridePatch): Work<RunCounts> {
  const counts: RunCounts = { created: 0, updated: 0, deleted: 0 };
  const held = new Map(state.rows.map((r) => [keyOf(r.charted_procedure_id, r.ordinal), r]));
  const ids = (r: Pick<EstimateRow, "charted_procedure_id" | "treatment_plan_id" | "patient_plan_id">) => ({
    charted_procedure_id: r.charted_procedure_id,
    treatment_plan_id: r.treatment_plan_id,
    patient_plan_id: r.patient_plan_id,
  });
  for (const e of state.computed.values()) {
    const values = columnsOf(e, state, planId, patientId);
    const row = held.get(keyOf(e.procedure_id, e.ordinal));
    if (!row) {
      yield* estimateRecords.create(s, { ...values, estimate_status: "estimate", estimate_note: "", calculated_at: s.now }, ids(values as EstimateRow));
      counts.created++;
      continue;
    }
    const patched = patch?.estimateId === row.id;
    if (!patched && mode === "stale" && row.inputs_hash === e.inputs_hash) continue;
    const next = patched ? { ...values, ...patch.columns } : values;
    if (sameContent(row, next)) continue;
    yield* estimateRecords.update(s, row.id, undefined, { ...next, calculated_at: s.now }, { eventData: ids({ ...row, ...next }) });
    counts.updated++;
  }
  const statuses = statusesOf(state);
  const obsolete = [
    ...state.rows.filter((r) => !state.computed.has(keyOf(r.charted_procedure_id, r.ordinal)) && !isDone(statuses.get(r.charted_procedure_id) ?? "")),
    ...state.leftovers.filter((l) => !l.done).map((l) => l.row),
  ];
  for (const r of obsolete) {
    yield* estimateRecords.update(s, r.id, undefined, { deleted_at: s.now }, { action: "deleted", changedFields: false, eventData: ids(r) });
    counts.deleted++;
  }
  return counts;
}

// ---- verbs -----------------------------------------------------------------------------------

/** Estimate (mode force) or re-estimate a patient's treatment plan in one transaction; 422 no_active_insurance writes nothing. */
async function runPlan(ctx: OrgContext, patientId: string, planId: string, mode: "force" | "stale"): Promise<EstimateRunOut> {
  const asOf = todayUtc();
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const plan = yield* requirePatientPlan(s.tx, patient, planId);
    const state = yield* loadPlanState(s.tx, patient, plan.id, asOf);
    if (!state.result) throw noActiveInsurance();
    const before = yield* datedCheck(s.tx, patient, plan.id, asOf, state);
    // a re-estimate of a plan whose estimates are all fresh (as of their date) writes nothing
    const wrote =
      (mode === "force" || before.stale > 0 || before.missing) && changed(yield* onChartOf(s, patient, applyRun(s, plan.id, patient.id, state, "force")));
    return runOf(plan, state, wrote ? yield* planRows(s.tx, plan.id, state) : state.rows, before.stale);
  });
}

export const estimatePlan = (ctx: OrgContext, patientId: string, planId: string) => runPlan(ctx, patientId, planId, "force");

export const reEstimatePlan = (ctx: OrgContext, patientId: string, planId: string, body: { force?: boolean } | undefined) =>
  runPlan(ctx, patientId, planId, body?.force ? "force" : "stale");

/** The plan's state for a read: the patient (archived ones too) and their plan, 404 otherwise. */
function* readState(db: TenantDb, patientId: string, planId: string, asOf: string) {
  const patient = yield* patientForRead(db, patientId);
  const plan = yield* requirePatientPlan(db, patient, planId);
  const state = yield* loadPlanState(db, patient, plan.id, yield* estimatedOn(db, plan.id, asOf));
  const statuses = statusesOf(state);
  return { plan, state, stale: (r: EstimateRow) => isStale(state, r, statuses.get(r.charted_procedure_id)) };
}

export async function listPlanEstimates(ctx: OrgContext, patientId: string, planId: string): Promise<PlanEstimatesOut> {
  const asOf = todayUtc();
  return ctx.db.read(function* (db) {
    const { state, stale } = yield* readState(db, patientId, planId, asOf);
    return { items: state.rows.map((r) => serializeEstimate(r, stale(r))), total: state.rows.length };
  });
}

export async function planStaleness(ctx: OrgContext, patientId: string, planId: string): Promise<StalenessOut> {
  const asOf = todayUtc();
  return ctx.db.read(function* (db) {
    const { plan, state, stale } = yield* readState(db, patientId, planId, asOf);
    const estimates = state.rows.map((r) => ({
      estimate_uuid: r.id,
      charted_procedure_uuid: r.charted_procedure_id,
      ordinal: r.ordinal,
      is_stale: stale(r),
      has_override: OVERRIDE_COLUMNS.some((c) => r[c] !== null),
      calculated_at: r.calculated_at,
    }));
    const staleCount = estimates.filter((e) => e.is_stale).length;
    return { treatment_plan_uuid: plan.id, total_estimates: estimates.length, fresh_count: estimates.length - staleCount, stale_count: staleCount, estimates };
  });
}

export async function getEstimateDetail(ctx: OrgContext, estimateId: string): Promise<EstimateDetailOut> {
  const asOf = todayUtc();
  return ctx.db.read(function* (db) {
    const row = yield* estimateRecords.require(db, estimateId);
    return serializeDetail(row, yield* staleOne(db, row, asOf));
  });
}

/** The request's override fields as columns: only those present; null clears. */
function overrideColumns(input: Omit<OverridesInput, "base_version">): OverrideColumns {
  const out: OverrideColumns = {};
  const cents = (v: number | null) => (v === null ? null : centsFromNumber(v));
  if (input.allowed_override !== undefined) out.allowed_override_cents = cents(input.allowed_override);
  if (input.copay_override !== undefined) out.copay_override_cents = cents(input.copay_override);
  if (input.deductible_override !== undefined) out.deductible_override_cents = cents(input.deductible_override);
  if (input.insurance_estimate_override !== undefined) out.insurance_estimate_override_cents = cents(input.insurance_estimate_override);
  if (input.percentage_override !== undefined) out.percentage_override = input.percentage_override;
  if (input.write_off_override !== undefined) out.write_off_override_cents = cents(input.write_off_override);
  return out;
}

/**
 * Set or clear overrides, then re-estimate the estimate's treatment plan (its
 * stale estimates) in the same transaction, so later procedures see the
 * change; the estimate is written once. When it cannot be computed now (no
 * active insurance, the procedure no longer estimable in its plan), only the
 * overrides are stored and the estimate stays stale until re-estimated.
 */
export async function updateOverrides(ctx: OrgContext, estimateId: string, input: OverridesInput): Promise<ProcedureEstimateOut> {
  const asOf = todayUtc();
  const { base_version, ...fields } = input;
  const columns = overrideColumns(fields);
  return withTransaction(ctx, function* (s) {
    const row = yield* estimateRecords.requireCurrent(s.tx, estimateId, base_version);
    const patient = yield* patientForWrite(s.tx, row.patient_id);
    return yield* onChartOf(s, patient, overridesChange(s, patient, row, columns, asOf));
  });
}

function* overridesChange(s: TxScope, patient: PatientRow, row: EstimateRow, columns: OverrideColumns, asOf: string): Work<ProcedureEstimateOut> {
  const plan = row.treatment_plan_id ? yield* treatmentPlanRecords.find(s.tx, row.treatment_plan_id) : undefined;
  if (plan && plan.patient_id === patient.id) {
    const patch = { estimateId: row.id, columns };
    const state = yield* loadPlanState(s.tx, patient, plan.id, asOf, patch);
    if (state.computed.has(keyOf(row.charted_procedure_id, row.ordinal))) {
      yield* applyRun(s, plan.id, patient.id, state, "stale", patch);
      const now = yield* estimateRecords.require(s.tx, row.id);
      return serializeEstimate(now, isStale(state, now, undefined));
    }
  }
  let now = row;
  if (!sameContent(row, columns)) {
    const detail = row.detail ? { ...row.detail, effective: null } : null;
    now = yield* estimateRecords.update(s, row.id, row.version, { ...columns, detail }, { eventData: { charted_procedure_id: row.charted_procedure_id } });
    yield* recomputeIfUsed(s, row);
  }
  return serializeEstimate(now, yield* staleOne(s.tx, now, asOf));
}

/** An estimate of completed work counts in the benefits used: the patient's other estimates may now be stale. */
function* recomputeIfUsed(s: TxScope, row: EstimateRow): Work<void> {
  const proc = yield* get<{ status: string }>(
    s.tx.select({ status: chartedProcedures.status }).from(chartedProcedures).where(eq(chartedProcedures.id, row.charted_procedure_id)),
  );
  if (proc && isDone(proc.status)) queueRecompute(s, { patient_ids: [row.patient_id] });
}

/** Soft delete; 404 unless the estimate is the patient's procedure's; 409 on a stale base_version. */
export async function deleteEstimate(ctx: OrgContext, patientId: string, procedureId: string, estimateId: string, baseVersion: number): Promise<void> {
  await withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const proc = yield* requirePatientProcedure(s.tx, patient.id, procedureId);
    const row = yield* estimateRecords.find(s.tx, estimateId);
    if (!row || row.charted_procedure_id !== proc.id) throw new NotFound("Procedure estimate");
    checkVersion(row, baseVersion);
    yield* onChartOf(
      s,
      patient,
      estimateRecords.update(
        s,
        row.id,
        baseVersion,
        { deleted_at: s.now },
        { action: "deleted", changedFields: false, eventData: { charted_procedure_id: row.charted_procedure_id, treatment_plan_id: row.treatment_plan_id } },
      ),
    );
    if (isDone(proc.status)) queueRecompute(s, { patient_ids: [patient.id] });
  });
}

// ---- the recompute job ------------------------------------------------------------------------

/**
 * The treatment plans the job re-estimates: live plans with live estimates,
 * of the patients named, of the holders of the plans named (any patient plan
 * on a subscription to them), or of everyone (`all`). In id order.
 */
export async function plansToRecompute(ctx: OrgContext, payload: RecomputePayload): Promise<string[]> {
  return ctx.db.read(function* (db) {
    const patientIds = new Set(payload.patient_ids ?? []);
    if (payload.plan_ids?.length) {
      const holders = yield* all<{ patient_id: string }>(
        db
          .select({ patient_id: patientPlans.patient_id })
          .from(patientPlans)
          .innerJoin(insuranceSubscriptions, eq(insuranceSubscriptions.id, patientPlans.subscription_id))
          .where(inArray(insuranceSubscriptions.plan_id, payload.plan_ids)),
      );
      for (const h of holders) patientIds.add(h.patient_id);
    }
    if (!payload.all && !patientIds.size) return [];
    const E = procedureEstimates;
    const rows = yield* all<{ id: string | null }>(
      db
        .selectDistinct({ id: E.treatment_plan_id })
        .from(E)
        .where(and(isNull(E.deleted_at), payload.all ? undefined : inArray(E.patient_id, [...patientIds])))
        .orderBy(asc(E.treatment_plan_id)),
    );
    return rows.flatMap((r) => (r.id ? [r.id] : []));
  });
}

export type RecomputeOutcome = RunCounts & { outcome: "recomputed" | "no_active_insurance" | "skipped" };

/**
 * The job's unit: re-estimate one treatment plan's stale estimates in its own
 * transaction (force false), as the job's actor. A deleted plan or an archived
 * patient is skipped; without active insurance nothing is written (the
 * estimates stay, stale).
 */
export async function recomputePlan(ctx: OrgContext, planId: string, asOf: string): Promise<RecomputeOutcome> {
  return withTransaction(ctx, function* (s): Work<RecomputeOutcome> {
    const none = { created: 0, updated: 0, deleted: 0 };
    const plan = yield* treatmentPlanRecords.find(s.tx, planId);
    const patient = plan ? yield* patientRecords.find(s.tx, plan.patient_id, true) : undefined;
    if (!plan || !patient || patient.deleted_at) return { outcome: "skipped", ...none };
    const state = yield* loadPlanState(s.tx, patient, plan.id, asOf);
    if (!state.result) return { outcome: "no_active_insurance", ...none };
    const before = yield* datedCheck(s.tx, patient, plan.id, asOf, state);
    if (before.stale === 0 && !before.missing) return { outcome: "recomputed", ...none };
    return { outcome: "recomputed", ...(yield* onChartOf(s, patient, applyRun(s, plan.id, patient.id, state, "force"))) };
  });
}

/** What a presentation shows of one estimate: the effective figures the answers show, in cents. */
export type PresentedEstimate = {
  procedure_id: string;
  patient_plan_id: string;
  ordinal: number;
  insurance_cents: number;
  patient_cents: number;
  is_stale: boolean;
  is_excluded: boolean;
  note: string;
  warnings: string[];
};

/**
 * The plan's live estimates as of today, with their staleness and the
 * engine's warnings, for a treatment-plan presentation (read inside the
 * presentation's own transaction). 404 when the plan is not the patient's.
 */
export function* presentedEstimates(db: TenantDb, patient: PatientRow, planId: string, today: string): Work<PresentedEstimate[]> {
  const plan = yield* requirePatientPlan(db, patient, planId);
  const state = yield* loadPlanState(db, patient, plan.id, yield* estimatedOn(db, plan.id, today));
  const statuses = statusesOf(state);
  return state.rows.map((r) => {
    const d = r.detail as StoredDetail | null;
    return {
      procedure_id: r.charted_procedure_id,
      patient_plan_id: r.patient_plan_id,
      ordinal: r.ordinal,
      insurance_cents: d?.effective?.insurance_estimate ?? r.insurance_estimate_override_cents ?? r.insurance_estimate_cents,
      patient_cents: r.patient_estimate_cents,
      is_stale: isStale(state, r, statuses.get(r.charted_procedure_id)),
      is_excluded: r.is_excluded,
      note: r.estimate_note,
      warnings: (d?.warnings ?? []).map((w) => w.message),
    };
  });
}

/** Recompute the plan's stale estimates before they are shown (a presentation); a patient without active insurance has none to refresh. */
export async function refreshStaleEstimates(ctx: OrgContext, patientId: string, planId: string): Promise<void> {
  try {
    await runPlan(ctx, patientId, planId, "stale");
  } catch (err) {
    if (!(err instanceof ValidationFailed && err.code === "no_active_insurance")) throw err;
  }
}
