import { NotFound } from "@/platform/errors";
import type { Work } from "@/platform/db/work";
import type { OrgContext } from "@/platform/records/context";
import type { OrgControlRead, OrgControlWrite } from "@/platform/tenancy/org-control";
import { Grants, type GrantContext } from "@/platform/tenancy/grants";
import { assignmentById, hasGlobalAccess, memberGrantSources, statusOf, type AssignmentRow } from "./repository";
import type { Assignment } from "./schemas";

// An assignment as a record: its answer, its audit entry, and who may settle
// it. Shared by the assignments and their approvals (assignments.ts, approvals.ts).

export const serializeAssignment = (r: AssignmentRow, now = new Date().toISOString()): Assignment => ({
  id: r.id,
  user_id: r.user_id,
  user: { id: r.user_id, email: r.email, display_name: r.display_name },
  group_uuid: r.group_id,
  group: { id: r.group_id, name: r.group_name },
  scope_node_uuid: r.scope_node_id,
  scope_type: r.scope_type as Assignment["scope_type"],
  context: r.context as GrantContext,
  status: statusOf(r, now) as Assignment["status"],
  expires_at: r.expires_at,
  approval_uuid: r.approval_id,
  created_by: r.created_by,
  created_at: r.created_at,
  updated_at: r.updated_at,
  version: r.version,
});

export function* requireAssignment(c: OrgControlRead, id: string): Work<AssignmentRow> {
  const row = yield* assignmentById(c, id);
  if (!row) throw new NotFound("Assignment");
  return row;
}

/** Is the caller an org administrator (an org-admin group held org-wide)? System actors are. */
export function* callerIsOrgAdmin(c: OrgControlRead, ctx: OrgContext): Work<boolean> {
  if (ctx.actor.type !== "user") return true;
  const sources = yield* memberGrantSources(c, ctx.actor.id);
  if (sources) return new Grants(sources).isOrgAdmin;
  return yield* hasGlobalAccess(c, ctx.actor.id); // a global-access platform administrator who is not a member
}

/** The assignment's audit entry and event, in the write's own transaction. */
export function* auditAssignment(c: OrgControlWrite, action: string, before: Assignment | null, after: Assignment | null): Work<void> {
  const subject = (after ?? before)!;
  yield* c.audit(
    { action: `iam_assignment.${action}`, resource_type: "iam_assignment", resource_id: subject.id, before, after },
    {
      type: `iam_assignment.${action}`,
      resource_type: "iam_assignment",
      resource_id: subject.id,
      data: {
        id: subject.id,
        user_id: subject.user_id,
        group_uuid: subject.group_uuid,
        scope_node_uuid: subject.scope_node_uuid,
        status: after?.status ?? "revoked",
      },
    },
  );
}
