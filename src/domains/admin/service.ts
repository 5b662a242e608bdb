import { and, asc, count, desc, eq, sql } from "drizzle-orm";
import { auditIndex, memberships, membershipGroups, orgs, permissionGroups, shards, users } from "@db/control/schema";
import { all, get, run, type Work } from "@/platform/db/work";
import { newId, nowIso } from "@/platform/ids";
import { Conflict, NotFound, VersionConflict, invalid } from "@/platform/errors";
import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";
import { orgDatabaseLocation } from "@/platform/db/open";
import { withTransaction } from "@/platform/records/transaction";
import { audit } from "@/platform/audit/audit";
import { pageOf, offsetOf, type Paging } from "@/platform/records/paging";
import type { Runtime } from "@/platform/runtime";
import type { Actor } from "@/platform/auth/actor";
import type { OrgContext } from "@/platform/records/context";
import type { Organization, OrgCreate, OrgPatch, Shard, ShardCreate } from "./schemas";
import { rmSync } from "node:fs";

type OrgRow = typeof orgs.$inferSelect;
type ShardRow = typeof shards.$inferSelect;
type Caller = { actor: Actor; requestId: string | null; ip: string | null };

export const serializeShard = (s: ShardRow): Shard => ({
  id: s.id, name: s.name, region: s.region, is_active: s.is_active, max_orgs: s.max_orgs,
  backend: s.dsn.includes("{db}") ? "remote" : "local", created_at: s.created_at, version: s.version,
});

export function serializeOrg(o: OrgRow, s: Pick<ShardRow, "id" | "name" | "region">): Organization {
  return {
    id: o.id, name: o.name, slug: o.slug, account_type: o.account_type, status: o.status as Organization["status"], onboarding_status: o.onboarding_status,
    max_locations: o.max_locations, schema_name: o.schema_name, shard: { id: s.id, name: s.name, region: s.region },
    billing_email: o.billing_email, contact_email: o.contact_email, contact_name: o.contact_name, contact_phone: o.contact_phone,
    hq_address_line1: o.hq_address_line1, hq_address_line2: o.hq_address_line2, hq_city: o.hq_city, hq_country: o.hq_country,
    hq_postal_code: o.hq_postal_code, hq_state: o.hq_state, internal_notes: o.internal_notes, tax_id: o.tax_id, website: o.website,
    created_at: o.created_at, updated_at: o.updated_at, deleted_at: o.deleted_at, version: o.version,
  };
}

function* orgWithShard(db: any, id: string): Work<{ org: OrgRow; shard: ShardRow } | undefined> {
  return yield* get(db.select({ org: orgs, shard: shards }).from(orgs).innerJoin(shards, eq(shards.id, orgs.shard_id)).where(eq(orgs.id, id)));
}

/** An org context for platform actions, so their audit rows land in the org's own trail. */
async function adminOrgContext(rt: Runtime, orgId: string, caller: Caller): Promise<OrgContext> {
  const row = await rt.control.read((db) => orgWithShard(db, orgId));
  if (!row) throw new NotFound("Organization");
  const shard = { id: row.shard.id, dsn: row.shard.dsn, auth_token: row.shard.auth_token };
  const db = await rt.orgDbs.get(orgId, shard);
  return { runtime: rt, org: { id: row.org.id, name: row.org.name, slug: row.org.slug, status: row.org.status, shard }, db, ...caller };
}

/** The active shard with the most free room, or 409 when every shard is full. */
function* pickShard(db: any): Work<ShardRow> {
  const rows = yield* all<ShardRow & { n: number }>(
    db.select({ ...shards, n: sql<number>`(SELECT count(*) FROM orgs o WHERE o.shard_id = "shards"."id")` }).from(shards).where(eq(shards.is_active, true)),
  );
  const open = rows.filter((r) => r.n < r.max_orgs).sort((a, b) => a.n / a.max_orgs - b.n / b.max_orgs || a.created_at.localeCompare(b.created_at));
  if (!open.length) throw new Conflict("No active shard has free capacity", "no_shard_capacity");
  return open[0]!;
}

