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
        detail: {
          summary: "Add a user to the org: active with a password, otherwise invited with a one-time invitation token",
          description:
            "An unknown email becomes a new user: with `password` the membership is active at once, without it `invited` and the answer carries a one-time `invitation_token` (valid 7 days; redeemed by POST /api/v1/auth/accept-invite). A known email is invited and keeps its own password. 404 for a missing or archived group; 403 for groups holding keys the caller lacks, or, when the caller is not an org administrator, a group with access to health information (request that through POST /iam/assignments). 409 `duplicate` when the user is already a member (a removed member is added again).",
        },
      },
    )
    .get("/users/:user_id", ({ ctx, params }) => getMember(ctx, params.user_id), {
      permission: "iam.users.read",
      response: { 200: Member, ...orgErrors() },
      detail: {
        summary: "Get a member",
        description:
          "A member of this org by user id: email, display name, membership status, when they joined and last logged in, and the active permission groups they hold org-wide; `version` is the membership's (the `base_version` for PATCH). A user who is not a member is 404.",
      },
    })
    .patch("/users/:user_id", ({ ctx, params, body }) => updateMember(ctx, params.user_id, body), {
      permission: "iam.users.write",
      body: MemberPatch,
      response: { 200: Member, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Change a member's name or replace their permission groups",
        description:
          "`group_uuids` replaces the member's groups (404 for a missing or archived group; 403 for keys the caller lacks). 409 `membership_removed` for a removed member (add them again instead), 409 `last_admin` when the change would leave the org without an active administrator, 409 `shared_account` when renaming an account used outside this org.",
      },
    })
    .post("/users/:user_id/suspend", ({ ctx, params }) => changeMemberStatus(ctx, params.user_id, "suspend"), {
      permission: "iam.users.write",
      response: { 200: Member, ...orgErrors(409) },
      detail: {
        summary: "Suspend an active member (they lose access to the org until reactivated)",
        description:
          "active -> suspended; an already suspended member is answered unchanged; from any other status 422 `invalid_transition`. 409 `last_admin` for the org's last active administrator; 403 when the member holds keys the caller lacks.",
      },
    })
    .post("/users/:user_id/reactivate", ({ ctx, params }) => changeMemberStatus(ctx, params.user_id, "reactivate"), {
      permission: "iam.users.write",
      response: { 200: Member, ...orgErrors(409) },
      detail: {
        summary: "Reactivate a suspended member",
        description:
          "suspended -> active; an active member is answered unchanged; from any other status 422 `invalid_transition`. 403 when the member holds keys the caller lacks.",
      },
    })
    .post("/users/:user_id/remove", ({ ctx, params }) => changeMemberStatus(ctx, params.user_id, "remove"), {
      permission: "iam.users.write",
      response: { 200: Member, ...orgErrors(409) },
      detail: {
        summary: "Remove a member from the org (their groups and any pending invitation are dropped)",
        description:
          "active, invited or suspended -> removed; a removed member is answered unchanged. The member's groups and assignments are dropped and a pending invitation stops working; POST /iam/users adds them again. 409 `last_admin` for the org's last active administrator.",
      },
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
        detail: {
          summary: "Create a permission group",
          description: "`permission_keys` may hold only keys the caller holds (403). 409 `duplicate` when an active group has the name.",
        },
      },
    )
    .get("/groups/:group_uuid", ({ ctx, params }) => getGroup(ctx, params.group_uuid), {
      permission: "iam.groups.read",
      response: { 200: PermissionGroup, ...orgErrors() },
      detail: {
        summary: "Get a permission group",
        description:
          "The group with its permission keys, status (archived groups too), whether it is a system or org administrator group and whether any of its keys reaches protected health information. Another org's group is 404.",
      },
    })
    .patch("/groups/:group_uuid", ({ ctx, params, body }) => updateGroup(ctx, params.group_uuid, body), {
      permission: "iam.groups.write",
      body: GroupPatch,
      response: { 200: PermissionGroup, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a permission group (system groups cannot be changed)",
        description:
          "409 `system_group` for a system group, 409 `group_archived` for an archived one, 409 `duplicate` for a name another active group has. The caller must hold every key the group grants and every key it is given (403).",
      },
    })
    .post("/groups/:group_uuid/archive", ({ ctx, params }) => archiveGroup(ctx, params.group_uuid), {
      permission: "iam.groups.write",
      response: { 200: PermissionGroup, ...orgErrors(409) },
      detail: {
        summary: "Archive a permission group (it stops granting anything at once)",
        description:
          "Members and assignments lose what the group granted at once; archiving again changes nothing. 409 `system_group` for a system group; 403 when the group grants keys the caller lacks.",
      },
    })
    .get("/groups/:group_uuid/permission-ids", ({ ctx, params }) => groupPermissionIds(ctx, params.group_uuid), {
      permission: "iam.groups.read",
      response: { 200: PermissionIds, ...orgErrors() },
      detail: {
        summary: "Permission keys a group grants",
        description: "Only the group's permission keys, as `{items}`: what a member assigned the group receives (an archived group grants nothing).",
      },
    })
    // ---- the permission registry ----
    .get("/permission-keys", () => listPermissionKeys(), {
      permission: "iam.groups.read",
      response: { 200: PermissionKeyList, ...orgErrors() },
      detail: {
        summary: "Permission keys an org group can hold",
        description:
          "Every org-level permission key of the registry, in registry order, with `registry_version`, which moves whenever the set of keys changes.",
      },
    })
    .get("/permission-registry", () => permissionRegistry(), {
      permission: "iam.groups.read",
      response: { 200: PermissionRegistry, ...orgErrors() },
      detail: {
        summary: "Full details of the org permission keys",
        description:
          "Every org-level permission key with its description, its scope and whether it reaches protected health information (`contains_phi`; granting such a key needs an administrator's approval), with `registry_version`.",
      },
    });
