// Documents and the records they link to, written straight to an org's
// database: the upload route is another feature's, and these tests must not
// depend on the scheduling, charting or insurance routes either.
import { asc, eq } from "drizzle-orm";
import { documentLinks, documents, documentSignatures, documentVersions } from "@db/tenant/documents";
import { appointments, appointmentTypes } from "@db/tenant/appointments";
import { locations, providers } from "@db/tenant/practice";
import { patients } from "@db/tenant/patients";
import { chartedProcedures, treatmentPlans } from "@db/tenant/charted-procedures";
import { insuranceDrafts } from "@db/tenant/insurance";
import { procedureCodes } from "@db/tenant/codes";
import { all, get, run } from "@/platform/db/work";
import { systemActor } from "@/platform/auth/actor";
import { withTransaction } from "@/platform/records/transaction";
import { documentRecords, type DocumentRow } from "@/domains/documents/records";
import type { TestApp } from "@tests/helpers";

const stamp = () => new Date().toISOString();
const meta = () => ({ id: Bun.randomUUIDv7(), version: 1, created_at: stamp(), updated_at: stamp() });

async function openOrg(t: TestApp, orgId: string) {
  const ctx = await t.rt.orgs.openOrgForJob(orgId, { actor: systemActor("test"), requestId: null });
  if (!ctx) throw new Error(`no org ${orgId}`);
  return ctx;
}

/** A 64-hex-character SHA-256 made of `seed` (distinct per document and version). */
export const fakeSha = (seed: string) => new Bun.CryptoHasher("sha256").update(seed).digest("hex");

export type DocumentFields = Partial<typeof documents.$inferInsert> & {
  /** The version row's sha256 (default: fakeSha of the document id). */
  sha256?: string;
  /** false: no document_versions row at all. */
  withVersion?: boolean;
};

/**
 * An active PDF document with one confirmed version (version 1), created
 * through documentRecords like the upload does (audited, event after commit).
 * `fields` override any column of the documents row.
 */
export async function insertDocument(t: TestApp, orgId: string, fields: DocumentFields = {}): Promise<DocumentRow & { sha256: string }> {
  const { sha256: givenSha, withVersion = true, ...columns } = fields;
  const ctx = await openOrg(t, orgId);
  const id = columns.id ?? Bun.randomUUIDv7();
  const sha256 = givenSha ?? fakeSha(id);
  const row = await withTransaction(ctx, function* (s) {
    const doc = yield* documentRecords.create(s, {
      id,
      title: "Consent to treatment",
      file_name: "consent.pdf",
      file_size: 2048,
      mime_type: "application/pdf",
      document_type: "general_consent",
      status: "active",
      ocr_status: "completed",
      current_version: 1,
      confirmed_version: 1,
      tags: [],
      is_org_scoped: true,
      ...columns,
    });
    if (withVersion)
      yield* run(
        s.tx.insert(documentVersions).values({
          id: Bun.randomUUIDv7(),
          document_id: doc.id,
          version_number: 1,
          file_name: doc.file_name,
          file_size: doc.file_size,
          mime_type: doc.mime_type,
          sha256,
          storage_key: `documents/${doc.id}/1`,
          status: "confirmed",
          created_at: s.now,
          updated_at: s.now,
        }),
      );
    return doc;
  });
  return { ...row, sha256 };
}

/** Another version row of a document (e.g. a newer confirmed upload); the document row is left as it is. */
export async function insertVersion(t: TestApp, orgId: string, documentId: string, versionNumber: number, sha256: string, status = "confirmed") {
  const ctx = await openOrg(t, orgId);
  const now = stamp();
  await ctx.db.write((tx) =>
    run(
      tx.insert(documentVersions).values({
        id: Bun.randomUUIDv7(),
        document_id: documentId,
        version_number: versionNumber,
        file_name: "consent.pdf",
        file_size: 4096,
        mime_type: "application/pdf",
        sha256,
        storage_key: `documents/${documentId}/${versionNumber}`,
        status,
        created_at: now,
        updated_at: now,
      }),
    ),
  );
}

/** Change columns of a document row in place, without audit or version bump (a state the pipeline or another feature would set). */
export async function patchDocument(t: TestApp, orgId: string, id: string, values: Partial<typeof documents.$inferInsert>) {
  const ctx = await openOrg(t, orgId);
  await ctx.db.write((tx) => run(tx.update(documents).set(values).where(eq(documents.id, id))));
}

