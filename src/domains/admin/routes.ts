import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { platformErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Detail, OrgCreate, OrgDeleteQuery, OrgListQuery, OrgMove, OrgPatch, Organization, Shard, ShardCapacity, ShardCreate, ShardListQuery } from "./schemas";
import { archiveOrg, createOrg, createShard, deleteOrg, getOrg, getShard, listOrgs, listShards, shardCapacity, startMove, updateOrg } from "./service";

export const adminRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/admin", tags: ["Admin"] })
    .use(guard(rt))
    .get("/orgs", ({ query }) => listOrgs(rt, query), {
      platform: "platform.orgs.list",
      query: OrgListQuery,
      response: { 200: PageSchema(Organization), ...platformErrors() },
      detail: { summary: "List organizations" },
    })
    .post(
      "/orgs",
      async ({ body, set, actor, principal, requestId, ip }) => {
        const org = await createOrg(rt, body, { actor, requestId, ip, userId: principal.userId });
        set.status = 201;
        return org;
      },
      {
        platform: "platform.orgs.manage",
        body: OrgCreate,
        response: { 201: Organization, ...platformErrors(404, 409) },
        detail: {
          summary: "Create an organization on a shard with free capacity and provision its database",
          description:
            "Provisions the org's database on the active shard with the most free room and makes `admin_user_uuid` (default: the caller) its org administrator. 404 when admin_user_uuid names no user; 409 `duplicate` for a slug in use (a deleted org keeps its slug); 409 `no_shard_capacity` when every active shard is full.",
        },
      },
    )
    .get("/orgs/:org_id", ({ params }) => getOrg(rt, params.org_id), {
      platform: "platform.orgs.list",
      response: { 200: Organization, ...platformErrors(404) },
      detail: {
        summary: "Get an organization",
        description:
          "The organization with its status, onboarding status, contact, billing and headquarters details and the shard that holds its database. A deleted organization is 404 (only its tombstone row remains).",
      },
    })
    .patch("/orgs/:org_id", ({ params, body, actor, requestId, ip }) => updateOrg(rt, params.org_id, body, { actor, requestId, ip }), {
      platform: "platform.orgs.manage",
      body: OrgPatch,
      response: { 200: Organization, ...platformErrors(404, 409) },
      detail: { summary: "Update an organization" },
    })
    .post("/orgs/:org_id/archive", ({ params, actor, requestId, ip }) => archiveOrg(rt, params.org_id, { actor, requestId, ip }), {
      platform: "platform.orgs.manage",
      response: { 200: Organization, ...platformErrors(404) },
      detail: {
        summary: "Archive an organization (its members lose access; data is kept)",
        description:
          "Archiving an archived organization answers it unchanged. Only an archived organization can be deleted (DELETE /api/v1/admin/orgs/{org_id}).",
      },
    })
    .post(
      "/orgs/:org_id/move",
      async ({ params, body, set, actor, requestId, ip }) => {
        const org = await startMove(rt, params.org_id, body, { actor, requestId, ip });
        set.status = 202;
        return org;
      },
      {
        platform: "platform.shards.manage",
        body: OrgMove,
        response: { 202: Organization, ...platformErrors(404, 409) },
        detail: {
          summary: "Move an organization's database to another shard",
          description:
            "Marks the organization migrating and starts the orgs.move job (202). Reads keep working throughout. Writes are held while the database is copied (up to 15 s, then 503 with Retry-After) and are then written on the new shard; none is lost. The organization is active again when the move ends; a failed copy leaves it where it was. 409 already_on_shard, org_not_active (only an active organization moves), no_shard_capacity, version_conflict; 422 when the target shard is not active. See docs/admin/admin.md.",
        },
      },
    )
    .delete("/orgs/:org_id", ({ params, query, actor, requestId, ip }) => deleteOrg(rt, params.org_id, query.base_version, { actor, requestId, ip }), {
      platform: "platform.orgs.manage",
      query: OrgDeleteQuery,
      response: { 200: Detail, ...platformErrors(404, 409) },
      detail: {
        summary: "Delete an archived organization",
        description:
          "Only an archived organization can be deleted (422 otherwise). It disappears from every list and API at once; its database is removed by the orgs.purge job after ORG_PURGE_GRACE_DAYS (default 30). See docs/admin/admin.md.",
      },
    })
    .get("/shards", ({ query }) => listShards(rt, query), {
      platform: "platform.shards.manage",
      query: ShardListQuery,
      response: { 200: PageSchema(Shard), ...platformErrors() },
      detail: { summary: "List shards" },
    })
    .post(
      "/shards",
      async ({ body, set, actor, requestId, ip }) => {
        const shard = await createShard(rt, body, { actor, requestId, ip });
        set.status = 201;
        return shard;
      },
      {
        platform: "platform.shards.manage",
        body: ShardCreate,
        response: { 201: Shard, ...platformErrors(409) },
        detail: {
          summary: "Register a database shard",
          description:
            "`dsn` is `file:<directory>` or a libsql, http(s) or ws(s) URL template containing `{db}` (422 `format` otherwise). 409 `duplicate` for a name in use.",
        },
      },
    )
    .get("/shards/:shard_uuid", ({ params }) => getShard(rt, params.shard_uuid), {
      platform: "platform.shards.manage",
      response: { 200: Shard, ...platformErrors(404) },
      detail: {
        summary: "Get a shard",
        description:
          "The shard's name, region, backend (`local` files or a `remote` libSQL server), whether new organizations may be placed on it and its `max_orgs`; its DSN and auth token are never returned.",
      },
    })
    .get("/shards/:shard_uuid/capacity", ({ params }) => shardCapacity(rt, params.shard_uuid), {
      platform: "platform.shards.manage",
      response: { 200: ShardCapacity, ...platformErrors(404) },
      detail: {
        summary: "Shard capacity",
        description:
          "How full the shard is: `max_orgs`, `current_orgs` (every organization whose database it holds and that is not purged), `available_slots` and `utilization_percent`. Placement puts a new organization on the active shard with the most free room.",
      },
    });
