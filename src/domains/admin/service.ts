import { and, asc, count, eq, getTableColumns, isNull, ne, sql } from "drizzle-orm";
import { platformAudit } from "@/platform/audit/audit";
import { iamAssignments, memberships, orgs, permissionGroups, shards, users } from "@db/control/schema";
import { all, get, run, type Work } from "@/platform/db/work";
import { newId, nowIso } from "@/platform/ids";
import { Conflict, NotFound, invalid } from "@/platform/errors";
import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";
import { isReplicatedDsn, orgDatabaseLocation } from "@/platform/db/open";
import { declareUniqueConflict } from "@/platform/db/constraints";
import { pageFrom, type Paging } from "@/platform/records/paging";
import { checkVersion, updatedOrConflict } from "@/platform/records/versions";
import type { PlatformRuntime } from "@/platform/runtime";
import { systemActor, type Caller } from "@/platform/auth/actor";
import type { Organization, OrgCreate, OrgMove, OrgPatch, Shard, ShardCreate } from "./schemas";
import { orgsMove } from "./move.job";
import { orgWideAssignmentRow } from "@/platform/tenancy/grants";

type OrgRow = typeof orgs.$inferSelect;
type ShardRow = typeof shards.$inferSelect;

// two admins creating the same slug at once: the unique index decides
declareUniqueConflict("orgs.slug", "An organization with this slug already exists");

/** The org's own stream hears what the platform did to it (created, updated, archived, deleted). */
const orgEvent = (action: string, org: { id: string; status: string; version: number }) => ({
  type: `organization.${action}`,
  resource_type: "organization",
  resource_id: org.id,
  data: { id: org.id, status: org.status, version: org.version },
});

export const serializeShard = (s: ShardRow): Shard => ({
  id: s.id,
  name: s.name,
  region: s.region,
  is_active: s.is_active,
  max_orgs: s.max_orgs,
  backend: s.dsn.includes("{db}") ? "remote" : "local",
  created_at: s.created_at,
  version: s.version,
});

export function serializeOrg(o: OrgRow, s: Pick<ShardRow, "id" | "name" | "region">): Organization {
  return {
    id: o.id,
    name: o.name,
    slug: o.slug,
    account_type: o.account_type,
    status: o.status as Organization["status"],
    onboarding_status: o.onboarding_status,
    max_locations: o.max_locations,
    schema_name: o.schema_name,
    shard: { id: s.id, name: s.name, region: s.region },
    billing_email: o.billing_email,
    contact_email: o.contact_email,
    contact_name: o.contact_name,
    contact_phone: o.contact_phone,
    hq_address_line1: o.hq_address_line1,
    hq_address_line2: o.hq_address_line2,
    hq_city: o.hq_city,
    hq_country: o.hq_country,
    hq_postal_code: o.hq_postal_code,
    hq_state: o.hq_state,
    internal_notes: o.internal_notes,
    tax_id: o.tax_id,
    website: o.website,
    created_at: o.created_at,
    updated_at: o.updated_at,
    deleted_at: o.deleted_at,
    version: o.version,
  };
}

function* orgWithShard(db: any, id: string): Work<{ org: OrgRow; shard: ShardRow } | undefined> {
  return yield* get(db.select({ org: orgs, shard: shards }).from(orgs).innerJoin(shards, eq(shards.id, orgs.shard_id)).where(eq(orgs.id, id)));
}

/** The active shard with the most free room, or 409 when every shard is full. */
function* pickShard(db: any): Work<ShardRow> {
  const rows = yield* all<ShardRow & { n: number }>(
    db
      .select({ ...shards, n: sql<number>`(SELECT count(*) FROM orgs o WHERE o.shard_id = "shards"."id" AND o.purged_at IS NULL)` })
      .from(shards)
      .where(eq(shards.is_active, true)),
  );
  const open = rows.filter((r) => r.n < r.max_orgs).sort((a, b) => a.n / a.max_orgs - b.n / b.max_orgs || a.created_at.localeCompare(b.created_at));
  if (!open.length) throw new Conflict("No active shard has free capacity", "no_shard_capacity");
  return open[0]!;
}

