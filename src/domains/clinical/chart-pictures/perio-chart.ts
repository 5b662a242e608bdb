import type { Work } from "@/platform/db/work";
import type { TenantDb } from "@/platform/records/context";
import type { PatientRow } from "@/domains/patients/record/service";
import { chartRows } from "@/domains/clinical/chart-history/service";
import { examOf, presentTooth } from "@/domains/clinical/perio/service";
import type { PerioChartPicture, PerioExamPicture, ToothNumbering } from "./model";
import { toothLabel } from "./numbering";
import { toothShape } from "./paint";

// The perio chart picture's data (docs/clinical/chart-pictures.md): an exam,
// another to compare with, and the teeth charted absent on the exam's date.

function* examPicture(db: TenantDb, patient: PatientRow, examId: string, numbering: ToothNumbering): Work<PerioExamPicture> {
  const exam = yield* examOf(db, patient, examId);
  return {
    exam_date: exam.exam_date,
    teeth: exam.teeth.map(presentTooth).map(({ tooth_number, ...t }) => ({ tooth: tooth_number, label: toothLabel(tooth_number, numbering), ...t })),
  };
}

/** 404 when the exam or the one to compare with is missing or another patient's. */
export function* perioChartPicture(
  db: TenantDb,
  patient: PatientRow,
  o: { exam_id: string; compare_to: string | null; numbering: ToothNumbering; title: (examDate: string) => string },
): Work<PerioChartPicture> {
  const exam = yield* examPicture(db, patient, o.exam_id, o.numbering);
  const compare = o.compare_to ? yield* examPicture(db, patient, o.compare_to, o.numbering) : null;
  const { teeth } = yield* chartRows(db, patient.id, exam.exam_date);
  return {
    title: o.title(exam.exam_date),
    numbering: o.numbering,
    exam,
    compare_to: compare,
    absent_teeth: teeth.filter((t) => /^\d+$/.test(t.tooth_number) && toothShape(t.status) === "absent").map((t) => t.tooth_number),
  };
}