export async function createOrg(rt: Runtime, input: OrgCreate, caller: Caller & { userId: string }) {
  const adminUserId = input.admin_user_uuid ?? caller.userId;
  const { admin_user_uuid: _ignored, ...fields } = input;
  const orgId = newId();
  const shard = await rt.control.read(function* (db) {
    const admin = yield* get(db.select({ id: users.id }).from(users).where(eq(users.id, adminUserId)));
    if (!admin) throw new NotFound("User");
    const taken = yield* get(db.select({ id: orgs.id }).from(orgs).where(eq(orgs.slug, input.slug)));
    if (taken) throw new Conflict("An organization with this slug already exists");
    return yield* pickShard(db);
  });
  const target = { id: shard.id, dsn: shard.dsn, auth_token: shard.auth_token };
  await rt.orgDbs.provision(orgId, target);
  const now = nowIso();
  try {
    await rt.control.write(function* (tx) {
      yield* run(tx.insert(orgs).values({
        ...fields, id: orgId, account_type: fields.account_type ?? "practice", status: "active", onboarding_status: "pending",
        max_locations: fields.max_locations ?? 10, schema_name: `org_${orgId.replaceAll("-", "")}`, shard_id: shard.id,
        created_at: now, updated_at: now, version: 1,
      }));
      const groupId = newId();
      yield* run(tx.insert(permissionGroups).values({
        id: groupId, org_id: orgId, name: "Organization administrators", description: "Holds every org permission key",
        permission_keys: ORG_PERMISSION_KEYS, status: "active", is_system: true, is_org_admin: true, created_by: caller.actor.id, created_at: now, updated_at: now, version: 1,
      }));
      const membershipId = newId();
      yield* run(tx.insert(memberships).values({ id: membershipId, org_id: orgId, user_id: adminUserId, status: "active", joined_at: now, created_at: now, updated_at: now, version: 1 }));
      yield* run(tx.insert(membershipGroups).values({ membership_id: membershipId, group_id: groupId }));
    });
  } catch (err) {
    rt.orgDbs.evict(orgId);
    const loc = orgDatabaseLocation(shard.dsn, orgId);
    if (loc.kind === "local") for (const suffix of ["", "-wal", "-shm"]) rmSync(loc.location + suffix, { force: true });
    if (String((err as Error).message).includes("UNIQUE")) throw new Conflict("An organization with this slug already exists");
    throw err;
  }
  await rt.access.invalidate();
  const created = await getOrg(rt, orgId);
  const ctx = await adminOrgContext(rt, orgId, caller);
  await withTransaction(ctx, function* (s) {
    yield* audit(s, { action: "organization.created", resource_type: "organization", resource_id: orgId, before: null, after: created });
  });
  return created;
}

export async function getOrg(rt: Runtime, id: string): Promise<Organization> {
  const row = await rt.control.read((db) => orgWithShard(db, id));
  if (!row) throw new NotFound("Organization");
  return serializeOrg(row.org, row.shard);
}

export async function listOrgs(rt: Runtime, q: Paging & { status?: string }) {
  return rt.control.read(function* (db) {
    const where = q.status ? eq(orgs.status, q.status) : undefined;
    const total = yield* get<{ n: number }>(db.select({ n: count() }).from(orgs).where(where));
    const rows = yield* all<{ org: OrgRow; shard: ShardRow }>(
      db.select({ org: orgs, shard: shards }).from(orgs).innerJoin(shards, eq(shards.id, orgs.shard_id)).where(where).orderBy(asc(orgs.name), asc(orgs.id)).limit(q.page_size).offset(offsetOf(q)),
    );
    return pageOf(rows.map((r) => serializeOrg(r.org, r.shard)), total?.n ?? 0, q);
  });
}

async function changeOrg(rt: Runtime, id: string, baseVersion: number | undefined, patch: Partial<OrgRow>, action: string, caller: Caller) {
  const before = await getOrg(rt, id);
  if (baseVersion !== undefined && before.version !== baseVersion) throw new VersionConflict(before.version);
  if (patch.slug && patch.slug !== before.slug) {
    const taken = await rt.control.read((db) => get(db.select({ id: orgs.id }).from(orgs).where(eq(orgs.slug, patch.slug!))));
    if (taken) throw new Conflict("An organization with this slug already exists");
  }
  const updated = await rt.control.write(function* (tx) {
    return yield* get<OrgRow>(tx.update(orgs).set({ ...patch, version: before.version + 1, updated_at: nowIso() }).where(and(eq(orgs.id, id), eq(orgs.version, before.version))).returning());
  });
  if (!updated) throw new VersionConflict();
  await rt.access.invalidate();
  const after = await getOrg(rt, id);
  const ctx = await adminOrgContext(rt, id, caller);
  await withTransaction(ctx, function* (s) {
    yield* audit(s, { action: `organization.${action}`, resource_type: "organization", resource_id: id, before, after });
  });
  return after;
}

