import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { count } from "drizzle-orm";
import { startTestApp, type TestApp } from "@tests/helpers";
import { locations } from "@db/tenant/practice";
import { get } from "@/platform/db/work";
import { orgDatabaseLocation } from "@/platform/db/open";
import { systemActor } from "@/platform/auth/actor";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";

// tenancy/orgs.ts: the only ways to reach an org's database by id.

let t: TestApp;
let token: string;
const job = { actor: systemActor("test.job"), requestId: "req-job" };
const locationCount = (orgId: string) => t.rt.orgs.readExisting(orgId, (db) => get<{ n: number }>(db.select({ n: count() }).from(locations)));

beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
});
afterAll(() => t.close());

describe("openOrgForJob", () => {
  test("a job's context writes in that org as the job's actor, with audit and events like a request", async () => {
    const orgId = (await t.createOrg()).id;
    const seen: string[] = [];
    const stop = t.rt.events.subscribe(orgId, (e) => seen.push(`${e.type} ${e.org_id}`));
    const ctx = (await t.rt.orgs.openOrgForJob(orgId, job))!;
    expect([ctx.org.id, ctx.actor.id, ctx.requestId]).toEqual([orgId, "system:test.job", "req-job"]);
    const row = await withTransaction(ctx, (s) => locationRecords.create(s, { name: "Made by a job", timezone: "UTC" }));
    const audit = await t.request("GET", `/api/v1/platform/audit?org_uuid=${orgId}&resource_type=location`, { token });
    expect(audit.body.items.map((e: any) => [e.resource_display_id, e.actor_id, e.trace_id])).toEqual([[row.id, "system:test.job", "req-job"]]);
    expect(seen).toEqual([`location.created ${orgId}`]);
    stop();
  });

  test("archived orgs are reachable (their data is kept); an unknown org is null", async () => {
    const orgId = (await t.createOrg()).id;
    expect((await t.request("POST", `/api/v1/admin/orgs/${orgId}/archive`, { token })).status).toBe(200);
    expect((await t.rt.orgs.openOrgForJob(orgId, job))?.org.status).toBe("archived");
    expect(await t.rt.orgs.openOrgForJob("01a1fe29-0000-7000-8000-000000000000", job)).toBeNull();
  });
});

describe("forEachOrg", () => {
  test("visits every org once (archived ones only when asked), each in its own database; one failing org does not stop the others", async () => {
    const [a, b, archived, broken] = [(await t.createOrg()).id, (await t.createOrg()).id, (await t.createOrg()).id, (await t.createOrg()).id];
    await t.request("POST", `/api/v1/admin/orgs/${archived}/archive`, { token });
    const org = (await t.rt.access.org(broken))!;
    t.rt.orgDbs.evict(broken);
    rmSync(orgDatabaseLocation(org.shard.dsn, broken).location, { force: true });

    const visited: string[] = [];
    const live = await t.rt.orgs.forEachOrg(job, { includeArchived: false }, async (ctx) => {
      visited.push(ctx.org.id);
      await withTransaction(ctx, (s) => locationRecords.create(s, { name: `In ${ctx.org.id}`, timezone: "UTC" }));
    });
    expect(visited).toContain(a);
    expect(visited).toContain(b);
    expect(visited).not.toContain(archived);
    expect(live.failed.map((f) => [f.orgId, f.error.message])).toEqual([[broken, "The organization's database is unavailable"]]);
    expect(live.total).toBe(visited.length + 1);
    expect((await locationCount(a))!.n).toBe(1);
    expect((await locationCount(b))!.n).toBe(1);
    expect((await locationCount(archived))!.n).toBe(0);

    const all: string[] = [];
    await t.rt.orgs.forEachOrg(job, { includeArchived: true }, async (ctx) => void all.push(ctx.org.id));
    expect(all).toContain(archived);
  });
});

describe("readExisting", () => {
  test("reads an org's database when it exists; null for an unknown org or a missing file, which is not created", async () => {
    const orgId = (await t.createOrg()).id;
    expect((await locationCount(orgId))!.n).toBe(0);
    expect(await locationCount("01a1fe29-0000-7000-8000-000000000000")).toBeNull();
    const org = (await t.rt.access.org(orgId))!;
    const file = orgDatabaseLocation(org.shard.dsn, orgId).location;
    t.rt.orgDbs.evict(orgId);
    rmSync(file, { force: true });
    expect(await locationCount(orgId)).toBeNull();
    expect(existsSync(file)).toBe(false);
  });
});

describe("provision and discard", () => {
  test("two admins creating one slug at once: one org, one 409 from the unique index, and no database left behind for the loser", async () => {
    const first = (await t.createOrg()).id;
    const dir = dirname(orgDatabaseLocation((await t.rt.access.org(first))!.shard.dsn, first).location);
    const files = () => readdirSync(dir).filter((f) => f.endsWith(".db")).length;
    const before = files();
    const slug = `race-${Date.now().toString(36)}`;
    const answers = await Promise.all([1, 2].map((n) => t.request("POST", "/api/v1/admin/orgs", { token, body: { name: `Race ${n}`, slug } })));
    expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(answers.find((r) => r.status === 409)!.body).toEqual({ detail: "An organization with this slug already exists", code: "duplicate" });
    expect(files()).toBe(before + 1);
  });
});
