import { sum } from "./engine/arith";
import { ENGINE_VERSION, type EstimateInputs, hashSlice, SliceHasher, sliceFor } from "./engine/hash";
import { PlanLedger } from "./engine/ledger";
import { EstimateInputError, type NormalizedInput, normalizeInput } from "./engine/normalize";
import { estimateForPlan, isContracted } from "./engine/plan-estimate";
import type { EstimateInput, PlanEstimate, ProcedureEstimate, TreatmentPlanEstimate } from "./engine/types";

// The insurance estimate engine: what each plan pays and what the patient
// pays for each procedure of a treatment plan. Pure: no database, no clock,
// no I/O; everything comes in as arguments (docs/insurance/insurance-estimates.md).

export { benefitYearOf } from "./engine/dates";
export { ENGINE_VERSION, type EstimateInputs } from "./engine/hash";
export { EstimateInputError } from "./engine/normalize";
export type * from "./engine/types";

/**
 * Estimates the procedures in order against the plans in ordinal order. A
 * procedure's plans see what the procedures before it used (deductible,
 * annual maximum, frequency), per plan and benefit year. For every procedure:
 * patient_estimate + insurance_estimate + write_off = fee_billed, nothing
 * negative, and no plan pays beyond its annual maximum.
 * Throws EstimateInputError on a malformed input.
 */
export function estimateTreatmentPlan(input: EstimateInput): TreatmentPlanEstimate {
  const n = normalizeInput(input);
  const ledgers = n.plans.map((plan) => new PlanLedger(plan));
  const writeOffOrdinal = n.plans.find(isContracted)?.ordinal ?? null;
  const overrides = new Map(n.overrides.map((o) => [`${o.procedure_id}\u0000${o.ordinal}`, o]));
  const hasher = new SliceHasher(n);

  const procedures = n.procedures.map((proc, i): ProcedureEstimate => {
    let balance = proc.fee_cents;
    let paid = 0;
    let writtenOff = 0;
    const estimates = n.plans.map((plan, k): PlanEstimate => {
      const estimate = estimateForPlan({
        input: n,
        proc,
        plan,
        ledger: ledgers[k],
        setsWriteOff: plan.ordinal === writeOffOrdinal,
        isFirst: k === 0,
        balanceBefore: balance,
        paidOther: paid,
        writeOffOther: writtenOff,
        override: overrides.get(`${proc.id}\u0000${plan.ordinal}`),
        sameCarrierAs: n.plans.slice(0, k).find((p) => p.carrier_id === plan.carrier_id)?.ordinal ?? null,
      });
      balance = estimate.patient_estimate;
      paid += estimate.effective_insurance_estimate;
      writtenOff += estimate.effective_write_off;
      return { ...estimate, inputs_hash: hasher.hash(i, plan.ordinal) };
    });
    return {
      procedure_id: proc.id,
      code: proc.code,
      date: proc.date,
      fee_billed: proc.fee_cents,
      insurance_estimate: paid,
      write_off: writtenOff,
      patient_estimate: balance,
      estimates,
    };
  });

  return {
    engine_version: ENGINE_VERSION,
    procedures,
    totals: {
      fee_billed: sum(procedures.map((p) => p.fee_billed)),
      insurance_estimate: sum(procedures.map((p) => p.insurance_estimate)),
      write_off: sum(procedures.map((p) => p.write_off)),
      patient_estimate: sum(procedures.map((p) => p.patient_estimate)),
    },
  };
}

function locate(n: NormalizedInput, procedureId: string, ordinal: number): number {
  const index = n.procedures.findIndex((p) => p.id === procedureId);
  if (index < 0) throw new EstimateInputError("procedure_id", `no procedure ${procedureId} in the input`);
  if (!n.plans.some((p) => p.ordinal === ordinal)) throw new EstimateInputError("ordinal", `no plan of ordinal ${ordinal} in the input`);
  return index;
}

/**
 * sha256 (hex) of exactly what the estimate of `procedureId` against the plan
 * of `ordinal` is computed from: equal to that estimate's inputs_hash. Store it
 * with the estimate; a different hash for today's inputs means it is stale.
 */
export function inputsHash(input: EstimateInput, procedureId: string, ordinal: number): string {
  const n = normalizeInput(input);
  return hashSlice(n, locate(n, procedureId, ordinal), ordinal);
}

/** The normalized inputs that one estimate reads (what inputsHash hashes), e.g. to store next to it for audit. */
export function estimateInputsFor(input: EstimateInput, procedureId: string, ordinal: number): EstimateInputs {
  const n = normalizeInput(input);
  return sliceFor(n, locate(n, procedureId, ordinal), ordinal);
}
