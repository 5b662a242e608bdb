import { asc, eq, inArray } from "drizzle-orm";
import { chartedProcedures, treatmentPlanProcedures } from "@db/tenant/charted-procedures";
import { procedureCodes } from "@db/tenant/codes";
import { insuranceCarriers, insurancePlans, insuranceSubscriptions, patientPlans } from "@db/tenant/insurance";
import { locations } from "@db/tenant/practice";
import type { PresentationFigures } from "@db/tenant/presentations";
import { all, get, type Work } from "@/platform/db/work";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import type { PatientRow } from "@/domains/patients/record/service";
import { todayAt } from "@/domains/providers/locations/service";
import type { PlanRow } from "@/domains/clinical/treatment-plans/records";
import { toothChartPicture } from "@/domains/clinical/chart-pictures/tooth-chart";
import { toothLabel } from "@/domains/clinical/chart-pictures/numbering";
import type { ToothChartPicture, ToothNumbering } from "@/domains/clinical/chart-pictures/model";
import { toothNumberingOf } from "@/domains/odontogram/settings/service";
import { presentedEstimates } from "@/domains/insurance/estimates/service";
import type { PresentationData, PresentationGroup, PresentationLine } from "./render";

// What a treatment-plan presentation shows (docs/clinical/chart-pictures.md,
// "Presentations"), read in one transaction: the practice, the patient, the
// plan's procedures in its order and phases with their fees, each insurance's
// estimate from the current estimates, and the chart of the plan.

const ORDINAL_WORD = ["", "Primary", "Secondary", "Tertiary", "Quaternary"];
const fullName = (p: PatientRow) => [p.first_name, p.last_name].filter(Boolean).join(" ");

/** The practice the patient belongs to (their location), else the org. */
function* practiceOf(db: TenantDb, ctx: OrgContext, patient: PatientRow): Work<PresentationData["practice"]> {
  const loc = patient.location_id ? yield* get(db.select().from(locations).where(eq(locations.id, patient.location_id))) : undefined;
  if (!loc) return { name: ctx.org.name, address: [], contact: [] };
  const place = [loc.city, [loc.state, loc.postal_code].filter(Boolean).join(" ")].filter(Boolean).join(", ");
  return {
    name: loc.name,
    address: [loc.address_line1, loc.address_line2, place].filter((l): l is string => !!l?.trim()),
    contact: [loc.phone, loc.email].filter((l): l is string => !!l?.trim()),
  };
}

/** "Primary: Delta Dental" per patient plan, by id. */
function* insuranceNames(db: TenantDb, patientPlanIds: string[]): Work<Map<string, { ordinal: number; name: string }>> {
  if (!patientPlanIds.length) return new Map();
  const rows = yield* all(
    db
      .select({ id: patientPlans.id, ordinal: patientPlans.ordinal, carrier: insuranceCarriers.carrier_name })
      .from(patientPlans)
      .innerJoin(insuranceSubscriptions, eq(insuranceSubscriptions.id, patientPlans.subscription_id))
      .innerJoin(insurancePlans, eq(insurancePlans.id, insuranceSubscriptions.plan_id))
      .innerJoin(insuranceCarriers, eq(insuranceCarriers.id, insurancePlans.carrier_id))
      .where(inArray(patientPlans.id, patientPlanIds)),
  );
  return new Map(rows.map((r) => [r.id, { ordinal: r.ordinal, name: `${ORDINAL_WORD[r.ordinal] ?? `Plan ${r.ordinal}`}: ${r.carrier}` }]));
}

function* planLines(db: TenantDb, planId: string) {
  return yield* all(
    db
      .select({
        link: treatmentPlanProcedures,
        proc: chartedProcedures,
        code: { short_name: procedureCodes.short_name, description: procedureCodes.description },
      })
      .from(treatmentPlanProcedures)
      .innerJoin(chartedProcedures, eq(chartedProcedures.id, treatmentPlanProcedures.charted_procedure_id))
      .innerJoin(procedureCodes, eq(procedureCodes.id, chartedProcedures.procedure_code_id))
      .where(eq(treatmentPlanProcedures.treatment_plan_id, planId))
      .orderBy(asc(treatmentPlanProcedures.item_order), asc(treatmentPlanProcedures.id)),
  );
}

