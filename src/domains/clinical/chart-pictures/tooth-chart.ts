import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { procedureSpanMembers, procedureSpans, treatmentPlanProcedures } from "@db/tenant/charted-procedures";
import { procedureCodes } from "@db/tenant/codes";
import { all, type Work } from "@/platform/db/work";
import type { TenantDb } from "@/platform/records/context";
import type { PatientRow } from "@/domains/patients/record/service";
import type { ProcedureRow } from "@/domains/clinical/charted-procedures/service";
import { chartRows } from "@/domains/clinical/chart-history/service";
import { isPrimary } from "@/domains/codes/dental-vocabulary";
import { toothOrder } from "@/domains/clinical/tooth-chart/teeth";
import type { ChartSpan, ChartTooth, MarkStatus, ToothChartPicture, ToothMark, ToothNumbering } from "./model";
import { toothLabel } from "./numbering";
import { conditionKind, conditionWords, drawnSurfaces, PRIMARY_IN_MOUTH, PROCEDURE_MARK, procedureKind, STATUS_WORD, toothShape } from "./paint";

// The tooth chart picture's data (docs/clinical/chart-pictures.md): the
// chart's records as of a date (or now), filtered by what the caller asked
// to see, reduced to what is drawn on each tooth.

export const CHART_SHOWS = ["all", "planned", "completed", "existing"] as const;
export type ChartShow = (typeof CHART_SHOWS)[number];

export type ToothChartOptions = {
  date: string | null;
  show: ChartShow;
  /** Only this plan's procedures (no conditions); the plan is the patient's (checked by the caller). */
  plan_id: string | null;
  numbering: ToothNumbering;
  title: string;
};

const PERMANENT = Array.from({ length: 32 }, (_, i) => String(i + 1));
const PRIMARY = Array.from({ length: 20 }, (_, i) => String.fromCharCode(65 + i));

/** Which procedure colours each `show` keeps; conditions are shown with `all` only. */
const SHOWN: Record<ChartShow, ReadonlySet<MarkStatus>> = {
  all: new Set(["planned", "completed", "existing", "referred", "condition"]),
  planned: new Set(["planned", "referred"]),
  completed: new Set(["completed"]),
  existing: new Set(["existing"]),
};

/** Where a procedure on no single tooth is: "#3-5", "UR", "upper arch", "sextant 2", "mouth". */
function area(p: ProcedureRow): string {
  if (p.tooth_range) return `#${p.tooth_range}`;
  if (p.quadrant) return p.quadrant;
  if (p.arch) return `${p.arch} arch`;
  if (p.sextant) return `sextant ${p.sextant}`;
  return "mouth";
}

/** A span's colour: planned while any member is, else referred, else completed, else existing. */
function spanStatus(statuses: MarkStatus[]): MarkStatus {
  for (const s of ["planned", "referred", "completed"] as const) if (statuses.includes(s)) return s;
  return "existing";
}

function* planProcedureIds(db: TenantDb, planId: string): Work<Set<string>> {
  const rows = yield* all(
    db.select({ id: treatmentPlanProcedures.charted_procedure_id }).from(treatmentPlanProcedures).where(eq(treatmentPlanProcedures.treatment_plan_id, planId)),
  );
  return new Set(rows.map((r) => r.id));
}

function* codeNames(db: TenantDb, ids: string[]): Work<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = yield* all(db.select({ id: procedureCodes.id, name: procedureCodes.short_name }).from(procedureCodes).where(inArray(procedureCodes.id, ids)));
  return new Map(rows.map((r) => [r.id, r.name]));
}

function* spansOf(db: TenantDb, patientId: string): Work<{ span_id: string; procedure_id: string }[]> {
  return yield* all(
    db
      .select({ span_id: procedureSpanMembers.span_id, procedure_id: procedureSpanMembers.charted_procedure_id })
      .from(procedureSpanMembers)
      .innerJoin(procedureSpans, eq(procedureSpans.id, procedureSpanMembers.span_id))
      .where(and(eq(procedureSpans.patient_id, patientId), isNull(procedureSpans.deleted_at)))
      .orderBy(asc(procedureSpanMembers.span_id), asc(procedureSpanMembers.position)),
  );
}

