import { audit } from "@/platform/audit/audit";
import type { Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import type { PatientRow } from "@/domains/patients/record/service";
import { patientForRead } from "@/domains/patients/record/scope";
import { todayAt } from "@/domains/providers/locations/service";
import { toothNumberingOf } from "@/domains/odontogram/settings/service";
import { requirePlan } from "@/domains/clinical/treatment-plans/service";
import type { ToothChartPicture, ToothNumbering } from "./model";
import { perioChartPicture } from "./perio-chart";
import { renderPerioChartSvg, perioChartSize } from "./perio-chart-svg";
import { svgToPng } from "./png";
import { type ChartShow, toothChartPicture } from "./tooth-chart";
import { renderToothChartSvg, toothChartSize } from "./tooth-chart-svg";

// The chart as a picture (docs/clinical/chart-pictures.md). Drawing hands PHI
// out as a file, so each picture is audited (patient.chart_rendered,
// perio_exam.chart_rendered) in the write that reads what it draws.

export type Drawn = { svg: string; width: number; chart_number: string };

const fullName = (p: PatientRow) => [p.first_name, p.last_name].filter(Boolean).join(" ");

/** 422 naming `date` when it is before the patient's birth or after today at the patient's practice. */
function* checkChartDate(db: TenantDb, patient: PatientRow, date: string | undefined): Work<void> {
  if (!date) return;
  if (patient.date_of_birth && date < patient.date_of_birth)
    throw invalid(["query", "date"], `Cannot be before the patient's date of birth (${patient.date_of_birth})`, "value_error", "date_before_birth");
  if (date > (yield* todayAt(db, patient.location_id))) throw invalid(["query", "date"], "Cannot be in the future", "value_error", "date_in_future");
}

function* chosenNumbering(db: TenantDb, asked: ToothNumbering | undefined): Work<ToothNumbering> {
  return asked ?? (yield* toothNumberingOf(db));
}

function* rendered(s: TxScope, action: string, resource: { type: string; id: string }, after: Record<string, unknown>): Work<void> {
  yield* audit(s, { action, resource_type: resource.type, resource_id: resource.id, before: null, after });
}

const marked = (p: ToothChartPicture) => p.teeth.filter((t) => t.marks.length).length;

export type ToothChartAsk = { date?: string; show: ChartShow; treatment_plan_uuid?: string; numbering?: ToothNumbering; format: "svg" | "png" };

/** The tooth chart's picture. 404 patient or plan; 422 date. */
export async function drawToothChart(ctx: OrgContext, patientId: string, q: ToothChartAsk): Promise<Drawn> {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForRead(s.tx, patientId);
    yield* checkChartDate(s.tx, patient, q.date);
    const plan = q.treatment_plan_uuid ? yield* requirePlan(s.tx, patient, q.treatment_plan_uuid) : null;
    const numbering = yield* chosenNumbering(s.tx, q.numbering);
    const date = q.date ?? null;
    const picture = yield* toothChartPicture(s.tx, patient, {
      date,
      show: q.show,
      plan_id: plan?.id ?? null,
      numbering,
      title: `Tooth chart: ${fullName(patient)}${plan ? `, treatment plan ${plan.name}` : ""}${date ? `, as of ${date}` : ""}`,
    });
    yield* rendered(
      s,
      "patient.chart_rendered",
      { type: "patient", id: patient.id },
      { format: q.format, date, show: q.show, treatment_plan_id: plan?.id ?? null, numbering, teeth_marked: marked(picture) },
    );
    return { svg: renderToothChartSvg(picture), width: toothChartSize(picture).width, chart_number: patient.chart_number ?? patient.id };
  });
}

export type PerioChartAsk = { compare_to?: string; numbering?: ToothNumbering; format: "svg" | "png" };

/** The perio exam's picture. 404 patient, exam or the exam to compare with. */
export async function drawPerioChart(ctx: OrgContext, patientId: string, examId: string, q: PerioChartAsk): Promise<Drawn> {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForRead(s.tx, patientId);
    const numbering = yield* chosenNumbering(s.tx, q.numbering);
    const picture = yield* perioChartPicture(s.tx, patient, {
      exam_id: examId,
      compare_to: q.compare_to ?? null,
      numbering,
      title: (date) => `Periodontal chart: ${fullName(patient)}, exam of ${date}`,
    });
    yield* rendered(
      s,
      "perio_exam.chart_rendered",
      { type: "perio_exam", id: examId },
      { format: q.format, patient_id: patient.id, compare_to: q.compare_to ?? null, numbering },
    );
    return { svg: renderPerioChartSvg(picture), width: perioChartSize(picture).width, chart_number: patient.chart_number ?? patient.id };
  });
}

export const pictureAsPng = (d: Drawn, width: number) => svgToPng(d.svg, d.width, width);