export async function createOrg(rt: PlatformRuntime, input: OrgCreate, caller: Caller & { userId: string }) {
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
  await rt.orgs.provision(orgId, target);
  const now = nowIso();
  try {
    return await rt.orgs.writeControl(function* (tx, audit) {
      yield* run(
        tx.insert(orgs).values({
          ...fields,
          id: orgId,
          account_type: fields.account_type ?? "practice",
          status: "active",
          onboarding_status: "pending",
          max_locations: fields.max_locations ?? 10,
          schema_name: `org_${orgId.replaceAll("-", "")}`,
          shard_id: shard.id,
          created_at: now,
          updated_at: now,
          version: 1,
        }),
      );
      const groupId = newId();
      yield* run(
        tx.insert(permissionGroups).values({
          id: groupId,
          org_id: orgId,
          name: "Organization administrators",
          description: "Holds every org permission key",
          permission_keys: ORG_PERMISSION_KEYS,
          status: "active",
          is_system: true,
          is_org_admin: true,
          created_by: caller.actor.id,
          created_at: now,
          updated_at: now,
          version: 1,
        }),
      );
      const membershipId = newId();
      yield* run(
        tx
          .insert(memberships)
          .values({ id: membershipId, org_id: orgId, user_id: adminUserId, status: "active", joined_at: now, created_at: now, updated_at: now, version: 1 }),
      );
      yield* run(
        tx
          .insert(iamAssignments)
          .values(orgWideAssignmentRow({ id: newId(), orgId, membershipId, userId: adminUserId, groupId, now, createdBy: caller.actor.id })),
      );
      const created = yield* requireOrg(tx, orgId);
      yield* audit(
        orgId,
        caller,
        { action: "organization.created", resource_type: "organization", resource_id: orgId, before: null, after: created },
        orgEvent("created", created),
      );
      return created;
    });
  } catch (err) {
    // the database was provisioned for an org that then was not created
    const exists = await rt.control.read((db) => get(db.select({ id: orgs.id }).from(orgs).where(eq(orgs.id, orgId))));
    if (!exists) rt.orgs.discard(orgId, target);
    throw err;
  }
}

function* requireOrg(db: any, id: string): Work<Organization> {
  const row = yield* orgWithShard(db, id);
  // a deleted org is gone for every API (docs/admin/admin.md); only its tombstone row stays
  if (!row || row.org.status === "deleted") throw new NotFound("Organization");
  return serializeOrg(row.org, row.shard);
}

export async function getOrg(rt: PlatformRuntime, id: string): Promise<Organization> {
  return rt.control.read((db) => requireOrg(db, id));
}

export async function listOrgs(rt: PlatformRuntime, q: Paging & { status?: string }) {
  const page = await rt.control.read((db) => {
    const where = q.status ? eq(orgs.status, q.status) : ne(orgs.status, "deleted");
    return pageFrom<{ org: OrgRow; shard: ShardRow }>(
      q,
      db.select({ n: count() }).from(orgs).where(where),
      db.select({ org: orgs, shard: shards }).from(orgs).innerJoin(shards, eq(shards.id, orgs.shard_id)).where(where).orderBy(asc(orgs.name), asc(orgs.id)),
    );
  });
  return { ...page, items: page.items.map((r) => serializeOrg(r.org, r.shard)) };
}

async function changeOrg(rt: PlatformRuntime, id: string, baseVersion: number | undefined, patch: Partial<OrgRow>, action: string, caller: Caller) {
  const before = await getOrg(rt, id);
  checkVersion(before, baseVersion);
  if (patch.slug && patch.slug !== before.slug) {
    const taken = await rt.control.read((db) => get(db.select({ id: orgs.id }).from(orgs).where(eq(orgs.slug, patch.slug!))));
    if (taken) throw new Conflict("An organization with this slug already exists");
  }
  return rt.orgs.writeControl(function* (tx, audit) {
    updatedOrConflict(
      yield* get<OrgRow>(
        tx
          .update(orgs)
          .set({ ...patch, version: before.version + 1, updated_at: nowIso() })
          .where(and(eq(orgs.id, id), eq(orgs.version, before.version)))
          .returning(),
      ),
    );
    const after = yield* requireOrg(tx, id);
    yield* audit(id, caller, { action: `organization.${action}`, resource_type: "organization", resource_id: id, before, after }, orgEvent(action, after));
    return after;
  });
}

