import { eq } from "drizzle-orm";
import { patientDiseases } from "@db/tenant/medical-history";
import type { OrgContext } from "@/platform/records/context";
import { withTransaction } from "@/platform/records/transaction";
import type { PatientRow } from "@/domains/patients/record/service";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import { checkDateOrder, patientChild, patientRef } from "./patient-records";
import type { Disease, DiseaseCreate, DiseaseListQuery, DiseasePatch } from "./schemas";

type DiseaseRow = typeof patientDiseases.$inferSelect;

const diseases = patientChild<DiseaseRow>({ table: patientDiseases, name: "patient_disease", label: "Disease" });

function serializeDisease(r: DiseaseRow, patient: PatientRow): Disease {
  return {
    id: r.id,
    patient: patientRef(patient),
    disease_name: r.disease_name,
    icd_code: r.icd_code,
    snomed_code: r.snomed_code,
    problem_status: r.problem_status as Disease["problem_status"],
    date_start: r.date_start,
    date_stop: r.date_stop,
    note: r.note,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  };
}

export async function listDiseases(ctx: OrgContext, patientId: string, q: DiseaseListQuery) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const page = yield* diseases.list(db, patient, q, [q.problem_status ? eq(patientDiseases.problem_status, q.problem_status) : undefined]);
    return { ...page, items: page.items.map((r) => serializeDisease(r, patient)) };
  });
}

export async function getDisease(ctx: OrgContext, patientId: string, id: string) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    return serializeDisease(yield* diseases.require(db, patient, id), patient);
  });
}

export async function createDisease(ctx: OrgContext, patientId: string, input: DiseaseCreate) {
  checkDateOrder(input.date_start, input.date_stop);
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    return serializeDisease(yield* diseases.create(s, patient, input), patient);
  });
}

export async function updateDisease(ctx: OrgContext, patientId: string, id: string, input: DiseasePatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const before = yield* diseases.require(s.tx, patient, id);
    diseases.checkVersion(before, base_version);
    const next = { ...before, ...patch };
    checkDateOrder(next.date_start, next.date_stop);
    return serializeDisease(yield* diseases.update(s, patient, before, base_version, patch), patient);
  });
}

export async function archiveDisease(ctx: OrgContext, patientId: string, id: string) {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const before = yield* diseases.require(s.tx, patient, id);
    return serializeDisease(yield* diseases.update(s, patient, before, undefined, { deleted_at: s.now }, "archived"), patient);
  });
}
