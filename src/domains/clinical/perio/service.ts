import { and, desc, eq, isNull, lt } from "drizzle-orm";
import { providers } from "@db/tenant/practice";
import { perioExams, type PerioTooth } from "@db/tenant/perio";
import { all, get, type Work } from "@/platform/db/work";
import { NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { PROVIDER_NAMES } from "@/platform/records/names";
import { defineResource } from "@/platform/records/resource";
import { checkVersion } from "@/platform/records/versions";
import type { Paging } from "@/platform/records/paging";
import { withTransaction } from "@/platform/records/transaction";
import type { PatientRow } from "@/domains/patients/record/service";
import { inPractice, patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import { idsOf, namesOf, personRef, ref, type Names } from "@/platform/records/refs";
import { byTooth } from "@/domains/clinical/tooth-chart/teeth";
import { checkNotFuture } from "@/domains/clinical/tooth-chart/service";
import { todayAt } from "@/domains/providers/locations/service";
import { PERIO_SITES, type PerioExam, type PerioExamCreate, type PerioExamPatch, type PerioExamSummary, type ToothIndicator } from "./schemas";

type ExamRow = typeof perioExams.$inferSelect;
const E = perioExams;

// The audit trail keeps the stored row; events carry ids (and changed field names) only.
const examRecords = defineResource<ExamRow, ExamRow>({
  table: E,
  name: "perio_exam",
  label: "Perio exam",
  serialize: (r) => r,
  eventFields: { stripIdSuffix: true },
});

/** Exams recorded before plaque and suppuration were charted read them as []. */
export const presentTooth = (t: PerioTooth): PerioExam["teeth"][number] => ({
  ...t,
  plaque_sites: t.plaque_sites ?? [],
  suppuration_sites: t.suppuration_sites ?? [],
});

const serialize = (r: ExamRow, patient: PatientRow, providerNames: Names): PerioExam => ({
  id: r.id,
  patient: personRef(patient),
  exam_date: r.exam_date,
  provider: ref(r.provider_id, providerNames),
  note: r.note,
  teeth: r.teeth.map(presentTooth),
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const newestFirst = [desc(E.exam_date), desc(E.created_at), desc(E.id)];

function* requireProvider(db: TenantDb, providerId: string): Work<void> {
  const found = yield* get(
    db
      .select({ id: providers.id })
      .from(providers)
      .where(and(eq(providers.id, providerId), isNull(providers.deleted_at))),
  );
  if (!found) throw new NotFound("Provider");
}

const toTeeth = (input: PerioExamCreate["teeth"]): PerioTooth[] =>
  input
    .map((t) => ({
      tooth_number: t.tooth_number,
      mobility: t.mobility ?? null,
      furcation: t.furcation ?? null,
      pocket_depths: t.pocket_depths,
      recession: t.recession ?? null,
      bleeding_sites: t.bleeding_sites,
      plaque_sites: t.plaque_sites,
      suppuration_sites: t.suppuration_sites,
    }))
    .sort(byTooth);

export async function createPerioExam(ctx: OrgContext, patientId: string, input: PerioExamCreate): Promise<PerioExam> {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const providerId = input.provider_uuid ?? null;
    if (providerId) yield* requireProvider(s.tx, providerId);
    checkNotFuture(input.exam_date, yield* todayAt(s.tx, patient.location_id), ["body", "exam_date"]);
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
          teeth: toTeeth(input.teeth),
        },
        { patient_id: patient.id },
      ),
    );
    return serialize(row, patient, yield* namesOf(s.tx, PROVIDER_NAMES, [row.provider_id]));
  });
}

/** The patient's live exam: 404 when missing, deleted, or another patient's. */
/** The patient's exam; 404 when missing, deleted or another patient's. */
export function* examOf(db: TenantDb, patient: PatientRow, id: string): Work<ExamRow> {
  const row = yield* examRecords.require(db, id);
  if (row.patient_id !== patient.id) throw new NotFound(examRecords.label);
  return row;
}

/**
 * 404 (patient, exam), then 409 on a stale base_version, then the body's own rules.
 * `teeth` replaces the whole list. A patch that changes nothing answers the exam
 * as it is (no new version, audit row or event).
 */
export async function updatePerioExam(ctx: OrgContext, patientId: string, id: string, input: PerioExamPatch): Promise<PerioExam> {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const before = yield* examOf(s.tx, patient, id);
    checkVersion(before, base_version);
    const next: Partial<ExamRow> = {};
    if (patch.exam_date !== undefined) {
      checkNotFuture(patch.exam_date, yield* todayAt(s.tx, patient.location_id), ["body", "exam_date"]);
      next.exam_date = patch.exam_date;
    }
    if (patch.provider_uuid !== undefined) {
      // an unchanged provider is kept even when archived since
      if (patch.provider_uuid && patch.provider_uuid !== before.provider_id) yield* requireProvider(s.tx, patch.provider_uuid);
      next.provider_id = patch.provider_uuid;
    }
    if (patch.note !== undefined) next.note = patch.note;
    if (patch.teeth !== undefined) next.teeth = toTeeth(patch.teeth);
    const changed = (Object.keys(next) as (keyof ExamRow)[]).filter((k) => JSON.stringify(next[k]) !== JSON.stringify(before[k]));
    const row = changed.length
      ? yield* inPractice(
          s,
          patient.location_id,
          examRecords.update(s, id, base_version, Object.fromEntries(changed.map((k) => [k, next[k]])), { eventData: { patient_id: patient.id } }),
        )
      : before;
    return serialize(row, patient, yield* namesOf(s.tx, PROVIDER_NAMES, [row.provider_id]));
  });
}

