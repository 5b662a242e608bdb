// Clinical-notes fixtures. Rows of other domains (providers, appointments,
// charted procedures) are written straight into the org's database, so these
// tests do not depend on those domains' routes.
import { asc, eq } from "drizzle-orm";
import { appointments, appointmentTypes } from "@db/tenant/appointments";
import { providers } from "@db/tenant/practice";
import { procedureCodes } from "@db/tenant/codes";
import { chartedProcedures } from "@db/tenant/charted-procedures";
import { autoNoteRules, clinicalNoteAddendums, clinicalNotes, clinicalNoteTemplates } from "@db/tenant/clinical-notes";
import { all, get, run } from "@/platform/db/work";
import { systemActor } from "@/platform/auth/actor";
import { withTransaction } from "@/platform/records/transaction";
import type { TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";

export { MISSING, JSON_HEADERS, newPatient, newLocation, archivePatient } from "@tests/domains/patients/relationships/fixtures";

const now = () => new Date().toISOString();

async function insert<T extends Record<string, unknown>>(t: TestApp, orgId: string, table: any, values: T): Promise<T & { id: string }> {
  const row = { id: Bun.randomUUIDv7(), version: 1, created_at: now(), updated_at: now(), ...values };
  await (await orgDb(t, orgId)).write((tx) => run(tx.insert(table).values(row)));
  return row as T & { id: string };
}

export const newProvider = (t: TestApp, orgId: string, v: Partial<typeof providers.$inferInsert> = {}) =>
  insert(t, orgId, providers, { abbreviation: "DRM", first_name: "Ada", last_name: "Molar", ...v });

export async function newAppointment(t: TestApp, orgId: string, v: { patient_id: string; location_id: string; provider_id: string; scheduled_start: string }) {
  const type = await insert(t, orgId, appointmentTypes, { code: "EX", name: "Exam", duration_minutes: 60, color: "#336699" });
  const end = v.scheduled_start.replace(/T(\d\d)/, (_m, h) => `T${String(Number(h) + 1).padStart(2, "0")}`);
  return insert(t, orgId, appointments, {
    ...v,
    appointment_type_id: type.id,
    scheduled_end: end,
    start_utc: `${v.scheduled_start}.000Z`,
    end_utc: `${end}.000Z`,
  });
}

export async function codeOf(t: TestApp, orgId: string, code: string) {
  const db = await orgDb(t, orgId);
  return (await db.read((d) => get(d.select().from(procedureCodes).where(eq(procedureCodes.code, code)))))!;
}

export async function newProcedure(
  t: TestApp,
  orgId: string,
  v: {
    patient_id: string;
    code: string;
    tooth_number?: string | null;
    surfaces?: string | null;
    provider_id?: string | null;
    location_id?: string | null;
    appointment_id?: string | null;
    date_service?: string;
    deleted?: boolean;
  },
) {
  const code = await codeOf(t, orgId, v.code);
  return insert(t, orgId, chartedProcedures, {
    patient_id: v.patient_id,
    procedure_code_id: code.id,
    procedure_code: code.code,
    treatment_area: code.treatment_area,
    tooth_number: v.tooth_number ?? null,
    surfaces: v.surfaces ?? null,
    status: "complete",
    date_service: v.date_service ?? "2026-03-09",
    provider_id: v.provider_id ?? null,
    location_id: v.location_id ?? null,
    appointment_id: v.appointment_id ?? null,
    office_fee_cents: code.default_fee_cents,
    billing_order_code: code.default_billing_order,
    deleted_at: v.deleted ? now() : null,
  });
}

/** Every stored row of the clinical-notes tables (to prove a refused write changed nothing). */
export async function snapshot(t: TestApp, orgId: string) {
  const db = await orgDb(t, orgId);
  return db.read(function* (d) {
    return {
      notes: yield* all(d.select().from(clinicalNotes).orderBy(asc(clinicalNotes.id))),
      addendums: yield* all(d.select().from(clinicalNoteAddendums).orderBy(asc(clinicalNoteAddendums.id))),
      rules: yield* all(d.select().from(autoNoteRules).orderBy(asc(autoNoteRules.id))),
      templates: yield* all(d.select().from(clinicalNoteTemplates).orderBy(asc(clinicalNoteTemplates.id))),
    };
  });
}

/** Run a unit of work as a background job of `orgId` would (system actor). */
export async function asJob<T>(t: TestApp, orgId: string, work: Parameters<typeof withTransaction<T>>[1]): Promise<T> {
  const ctx = (await t.rt.orgs.openOrgForJob(orgId, { actor: systemActor("auto_notes"), requestId: null }))!;
  return withTransaction(ctx, work);
}
