import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { migrate } from "drizzle-orm/bun-sqlite/migrator";
import { MIGRATIONS } from "@/platform/db/open";
import { migrationsFolderUpTo } from "@tests/support/migrations";

// Control migration 0004 moves every org-wide group of a membership
// (membership_groups) to an assignment at the org node with context "all";
// 0005 drops membership_groups. Nothing may be lost on the way.

const dir = mkdtempSync(join(tmpdir(), "cusp-control-migrations-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const migrationsUpTo = (lastTag: string) => migrationsFolderUpTo(MIGRATIONS.control, lastTag, dir);

describe("control migrations: membership groups become assignments", () => {
  test("every membership group is an active org-node assignment afterwards, with its member, group and times; the old table is gone", () => {
    const sqlite = new Database(join(dir, "control.db"));
    const db = drizzle(sqlite);
    migrate(db, { migrationsFolder: migrationsUpTo("0003_partners_and_org_deletion") });
    const t0 = "2026-01-02T03:04:05.000Z";
    const t1 = "2026-02-03T04:05:06.000Z";
    sqlite.run(`INSERT INTO shards (id, name, region, dsn, max_orgs, created_at, updated_at) VALUES ('s1', 'local', 'iad', 'file:x', 10, '${t0}', '${t0}')`);
    for (const org of ["o1", "o2"]) {
      sqlite.run(
        `INSERT INTO orgs (id, name, slug, account_type, status, onboarding_status, max_locations, schema_name, shard_id, created_at, updated_at) VALUES ('${org}', '${org}', '${org}', 'practice', 'active', 'complete', 5, '${org}', 's1', '${t0}', '${t0}')`,
      );
    }
    for (const u of ["u1", "u2"]) {
      sqlite.run(
        `INSERT INTO users (id, email, display_name, status, created_at, updated_at) VALUES ('${u}', '${u}@x.test', '${u}', 'active', '${t0}', '${t0}')`,
      );
    }
    for (const [g, org] of [
      ["g1", "o1"],
      ["g2", "o1"],
      ["g3", "o2"],
    ]) {
      sqlite.run(
        `INSERT INTO permission_groups (id, org_id, name, permission_keys, created_at, updated_at) VALUES ('${g}', '${org}', '${g}', '[]', '${t0}', '${t0}')`,
      );
    }
    sqlite.run(`INSERT INTO memberships (id, org_id, user_id, status, created_at, updated_at) VALUES ('m1', 'o1', 'u1', 'active', '${t0}', '${t1}')`);
    sqlite.run(`INSERT INTO memberships (id, org_id, user_id, status, created_at, updated_at) VALUES ('m2', 'o1', 'u2', 'suspended', '${t0}', '${t0}')`);
    sqlite.run(`INSERT INTO memberships (id, org_id, user_id, status, created_at, updated_at) VALUES ('m3', 'o2', 'u1', 'active', '${t1}', '${t1}')`);
    for (const [m, g] of [
      ["m1", "g1"],
      ["m1", "g2"],
      ["m2", "g1"],
      ["m3", "g3"],
    ]) {
      sqlite.run(`INSERT INTO membership_groups (membership_id, group_id) VALUES ('${m}', '${g}')`);
    }

    migrate(db, { migrationsFolder: MIGRATIONS.control });

    const rows = sqlite
      .query(
        "SELECT id, org_id, membership_id, user_id, group_id, scope_node_id, scope_type, context, status, expires_at, created_at, updated_at, version FROM iam_assignments ORDER BY membership_id, group_id",
      )
      .all() as Record<string, unknown>[];
    expect(rows.map(({ id, ...r }) => r)).toEqual([
      {
        org_id: "o1",
        membership_id: "m1",
        user_id: "u1",
        group_id: "g1",
        scope_node_id: "o1",
        scope_type: "org",
        context: "all",
        status: "active",
        expires_at: null,
        created_at: t0,
        updated_at: t1,
        version: 1,
      },
      {
        org_id: "o1",
        membership_id: "m1",
        user_id: "u1",
        group_id: "g2",
        scope_node_id: "o1",
        scope_type: "org",
        context: "all",
        status: "active",
        expires_at: null,
        created_at: t0,
        updated_at: t1,
        version: 1,
      },
      {
        org_id: "o1",
        membership_id: "m2",
        user_id: "u2",
        group_id: "g1",
        scope_node_id: "o1",
        scope_type: "org",
        context: "all",
        status: "active",
        expires_at: null,
        created_at: t0,
        updated_at: t0,
        version: 1,
      },
      {
        org_id: "o2",
        membership_id: "m3",
        user_id: "u1",
        group_id: "g3",
        scope_node_id: "o2",
        scope_type: "org",
        context: "all",
        status: "active",
        expires_at: null,
        created_at: t1,
        updated_at: t1,
        version: 1,
      },
    ]);
    // ids are distinct version-4 UUIDs
    for (const r of rows) expect(r.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(rows.map((r) => r.id)).size).toBe(4);
    expect(sqlite.query("SELECT name FROM sqlite_master WHERE name = 'membership_groups'").all()).toEqual([]);
    expect(sqlite.query("SELECT id, access_version FROM orgs ORDER BY id").all()).toEqual([
      { id: "o1", access_version: 1 },
      { id: "o2", access_version: 1 },
    ]);
    sqlite.close();
  });
});
