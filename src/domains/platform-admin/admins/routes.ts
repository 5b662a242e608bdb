import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import type { Principal } from "@/platform/tenancy/access";
import type { Actor } from "@/platform/auth/actor";
import { guard } from "@/platform/http/guard";
import { NoContent, platformErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { AdminCreate, AdminListQuery, AdminPatch, AssignmentCreate, AssignmentList, PlatformAdmin, PlatformAdminSummary, PlatformAssignment } from "./schemas";
import { addAssignment, createAdmin, getAdmin, listAdmins, listAssignments, removeAssignment, revokeAdmin, updateAdmin } from "./service";

/** The caller as platform verbs see it: who, and which platform keys they hold (anti-escalation). */
const callerOf = (c: { actor: Actor; principal: Principal; requestId: string | null; ip: string | null }) => ({
  actor: c.actor,
  requestId: c.requestId,
  ip: c.ip,
  keys: c.principal.platformKeys,
  isGlobalAccess: c.principal.isGlobalAccess,
});

const ESCALATION = "Anti-escalation: the caller may not assign a group holding platform keys the caller lacks (403).";
const LAST_ADMIN = "400 when no user holding platform.admins.create would remain.";

/** Platform administrators: users with platform access, their platform group assignments. */
export const platformAdminRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/platform/admins", tags: ["Platform administration"] })
    .use(guard(rt))
    .get("", ({ query }) => listAdmins(rt, query), {
      platform: "platform.admins.list",
      query: AdminListQuery,
      response: { 200: PageSchema(PlatformAdminSummary), ...platformErrors() },
      detail: { summary: "List platform administrators" },
    })
    .post(
      "",
      async ({ body, set, actor, principal, requestId, ip }) => {
        const admin = await createAdmin(rt, body, callerOf({ actor, principal, requestId, ip }));
        set.status = 201;
        return admin;
      },
      {
        platform: "platform.admins.create",
        body: AdminCreate,
        response: { 201: PlatformAdmin, ...platformErrors(404, 409) },
        detail: {
          summary: "Grant platform access (creates the user when the email is unknown)",
          description: `${ESCALATION} 404 when the group is missing; 409 when the user already has platform access. A new account without password has no usable password until one is set through the account flow.`,
        },
      },
    )
    .get("/:admin_uuid", ({ params }) => getAdmin(rt, params.admin_uuid), {
      platform: "platform.admins.read",
      response: { 200: PlatformAdmin, ...platformErrors(404) },
      detail: {
        summary: "Get a platform administrator with groups, org access and effective permissions",
        description:
          "A user with platform access: name, email, the platform groups of their live assignments, the active organizations they are an active member of and the platform keys they hold now (every key for global access). 404 when the user has no platform access.",
      },
    })
    .patch(
      "/:admin_uuid",
      ({ params, body, actor, principal, requestId, ip }) => updateAdmin(rt, params.admin_uuid, body, callerOf({ actor, principal, requestId, ip })),
      {
        platform: "platform.admins.update",
        body: AdminPatch,
        response: { 200: PlatformAdmin, ...platformErrors(404, 409) },
        detail: {
          summary: "Change a platform administrator's name or email",
          description: "409 when another account has the email. Changing another administrator needs every platform key they hold (403).",
        },
      },
    )
    .delete(
      "/:admin_uuid",
      async ({ params, set, actor, principal, requestId, ip }) => {
        await revokeAdmin(rt, params.admin_uuid, callerOf({ actor, principal, requestId, ip }));
        set.status = 204;
      },
      {
        platform: "platform.admins.revoke",
        response: { 204: NoContent, ...platformErrors(400, 404) },
        detail: { summary: "Revoke platform access: removes every group assignment, clears platform and global access", description: LAST_ADMIN },
      },
    )
    .get("/:admin_uuid/assignments", ({ params }) => listAssignments(rt, params.admin_uuid), {
      platform: "platform.admins.read",
      response: { 200: AssignmentList, ...platformErrors(404) },
      detail: {
        summary: "List a platform administrator's group assignments (removed and expired ones included)",
        description:
          "Each assignment with its group, who assigned it and when, `expires_at` and `status` (`active`, `expired` or `removed`); `is_active` is true only while it grants (active, and its group active). Not paged. 404 when the user has no platform access.",
      },
    })
    .post(
      "/:admin_uuid/assignments",
      async ({ params, body, set, actor, principal, requestId, ip }) => {
        const assignment = await addAssignment(rt, params.admin_uuid, body, callerOf({ actor, principal, requestId, ip }));
        set.status = 201;
        return assignment;
      },
      {
        platform: "platform.admins.update",
        body: AssignmentCreate,
        response: { 201: PlatformAssignment, ...platformErrors(404, 409) },
        detail: { summary: "Assign a platform group", description: `${ESCALATION} 409 when an assignment of the group grants already.` },
      },
    )
    .delete(
      "/:admin_uuid/assignments/:assignment_uuid",
      async ({ params, set, actor, principal, requestId, ip }) => {
        await removeAssignment(rt, params.admin_uuid, params.assignment_uuid, callerOf({ actor, principal, requestId, ip }));
        set.status = 204;
      },
      {
        platform: "platform.admins.update",
        response: { 204: NoContent, ...platformErrors(400, 404) },
        detail: { summary: "Remove a platform group assignment (it stops granting at once)", description: LAST_ADMIN },
      },
    );
