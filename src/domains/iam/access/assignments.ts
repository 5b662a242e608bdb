import { Conflict, Forbidden, NotFound, ValidationFailed, invalid } from "@/platform/errors";
import { newId } from "@/platform/ids";
import type { Work } from "@/platform/db/work";
import type { OrgContext } from "@/platform/records/context";
import type { OrgControlRead } from "@/platform/tenancy/org-control";
import { CONTEXTS_AT, type GrantContext } from "@/platform/tenancy/grants";
import { PERMISSIONS } from "@/platform/permissions/registry";
import { activeAdminCount, findGroup, type GroupRow } from "@/domains/iam/repository";
import { assertHolds, callerKeys, groupKeys } from "@/domains/iam/groups";
import {
  assignmentById,
  assignmentPage,
  deleteAssignment,
  insertApproval,
  insertAssignment,
  liveMembership,
  memberGrantSources,
  sameGrant,
  statusOf,
  approvalById,
  updateAssignment,
  type AssignmentRow,
} from "./repository";
import { loadScopeTree, requireNode, type ScopeNode } from "./scope-tree";
import { settle } from "./approvals";
import { auditAssignment, callerIsOrgAdmin, requireAssignment, serializeAssignment } from "./assignment-records";
import type { Assignment, AssignmentCreate, AssignmentListQuery } from "./schemas";

/** How long an approval waits for a reviewer before the expiry job (or the next list) marks it expired. */
export const APPROVAL_TTL_MS = 7 * 24 * 3600 * 1000;
const PHI_KEYS = new Set<string>(PERMISSIONS.filter((p) => p.contains_phi).map((p) => p.key));

const groupHasPhi = (g: GroupRow) => groupKeys(g).some((k) => PHI_KEYS.has(k));

/**
 * `group_uuids` on a member are org-wide grants that take effect at once, so
 * they cannot wait for an approval: a caller who is not an org administrator
 * adding a group that reaches protected health information is refused (403)
 * and pointed to POST /iam/assignments, which asks for one.
 */
export function* assertNoUnapprovedPhi(c: OrgControlRead, ctx: OrgContext, added: GroupRow[]): Work<void> {
  if (!added.some(groupHasPhi) || (yield* callerIsOrgAdmin(c, ctx))) return;
  throw new Forbidden(
    "Granting a group with access to protected health information needs an org administrator's approval: request it with POST /iam/assignments",
  );
}

export async function listAssignments(ctx: OrgContext, q: AssignmentListQuery) {
  return ctx.control.read(function* (c) {
    const now = new Date().toISOString();
    const page = yield* assignmentPage(c, q);
    return { items: page.items.map((r) => serializeAssignment(r, now)), total: page.total };
  });
}

export async function getAssignment(ctx: OrgContext, id: string): Promise<Assignment> {
  return ctx.control.read(function* (c) {
    return serializeAssignment(yield* requireAssignment(c, id));
  });
}

/** Every assignment of one member, in any status (GET /iam/user-access/{user_id}). */
export async function userAccess(ctx: OrgContext, userId: string) {
  return ctx.control.read(function* (c) {
    if (!(yield* liveMembership(c, userId))) throw new NotFound("User");
    const page = yield* assignmentPage(c, { user_id: userId, limit: 10_000, offset: 0 });
    return { user_id: userId, assignments: page.items.map((r) => serializeAssignment(r)) };
  });
}

function checkContext(node: ScopeNode, context: GrantContext) {
  if (!CONTEXTS_AT[node.type].includes(context)) {
    throw invalid(["body", "context"], `A ${node.type} node takes context ${CONTEXTS_AT[node.type].join(", ")}`, "value_error");
  }
}

/**
 * Grant a group at a node. A group with keys that reach protected health
 * information, granted by someone who is not an org administrator, waits for
 * an administrator's approval (202, status pending_activation).
 */
