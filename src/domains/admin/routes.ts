import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { platformErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Detail, OrgCreate, OrgDeleteQuery, OrgListQuery, OrgPatch, Organization, Shard, ShardCapacity, ShardCreate, ShardListQuery } from "./schemas";
import { archiveOrg, createOrg, createShard, deleteOrg, getOrg, getShard, listOrgs, listShards, shardCapacity, updateOrg } from "./service";

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
        detail: { summary: "Create an organization on a shard with free capacity and provision its database" },
      },
    )
    .get("/orgs/:org_id", ({ params }) => getOrg(rt, params.org_id), {
      platform: "platform.orgs.list",
      response: { 200: Organization, ...platformErrors(404) },
      detail: { summary: "Get an organization" },
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
      detail: { summary: "Archive an organization (its members lose access; data is kept)" },
    })
    .delete("/orgs/:org_id", ({ params, query, actor, requestId, ip }) => deleteOrg(rt, params.org_id, query.base_version, { actor, requestId, ip }), {
      platform: "platform.orgs.manage",
      query: OrgDeleteQuery,
      response: { 200: Detail, ...platformErrors(404, 409) },
      detail: {
        summary: "Delete an archived organization",
        description:
          "Only an archived organization can be deleted (422 otherwise). It disappears from every list and API at once; its database is removed by the orgs.purge job after ORG_PURGE_GRACE_DAYS (default 30). See docs/admin.md.",
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
        detail: { summary: "Register a database shard" },
      },
    )
    .get("/shards/:shard_uuid", ({ params }) => getShard(rt, params.shard_uuid), {
      platform: "platform.shards.manage",
      response: { 200: Shard, ...platformErrors(404) },
      detail: { summary: "Get a shard" },
    })
    .get("/shards/:shard_uuid/capacity", ({ params }) => shardCapacity(rt, params.shard_uuid), {
      platform: "platform.shards.manage",
      response: { 200: ShardCapacity, ...platformErrors(404) },
      detail: { summary: "Shard capacity" },
    });