export function updateOrg(rt: PlatformRuntime, id: string, input: OrgPatch, caller: Caller) {
  const { base_version, ...patch } = input;
  return changeOrg(rt, id, base_version, patch, "updated", caller);
}

export async function archiveOrg(rt: PlatformRuntime, id: string, caller: Caller) {
  const current = await getOrg(rt, id);
  if (current.deleted_at) return current;
  return changeOrg(rt, id, undefined, { status: "archived", deleted_at: nowIso() }, "archived", caller);
}

/**
 * DELETE of an org (docs/admin/admin.md): only an archived org (422 otherwise). Its
 * status becomes "deleted": it leaves every list and API at once, and the
 * orgs.purge job removes its database once purge_after (now + ORG_PURGE_GRACE_DAYS)
 * has passed. The row stays as a tombstone (audit, slug kept reserved).
 */
export async function deleteOrg(rt: PlatformRuntime, id: string, baseVersion: number | undefined, caller: Caller) {
  const before = await getOrg(rt, id);
  checkVersion(before, baseVersion);
  if (before.status !== "archived") {
    throw invalid(
      ["path", "org_id"],
      `Only an archived organization can be deleted (this one is ${before.status}); archive it first`,
      "invalid_transition",
      "invalid_transition",
    );
  }
  const purgeAfter = new Date(Date.now() + rt.config.orgPurgeGraceDays * 86_400_000).toISOString();
  await rt.orgs.writeControl(function* (tx, audit, now) {
    updatedOrConflict(
      yield* get<OrgRow>(
        tx
          .update(orgs)
          .set({ status: "deleted", purge_after: purgeAfter, version: before.version + 1, updated_at: now })
          .where(and(eq(orgs.id, id), eq(orgs.version, before.version), eq(orgs.status, "archived")))
          .returning(),
      ),
    );
    const after = { ...before, status: "deleted", purge_after: purgeAfter, version: before.version + 1, updated_at: now };
    yield* audit(id, caller, { action: "organization.deleted", resource_type: "organization", resource_id: id, before, after }, orgEvent("deleted", after));
  });
  return { detail: `Organization deleted; its database will be removed after ${purgeAfter}` };
}

// ---- shards ----

function validateDsn(dsn: string) {
  try {
    if (isReplicatedDsn(dsn)) orgDatabaseLocation(dsn, "00000000-0000-0000-0000-000000000000");
    else if (dsn.includes("{db}")) {
      const u = new URL(dsn.replaceAll("{db}", "db"));
      if (!["libsql:", "http:", "https:", "ws:", "wss:", "file:"].includes(u.protocol)) throw new Error();
    } else orgDatabaseLocation(dsn, "00000000-0000-0000-0000-000000000000");
  } catch {
    throw invalid(
      ["body", "dsn"],
      "Must be file:<directory>, a libsql/http(s) URL template containing {db}, turso-sync:<http(s) URL template containing {db}> or libsql-replica:<libsql/http(s) URL template containing {db}>",
      "format",
    );
  }
}

export async function createShard(rt: PlatformRuntime, input: ShardCreate, caller: Caller) {
  validateDsn(input.dsn);
  const now = nowIso();
  const row = await rt.control.write(function* (tx) {
    const taken = yield* get(tx.select({ id: shards.id }).from(shards).where(eq(shards.name, input.name)));
    if (taken) throw new Conflict("A shard with this name already exists");
    const created = (yield* get<ShardRow>(
      tx
        .insert(shards)
        .values({
          id: newId(),
          name: input.name,
          dsn: input.dsn,
          auth_token: input.auth_token ?? null,
          region: input.region ?? "local",
          is_active: input.is_active ?? true,
          max_orgs: input.max_orgs ?? 1000,
          created_at: now,
          updated_at: now,
          version: 1,
        })
        .returning(),
    ))!;
    // a platform-level entry: no org, so only the index holds it
    yield* platformAudit(tx, caller, now, { action: "shard.created", resource_type: "shard", resource_id: created.id });
    return created;
  });
  return serializeShard(row);
}

