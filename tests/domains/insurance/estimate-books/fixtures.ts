import { and, eq } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { claimPaymentEvidence, estimateBookRuns, insuranceCarriers, insurancePlans } from "@db/tenant/insurance";
import { procedureCodes } from "@db/tenant/codes";
import { all, get, run } from "@/platform/db/work";
import { unique, type TestApp } from "@tests/helpers";
import { orgDb } from "@tests/domains/patients/record/fixtures";
import { insuranceWorld } from "@tests/domains/insurance/carriers/fixtures";

// Data the estimate-book tests need from features that serve it elsewhere
// (carriers, plans) or from nowhere yet (runs, claim payment evidence),
// written straight to the org's database.

/** A file's setup (an app, orgs, members with real argon2 logins) can pass bun's 5 s hook limit on a loaded machine. */
export const SETUP_TIMEOUT_MS = 30_000;
export const MISSING = "01970000-0000-7000-8000-000000000000";
export const JSON_HEADERS = { "content-type": "application/json" };

/** One app per test file: an admin, two orgs (A and B), a reader and a member without insurance keys, and A's events. */
export const bookWorld = () => insuranceWorld(["patients.read", "codes.read"]);

export const booksPath = (orgId: string) => `/api/v1/${orgId}/insurance/estimate-books`;

const stamp = () => new Date().toISOString();

export async function insertCarrier(t: TestApp, orgId: string, fields: { carrier_name?: string; deleted?: boolean } = {}) {
  const db = await orgDb(t, orgId);
  const id = Bun.randomUUIDv7();
  const now = stamp();
  await db.write((tx) =>
    run(
      tx.insert(insuranceCarriers).values({
        id,
        carrier_name: fields.carrier_name ?? unique("Delta Dental"),
        created_at: now,
        updated_at: now,
        version: 1,
        deleted_at: fields.deleted ? now : null,
      }),
    ),
  );
  return id;
}

export async function insertPlan(
  t: TestApp,
  orgId: string,
  fields: { carrier_id: string; plan_name?: string | null; group_number?: string | null; estimate_book_id?: string | null; deleted?: boolean },
) {
  const db = await orgDb(t, orgId);
  const id = Bun.randomUUIDv7();
  const now = stamp();
  await db.write((tx) =>
    run(
      tx.insert(insurancePlans).values({
        id,
        carrier_id: fields.carrier_id,
        plan_name: fields.plan_name === undefined ? unique("PPO Plus") : fields.plan_name,
        group_number: fields.group_number ?? null,
        estimate_book_id: fields.estimate_book_id ?? null,
        deductible_category_ids: [],
        coverage: [],
        frequency_limits: [],
        waiting_periods: [],
        age_limits: [],
        downgrades: [],
        copays: [],
        created_at: now,
        updated_at: now,
        version: 1,
        deleted_at: fields.deleted ? now : null,
      }),
    ),
  );
  return id;
}

/** Points a plan at a book (what the plans feature's PATCH would do). */
export async function setPlanBook(t: TestApp, orgId: string, planId: string, bookId: string | null) {
  const db = await orgDb(t, orgId);
  await db.write((tx) => run(tx.update(insurancePlans).set({ estimate_book_id: bookId }).where(eq(insurancePlans.id, planId))));
}

export async function insertRun(t: TestApp, orgId: string, bookId: string, startedAt = "2025-03-01T10:00:00.000Z") {
  const db = await orgDb(t, orgId);
  const id = Bun.randomUUIDv7();
  const now = stamp();
  await db.write((tx) =>
    run(tx.insert(estimateBookRuns).values({ id, estimate_book_id: bookId, started_at: startedAt, finished_at: startedAt, created_at: now, updated_at: now })),
  );
  return id;
}

export async function insertEvidence(
  t: TestApp,
  orgId: string,
  fields: {
    estimate_book_id: string;
    procedure_code_id: string;
    carrier_id?: string | null;
    group_number?: string | null;
    fee_billed_cents: number;
    allowed_cents?: number | null;
    paid_cents: number;
    date_paid: string;
    source_ref?: string | null;
  },
) {
  const db = await orgDb(t, orgId);
  const id = Bun.randomUUIDv7();
  await db.write((tx) =>
    run(
      tx.insert(claimPaymentEvidence).values({
        carrier_id: null,
        group_number: null,
        allowed_cents: null,
        source_ref: null,
        ...fields,
        id,
        created_at: stamp(),
      }),
    ),
  );
  return id;
}

/** The seeded procedure code's id (every org gets the CDT catalogue). */
export async function codeId(t: TestApp, orgId: string, code: string) {
  const db = await orgDb(t, orgId);
  const row = await db.read((d) =>
    get<{ id: string }>(
      d
        .select({ id: procedureCodes.id })
        .from(procedureCodes)
        .where(and(eq(procedureCodes.code, code))),
    ),
  );
  if (!row) throw new Error(`no seeded code ${code}`);
  return row.id;
}

/** Every row of a table in the org (to prove a refused write changed nothing). */
export async function rowsOf(t: TestApp, orgId: string, table: SQLiteTable) {
  return (await orgDb(t, orgId)).read((d) => all<any>(d.select().from(table)));
}

/** POST that must succeed with 201; answers the body. */
export async function created(t: TestApp, token: string, path: string, body: Record<string, unknown>) {
  const r = await t.request("POST", path, { token, body });
  if (r.status !== 201) throw new Error(`POST ${path} failed: ${r.status} ${r.text}`);
  return r.body;
}

/**
 * A book world with one allowed_from_claims book in org A, the codes D2391 and
 * D0120, and a run of the book: what the allowed-fee and adjustment-log tests share.
 */
export async function bookWithRun() {
  const world = await bookWorld();
  const book = await created(world.t, world.admin, booksPath(world.orgA), { name: "Delta PPO", rule_type: "allowed_from_claims" });
  return {
    ...world,
    book,
    d2391: await codeId(world.t, world.orgA, "D2391"),
    d0120: await codeId(world.t, world.orgA, "D0120"),
    run: await insertRun(world.t, world.orgA, book.id, "2025-03-01T10:00:00.000Z"),
  };
}
