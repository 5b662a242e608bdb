import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createMember, startTestApp, unique, waitForEvent, type TestApp } from "@tests/helpers";
import type { EventEnvelope } from "@/platform/events/envelope";
import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";
import { memberships, permissionGroups, orgs, shards as shardsTable } from "@db/control/schema";
import { all, run } from "@/platform/db/work";
import { eq } from "drizzle-orm";
import { existsSync } from "node:fs";
import { join } from "node:path";

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await startTestApp();
  token = await t.adminToken();
});
afterAll(() => t.close());

const orgCount = async () => (await t.rt.control.read((db) => all(db.select().from(orgs)))).length;

describe("admin orgs", () => {
  test("create places the org on a shard, provisions and migrates its database, and makes the caller org admin", async () => {
    const slug = unique("clinic");
    const r = await t.request("POST", "/api/v1/admin/orgs", {
      token,
      body: { name: "Smile Clinic", slug, contact_email: "ops@smile.example", hq_city: "Denver", max_locations: 3 },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: "Smile Clinic",
      slug,
      account_type: "practice",
      status: "active",
      onboarding_status: "pending",
      max_locations: 3,
      contact_email: "ops@smile.example",
      hq_city: "Denver",
      version: 1,
    });
    expect(r.body.schema_name).toBe(`org_${r.body.id.replaceAll("-", "")}`);
    expect(r.body.shard.name).toBe("default");
    expect(existsSync(join(t.dir, "shards", "local", `${r.body.id}.db`))).toBe(true);
    const groups = await t.rt.control.read((db) =>
      all<{ is_org_admin: boolean; permission_keys: string[] }>(db.select().from(permissionGroups).where(eq(permissionGroups.org_id, r.body.id))),
    );
    expect(groups).toHaveLength(1);
    expect(groups[0]!.is_org_admin).toBe(true);
    expect(groups[0]!.permission_keys).toEqual(ORG_PERMISSION_KEYS);
    const me = await t.request("GET", "/api/v1/auth/me/orgs", { token });
    expect(me.body.orgs).toContainEqual({ id: r.body.id, name: "Smile Clinic", slug, status: "active", membership_status: "active", is_org_admin: true });
    // the org is usable at once
    expect((await t.request("GET", `/api/v1/${r.body.id}/locations`, { token })).status).toBe(200);
  });

  test("admin_user_uuid becomes the org administrator", async () => {
    const user = await createMember(t, null, []);
    const org = (await t.request("POST", "/api/v1/admin/orgs", { token, body: { name: "Theirs", slug: unique("theirs"), admin_user_uuid: user.userId } })).body;
    const rows = await t.rt.control.read((db) => all<{ user_id: string }>(db.select().from(memberships).where(eq(memberships.org_id, org.id))));
    expect(rows.map((m) => m.user_id)).toEqual([user.userId]);
    const fresh = await t.login(user.email, user.password);
    const me = await t.request("GET", "/api/v1/auth/me/orgs", { token: fresh.access_token });
    expect(me.body).toEqual({
      is_platform_admin: false,
      orgs: [{ id: org.id, name: "Theirs", slug: org.slug, status: "active", membership_status: "active", is_org_admin: true }],
    });
    expect((await t.request("POST", `/api/v1/${org.id}/locations`, { token: fresh.access_token, body: { name: "Mine", timezone: "UTC" } })).status).toBe(201);
  });

  test("errors: duplicate slug 409, unknown admin user 404, invalid fields 422; nothing is created", async () => {
    const before = await orgCount();
    const slug = unique("dup");
    await t.request("POST", "/api/v1/admin/orgs", { token, body: { name: "A", slug } });
    const dup = await t.request("POST", "/api/v1/admin/orgs", { token, body: { name: "B", slug } });
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe("duplicate");
    const nouser = await t.request("POST", "/api/v1/admin/orgs", {
      token,
      body: { name: "C", slug: unique("c"), admin_user_uuid: "01a1fe29-0000-7000-8000-000000000000" },
    });
    expect(nouser.status).toBe(404);
    const bad = await t.request("POST", "/api/v1/admin/orgs", { token, body: { name: "D", slug: "Not A Slug", max_locations: 0, status: "active" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail.map((d: { loc: string[] }) => d.loc[1])).toEqual(["slug", "max_locations", "status"]);
    expect(await orgCount()).toBe(before + 1);
  });

  test("list with paging (default 20) and status filter; get; 404", async () => {
    const list = await t.request("GET", "/api/v1/admin/orgs", { token });
    expect(list.status).toBe(200);
    expect(list.body.page_size).toBe(20);
    expect(list.body.total).toBe(await orgCount());
    const one = list.body.items[0];
    expect((await t.request("GET", `/api/v1/admin/orgs/${one.id}`, { token })).body).toEqual(one);
    expect((await t.request("GET", "/api/v1/admin/orgs/01a1fe29-0000-7000-8000-000000000000", { token })).status).toBe(404);
    const suspended = await t.request("GET", "/api/v1/admin/orgs?status=suspended", { token });
    expect(suspended.body.total).toBe(0);
    expect((await t.request("GET", "/api/v1/admin/orgs?status=bogus", { token })).status).toBe(422);
  });

  test("patch with base_version (409 stale), onboarding_status; archive", async () => {
    const org = await t.createOrg();
    const p = await t.request("PATCH", `/api/v1/admin/orgs/${org.id}`, { token, body: { base_version: 1, name: "Renamed", onboarding_status: "in_progress" } });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ name: "Renamed", onboarding_status: "in_progress", version: 2 });
    const stale = await t.request("PATCH", `/api/v1/admin/orgs/${org.id}`, { token, body: { base_version: 1, name: "Lost" } });
    expect(stale.status).toBe(409);
    expect((await t.request("GET", `/api/v1/admin/orgs/${org.id}`, { token })).body.name).toBe("Renamed");
    expect((await t.request("PATCH", `/api/v1/admin/orgs/${org.id}`, { token, body: { base_version: 2, schema_name: "x" } })).status).toBe(422);
    const a = await t.request("POST", `/api/v1/admin/orgs/${org.id}/archive`, { token });
    expect(a.status).toBe(200);
    expect(a.body.status).toBe("archived");
    expect(a.body.deleted_at).toBeString();
    expect((await t.request("GET", `/api/v1/${org.id}/locations`, { token })).status).toBe(404);
    expect((await t.request("POST", "/api/v1/admin/orgs/01a1fe29-0000-7000-8000-000000000000/archive", { token })).status).toBe(404);
  });

  test("the org's own event stream hears what the platform did to it: updated, then archived", async () => {
    const org = await t.createOrg();
    const events: EventEnvelope[] = [];
    t.rt.events.subscribe(org.id, (e) => events.push(e));
    expect((await t.request("PATCH", `/api/v1/admin/orgs/${org.id}`, { token, body: { base_version: 1, name: "Evented" } })).status).toBe(200);
    expect((await t.request("POST", `/api/v1/admin/orgs/${org.id}/archive`, { token })).status).toBe(200);
    const updated = await waitForEvent(events, (e) => e.type === "organization.updated");
    const archived = await waitForEvent(events, (e) => e.type === "organization.archived");
    expect({ resource: updated.resource_id, data: updated.data }).toEqual({ resource: org.id, data: { id: org.id, status: "active", version: 2 } });
    expect({ resource: archived.resource_id, data: archived.data }).toEqual({ resource: org.id, data: { id: org.id, status: "archived", version: 3 } });
  });

  test("401 without a token, 403 for a user without platform keys", async () => {
    expect((await t.request("GET", "/api/v1/admin/orgs")).status).toBe(401);
    const member = await createMember(t, (await t.createOrg()).id, ORG_PERMISSION_KEYS);
    const before = await orgCount();
    const r = await t.request("POST", "/api/v1/admin/orgs", { token: member.token, body: { name: "X", slug: unique("x") } });
    expect(r.status).toBe(403);
    expect(await orgCount()).toBe(before);
  });
});