export async function listShards(rt: PlatformRuntime, q: Paging & { is_active?: boolean }) {
  const page = await rt.control.read((db) => {
    const where = q.is_active === undefined ? undefined : eq(shards.is_active, q.is_active);
    return pageFrom<ShardRow>(
      q,
      db.select({ n: count() }).from(shards).where(where),
      db.select().from(shards).where(where).orderBy(asc(shards.created_at), asc(shards.id)),
    );
  });
  return { ...page, items: page.items.map(serializeShard) };
}

export async function getShard(rt: PlatformRuntime, id: string) {
  const row = await rt.control.read((db) => get<ShardRow>(db.select().from(shards).where(eq(shards.id, id))));
  if (!row) throw new NotFound("Shard");
  return serializeShard(row);
}

export async function shardCapacity(rt: PlatformRuntime, id: string) {
  const shard = await getShard(rt, id);
  const n = await rt.control.read((db) =>
    get<{ n: number }>(
      db
        .select({ n: count() })
        .from(orgs)
        .where(and(eq(orgs.shard_id, id), isNull(orgs.purged_at))),
    ),
  );
  const current = n?.n ?? 0;
  return {
    shard_id: shard.id,
    max_orgs: shard.max_orgs,
    current_orgs: current,
    available_slots: Math.max(0, shard.max_orgs - current),
    utilization_percent: Math.round((current / shard.max_orgs) * 10000) / 100,
  };
}

// ---- moving an org between shards (docs/admin/admin.md, "Moving an org between shards") ----

const shardTarget = (s: ShardRow) => ({ id: s.id, dsn: s.dsn, auth_token: s.auth_token });

/**
 * POST /orgs/{id}/move: checks the move, marks the org "migrating" and starts
 * the orgs.move job (202). Reads keep working throughout; writes are held
 * while the database is copied and then go to the new shard.
 */
export async function startMove(rt: PlatformRuntime, id: string, input: OrgMove, caller: Caller): Promise<Organization> {
  const before = await getOrg(rt, id);
  checkVersion(before, input.base_version);
  if (before.status !== "active") throw new Conflict(`Only an active organization can be moved (this one is ${before.status})`, "org_not_active");
  const target = await rt.control.read(function* (db) {
    const row = yield* get<ShardRow & { n: number }>(
      db
        .select({ ...getTableColumns(shards), n: sql<number>`(SELECT count(*) FROM orgs o WHERE o.shard_id = "shards"."id" AND o.purged_at IS NULL)` })
        .from(shards)
        .where(eq(shards.id, input.target_shard_uuid)),
    );
    if (!row) throw new NotFound("Shard");
    return row;
  });
  if (target.id === before.shard.id) throw new Conflict("The organization is on this shard already", "already_on_shard");
  if (!target.is_active) throw invalid(["body", "target_shard_uuid"], "The target shard is not active", "invalid_target");
  // a replicated shard's org databases live in their sync servers, which a move cannot copy into yet (docs/platform/edge-replicas.md)
  const from = await rt.control.read((db) => get<{ dsn: string }>(db.select({ dsn: shards.dsn }).from(shards).where(eq(shards.id, before.shard.id))));
  if ([target.dsn, from?.dsn ?? ""].some(isReplicatedDsn))
    throw invalid(
      ["body", "target_shard_uuid"],
      "Organizations cannot be moved to or from a replicated (turso-sync or libsql-replica) shard",
      "invalid_target",
    );
  if (target.n >= target.max_orgs) throw new Conflict("The target shard has no free capacity", "no_shard_capacity");
  const payload = { from_shard_id: before.shard.id, to_shard_id: target.id };
  const after = await rt.orgs.writeControl(function* (tx, audit, now, queue) {
    updatedOrConflict(
      yield* get<OrgRow>(
        tx
          .update(orgs)
          .set({ status: "migrating", version: before.version + 1, updated_at: now })
          .where(and(eq(orgs.id, id), eq(orgs.version, before.version), eq(orgs.status, "active")))
          .returning(),
      ),
    );
    const moving = yield* requireOrg(tx, id);
    yield* audit(
      id,
      caller,
      { action: "organization.move_started", resource_type: "organization", resource_id: id, before, after: { ...moving, target_shard_id: target.id } },
      orgEvent("move_started", moving),
    );
    if (rt.queue) queue({ orgId: id, caller }, orgsMove, payload, { singletonKey: `move:${id}` });
    return moving;
  });
  if (!rt.queue) {
    // a runtime without a queue (some tests): the move runs in this process, after the answer
    const actor = systemActor(orgsMove.id);
    void runMove(rt, id, payload.from_shard_id, payload.to_shard_id, { actor, requestId: caller.requestId, ip: null }).catch((err) =>
      rt.logger.error({ org_id: id, err: (err as Error).message }, "org move failed"),
    );
  }
  return after;
}

