import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import type { TenantSchema } from "@db/tenant/drizzle-schema";
import type { LocalSqlDatabase } from "@/platform/db/database";
import { MIGRATIONS } from "@/platform/db/open";
import { migrationsFolderUpTo } from "@tests/support/migrations";
import { startTestApp, type TestApp } from "@tests/helpers";
import { orgDb } from "./filters/fixtures";

// patient_filter_facts (tenant migration 0011) holds, for every live patient,
// the columns the revenue filters read. Counts scan it instead of the patient
// table, so it must never drift from the patients: the migration fills it
// from the patients already there, and triggers keep it in the transaction of
// every patient write (create, update, archive, restore, delete).

/** What the facts of the live patients must be, read from `patients` itself. */
const EXPECTED = `SELECT id, status, date_of_birth, gender, coalesce(email <> '', 0) AS has_email, coalesce(mobile_phone <> '', 0) AS has_mobile_phone,
  receives_sms, receives_email, substr(created_at, 1, 10) AS created_on, preferred_language, balance_0_30_cents, balance_31_60_cents,
  balance_61_90_cents, balance_over_90_cents, insurance_estimate_cents, first_name, last_name, location_id, primary_provider_id
  FROM patients WHERE deleted_at IS NULL ORDER BY id`;
const STORED = "SELECT * FROM patient_filter_facts ORDER BY id";