export async function createAssignment(ctx: OrgContext, input: AssignmentCreate): Promise<{ assignment: Assignment; pending: boolean }> {
  const tree = await loadScopeTree(ctx);
  const node = requireNode(tree, input.scope_node_uuid);
  checkContext(node, input.context);
  const caller = callerKeys(ctx);
  return ctx.control.write(function* (c) {
    const membership = yield* liveMembership(c, input.user_id);
    if (!membership) throw new NotFound("User");
    const group = yield* findGroup(c, input.group_uuid);
    if (!group) throw new NotFound("Permission group");
    if (group.status !== "active") throw new Conflict("The permission group is archived", "group_archived");
    assertHolds(caller, groupKeys(group));
    const grant = { membership_id: membership.id, group_id: group.id, scope_node_id: node.id, context: input.context };
    if (yield* sameGrant(c, grant)) throw new Conflict("The member already holds this group at this node in this context", "duplicate");
    const pending = groupHasPhi(group) && !(yield* callerIsOrgAdmin(c, ctx));
    const id = newId();
    const approvalId = pending ? newId() : null;
    yield* insertAssignment(c, {
      ...grant,
      id,
      user_id: input.user_id,
      scope_type: node.type,
      status: pending ? "pending_activation" : "active",
      expires_at: input.expires_at ?? null,
      approval_id: approvalId,
      created_by: ctx.actor.id,
      created_at: c.now,
      updated_at: c.now,
      version: 1,
    });
    if (approvalId) {
      yield* insertApproval(c, {
        id: approvalId,
        status: "pending",
        operation_type: "assignment.create",
        operation_payload: { assignment_uuid: id, ...input, scope_node_uuid: node.id },
        pinned_group_versions: { [group.id]: group.version },
        pinned_scope_node_id: node.id,
        pinned_scope_node_path: node.path,
        contains_phi: true,
        assignment_id: id,
        requested_by: ctx.actor.id,
        requested_at: c.now,
        expires_at: new Date(Date.parse(c.now) + APPROVAL_TTL_MS).toISOString(),
        created_at: c.now,
        updated_at: c.now,
        version: 1,
      });
      yield* c.audit(
        { action: "approval.requested", resource_type: "approval", resource_id: approvalId, before: null, after: { id: approvalId, assignment_uuid: id } },
        { type: "approval.requested", resource_type: "approval", resource_id: approvalId, data: { id: approvalId, assignment_uuid: id } },
      );
    }
    const after = serializeAssignment((yield* assignmentById(c, id))!, c.now);
    yield* auditAssignment(c, "created", null, after);
    return { assignment: after, pending };
  });
}

/** An org must keep an active administrator: the last org-wide org-admin grant cannot be suspended or revoked. */
function* assertNotLastAdminGrant(c: OrgControlRead, row: AssignmentRow): Work<void> {
  if (row.scope_type !== "org" || row.context !== "all" || statusOf(row) !== "active") return;
  if ((yield* liveMembership(c, row.user_id))?.status !== "active") return; // an inactive member's grant makes nobody an administrator
  const group = yield* findGroup(c, row.group_id);
  if (!group?.is_org_admin || group.status !== "active") return;
  const admins = yield* activeAdminCount(c);
  const sources = (yield* memberGrantSources(c, row.user_id)) ?? [];
  const otherAdminGrant = sources.some((s) => s.assignment_id !== row.id && s.is_org_admin && s.scope_type === "org" && s.context === "all");
  if (!otherAdminGrant && admins <= 1) throw new Conflict("This is the organization's last active administrator", "last_admin");
}

type StatusAction = "suspend" | "reactivate";
const TRANSITIONS: Record<StatusAction, { to: string; from: string }> = {
  suspend: { to: "suspended", from: "active" },
  reactivate: { to: "active", from: "suspended" },
};

/** Suspend or reactivate an assignment; repeating a change that already happened returns it unchanged. */
export async function changeAssignmentStatus(ctx: OrgContext, id: string, action: StatusAction): Promise<Assignment> {
  const rule = TRANSITIONS[action];
  const caller = callerKeys(ctx);
  return ctx.control.write(function* (c) {
    const row = yield* requireAssignment(c, id);
    const status = statusOf(row, c.now);
    if (status === rule.to) return serializeAssignment(row, c.now);
    if (status !== rule.from) {
      throw new ValidationFailed(
        [{ loc: ["path", "assignment_uuid"], msg: `Cannot ${action} an assignment whose status is ${status}`, type: "invalid_transition" }],
        "invalid_transition",
      );
    }
    const group = (yield* findGroup(c, row.group_id))!;
    assertHolds(caller, groupKeys(group), "change access that includes permissions you do not hold");
    if (action === "suspend") yield* assertNotLastAdminGrant(c, row);
    const before = serializeAssignment(row, c.now);
    yield* updateAssignment(c, id, { status: rule.to, updated_at: c.now });
    const after = serializeAssignment((yield* assignmentById(c, id))!, c.now);
    yield* auditAssignment(c, action === "suspend" ? "suspended" : "reactivated", before, after);
    return after;
  });
}

/** Revoke: the assignment is deleted (its history stays in the audit trail); a pending approval for it is withdrawn. */
export async function revokeAssignment(ctx: OrgContext, id: string): Promise<void> {
  const caller = callerKeys(ctx);
  await ctx.control.write(function* (c) {
    const row = yield* requireAssignment(c, id);
    const group = (yield* findGroup(c, row.group_id))!;
    assertHolds(caller, groupKeys(group), "change access that includes permissions you do not hold");
    yield* assertNotLastAdminGrant(c, row);
    const approval = row.approval_id && row.status === "pending_activation" ? yield* approvalById(c, row.approval_id) : undefined;
    if (approval?.status === "pending") {
      // settled as rejected: the pending assignment is dropped, and both are audited
      yield* settle(c, approval, "rejected", ctx.actor.id, "Withdrawn: the assignment was revoked");
      return;
    }
    yield* deleteAssignment(c, id);
    yield* auditAssignment(c, "revoked", serializeAssignment(row, c.now), null);
  });
}