export type MoveOutcome = Record<string, unknown>;

/**
 * The orgs.move job. Idempotent, re-reading the org each time: already on the
 * target (a retry after the switch) only finishes the old database; an org
 * that is no longer migrating is left alone. A failed copy puts the org back
 * (unfrozen, active) and fails the job; a killed worker's retry copies again
 * from scratch.
 */
export async function runMove(rt: PlatformRuntime, orgId: string, fromShardId: string, toShardId: string, caller: Caller): Promise<MoveOutcome> {
  const state = await rt.control.read(function* (db) {
    const org = yield* get<OrgRow>(db.select().from(orgs).where(eq(orgs.id, orgId)));
    const from = yield* get<ShardRow>(db.select().from(shards).where(eq(shards.id, fromShardId)));
    const to = yield* get<ShardRow>(db.select().from(shards).where(eq(shards.id, toShardId)));
    return { org, from, to };
  });
  const { org, from, to } = state;
  if (!org || !from || !to || org.status === "deleted") return { org_id: orgId, skipped: "the org or a shard no longer exists" };
  if (org.shard_id === to.id) {
    await rt.orgs.leaveShard(orgId, shardTarget(from), to.id);
    return { org_id: orgId, from_shard_id: from.id, to_shard_id: to.id, already_moved: true };
  }
  if (org.status !== "migrating" || org.shard_id !== from.id) return { org_id: orgId, skipped: `the org is ${org.status} on shard ${org.shard_id}` };

  let counts: Record<string, number>;
  try {
    counts = await rt.orgs.copyToShard(orgId, shardTarget(from), shardTarget(to));
  } catch (err) {
    await rt.orgs.cancelMove(orgId, shardTarget(from));
    await settleMove(rt, org, { status: "active" }, "move_failed", caller, { error: (err as Error).message.slice(0, 500) });
    throw err;
  }
  await settleMove(rt, org, { status: "active", shard_id: to.id }, "moved", caller, { from_shard_id: from.id, to_shard_id: to.id });
  await rt.orgs.leaveShard(orgId, shardTarget(from), to.id);
  const rows = Object.values(counts).reduce((a, b) => a + b, 0);
  return { org_id: orgId, from_shard_id: from.id, to_shard_id: to.id, tables: Object.keys(counts).length, rows };
}

/** The end of a move in the control database: the org active again, on its new shard when it moved; audited, with an event. */
async function settleMove(rt: PlatformRuntime, org: OrgRow, patch: Partial<OrgRow>, action: string, caller: Caller, detail: Record<string, unknown>) {
  await rt.orgs.writeControl(function* (tx, audit, now) {
    const before = yield* requireOrg(tx, org.id);
    const done = yield* get<OrgRow>(
      tx
        .update(orgs)
        .set({ ...patch, version: before.version + 1, updated_at: now })
        .where(and(eq(orgs.id, org.id), eq(orgs.status, "migrating"), eq(orgs.shard_id, org.shard_id)))
        .returning(),
    );
    if (!done) return; // settled already (a retry)
    const after = yield* requireOrg(tx, org.id);
    yield* audit(
      org.id,
      caller,
      { action: `organization.${action}`, resource_type: "organization", resource_id: org.id, before, after: { ...after, ...detail } },
      orgEvent(action, after),
    );
  });
}
