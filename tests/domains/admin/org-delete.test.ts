import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { auditIndex, orgs } from "@db/control/schema";
import { all, get } from "@/platform/db/work";
import { systemActor } from "@/platform/auth/actor";
import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";
import { orgsPurge } from "@/domains/admin/purge.job";
import { createMember, createPlatformUser, startTestApp, type TestApp } from "@tests/helpers";
import { handlerOf } from "@tests/support/jobs";

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
});
afterAll(() => t.close());

const DAY = 86_400_000;
const orgRow = (app: TestApp, id: string) => app.rt.control.read((db) => get<typeof orgs.$inferSelect>(db.select().from(orgs).where(eq(orgs.id, id))));
const dbFile = (app: TestApp, id: string) => join(app.dir, "shards", "local", `${id}.db`);
const auditOf = (app: TestApp, id: string) =>
  app.rt.control.read((db) => all<typeof auditIndex.$inferSelect>(db.select().from(auditIndex).where(eq(auditIndex.resource_id, id))));

/** The orgs.purge job, run by hand as the worker would run it. */
async function runPurge(app: TestApp) {
  const { default: handler } = await handlerOf(orgsPurge);
  const actor = systemActor(orgsPurge.id);
  return handler({
    rt: app.rt,
    payload: {},
    actor,
    causedBy: actor,
    orgId: null,
    requestId: null,
    job: { id: "by-hand", name: orgsPurge.id, retryCount: 0 },
    logger: app.rt.logger,
  });
}

async function archivedOrgWithMember(app: TestApp, tk: string) {
  const org = await app.createOrg(tk);
  const member = await createMember(app, org.id, ORG_PERMISSION_KEYS);
  expect((await app.request("GET", `/api/v1/${org.id}/locations`, { token: member.token })).status).toBe(200);
  const archived = await app.request("POST", `/api/v1/admin/orgs/${org.id}/archive`, { token: tk });
  expect(archived.status).toBe(200);
  return { org, member, version: archived.body.version as number };
}