describe("admin shards", () => {
  test("create, list, get, capacity; orgs go to a shard with free capacity; 409 when all are full", async () => {
    const own = await startTestApp();
    try {
      const tk = await own.adminToken();
      const shards = (await own.request("GET", "/api/v1/admin/shards", { token: tk })).body;
      expect(shards.total).toBe(1);
      expect(shards.page_size).toBe(20);
      const dflt = shards.items[0];
      expect(dflt).toMatchObject({ name: "default", is_active: true, backend: "local", max_orgs: 10000 });
      expect(Object.keys(dflt)).not.toContain("dsn");
      const small = await own.request("POST", "/api/v1/admin/shards", {
        token: tk,
        body: { name: "small", dsn: `file:${join(own.dir, "small")}`, region: "eu-west", max_orgs: 1 },
      });
      expect(small.status).toBe(201);
      expect(small.body).toMatchObject({ name: "small", region: "eu-west", max_orgs: 1, is_active: true, backend: "local", version: 1 });
      await own.request("POST", "/api/v1/admin/shards", { token: tk, body: { name: "off", dsn: `file:${join(own.dir, "off")}`, is_active: false } });
      expect((await own.request("GET", "/api/v1/admin/shards?is_active=false", { token: tk })).body.items.map((s: { name: string }) => s.name)).toEqual([
        "off",
      ]);
      // the least utilized active shard wins (ties go to the oldest): default, then the empty "small", then default again
      const shardOf = (o: unknown) => (o as { shard: { name: string } }).shard.name;
      expect(shardOf(await own.createOrg(tk))).toBe("default");
      expect(shardOf(await own.createOrg(tk))).toBe("small");
      const cap = await own.request("GET", `/api/v1/admin/shards/${small.body.id}/capacity`, { token: tk });
      expect(cap.body).toEqual({ shard_id: small.body.id, max_orgs: 1, current_orgs: 1, available_slots: 0, utilization_percent: 100 });
      expect(shardOf(await own.createOrg(tk))).toBe("default");
      expect((await own.request("GET", `/api/v1/admin/shards/${small.body.id}`, { token: tk })).body.name).toBe("small");
      expect((await own.request("GET", "/api/v1/admin/shards/01a1fe29-0000-7000-8000-000000000000", { token: tk })).status).toBe(404);
      expect((await own.request("GET", "/api/v1/admin/shards/01a1fe29-0000-7000-8000-000000000000/capacity", { token: tk })).status).toBe(404);
      // fill the default shard by deactivating it: no capacity anywhere
      await own.rt.control.write((tx) => run(tx.update(shardsTable).set({ is_active: false }).where(eq(shardsTable.name, "default"))));
      const full = await own.request("POST", "/api/v1/admin/orgs", { token: tk, body: { name: "No room", slug: unique("noroom") } });
      expect(full.status).toBe(409);
      expect(full.body.code).toBe("no_shard_capacity");
    } finally {
      await own.close();
    }
  });

  test("shard validation: bad dsn, bad max_orgs, duplicate name", async () => {
    const bad = await t.request("POST", "/api/v1/admin/shards", { token, body: { name: "bad", dsn: "postgres://nope" } });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(["body", "dsn"]);
    const max = await t.request("POST", "/api/v1/admin/shards", { token, body: { name: "bad2", dsn: "file:/tmp/x", max_orgs: 0 } });
    expect(max.status).toBe(422);
    expect(max.body.detail[0].loc).toEqual(["body", "max_orgs"]);
    await t.request("POST", "/api/v1/admin/shards", { token, body: { name: "twice", dsn: `file:${join(t.dir, "twice")}` } });
    const dup = await t.request("POST", "/api/v1/admin/shards", { token, body: { name: "twice", dsn: `file:${join(t.dir, "twice2")}` } });
    expect(dup.status).toBe(409);
  });
});