const dir = mkdtempSync(join(tmpdir(), "cusp-facts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const tenantMigrationsUpTo = (lastTag: string) => migrationsFolderUpTo(MIGRATIONS.tenant, lastTag, dir);

describe("migration 0011 fills the facts from the patients already there", () => {
  test("live patients get their row with derived flags; archived ones none", () => {
    const sqlite = new Database(join(dir, "org.db"));
    const db = drizzle(sqlite);
    migrate(db, { migrationsFolder: tenantMigrationsUpTo("0010_smart_lists") });
    const insert = sqlite.prepare(
      `INSERT INTO patients (id, first_name, last_name, status, date_of_birth, email, mobile_phone, receives_sms, balance_over_90_cents, created_at, updated_at, deleted_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    insert.run("p1", "Ana", "Live", "active", "1980-05-15", "ana@example.com", null, 1, 12_500, "2026-01-02T03:04:05.000Z", "2026-01-02T03:04:05.000Z", null);
    insert.run("p2", "Ben", "Blank", "inactive", null, "", "217 555 0101", 0, 0, "2026-02-03T04:05:06.000Z", "2026-02-03T04:05:06.000Z", null);
    insert.run(
      "p3",
      "Cy",
      "Gone",
      "active",
      "1990-01-01",
      "cy@example.com",
      null,
      0,
      0,
      "2026-03-04T05:06:07.000Z",
      "2026-03-04T05:06:07.000Z",
      "2026-04-01T00:00:00.000Z",
    );

    migrate(db, { migrationsFolder: MIGRATIONS.tenant });

    expect(sqlite.query(STORED).all()).toEqual([
      {
        id: "p1",
        status: "active",
        date_of_birth: "1980-05-15",
        gender: null,
        has_email: 1,
        has_mobile_phone: 0,
        receives_sms: 1,
        receives_email: 0,
        created_on: "2026-01-02",
        preferred_language: null,
        balance_0_30_cents: 0,
        balance_31_60_cents: 0,
        balance_61_90_cents: 0,
        balance_over_90_cents: 12_500,
        insurance_estimate_cents: 0,
        first_name: "Ana",
        last_name: "Live",
        location_id: null,
        primary_provider_id: null,
      },
      {
        id: "p2",
        status: "inactive",
        date_of_birth: null,
        gender: null,
        has_email: 0,
        has_mobile_phone: 1,
        receives_sms: 0,
        receives_email: 0,
        created_on: "2026-02-03",
        preferred_language: null,
        balance_0_30_cents: 0,
        balance_31_60_cents: 0,
        balance_61_90_cents: 0,
        balance_over_90_cents: 0,
        insurance_estimate_cents: 0,
        first_name: "Ben",
        last_name: "Blank",
        location_id: null,
        primary_provider_id: null,
      },
    ]);
    expect(sqlite.query(EXPECTED).all()).toEqual(sqlite.query(STORED).all());
    sqlite.close();
  });
});

describe("triggers keep the facts in step with every patient write", () => {
  let t: TestApp;
  let token: string;
  let orgId: string;
  let P: string;
  beforeAll(async () => {
    t = await startTestApp();
    token = await t.adminToken();
    orgId = (await t.createOrg()).id;
    P = `/api/v1/${orgId}/patients`;
  });
  afterAll(() => t.close());

  const raw = async () => ((await orgDb(t, orgId)) as LocalSqlDatabase<TenantSchema>).raw;
  const rows = async (q: string) => (await raw()).query(q).all() as Record<string, unknown>[];
  const inStep = async () => {
    const stored = await rows(STORED);
    expect(stored).toEqual(await rows(EXPECTED));
    return stored;
  };
  const count = async (conditions: { field: string; operator: string; value?: unknown }[]) => {
    const r = await t.request("POST", `/api/v1/${orgId}/revenue-module/count`, {
      token,
      body: { expected_source_snapshot_version: 4, filter_definition: { groups: [{ conditions }] } },
    });
    expect(r.status, r.text).toBe(200);
    return r.body.count as number;
  };

  test("create, PATCH, status transition, archive, restore and a hard delete; counts follow at once", async () => {
    const a = (await t.request("POST", P, { token, body: { first_name: "Facta", last_name: "One", email: "facta@example.com", date_of_birth: "1970-03-03" } }))
      .body;
    const b = (await t.request("POST", P, { token, body: { first_name: "Factb", last_name: "Two", mobile_phone: "217 555 0199" } })).body;
    expect((await inStep()).map((r) => r.id)).toEqual([a.id, b.id].sort());
    expect(await count([{ field: "has_email", operator: "eq", value: true }])).toBe(1);
    expect(await count([{ field: "has_mobile_phone", operator: "eq", value: true }])).toBe(1);

    const patched = await t.request("PATCH", `${P}/${a.id}`, { token, body: { base_version: 1, email: null, first_name: "Factum", preferred_language: "es" } });
    expect(patched.status).toBe(200);
    await inStep();
    expect(await count([{ field: "has_email", operator: "eq", value: true }])).toBe(0);
    expect(await count([{ field: "first_name", operator: "eq", value: "Factum" }])).toBe(1);
    expect(await count([{ field: "preferred_language", operator: "eq", value: "es" }])).toBe(1);

    const moved = await t.request("POST", `${P}/${b.id}/transition-status`, { token, body: { base_version: 1, status: "inactive" } });
    expect(moved.status).toBe(200);
    await inStep();
    expect(await count([{ field: "status", operator: "eq", value: "inactive" }])).toBe(1);

    expect((await t.request("POST", `${P}/${a.id}/archive`, { token })).status).toBe(200);
    expect((await inStep()).map((r) => r.id)).toEqual([b.id]);
    expect(await count([{ field: "first_name", operator: "eq", value: "Factum" }])).toBe(0);

    expect((await t.request("POST", `${P}/${a.id}/restore`, { token })).status).toBe(200);
    expect((await inStep()).map((r) => r.id)).toEqual([a.id, b.id].sort());
    expect(await count([{ field: "first_name", operator: "eq", value: "Factum" }])).toBe(1);

    // a balance written by another domain (the ledger writes these columns) moves the facts too
    (await raw()).query("UPDATE patients SET balance_over_90_cents = 42000 WHERE id = ?").run(b.id);
    await inStep();
    expect(await count([{ field: "balance_over_90", operator: "gt", value: 400 }])).toBe(1);

    (await raw()).query("DELETE FROM patients WHERE id = ?").run(b.id);
    expect((await inStep()).map((r) => r.id)).toEqual([a.id]);
  });
});