describe("DELETE /api/v1/admin/orgs/{org_id}", () => {
  test("an org that is not archived is refused with 422 and stays as it was", async () => {
    const org = await t.createOrg();
    const member = await createMember(t, org.id, ORG_PERMISSION_KEYS);
    const before = await orgRow(t, org.id);
    const r = await t.request("DELETE", `/api/v1/admin/orgs/${org.id}`, { token });
    expect(r.status).toBe(422);
    expect(r.body.code).toBe("invalid_transition");
    expect(r.body.detail[0].loc).toEqual(["path", "org_id"]);
    expect(await orgRow(t, org.id)).toEqual(before);
    expect((await t.request("GET", `/api/v1/${org.id}/locations`, { token: member.token })).status).toBe(200);
  });

  test("end to end: archive, delete, the org is gone everywhere, the file is removed by orgs.purge after the grace period, idempotently; audited", async () => {
    const { org, member, version } = await archivedOrgWithMember(t, token);
    const r = await t.request("DELETE", `/api/v1/admin/orgs/${org.id}`, { token });
    expect(r.status).toBe(200);
    const row = (await orgRow(t, org.id))!;
    expect(row).toMatchObject({ status: "deleted", version: version + 1, purged_at: null });
    // default grace: 30 days
    const graceMs = Date.parse(row.purge_after!) - Date.parse(row.updated_at);
    expect(Math.round(graceMs / DAY)).toBe(30);
    expect(r.body).toEqual({ detail: `Organization deleted; its database will be removed after ${row.purge_after}` });

    // gone from every API and list
    expect((await t.request("GET", `/api/v1/${org.id}/locations`, { token: member.token })).status).toBe(404);
    expect((await t.request("GET", `/api/v1/${org.id}/locations`, { token })).status).toBe(404);
    expect((await t.request("GET", `/api/v1/admin/orgs/${org.id}`, { token })).status).toBe(404);
    expect((await t.request("PATCH", `/api/v1/admin/orgs/${org.id}`, { token, body: { base_version: version + 1, name: "Back" } })).status).toBe(404);
    expect((await t.request("POST", `/api/v1/admin/orgs/${org.id}/archive`, { token })).status).toBe(404);
    expect((await t.request("DELETE", `/api/v1/admin/orgs/${org.id}`, { token })).status).toBe(404);
    const ids = (body: { items: { id: string }[] }) => body.items.map((o) => o.id);
    for (const path of [
      "/api/v1/admin/orgs?page_size=200",
      "/api/v1/admin/orgs?status=archived",
      "/api/v1/platform/orgs?page_size=100",
      "/api/v1/internal/orgs?status=all",
    ]) {
      const list = await t.request("GET", path, { token });
      expect([path, list.status, ids(list.body).includes(org.id)]).toEqual([path, 200, false]);
    }
    const me = await t.request("GET", "/api/v1/auth/me/orgs", { token: member.token });
    expect(me.body.orgs).toEqual([]);

    // within the grace period the file stays
    expect(existsSync(dbFile(t, org.id))).toBe(true);
    expect(await runPurge(t)).toEqual({ orgs_due: 0, orgs_purged: 0, orgs_skipped: 0, orgs_failed: 0 });
    expect(existsSync(dbFile(t, org.id))).toBe(true);

    // 31 days later the job removes it, once
    setSystemTime(new Date(Date.now() + 31 * DAY));
    try {
      expect(await runPurge(t)).toEqual({ orgs_due: 1, orgs_purged: 1, orgs_skipped: 0, orgs_failed: 0 });
      expect(existsSync(dbFile(t, org.id))).toBe(false);
      expect(existsSync(`${dbFile(t, org.id)}-wal`)).toBe(false);
      expect((await orgRow(t, org.id))!.purged_at).toBeString();
      expect(await runPurge(t)).toEqual({ orgs_due: 0, orgs_purged: 0, orgs_skipped: 0, orgs_failed: 0 });
      // jobs over every org no longer visit it
      const visited: string[] = [];
      const actor = systemActor("test");
      const done = await t.rt.orgs.forEachOrg({ actor, requestId: null }, { includeArchived: true }, async (ctx) => void visited.push(ctx.org.id));
      expect(done.failed).toEqual([]);
      expect(visited).not.toContain(org.id);
      expect(await t.rt.orgs.openOrgForJob(org.id, { actor, requestId: null })).toBeNull();
    } finally {
      setSystemTime();
    }
    const audit = await auditOf(t, org.id);
    expect(audit.map((a) => [a.action, a.org_id, a.actor_id])).toEqual([
      ["organization.created", org.id, audit[0]!.actor_id],
      ["organization.archived", org.id, audit[0]!.actor_id],
      ["organization.deleted", org.id, audit[0]!.actor_id],
      ["organization.database_purged", null, "system:orgs.purge"],
    ]);
    expect(audit[2]!.actor_type).toBe("user");
  });

  test("with ORG_PURGE_GRACE_DAYS=0 the next run purges at once; a live org's database is never purged", async () => {
    const own = await startTestApp({ ORG_PURGE_GRACE_DAYS: "0" });
    try {
      const tk = await own.adminToken();
      const live = await own.createOrg(tk);
      const { org } = await archivedOrgWithMember(own, tk);
      expect((await own.request("DELETE", `/api/v1/admin/orgs/${org.id}`, { token: tk })).status).toBe(200);
      expect(await runPurge(own)).toEqual({ orgs_due: 1, orgs_purged: 1, orgs_skipped: 0, orgs_failed: 0 });
      expect(existsSync(dbFile(own, org.id))).toBe(false);
      expect(existsSync(dbFile(own, live.id))).toBe(true);
      await expect(own.rt.orgs.purgeDatabase(live.id)).rejects.toThrow("not a deleted org");
      expect(existsSync(dbFile(own, live.id))).toBe(true);
      expect((await own.request("GET", `/api/v1/${live.id}/locations`, { token: tk })).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  test("an org on a remote libSQL shard is deleted but its database is not purged (skipped, stays due)", async () => {
    const own = await startTestApp({ ORG_PURGE_GRACE_DAYS: "0" });
    try {
      const tk = await own.adminToken();
      await own.createOrg(tk); // fills the default shard first, so the next org goes to the remote one
      const dir = join(own.dir, "remote");
      mkdirSync(dir, { recursive: true });
      const shard = await own.request("POST", "/api/v1/admin/shards", { token: tk, body: { name: "remote", dsn: `file:${dir}/{db}.db` } });
      expect(shard.body.backend).toBe("remote");
      const { org } = await archivedOrgWithMember(own, tk);
      const file = join(dir, `org_${org.id.replaceAll("-", "")}.db`);
      expect(existsSync(file)).toBe(true);
      expect((await own.request("DELETE", `/api/v1/admin/orgs/${org.id}`, { token: tk })).status).toBe(200);
      expect(await runPurge(own)).toEqual({ orgs_due: 1, orgs_purged: 0, orgs_skipped: 1, orgs_failed: 0 });
      expect(existsSync(file)).toBe(true);
      expect((await orgRow(own, org.id))!.purged_at).toBeNull();
      expect(await runPurge(own)).toMatchObject({ orgs_due: 1, orgs_skipped: 1 });
    } finally {
      await own.close();
    }
  });

  test("404 unknown org; 409 stale base_version; 401; 403 without platform.orgs.manage; nothing changes", async () => {
    const { org, version } = await archivedOrgWithMember(t, token);
    const before = await orgRow(t, org.id);
    expect((await t.request("DELETE", "/api/v1/admin/orgs/01a1fe29-0000-7000-8000-000000000000", { token })).status).toBe(404);
    expect((await t.request("DELETE", "/api/v1/admin/orgs/not-an-id", { token })).status).toBe(404);
    const stale = await t.request("DELETE", `/api/v1/admin/orgs/${org.id}?base_version=${version - 1}`, { token });
    expect([stale.status, stale.body.code]).toEqual([409, "version_conflict"]);
    expect((await t.request("DELETE", `/api/v1/admin/orgs/${org.id}?base_version=zero`, { token })).status).toBe(422);
    expect((await t.request("DELETE", `/api/v1/admin/orgs/${org.id}`)).status).toBe(401);
    const reader = await createPlatformUser(t, "Org reader", ["platform.orgs.list"]);
    expect((await t.request("DELETE", `/api/v1/admin/orgs/${org.id}`, { token: reader.token })).status).toBe(403);
    expect(await orgRow(t, org.id)).toEqual(before);
    const ok = await t.request("DELETE", `/api/v1/admin/orgs/${org.id}?base_version=${version}`, { token });
    expect(ok.status).toBe(200);
  });
});
