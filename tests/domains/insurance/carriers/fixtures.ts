import { eq } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { insurancePlans, insuranceSubscriptions } from "@db/tenant/insurance";
import { get, run } from "@/platform/db/work";
import { twoOrgApp, type TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";

export const MISSING = "01970000-0000-7000-8000-000000000000";
export const JSON_HEADERS = { "content-type": "application/json" };

/**
 * One app per test file: an admin, two orgs (A and B), a reader (insurance.read) and an outsider
 * (no insurance key: `outsiderKeys`) in A, and A's events.
 */
export async function insuranceWorld(outsiderKeys: readonly string[] = ["patients.read", "patients.write"]) {
  const { t, admin, orgA, orgB, events, tokens } = await twoOrgApp({ reader: ["insurance.read"], outsider: outsiderKeys }, { events: true });
  return { t, admin, orgA, orgB, events, ...tokens };
}

/** The stored row, read straight from the org's database (to prove a refused write changed nothing). */
export async function storedRow(t: TestApp, orgId: string, table: SQLiteTable & { id: any }, id: string) {
  return (await orgDb(t, orgId)).read((d) => get<any>(d.select().from(table).where(eq(table.id, id))));
}

/** POST that must succeed with 201; answers the body. */
export async function created(t: TestApp, token: string, path: string, body: Record<string, unknown>) {
  const r = await t.request("POST", path, { token, body });
  if (r.status !== 201) throw new Error(`POST ${path} failed: ${r.status} ${r.text}`);
  return r.body;
}

const stamp = () => new Date().toISOString();

/**
 * A plan row written straight to the org's database (the plans routes are
 * another feature's): the benefit rules empty unless given.
 */
export async function insertPlan(
  t: TestApp,
  orgId: string,
  carrierId: string,
  fields: {
    deleted?: boolean;
    coverage?: { category_id: string; percent: number }[];
    deductible_category_ids?: string[];
    waiting_periods?: { category_id: string; months: number }[];
  } = {},
) {
  const id = Bun.randomUUIDv7();
  const now = stamp();
  await (await orgDb(t, orgId)).write((tx) =>
    run(
      tx.insert(insurancePlans).values({
        id,
        carrier_id: carrierId,
        plan_name: `Plan ${id.slice(-4)}`,
        deductible_category_ids: fields.deductible_category_ids ?? [],
        coverage: fields.coverage ?? [],
        frequency_limits: [],
        waiting_periods: fields.waiting_periods ?? [],
        age_limits: [],
        downgrades: [],
        copays: [],
        version: 1,
        created_at: now,
        updated_at: now,
        deleted_at: fields.deleted ? now : null,
      }),
    ),
  );
  return id;
}

/** A subscription row (subscriber patient enrolled in a plan) written straight to the org's database. */
export async function insertSubscription(t: TestApp, orgId: string, planId: string, subscriberId: string, fields: { deleted?: boolean } = {}) {
  const id = Bun.randomUUIDv7();
  const now = stamp();
  await (await orgDb(t, orgId)).write((tx) =>
    run(
      tx.insert(insuranceSubscriptions).values({
        id,
        plan_id: planId,
        subscriber_patient_id: subscriberId,
        version: 1,
        created_at: now,
        updated_at: now,
        deleted_at: fields.deleted ? now : null,
      }),
    ),
  );
  return id;
}
