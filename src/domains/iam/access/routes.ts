import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  Approval,
  ApprovalListQuery,
  ApprovalReview,
  Assignment,
  AssignmentCreate,
  AssignmentList,
  AssignmentListQuery,
  Compare,
  CompareQuery,
  Diagnostic,
  Effective,
  EffectiveQuery,
  LocationAccess,
  ScopeTreeSchema,
  UserAccess,
} from "./schemas";
import { changeAssignmentStatus, createAssignment, getAssignment, listAssignments, revokeAssignment, userAccess } from "./assignments";
import { compareEffective, effectiveDiagnostic, effectivePermissions, locationAccess, scopeTree } from "./effective";
import { getApproval, listApprovals, reviewApproval } from "./approvals";

/** The scoped access model: scope tree, assignments, effective permissions, approvals (docs/iam/iam.md). */
export const accessRoutes = (rt: Runtime) =>
  new Elysia({ name: "iam-access", prefix: "/api/v1/:org_id/iam", tags: ["IAM"] })
    .use(guard(rt))
    .get("/scope-tree", ({ ctx }) => scopeTree(ctx), {
      permission: "iam.users.read",
      response: { 200: ScopeTreeSchema, ...orgErrors() },
      detail: {
        summary: "The org's scope tree: the org, its locations and its providers, as flat nodes",
        description:
          "The nodes an assignment can name: the org node first, then live locations by name, then live providers by name, each with `type`, `parent_id` and `path`. `scope_tree_version` moves whenever a location or provider is added, renamed, archived or restored.",
      },
    })
    // ---- assignments ----
    .get("/assignments", ({ ctx, query }) => listAssignments(ctx, query), {
      permission: "iam.users.read",
      query: AssignmentListQuery,
      response: { 200: AssignmentList, ...orgErrors() },
      detail: { summary: "List group assignments", description: "Oldest first; limit (default 100, at most 500) and offset" },
    })
    .post(
      "/assignments",
      async ({ ctx, body, set }) => {
        const out = await createAssignment(ctx, body);
        set.status = out.pending ? 202 : 201;
        return out.assignment;
      },
      {
        permission: "iam.users.write",
        body: AssignmentCreate,
        response: { 201: Assignment, 202: Assignment, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Grant a permission group to a member at a scope node",
          description:
            "201 active. 202 pending_activation when the group reaches protected health information and the caller is not an org administrator: an approval (approval_uuid) waits for another administrator. 403 when the group holds keys the caller lacks; 404 unknown member, group or scope node; 409 duplicate (same member, group, node and context) or group_archived; 422 a context the node does not take",
        },
      },
    )
    .get("/assignments/:assignment_uuid", ({ ctx, params }) => getAssignment(ctx, params.assignment_uuid), {
      permission: "iam.users.read",
      response: { 200: Assignment, ...orgErrors() },
      detail: {
        summary: "Get an assignment",
        description:
          "One grant of a permission group to a member at a scope node and context, with its status (`expired` once `expires_at` has passed, `pending_activation` while its approval waits) and the approval it waited for. 404 for another org's assignment.",
      },
    })
    .post("/assignments/:assignment_uuid/suspend", ({ ctx, params }) => changeAssignmentStatus(ctx, params.assignment_uuid, "suspend"), {
      permission: "iam.users.write",
      response: { 200: Assignment, ...orgErrors(409) },
      detail: {
        summary: "Suspend an active assignment (it grants nothing until reactivated)",
        description: "422 invalid_transition unless active; 409 last_admin for the last org-wide administrator grant",
      },
    })
    .post("/assignments/:assignment_uuid/reactivate", ({ ctx, params }) => changeAssignmentStatus(ctx, params.assignment_uuid, "reactivate"), {
      permission: "iam.users.write",
      response: { 200: Assignment, ...orgErrors(409) },
      detail: { summary: "Reactivate a suspended assignment", description: "422 invalid_transition unless suspended (an expired one stays expired)" },
    })
    .delete(
      "/assignments/:assignment_uuid",
      async ({ ctx, params, set }) => {
        await revokeAssignment(ctx, params.assignment_uuid);
        set.status = 204;
      },
      {
        permission: "iam.users.write",
        response: { 204: NoContent, ...orgErrors(409) },
        detail: { summary: "Revoke an assignment", description: "Deleted at once; a pending approval for it is withdrawn. 409 last_admin" },
      },
    )
    .get("/user-access/:user_id", ({ ctx, params }) => userAccess(ctx, params.user_id), {
      permission: "iam.users.read",
      response: { 200: UserAccess, ...orgErrors() },
      detail: {
        summary: "Every assignment of one member, in any status",
        description: "All of the member's assignments (active, suspended, pending and expired), not paged. 404 when the user is not a member or was removed.",
      },
    })
    .get("/location-access/:location_uuid", ({ ctx, params }) => locationAccess(ctx, params.location_uuid), {
      permission: "iam.users.read",
      response: { 200: LocationAccess, ...orgErrors() },
      detail: {
        summary: "Members holding any key at a location, with those keys",
        description:
          "Each member whose live assignments give at least one key at the location (org-wide grants included), with the keys they hold there in context `all`. 404 for an unknown or archived location.",
      },
    })
    // ---- effective permissions ----
    .get("/effective-permissions", ({ ctx, query }) => effectivePermissions(ctx, query), {
      permission: "iam.users.read",
      query: EffectiveQuery,
      response: { 200: Effective, ...orgErrors() },
      detail: {
        summary: "The keys a member holds at a scope node in a context",
        description:
          "The keys the guard would grant the member at `scope_node_uuid` (default the org node) in `context` (default `all`), in registry order, with the three versions a client compares to know a cached answer is stale. 404 unknown member or node; 422 a context the node does not take.",
      },
    })
    .get("/effective-permissions/compare", ({ ctx, query }) => compareEffective(ctx, query.user_id), {
      permission: "iam.users.read",
      query: CompareQuery,
      response: { 200: Compare, ...orgErrors() },
      detail: {
        summary: "A member's keys per location, org-wide, and the keys that vary between locations",
        description:
          "For each live location the keys the member holds there, the keys held at the org node, and `varies`: the keys granted at some locations only. 404 when the user is not a member.",
      },
    })
    .get("/effective-permissions/diagnostic", ({ ctx, query }) => effectiveDiagnostic(ctx, query), {
      permission: "iam.users.read",
      query: EffectiveQuery,
      response: { 200: Diagnostic, ...orgErrors() },
      detail: {
        summary: "Each key a member holds at a node with its grant chain (group, assignment, scope node)",
        description:
          "The answer of effective-permissions with, for each key, every live assignment that grants it there: the assignment, its group, the scope node it was made at, its context and expiry. Use it to find out why a member can do something. 404 unknown member or node; 422 a context the node does not take.",
      },
    })
    // ---- approvals ----
    .get("/approvals", ({ ctx, query }) => listApprovals(ctx, query), {
      permission: "iam.users.read",
      query: ApprovalListQuery,
      response: { 200: PageSchema(Approval), ...orgErrors() },
      detail: { summary: "List approvals, newest first", description: "Pending approvals past their expiry are marked expired before the list is built" },
    })
    .get("/approvals/:approval_uuid", ({ ctx, params }) => getApproval(ctx, params.approval_uuid), {
      permission: "iam.users.read",
      response: { 200: Approval, ...orgErrors() },
      detail: {
        summary: "Get an approval",
        description:
          "A request to grant a group that reaches protected health information: the operation waiting for it, the group versions and scope node it pinned, who asked and when, its expiry and its review. A pending approval past its expiry answers `expired`.",
      },
    })
    .post("/approvals/:approval_uuid/approve", ({ ctx, params, body }) => reviewApproval(ctx, params.approval_uuid, "approve", body ?? {}), {
      permission: "iam.users.write",
      body: ApprovalReview.optional(),
      response: { 200: Approval, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Approve a pending request: its grant becomes active",
        description:
          "Only an org administrator other than the requester (403). 409 approval_not_pending; 409 approval_stale when the group changed or the scope node is gone since the request",
      },
    })
    .post("/approvals/:approval_uuid/reject", ({ ctx, params, body }) => reviewApproval(ctx, params.approval_uuid, "reject", body ?? {}), {
      permission: "iam.users.write",
      body: ApprovalReview.optional(),
      response: { 200: Approval, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Reject a pending request: its grant is dropped",
        description: "Only an org administrator other than the requester (403). 409 approval_not_pending",
      },
    });
