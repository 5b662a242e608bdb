// Replicated shards on a libSQL server with embedded replicas at the edges
// (`libsql-replica:` DSNs; docs/platform/edge-replicas.md, "libSQL servers"). No sqld
// or hosted libSQL service can run here, so this is tested at the
// @libsql/client interface: the primary's path on a file: URL (as the remote
// shards are tested), and an edge whose server does not answer. The edge
// mechanism above it (catch-up, forwarding) is the turso-sync shards' one,
// tested end to end in edge-regions.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { startTestApp, type TestApp } from "@tests/helpers";
import { OrgDatabases } from "@/platform/db/org-databases";
import { orgDatabaseLocation } from "@/platform/db/open";
import { LibsqlReplicatedDatabase } from "@/platform/db/libsql-replica";
import { ReplicaUnavailable, ReplicaWriteRefused } from "@/platform/db/replication-state";
import { locations } from "@db/tenant/practice";
import { tenantSchema } from "@db/tenant/drizzle-schema";
import { all } from "@/platform/db/work";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";
import { ORG_SEEDS } from "@db/seeds";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const internal = { actor: { type: "internal" as const, id: "internal", display_name: "t" }, requestId: null, ip: null };

describe("libsql-replica shard DSNs", () => {
  test("{db} names the org's database on the server; each instance's replica is a file of its own", () => {
    const org = "0190f1a2-0000-7000-8000-00000000000a";
    expect(orgDatabaseLocation("libsql-replica:libsql://{db}-acme.turso.io", org)).toEqual({
      kind: "sync",
      engine: "libsql",
      location: `${org}.db`,
      url: "libsql://org_0190f1a200007000800000000000000a-acme.turso.io",
    });
    for (const bad of ["libsql-replica:libsql://acme.turso.io", "libsql-replica:ftp://{db}.example.com", "libsql-replica:"])
      expect(() => orgDatabaseLocation(bad, org)).toThrow("libsql-replica shard dsn");
  });
});

describe("the primary region on the server", () => {
  test("writes go to the server and raise the replication position by one each; the shard is told", async () => {
    const shard = { id: "lr", dsn: `libsql-replica:file:${join(t.dir, "libsql-server")}/{db}.db`, auth_token: null };
    const dbs = new OrgDatabases(4, ORG_SEEDS, { role: "primary", dir: join(t.dir, "libsql-primary-replicas") });
    const pushed: [string, number][] = [];
    dbs.onPushed = (orgId, position) => pushed.push([orgId, position]);
    const orgId = Bun.randomUUIDv7();
    try {
      await dbs.provision(orgId, shard);
      const db = (await dbs.get(orgId, shard)) as LibsqlReplicatedDatabase<typeof tenantSchema>;
      expect(db.kind).toBe("sync");
      // at the primary the database is the server's (here a file: URL), not a replica
      expect(db.location).toBe(`file:${join(t.dir, "libsql-server")}/org_${orgId.replaceAll("-", "")}.db`);
      const start = db.replicationPosition;
      const ctx = t.rt.orgs.context({ id: orgId, name: "x", slug: "x", status: "active", shard }, db, internal);
      await withTransaction(ctx, (s) => locationRecords.create(s, { name: "North", timezone: "UTC" }));
      await withTransaction(ctx, (s) => locationRecords.create(s, { name: "South", timezone: "UTC" }));
      expect(db.replicationPosition).toBe(start + 2);
      expect(pushed.slice(-2)).toEqual([
        [orgId, start + 1],
        [orgId, start + 2],
      ]);
      const names = await db.read((d) => all<{ name: string }>(d.select({ name: locations.name }).from(locations)));
      expect(names.map((n) => n.name).sort()).toEqual(["North", "South"]);
      expect(db.status()).toMatchObject({ role: "primary", position: start + 2, error: null, unpushed: 0 });
    } finally {
      dbs.closeAll();
    }
  });
});

describe("an edge whose server does not answer", () => {
  test("its replica cannot be opened: the read is one the primary answers (ReplicaUnavailable), and nothing is written", async () => {
    const shard = { id: "lr-down", dsn: "libsql-replica:http://127.0.0.1:1/{db}", auth_token: null };
    const edge = new OrgDatabases(4, ORG_SEEDS, { role: "replica", dir: join(t.dir, "libsql-edge-replicas") });
    const orgId = Bun.randomUUIDv7();
    try {
      await expect(Promise.resolve(edge.get(orgId, shard))).rejects.toBeInstanceOf(ReplicaUnavailable);
      expect(edge.size).toBe(0); // not kept: the next request opens it again
      const replica = new LibsqlReplicatedDatabase(join(t.dir, "libsql-edge-replicas", "x.db"), "http://127.0.0.1:1/x", "replica", tenantSchema);
      expect(replica.status()).toMatchObject({ role: "replica", synced_at: null });
      expect(replica.status().error).toContain("Connection refused");
      await expect(replica.write(function* () {})).rejects.toBeInstanceOf(ReplicaWriteRefused);
      replica.close();
    } finally {
      edge.closeAll();
    }
  });
});
