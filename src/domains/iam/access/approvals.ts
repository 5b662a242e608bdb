import { Conflict, Forbidden, NotFound } from "@/platform/errors";
import type { Work } from "@/platform/db/work";
import type { OrgContext } from "@/platform/records/context";
import type { OrgControlRead, OrgControlWrite } from "@/platform/tenancy/org-control";
import { findGroup } from "@/domains/iam/repository";
import {
  approvalById,
  approvalPage,
  assignmentById,
  deleteAssignment,
  pendingOfMembership,
  stalePendingApprovals,
  updateApproval,
  updateAssignment,
  type ApprovalRow,
} from "./repository";
import { auditAssignment, callerIsOrgAdmin, serializeAssignment } from "./assignment-records";
import { loadScopeTree } from "./scope-tree";
import type { Approval, ApprovalListQuery, ApprovalReview } from "./schemas";

// Approvals of sensitive grants (docs/iam/iam.md): a group reaching protected
// health information, granted by a member who is not an org administrator,
// waits here until another administrator approves or rejects it, or it expires.

const serializeApproval = (r: ApprovalRow): Approval => ({
  id: r.id,
  org_id: r.org_id,
  status: r.status as Approval["status"],
  operation_type: r.operation_type,
  operation_payload: r.operation_payload,
  pinned_group_versions: r.pinned_group_versions,
  pinned_scope_node_id: r.pinned_scope_node_id,
  pinned_scope_node_path: r.pinned_scope_node_path,
  contains_phi: r.contains_phi,
  requested_by: r.requested_by,
  requested_at: r.requested_at,
  expires_at: r.expires_at,
  reviewed_by: r.reviewed_by,
  reviewed_at: r.reviewed_at,
  review_note: r.review_note,
  version: r.version,
});

function* requireApproval(c: OrgControlRead, id: string): Work<ApprovalRow> {
  const row = yield* approvalById(c, id);
  if (!row) throw new NotFound("Approval");
  return row;
}

/** An approval leaves "pending": its status, the review, the audit entry and event; a pending grant it held is dropped unless approved. */
export function* settle(
  c: OrgControlWrite,
  row: ApprovalRow,
  status: "approved" | "rejected" | "expired",
  reviewer: string | null,
  note: string | null,
): Work<ApprovalRow> {
  yield* updateApproval(c, row.id, { status, reviewed_by: reviewer, reviewed_at: reviewer ? c.now : null, review_note: note, updated_at: c.now });
  const held = row.assignment_id ? yield* assignmentById(c, row.assignment_id) : undefined;
  if (held && held.status === "pending_activation") {
    const before = serializeAssignment(held, c.now);
    if (status === "approved") {
      yield* updateAssignment(c, held.id, { status: "active", updated_at: c.now });
      yield* auditAssignment(c, "activated", before, serializeAssignment((yield* assignmentById(c, held.id))!, c.now));
    } else {
      yield* deleteAssignment(c, held.id);
      yield* auditAssignment(c, "revoked", before, null);
    }
  }
  const after = (yield* approvalById(c, row.id))!;
  yield* c.audit(
    { action: `approval.${status}`, resource_type: "approval", resource_id: row.id, before: serializeApproval(row), after: serializeApproval(after) },
    { type: `approval.${status}`, resource_type: "approval", resource_id: row.id, data: { id: row.id, status } },
  );
  return after;
}

/**
 * A member write that replaces the member's grants settles the approvals
 * waiting on them first: `group_uuids` that names a pending group grants it
 * directly (approved by the caller), one that leaves it out withdraws it, and
 * removing the member withdraws every one (`keep` null).
 */
export function* settleForMemberWrite(c: OrgControlWrite, actorId: string, membershipId: string, keep: readonly string[] | null): Work<void> {
  const pending = yield* pendingOfMembership(c, membershipId, keep ? "org-wide" : "anywhere");
  for (const a of pending) {
    const row = a.approval_id ? yield* approvalById(c, a.approval_id) : undefined;
    if (!row || row.status !== "pending") continue;
    if (keep?.includes(a.group_id)) yield* settle(c, row, "approved", actorId, "Granted directly through group_uuids");
    else yield* settle(c, row, "rejected", actorId, keep ? "Withdrawn: left out of group_uuids" : "Withdrawn: the member was removed");
  }
}

/** Mark this org's pending approvals whose time is up as expired (the list does it first; so does the expiry job). Returns how many. */
export async function expireStaleApprovals(ctx: OrgContext): Promise<number> {
  const now = new Date().toISOString();
  const due = await ctx.control.read((c) => stalePendingApprovals(c, now));
  if (!due.length) return 0;
  return ctx.control.write(function* (c) {
    let n = 0;
    for (const row of yield* stalePendingApprovals(c, c.now)) {
      yield* settle(c, row, "expired", null, null);
      n++;
    }
    return n;
  });
}

export async function listApprovals(ctx: OrgContext, q: ApprovalListQuery) {
  await expireStaleApprovals(ctx);
  return ctx.control.read(function* (c) {
    const page = yield* approvalPage(c, q);
    return { ...page, items: page.items.map(serializeApproval) };
  });
}

export async function getApproval(ctx: OrgContext, id: string): Promise<Approval> {
  await expireStaleApprovals(ctx);
  return ctx.control.read(function* (c) {
    return serializeApproval(yield* requireApproval(c, id));
  });
}

/**
 * Approve or reject. Only an org administrator other than the requester may
 * review (403); only a pending approval (409 approval_not_pending; one past
 * its expiry is marked expired first). Approving checks that what was pinned
 * still holds: the group's version and the scope node (409 approval_stale).
 */
export async function reviewApproval(ctx: OrgContext, id: string, decision: "approve" | "reject", input: ApprovalReview): Promise<Approval> {
  await expireStaleApprovals(ctx);
  const tree = decision === "approve" ? await loadScopeTree(ctx) : null;
  return ctx.control.write(function* (c) {
    const row = yield* requireApproval(c, id);
    if (!(yield* callerIsOrgAdmin(c, ctx))) throw new Forbidden("Only an org administrator can review an approval");
    if (row.requested_by === ctx.actor.id) throw new Forbidden("An approval must be reviewed by someone other than its requester");
    if (row.status !== "pending") throw new Conflict(`The approval is ${row.status}, not pending`, "approval_not_pending");
    if (decision === "approve") {
      for (const [groupId, version] of Object.entries(row.pinned_group_versions)) {
        const g = yield* findGroup(c, groupId);
        if (!g || g.status !== "active" || g.version !== version) {
          throw new Conflict("A permission group changed since the request; reject it and ask again", "approval_stale");
        }
      }
      if (row.pinned_scope_node_id && !tree!.byId.has(row.pinned_scope_node_id)) {
        throw new Conflict("The scope node of the request no longer exists; reject it", "approval_stale");
      }
    }
    const settled = yield* settle(c, row, decision === "approve" ? "approved" : "rejected", ctx.actor.id, input.review_note ?? null);
    return serializeApproval(settled);
  });
}