/** Soft delete: the exam leaves GET, the list, the summaries' `previous` and the tooth indicators. */
export async function deletePerioExam(ctx: OrgContext, patientId: string, id: string, baseVersion: number): Promise<void> {
  await withTransaction(ctx, function* (s: TxScope) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const before = yield* examOf(s.tx, patient, id);
    checkVersion(before, baseVersion);
    yield* inPractice(
      s,
      patient.location_id,
      examRecords.update(s, id, baseVersion, { deleted_at: s.now }, { action: "deleted", changedFields: false, eventData: { patient_id: patient.id } }),
    );
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
    const row = yield* examOf(db, patient, id);
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

type Figures = { teeth: number; sites: number; deep4: number; deep6: number; bleeding: number; plaque: number; suppuration: number };

function figuresOf(teeth: PerioTooth[]): Figures {
  const f: Figures = { teeth: teeth.length, sites: teeth.length * PERIO_SITES.length, deep4: 0, deep6: 0, bleeding: 0, plaque: 0, suppuration: 0 };
  for (const t of teeth) {
    for (const site of PERIO_SITES) {
      if (t.pocket_depths[site] >= 4) f.deep4++;
      if (t.pocket_depths[site] >= 6) f.deep6++;
    }
    f.bleeding += t.bleeding_sites.length;
    f.plaque += t.plaque_sites?.length ?? 0;
    f.suppuration += t.suppuration_sites?.length ?? 0;
  }
  return f;
}

/** A share of the sites in tenths of a percent, rounded half up (integers, so differences stay exact). */
const tenths = (n: number, sites: number) => (sites ? Math.round((1000 * n) / sites) : 0);

/** Pocket depth moved by at least this many mm at a site probed in both exams: a clinically meaningful change. */
export const DEPTH_CHANGE_MM = 2;

function depthChanges(now: PerioTooth[], before: PerioTooth[]) {
  const earlier = new Map(before.map((t) => [t.tooth_number, t.pocket_depths]));
  let deeper = 0;
  let shallower = 0;
  for (const t of now) {
    const prev = earlier.get(t.tooth_number);
    if (!prev) continue;
    for (const site of PERIO_SITES) {
      const d = t.pocket_depths[site] - prev[site];
      if (d >= DEPTH_CHANGE_MM) deeper++;
      else if (d <= -DEPTH_CHANGE_MM) shallower++;
    }
  }
  return { deeper, shallower };
}

/** Counts and percentages of one exam, and the change from the patient's previous exam (docs/clinical/tooth-chart.md). */
export async function perioExamSummary(ctx: OrgContext, patientId: string, id: string): Promise<PerioExamSummary> {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const exam = yield* examOf(db, patient, id);
    const prev = yield* get(
      db
        .select({ id: E.id, exam_date: E.exam_date, teeth: E.teeth })
        .from(E)
        .where(and(eq(E.patient_id, patient.id), isNull(E.deleted_at), lt(E.exam_date, exam.exam_date)))
        .orderBy(desc(E.exam_date), desc(E.id))
        .limit(1),
    );
    const f = figuresOf(exam.teeth);
    const bleeding = tenths(f.bleeding, f.sites);
    const plaque = tenths(f.plaque, f.sites);
    let change: PerioExamSummary["change"] = null;
    if (prev) {
      const p = figuresOf(prev.teeth);
      const moved = depthChanges(exam.teeth, prev.teeth);
      change = {
        sites_4mm_or_more: f.deep4 - p.deep4,
        sites_6mm_or_more: f.deep6 - p.deep6,
        bleeding_percentage: (bleeding - tenths(p.bleeding, p.sites)) / 10,
        plaque_percentage: (plaque - tenths(p.plaque, p.sites)) / 10,
        deeper_sites: moved.deeper,
        shallower_sites: moved.shallower,
      };
    }
    return {
      exam_uuid: exam.id,
      exam_date: exam.exam_date,
      teeth_charted: f.teeth,
      sites_charted: f.sites,
      sites_4mm_or_more: f.deep4,
      sites_6mm_or_more: f.deep6,
      bleeding_sites: f.bleeding,
      bleeding_percentage: bleeding / 10,
      plaque_sites: f.plaque,
      plaque_percentage: plaque / 10,
      suppuration_sites: f.suppuration,
      previous: prev ? { exam_uuid: prev.id, exam_date: prev.exam_date } : null,
      change,
    };
  });
}