/** Where a procedure is, as the practice numbers teeth: "3", "#3-5", "UR", "upper arch", or null for the mouth. */
function where(p: typeof chartedProcedures.$inferSelect, numbering: ToothNumbering): string | null {
  if (p.tooth_number) return toothLabel(p.tooth_number, numbering);
  if (p.tooth_range) return p.tooth_range;
  return p.quadrant ?? (p.arch ? `${p.arch} arch` : p.sextant ? `sextant ${p.sextant}` : null);
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

export type Presented = { data: Omit<PresentationData, "chart_png">; picture: ToothChartPicture; figures: PresentationFigures };

export function* presentationData(db: TenantDb, ctx: OrgContext, patient: PatientRow, plan: PlanRow): Work<Presented> {
  const today = yield* todayAt(db, patient.location_id);
  const numbering = yield* toothNumberingOf(db);
  const lines = yield* planLines(db, plan.id);
  const estimates = yield* presentedEstimates(db, patient, plan.id, today);
  const names = yield* insuranceNames(db, [...new Set(estimates.map((e) => e.patient_plan_id))]);
  const columns = [...names.values()].sort((a, b) => a.ordinal - b.ordinal);
  const column = new Map(columns.map((c, i) => [c.ordinal, i]));

  const toLine = (l: (typeof lines)[number], n: number): PresentationLine => {
    const fee = l.proc.fee_override_cents ?? l.proc.office_fee_cents;
    const insurance: (number | null)[] = columns.map(() => null);
    const own = estimates.filter((x) => x.procedure_id === l.proc.id).sort((a, b) => a.ordinal - b.ordinal);
    for (const e of own) insurance[column.get(e.ordinal)!] = e.insurance_cents;
    return {
      position: n + 1,
      code: l.proc.procedure_code,
      description: l.code.short_name || l.code.description,
      tooth: where(l.proc, numbering),
      surfaces: l.proc.surfaces,
      fee_cents: fee,
      insurance_cents: insurance,
      // the estimates' patient portion (the last plan's running balance, after any PPO write-off), not fee less insurance
      patient_cents: own.length ? own.at(-1)!.patient_cents : fee,
    };
  };
  // what the insurances pay plus what the patient pays is less than the fee by the PPO write-off:
  // shown as a column of its own (after the insurances) so that every row adds up
  const insured = lines.map(toLine);
  const writeOff = (l: PresentationLine) => Math.max(0, l.fee_cents - l.patient_cents - sum(l.insurance_cents.map((c) => c ?? 0)));
  const hasWriteOff = insured.some((l) => writeOff(l) > 0);
  const items = hasWriteOff ? insured.map((l) => ({ ...l, insurance_cents: [...l.insurance_cents, writeOff(l)] })) : insured;
  const amountColumns = hasWriteOff ? [...columns, { ordinal: 0, name: "Write-off" }] : columns;
  const phases = [...new Set(lines.map((l) => l.link.phase))].sort((a, b) => a - b);
  const grouped = phases.length > 1 || plan.phases.length > 0;
  const group = (title: string | null, ls: PresentationLine[]): PresentationGroup => ({
    title,
    lines: ls,
    fee_cents: sum(ls.map((l) => l.fee_cents)),
    insurance_cents: amountColumns.map((_, i) => sum(ls.map((l) => l.insurance_cents[i] ?? 0))),
    patient_cents: sum(ls.map((l) => l.patient_cents)),
  });
  const groups = !items.length
    ? []
    : grouped
      ? phases.map((phase) => {
          const name = plan.phases.find((p) => p.phase === phase)?.name;
          return group(
            `Phase ${phase}${name ? `: ${name}` : ""}`,
            items.filter((_, i) => lines[i]!.link.phase === phase),
          );
        })
      : [group(null, items)];
  const totals = group(null, items);
  const estimateState = !estimates.length ? "none" : estimates.some((e) => e.is_stale) ? "stale" : "current";
  const notes = [
    ...new Set(
      estimates.flatMap((e) => {
        const line = items.find((_, i) => lines[i]!.proc.id === e.procedure_id);
        const at = line ? `${line.code}${line.tooth ? ` #${line.tooth}` : ""}` : "";
        return [...e.warnings, ...(e.note ? [e.note] : [])].map((w) => `${at}: ${w}`);
      }),
    ),
  ];
  const picture = yield* toothChartPicture(db, patient, {
    date: null,
    show: "all",
    plan_id: plan.id,
    numbering,
    title: `Treatment plan ${plan.name}: ${fullName(patient)}`,
  });
  return {
    picture,
    data: {
      practice: yield* practiceOf(db, ctx, patient),
      patient: { name: fullName(patient), date_of_birth: patient.date_of_birth, chart_number: patient.chart_number },
      plan: { name: plan.name, note: plan.note },
      prepared_on: today,
      insurance: amountColumns.map((c) => ({ name: c.name })),
      estimate_state: estimateState,
      groups,
      totals: { fee_cents: totals.fee_cents, insurance_cents: totals.insurance_cents, patient_cents: totals.patient_cents },
      notes,
      note: items.length ? null : "This treatment plan has no procedures.",
      signer_name: fullName(patient),
    },
    figures: {
      procedure_count: items.length,
      fee_cents: totals.fee_cents,
      insurance_cents: totals.insurance_cents.slice(0, columns.length),
      write_off_cents: hasWriteOff ? totals.insurance_cents.at(-1)! : 0,
      patient_cents: totals.patient_cents,
      estimate_state: estimateState,
      procedure_ids: lines.map((l) => l.proc.id),
      plan_version: plan.version,
    },
  };
}