/** The stored document row (including archived ones). */
export async function documentRow(t: TestApp, orgId: string, id: string) {
  const ctx = await openOrg(t, orgId);
  return ctx.db.read((db) => get<DocumentRow>(db.select().from(documents).where(eq(documents.id, id))));
}

/** Every link row of a document, deleted ones too, oldest first. */
export async function linkRows(t: TestApp, orgId: string, documentId: string) {
  const ctx = await openOrg(t, orgId);
  return ctx.db.read((db) =>
    all<typeof documentLinks.$inferSelect>(
      db.select().from(documentLinks).where(eq(documentLinks.document_id, documentId)).orderBy(asc(documentLinks.created_at), asc(documentLinks.id)),
    ),
  );
}

/** Every signature row of a document, oldest first. */
export async function signatureRows(t: TestApp, orgId: string, documentId: string) {
  const ctx = await openOrg(t, orgId);
  return ctx.db.read((db) =>
    all<typeof documentSignatures.$inferSelect>(
      db
        .select()
        .from(documentSignatures)
        .where(eq(documentSignatures.document_id, documentId))
        .orderBy(asc(documentSignatures.created_at), asc(documentSignatures.id)),
    ),
  );
}

async function insert<T extends Record<string, unknown>>(t: TestApp, orgId: string, table: any, values: T): Promise<T & { id: string }> {
  const row = { ...meta(), ...values };
  const ctx = await openOrg(t, orgId);
  await ctx.db.write((tx) => run(tx.insert(table).values(row)));
  return row as T & { id: string };
}

export const insertPatient = (t: TestApp, orgId: string, v: Partial<typeof patients.$inferInsert> = {}) =>
  insert(t, orgId, patients, { first_name: "Paula", last_name: "Pearl", ...v });

/** An appointment of `patientId` (with its own location, provider and type) starting at `start` (location wall clock). */
export async function insertAppointment(
  t: TestApp,
  orgId: string,
  patientId: string,
  start = "2026-03-09T09:00:00",
  v: Partial<typeof appointments.$inferInsert> = {},
) {
  const location = await insert(t, orgId, locations, { name: "Main St", timezone: "America/New_York" });
  const provider = await insert(t, orgId, providers, { abbreviation: "DR1", first_name: "Ada", last_name: "Molar" });
  const type = await insert(t, orgId, appointmentTypes, { code: "EXAM", name: "Exam", duration_minutes: 60, color: "#3366FF" });
  return insert(t, orgId, appointments, {
    patient_id: patientId,
    appointment_type_id: type.id,
    location_id: location.id,
    provider_id: provider.id,
    scheduled_start: start,
    scheduled_end: start.replace("T09:", "T10:"),
    start_utc: "2026-03-09T13:00:00.000Z",
    end_utc: "2026-03-09T14:00:00.000Z",
    ...v,
  });
}

/** A charted procedure of `patientId` with the org's first procedure code (its code is the procedure's name in links). */
export async function insertChartedProcedure(t: TestApp, orgId: string, patientId: string, v: Partial<typeof chartedProcedures.$inferInsert> = {}) {
  const ctx = await openOrg(t, orgId);
  const code = await ctx.db.read((db) =>
    get<{ id: string; code: string }>(
      db.select({ id: procedureCodes.id, code: procedureCodes.code }).from(procedureCodes).orderBy(asc(procedureCodes.code)).limit(1),
    ),
  );
  if (!code) throw new Error("the org has no procedure codes");
  return insert(t, orgId, chartedProcedures, {
    patient_id: patientId,
    procedure_code_id: code.id,
    procedure_code: code.code,
    treatment_area: "tooth",
    tooth_number: "3",
    status: "treatment_planned",
    date_service: "2026-03-09",
    office_fee_cents: 0,
    billing_order_code: "N",
    ...v,
  });
}

export const insertTreatmentPlan = (t: TestApp, orgId: string, patientId: string, v: Partial<typeof treatmentPlans.$inferInsert> = {}) =>
  insert(t, orgId, treatmentPlans, { patient_id: patientId, name: "Phase 1 restorative", phases: [{ phase: 1, name: "Urgent" }], ...v });

export const insertInsuranceDraft = (t: TestApp, orgId: string, patientId: string, v: Partial<typeof insuranceDrafts.$inferInsert> = {}) =>
  insert(t, orgId, insuranceDrafts, { patient_id: patientId, raw_data_json: { member_id: "XYZ" }, ...v });
