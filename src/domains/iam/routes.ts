import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  GroupCreate,
  GroupListQuery,
  GroupPatch,
  Member,
  MemberCreate,
  MemberCreated,
  MemberListQuery,
  MemberPatch,
  PermissionGroup,
  PermissionIds,
  PermissionKeyList,
  PermissionRegistry,
} from "./schemas";
import { listPermissionKeys, permissionRegistry } from "./permission-keys";
import { changeMemberStatus, createMember, getMember, listMembers, updateMember } from "./users";
import { archiveGroup, createGroup, getGroup, groupPermissionIds, listGroups, updateGroup } from "./groups";

export const iamRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/iam", tags: ["IAM"] })
    .use(guard(rt))
    // ---- users (memberships) ----
    .get("/users", ({ ctx, query }) => listMembers(ctx, query), {
      permission: "iam.users.read",
      query: MemberListQuery,
      response: { 200: PageSchema(Member), ...orgErrors() },
      detail: { summary: "List the org's members" },
    })
    .post(
      "/users",
      async ({ ctx, body, set }) => {
        const created = await createMember(ctx, body);
        set.status = 201;
        return created;
      },
      {
        permission: "iam.users.write",
        body: MemberCreate,
        response: { 201: MemberCreated, ...orgErrors(409, 413, 415) },
        detail: { summary: "Add a user to the org: active with a password, otherwise invited with a one-time invitation token" },
      },
    )
    .get("/users/:user_id", ({ ctx, params }) => getMember(ctx, params.user_id), {
      permission: "iam.users.read",
      response: { 200: Member, ...orgErrors() },
      detail: { summary: "Get a member" },
    })
    .patch("/users/:user_id", ({ ctx, params, body }) => updateMember(ctx, params.user_id, body), {
      permission: "iam.users.write",
      body: MemberPatch,
      response: { 200: Member, ...orgErrors(409, 413, 415) },
      detail: { summary: "Change a member's name or replace their permission groups" },
    })
    .post("/users/:user_id/suspend", ({ ctx, params }) => changeMemberStatus(ctx, params.user_id, "suspend"), {
      permission: "iam.users.write",
      response: { 200: Member, ...orgErrors(409) },
      detail: { summary: "Suspend an active member (they lose access to the org until reactivated)" },
    })
    .post("/users/:user_id/reactivate", ({ ctx, params }) => changeMemberStatus(ctx, params.user_id, "reactivate"), {
      permission: "iam.users.write",
      response: { 200: Member, ...orgErrors(409) },
      detail: { summary: "Reactivate a suspended member" },
    })
    .post("/users/:user_id/remove", ({ ctx, params }) => changeMemberStatus(ctx, params.user_id, "remove"), {
      permission: "iam.users.write",
      response: { 200: Member, ...orgErrors(409) },
      detail: { summary: "Remove a member from the org (their groups and any pending invitation are dropped)" },
    })
    // ---- permission groups ----
    .get("/groups", ({ ctx, query }) => listGroups(ctx, query), {
      permission: "iam.groups.read",
      query: GroupListQuery,
      response: { 200: PageSchema(PermissionGroup), ...orgErrors() },
      detail: { summary: "List permission groups" },
    })
    .post(
      "/groups",
      async ({ ctx, body, set }) => {
        const created = await createGroup(ctx, body);
        set.status = 201;
        return created;
      },
      {
        permission: "iam.groups.write",
        body: GroupCreate,
        response: { 201: PermissionGroup, ...orgErrors(409, 413, 415) },
        detail: { summary: "Create a permission group" },
      },
    )
    .get("/groups/:group_uuid", ({ ctx, params }) => getGroup(ctx, params.group_uuid), {
      permission: "iam.groups.read",
      response: { 200: PermissionGroup, ...orgErrors() },
      detail: { summary: "Get a permission group" },
    })
    .patch("/groups/:group_uuid", ({ ctx, params, body }) => updateGroup(ctx, params.group_uuid, body), {
      permission: "iam.groups.write",
      body: GroupPatch,
      response: { 200: PermissionGroup, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a permission group (system groups cannot be changed)" },
    })
    .post("/groups/:group_uuid/archive", ({ ctx, params }) => archiveGroup(ctx, params.group_uuid), {
      permission: "iam.groups.write",
      response: { 200: PermissionGroup, ...orgErrors(409) },
      detail: { summary: "Archive a permission group (it stops granting anything at once)" },
    })
    .get("/groups/:group_uuid/permission-ids", ({ ctx, params }) => groupPermissionIds(ctx, params.group_uuid), {
      permission: "iam.groups.read",
      response: { 200: PermissionIds, ...orgErrors() },
      detail: { summary: "Permission keys a group grants" },
    })
    // ---- the permission registry ----
    .get("/permission-keys", () => listPermissionKeys(), {
      permission: "iam.groups.read",
      response: { 200: PermissionKeyList, ...orgErrors() },
      detail: { summary: "Permission keys an org group can hold" },
    })
    .get("/permission-registry", () => permissionRegistry(), {
      permission: "iam.groups.read",
      response: { 200: PermissionRegistry, ...orgErrors() },
      detail: { summary: "Full details of the org permission keys" },
    });
