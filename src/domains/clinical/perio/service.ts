import { and, desc, eq, isNull } from "drizzle-orm";
import { providers } from "@db/tenant/practice";
import { perioExams, type PerioTooth } from "@db/tenant/perio";
import { all, get } from "@/platform/db/work";
import { NotFound } from "@/platform/errors";
import type { OrgContext } from "@/platform/records/context";
import { PROVIDER_NAMES } from "@/platform/records/names";
import { defineResource } from "@/platform/records/resource";
import type { Paging } from "@/platform/records/paging";
import { withTransaction } from "@/platform/records/transaction";
import type { PatientRow } from "@/domains/patients/record/service";
import { inPractice, patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import { idsOf, namesOf, personRef, ref, type Names } from "@/platform/records/refs";
import { byTooth } from "@/domains/clinical/tooth-chart/teeth";
import { checkNotFuture } from "@/domains/clinical/tooth-chart/service";
import { todayAt } from "@/domains/providers/locations/service";
import type { PerioExam, PerioExamCreate, ToothIndicator } from "./schemas";

type ExamRow = typeof perioExams.$inferSelect;
const E = perioExams;

// The audit trail keeps the stored row; events carry ids only.
const examRecords = defineResource<ExamRow, ExamRow>({ table: E, name: "perio_exam", label: "Perio exam", serialize: (r) => r });

const serialize = (r: ExamRow, patient: PatientRow, providerNames: Names): PerioExam => ({
  id: r.id,
  patient: personRef(patient),
  exam_date: r.exam_date,
  provider: ref(r.provider_id, providerNames),
  note: r.note,
  teeth: r.teeth,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const newestFirst = [desc(E.exam_date), desc(E.created_at), desc(E.id)];

export async function createPerioExam(ctx: OrgContext, patientId: string, input: PerioExamCreate): Promise<PerioExam> {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const providerId = input.provider_uuid ?? null;
    if (
      providerId &&
      !(yield* get(
        s.tx
          .select({ id: providers.id })
          .from(providers)
          .where(and(eq(providers.id, providerId), isNull(providers.deleted_at))),
      ))
    ) {
      throw new NotFound("Provider");
    }
    checkNotFuture(input.exam_date, yield* todayAt(s.tx, patient.location_id), ["body", "exam_date"]);
    const teeth: PerioTooth[] = input.teeth
      .map((t) => ({
        tooth_number: t.tooth_number,
        mobility: t.mobility ?? null,
        furcation: t.furcation ?? null,
        pocket_depths: t.pocket_depths,
        recession: t.recession ?? null,
        bleeding_sites: t.bleeding_sites,
      }))
      .sort(byTooth);
    const row = yield* inPractice(
      s,
      patient.location_id,
      examRecords.create(
        s,
        {
          patient_id: patient.id,
          exam_date: input.exam_date,
          provider_id: providerId,
          note: input.note ?? "",
          teeth,
        },
        { patient_id: patient.id },
      ),
    );
    return serialize(row, patient, yield* namesOf(s.tx, PROVIDER_NAMES, [row.provider_id]));
  });
}

export async function listPerioExams(ctx: OrgContext, patientId: string, q: Paging) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const page = yield* examRecords.list(db, q, { where: [eq(E.patient_id, patient.id)], orderBy: newestFirst });
    const names = yield* namesOf(
      db,
      PROVIDER_NAMES,
      idsOf(page.items, (r) => r.provider_id),
    );
    return { ...page, items: page.items.map((r) => serialize(r, patient, names)) };
  });
}

/** 404 also when the exam belongs to another patient. */
export async function getPerioExam(ctx: OrgContext, patientId: string, id: string): Promise<PerioExam> {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const row = yield* examRecords.require(db, id);
    if (row.patient_id !== patient.id) throw new NotFound(examRecords.label);
    return serialize(row, patient, yield* namesOf(db, PROVIDER_NAMES, [row.provider_id]));
  });
}

/**
 * Per tooth, the values of the newest exam that examined it (exam_date, then
 * recording time): a partial exam updates its own teeth and leaves the others' values.
 */
export async function toothIndicators(ctx: OrgContext, patientId: string): Promise<{ items: ToothIndicator[] }> {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const exams = yield* all(
      db
        .select({ id: E.id, exam_date: E.exam_date, teeth: E.teeth })
        .from(E)
        .where(and(eq(E.patient_id, patient.id), isNull(E.deleted_at)))
        .orderBy(...newestFirst),
    );
    const byToothNumber = new Map<string, ToothIndicator>();
    for (const exam of exams) {
      for (const t of exam.teeth) {
        if (byToothNumber.has(t.tooth_number)) continue;
        byToothNumber.set(t.tooth_number, {
          tooth_number: t.tooth_number,
          source: "perio",
          perio_exam: { uuid: exam.id, name: exam.exam_date },
          exam_date: exam.exam_date,
          mobility: t.mobility,
          furcation: t.furcation,
          max_pocket_depth: Math.max(...Object.values(t.pocket_depths)),
          bleeding_site_count: t.bleeding_sites.length,
        });
      }
    }
    return { items: [...byToothNumber.values()].sort(byTooth) };
  });
}