export function updateOrg(rt: Runtime, id: string, input: OrgPatch, caller: Caller) {
  const { base_version, ...patch } = input;
  return changeOrg(rt, id, base_version, patch, "updated", caller);
}

export async function archiveOrg(rt: Runtime, id: string, caller: Caller) {
  const current = await getOrg(rt, id);
  if (current.deleted_at) return current;
  return changeOrg(rt, id, undefined, { status: "archived", deleted_at: nowIso() }, "archived", caller);
}

// ---- shards ----

function validateDsn(dsn: string) {
  try {
    if (dsn.includes("{db}")) {
      const u = new URL(dsn.replaceAll("{db}", "db"));
      if (!["libsql:", "http:", "https:", "ws:", "wss:", "file:"].includes(u.protocol)) throw new Error();
    } else orgDatabaseLocation(dsn, "00000000-0000-0000-0000-000000000000");
  } catch {
    throw invalid(["body", "dsn"], "Must be file:<directory> or a libsql/http(s) URL template containing {db}", "format");
  }
}

export async function createShard(rt: Runtime, input: ShardCreate, caller: Caller) {
  validateDsn(input.dsn);
  const now = nowIso();
  const row = await rt.control.write(function* (tx) {
    const taken = yield* get(tx.select({ id: shards.id }).from(shards).where(eq(shards.name, input.name)));
    if (taken) throw new Conflict("A shard with this name already exists");
    const created = (yield* get<ShardRow>(tx.insert(shards).values({
      id: newId(), name: input.name, dsn: input.dsn, auth_token: input.auth_token ?? null, region: input.region ?? "local",
      is_active: input.is_active ?? true, max_orgs: input.max_orgs ?? 1000, created_at: now, updated_at: now, version: 1,
    }).returning()))!;
    yield* run(tx.insert(auditIndex).values({
      id: newId(), org_id: null, org_name: null, actor_id: caller.actor.id, actor_type: caller.actor.type === "user" ? "user" : "system",
      actor_display_name: caller.actor.display_name, action: "shard.created", resource_type: "shard", resource_id: created.id,
      request_id: caller.requestId, ip_address: caller.ip, created_at: now,
    }));
    return created;
  });
  return serializeShard(row);
}

export async function listShards(rt: Runtime, q: Paging & { is_active?: boolean }) {
  return rt.control.read(function* (db) {
    const where = q.is_active === undefined ? undefined : eq(shards.is_active, q.is_active);
    const total = yield* get<{ n: number }>(db.select({ n: count() }).from(shards).where(where));
    const rows = yield* all<ShardRow>(db.select().from(shards).where(where).orderBy(asc(shards.created_at), asc(shards.id)).limit(q.page_size).offset(offsetOf(q)));
    return pageOf(rows.map(serializeShard), total?.n ?? 0, q);
  });
}

export async function getShard(rt: Runtime, id: string) {
  const row = await rt.control.read((db) => get<ShardRow>(db.select().from(shards).where(eq(shards.id, id))));
  if (!row) throw new NotFound("Shard");
  return serializeShard(row);
}

export async function shardCapacity(rt: Runtime, id: string) {
  const shard = await getShard(rt, id);
  const n = await rt.control.read((db) => get<{ n: number }>(db.select({ n: count() }).from(orgs).where(eq(orgs.shard_id, id))));
  const current = n?.n ?? 0;
  return {
    shard_id: shard.id, max_orgs: shard.max_orgs, current_orgs: current,
    available_slots: Math.max(0, shard.max_orgs - current), utilization_percent: Math.round((current / shard.max_orgs) * 10000) / 100,
  };
}
export { desc };
