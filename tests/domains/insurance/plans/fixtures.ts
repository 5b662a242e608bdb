import { eq } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { coverageCategories, estimateBooks, insuranceCarriers, procedureEstimates } from "@db/tenant/insurance";
import { all, get, run } from "@/platform/db/work";
import type { EventEnvelope } from "@/platform/events/envelope";
import { unique, type TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { insuranceWorld } from "@tests/domains/insurance/carriers/fixtures";

// Shared by the plans, subscriptions and patient-plans tests.

export const MISSING = "01970000-0000-7000-8000-0000000000aa";
export const JSON_HEADERS = { "content-type": "application/json" };
export { orgDb };

const stamp = () => new Date().toISOString();

/** One app per test file: an admin, two orgs (A, B), a reader (insurance.read) and an outsider (no insurance key) in A, and A's events. */
export async function planWorld() {
  const world = await insuranceWorld();
  const P = (org = world.orgA) => `/api/v1/${org}/insurance`;
  return { ...world, P };
}

/** The stored row, read straight from the org's database (to prove a refused write changed nothing). */
export async function storedRow(t: TestApp, orgId: string, table: SQLiteTable & { id: any }, id: string) {
  return (await orgDb(t, orgId)).read((d) => get<any>(d.select().from(table).where(eq(table.id, id))));
}

/** Every stored row of a table (to prove nothing was added). */
export async function storedRows(t: TestApp, orgId: string, table: SQLiteTable) {
  return (await orgDb(t, orgId)).read((d) => all<any>(d.select().from(table)));
}

/** POST that must succeed with 201; answers the body. */
export async function created(t: TestApp, token: string, path: string, body: Record<string, unknown>) {
  const r = await t.request("POST", path, { token, body });
  if (r.status !== 201) throw new Error(`POST ${path} failed: ${r.status} ${r.text}`);
  return r.body;
}

/** A carrier written straight to the org's database (the carrier routes are another feature's). */
export async function insertCarrier(t: TestApp, orgId: string, name = unique("Carrier"), opts: { deleted?: boolean; hidden?: boolean } = {}) {
  const id = Bun.randomUUIDv7();
  const now = stamp();
  await (await orgDb(t, orgId)).write((tx) =>
    run(
      tx
        .insert(insuranceCarriers)
        .values({ id, carrier_name: name, is_hidden: !!opts.hidden, version: 1, created_at: now, updated_at: now, deleted_at: opts.deleted ? now : null }),
    ),
  );
  return { id, name };
}

/** An estimate book written straight to the org's database. */
export async function insertBook(t: TestApp, orgId: string, name = unique("Book"), opts: { deleted?: boolean } = {}) {
  const id = Bun.randomUUIDv7();
  const now = stamp();
  await (await orgDb(t, orgId)).write((tx) =>
    run(
      tx
        .insert(estimateBooks)
        .values({ id, name, rule_type: "manual_fee_schedule", version: 1, created_at: now, updated_at: now, deleted_at: opts.deleted ? now : null }),
    ),
  );
  return { id, name };
}

/** The seeded system categories of an org by system_key: `{ preventive: {id, name}, ... }`. */
export async function systemCategories(t: TestApp, orgId: string) {
  const rows = await (await orgDb(t, orgId)).read((d) =>
    all<{ id: string; category_name: string; system_key: string | null }>(
      d
        .select({ id: coverageCategories.id, category_name: coverageCategories.category_name, system_key: coverageCategories.system_key })
        .from(coverageCategories)
        .where(eq(coverageCategories.is_system, true)),
    ),
  );
  return Object.fromEntries(rows.map((r) => [r.system_key!, { id: r.id, name: r.category_name }])) as Record<string, { id: string; name: string }>;
}

/** A non-system category written straight to the org's database (archived when asked). */
export async function insertCategory(t: TestApp, orgId: string, name = unique("Category"), opts: { deleted?: boolean; hidden?: boolean } = {}) {
  const id = Bun.randomUUIDv7();
  const now = stamp();
  await (await orgDb(t, orgId)).write((tx) =>
    run(
      tx
        .insert(coverageCategories)
        .values({ id, category_name: name, is_hidden: !!opts.hidden, version: 1, created_at: now, updated_at: now, deleted_at: opts.deleted ? now : null }),
    ),
  );
  return { id, name };
}

/** A patient through the API. */
export async function createPatient(t: TestApp, token: string, orgId: string, first = "Pat", last = unique("Ient")) {
  return created(t, token, `/api/v1/${orgId}/patients`, { first_name: first, last_name: last });
}

/**
 * A procedure estimate row written straight to the org's database (the estimate service is
 * another feature's): only the amounts the benefits read are chosen, the rest is consistent filler.
 */
export async function insertEstimate(
  t: TestApp,
  orgId: string,
  v: {
    chartedProcedureId: string;
    patientId: string;
    patientPlanId: string;
    ordinal?: number;
    insurance: number;
    deductible: number;
    insuranceOverride?: number | null;
    deductibleOverride?: number | null;
    deleted?: boolean;
  },
) {
  const id = Bun.randomUUIDv7();
  const now = stamp();
  const fee = v.insurance + v.deductible + 10_000;
  await (await orgDb(t, orgId)).write((tx) =>
    run(
      tx.insert(procedureEstimates).values({
        id,
        charted_procedure_id: v.chartedProcedureId,
        patient_id: v.patientId,
        patient_plan_id: v.patientPlanId,
        ordinal: v.ordinal ?? 1,
        fee_billed_cents: fee,
        write_off_cents: 0,
        deductible_applied_cents: v.deductible,
        coverage_percent: 80,
        base_estimate_cents: v.insurance,
        insurance_estimate_cents: v.insurance,
        paid_other_insurance_cents: 0,
        patient_estimate_cents: fee - v.insurance,
        copay_cents: 0,
        insurance_estimate_override_cents: v.insuranceOverride ?? null,
        deductible_override_cents: v.deductibleOverride ?? null,
        date_estimated: now.slice(0, 10),
        version: 1,
        created_at: now,
        updated_at: now,
        deleted_at: v.deleted ? now : null,
      }),
    ),
  );
  return id;
}

/** The events of `type` about `resourceId` received so far. */
export const eventsOf = (events: EventEnvelope[], type: string, resourceId?: string) =>
  events.filter((e) => e.type === type && (resourceId === undefined || e.resource_id === resourceId));

/** The insurance.coverage_changed events received since index `from`. */
export const coverageChanges = (events: EventEnvelope[], from: number) => events.slice(from).filter((e) => e.type === "insurance.coverage_changed");