export function* toothChartPicture(db: TenantDb, patient: PatientRow, o: ToothChartOptions): Work<ToothChartPicture> {
  const rows = yield* chartRows(db, patient.id, o.date);
  const inPlan = o.plan_id ? yield* planProcedureIds(db, o.plan_id) : null;
  const shown = SHOWN[o.show];
  const procedures = rows.procedures.filter((p) => (!inPlan || inPlan.has(p.id)) && shown.has(PROCEDURE_MARK[p.status] ?? "planned"));
  const conditions = inPlan || !shown.has("condition") ? [] : rows.conditions;
  const names = yield* codeNames(db, [...new Set(procedures.map((p) => p.procedure_code_id))]);

  const marks = new Map<string, ToothMark[]>();
  const add = (tooth: string, mark: ToothMark) => marks.set(tooth, [...(marks.get(tooth) ?? []), mark]);
  const elsewhere: ToothChartPicture["elsewhere"] = [];
  const extracted = new Set<string>();

  for (const p of procedures) {
    const status = PROCEDURE_MARK[p.status] ?? "planned";
    const name = names.get(p.procedure_code_id);
    const what = `${p.procedure_code}${name ? ` ${name}` : ""}`;
    if (!p.tooth_number) {
      elsewhere.push({ status, text: `${what}, ${area(p)}, ${STATUS_WORD[status]}` });
      continue;
    }
    const kind = procedureKind(p.procedure_code);
    const surfaces = kind === "surfaces" ? drawnSurfaces(p.surfaces, p.procedure_code) : [];
    // work done that took the tooth out: the tooth is drawn absent, the extraction described
    const done = kind === "extraction" && status !== "planned" && status !== "referred";
    if (done) extracted.add(p.tooth_number);
    add(p.tooth_number, {
      kind: done ? "other" : kind,
      status,
      surfaces,
      text: `${what}${p.surfaces ? ` ${p.surfaces}` : ""}, ${STATUS_WORD[status]}`,
    });
  }
  for (const c of conditions) {
    const words = [c.surface, c.severity].filter(Boolean).join(", ");
    const text = `${conditionWords(c.condition_type)}${words ? ` (${words})` : ""}, condition`;
    if (!c.tooth_number) {
      elsewhere.push({ status: "condition", text });
      continue;
    }
    const kind = conditionKind(c.condition_type, c.surface);
    add(c.tooth_number, { kind, status: "condition", surfaces: kind === "surfaces" ? drawnSurfaces(c.surface) : [], text });
  }

  const statusOf = new Map(rows.teeth.map((t) => [t.tooth_number, t.status]));
  const primaryRow = PRIMARY.some((t) => PRIMARY_IN_MOUTH.has(statusOf.get(t) ?? "") || marks.has(t));
  const tooth = (t: string): ChartTooth => {
    const status = statusOf.get(t) ?? null;
    const own = marks.get(t) ?? [];
    // a replacement stands where the tooth was: an implant or a pontic is drawn as a tooth
    const replaced = own.some((m) => m.kind === "implant" || m.kind === "pontic");
    const recorded = isPrimary(t) && !status ? "absent" : toothShape(status);
    const shape = replaced ? "present" : extracted.has(t) ? "absent" : recorded;
    return { tooth: t, label: toothLabel(t, o.numbering), shape, status_text: status ?? (extracted.has(t) ? "extracted" : null), marks: own };
  };

  const byProcedure = new Map(procedures.map((p) => [p.id, p]));
  const spans: ChartSpan[] = [];
  const members = yield* spansOf(db, patient.id);
  for (const spanId of [...new Set(members.map((m) => m.span_id))]) {
    const inSpan = members.filter((m) => m.span_id === spanId).flatMap((m) => byProcedure.get(m.procedure_id) ?? []);
    const teeth = inSpan.flatMap((p) => (p.tooth_number ? [p.tooth_number] : [])).sort((a, b) => toothOrder(a) - toothOrder(b));
    if (teeth.length < 2) continue;
    const status = spanStatus(inSpan.map((p) => PROCEDURE_MARK[p.status] ?? "planned"));
    spans.push({ teeth, status, text: `Bridge ${teeth.map((t) => toothLabel(t, o.numbering)).join("-")}, ${STATUS_WORD[status]}` });
  }

  return {
    title: o.title,
    numbering: o.numbering,
    primary_row: primaryRow,
    teeth: [...PERMANENT, ...(primaryRow ? PRIMARY : [])].map(tooth),
    spans,
    elsewhere,
    note: inPlan && !inPlan.size ? "This treatment plan has no procedures." : null,
  };
}
