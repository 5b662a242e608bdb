// Rows the front desk lists read, written straight into an org's database:
// charted procedures, treatment plans and their links, scheduling preferences.
// (The clinical routes are the clinical domain's to test; these lists only read.)
import { inArray } from "drizzle-orm";
import { chartedProcedures, treatmentPlanProcedures, treatmentPlans } from "@db/tenant/charted-procedures";
import { procedureCodes } from "@db/tenant/codes";
import { patientSchedulingPreferences } from "@db/tenant/schedule-config";
import { all, run } from "@/platform/db/work";
import type { TestApp } from "@tests/helpers";

const now = () => new Date().toISOString();

export async function orgDb(t: TestApp, orgId: string) {
  return t.rt.orgDbs.get(orgId, (await t.rt.access.org(orgId))!.shard);
}

export async function insertRow<T extends Record<string, unknown>>(t: TestApp, orgId: string, table: any, values: T): Promise<T & { id: string }> {
  const row = { id: Bun.randomUUIDv7(), version: 1, created_at: now(), updated_at: now(), ...values };
  const db = await orgDb(t, orgId);
  await db.write(function* (tx) {
    yield* run(tx.insert(table).values(row));
  });
  return row as T & { id: string };
}

export type Code = { id: string; code: string; short_name: string; treatment_area: string };

/** The org's seeded procedure codes by code. */
export async function seededCodes(t: TestApp, orgId: string, codes: string[]): Promise<Record<string, Code>> {
  const db = await orgDb(t, orgId);
  const rows = await db.read((d) =>
    all<Code>(
      d
        .select({ id: procedureCodes.id, code: procedureCodes.code, short_name: procedureCodes.short_name, treatment_area: procedureCodes.treatment_area })
        .from(procedureCodes)
        .where(inArray(procedureCodes.code, codes)),
    ),
  );
  return Object.fromEntries(rows.map((r) => [r.code, r]));
}

/** A charted procedure of `code` for the patient: treatment planned by default, fee in cents. */
export const insertProcedure = (t: TestApp, orgId: string, patientId: string, code: Code, v: Partial<typeof chartedProcedures.$inferInsert> = {}) =>
  insertRow(t, orgId, chartedProcedures, {
    patient_id: patientId,
    procedure_code_id: code.id,
    procedure_code: code.code,
    treatment_area: code.treatment_area,
    status: "treatment_planned",
    date_service: "2026-01-01",
    office_fee_cents: 10_000,
    billing_order_code: "D",
    ...v,
  });

/** A treatment plan of the patient in `status` holding the procedures. */
export async function insertPlan(
  t: TestApp,
  orgId: string,
  patientId: string,
  name: string,
  status: string,
  procedureIds: string[],
  v: Record<string, unknown> = {},
) {
  const plan = await insertRow(t, orgId, treatmentPlans, { patient_id: patientId, name, status, phases: [{ phase: 1, name: "Phase 1" }], ...v });
  for (const [i, id] of procedureIds.entries()) {
    await insertRow(t, orgId, treatmentPlanProcedures, { treatment_plan_id: plan.id, charted_procedure_id: id, phase: 1, item_order: i, created_at: now() });
  }
  return plan;
}

export const insertPreference = (t: TestApp, orgId: string, patientId: string, v: Partial<typeof patientSchedulingPreferences.$inferInsert> = {}) =>
  insertRow(t, orgId, patientSchedulingPreferences, { patient_id: patientId, preferred_days: [], ...v });
