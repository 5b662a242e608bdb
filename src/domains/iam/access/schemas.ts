import { z } from "zod";
import { DateTime, FutureDateTime, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { CONTEXTS, SCOPE_TYPES } from "@/platform/tenancy/grants";

// ---- scope tree ----

export const ScopeNodeSchema = z
  .object({
    id: z.string().describe("The org's, location's or provider's own id"),
    type: z.enum(SCOPE_TYPES),
    name: z.string().describe("The org's or location's name, the provider's first and last name"),
    parent_id: z.string().nullable().describe("The org node for locations and providers; null for the org node"),
    path: z.string().describe("From the root, e.g. org:<id>/location:<id>"),
  })
  .meta({ id: "ScopeNode" });
export const ScopeTreeSchema = z.object({
  nodes: z.array(ScopeNodeSchema).describe("Flat: the org node first, then live locations by name, then live providers by last and first name"),
  scope_tree_version: z.number().int().describe("Changes whenever a location or provider is added, renamed, archived or restored"),
});

// ---- assignments ----

export const ASSIGNMENT_STATUSES = ["active", "expired", "pending_activation", "suspended"] as const;
const Context = z.enum(CONTEXTS);

export const Assignment = z
  .object({
    id: z.string(),
    user_id: z.string(),
    user: z.object({ id: z.string(), email: z.string(), display_name: z.string() }),
    group_uuid: z.string(),
    group: z.object({ id: z.string(), name: z.string() }),
    scope_node_uuid: z.string(),
    scope_type: z.enum(SCOPE_TYPES),
    context: Context,
    status: z.enum(ASSIGNMENT_STATUSES).describe("expired once expires_at has passed; pending_activation while an approval is pending"),
    expires_at: DateTime.nullable(),
    approval_uuid: z.string().nullable().describe("The approval this grant waited (or waits) for"),
    created_by: z.string().nullable(),
    created_at: DateTime,
    updated_at: DateTime,
    version: z.number().int(),
  })
  .meta({ id: "IamAssignment" });
export type Assignment = z.infer<typeof Assignment>;

export const AssignmentListQuery = z.strictObject({
  user_id: Uuid.optional(),
  group_uuid: Uuid.optional(),
  scope_node_uuid: Uuid.optional(),
  status: z.enum(ASSIGNMENT_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100).describe("At most 500"),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type AssignmentListQuery = z.infer<typeof AssignmentListQuery>;
export const AssignmentList = z.object({ items: z.array(Assignment), total: z.number().int() });

export const AssignmentCreate = z.strictObject({
  user_id: Uuid.describe("A member of the org (active, invited or suspended)"),
  group_uuid: Uuid.describe("An active permission group of the org"),
  scope_node_uuid: Uuid.optional().describe("A node of GET /iam/scope-tree; omitted: the org node"),
  context: Context.default("all").describe(
    "Which records the grant reaches at the node: org node all | org | location | provider; location node all | location; provider node all | provider | self",
  ),
  expires_at: FutureDateTime.nullable().optional().describe("When the grant stops (ISO 8601 date-time in the future); omitted: never"),
});
export type AssignmentCreate = z.infer<typeof AssignmentCreate>;

export const UserAccess = z.object({ user_id: z.string(), assignments: z.array(Assignment) });
export const LocationAccess = z.object({
  location_uuid: z.string(),
  users: z.array(
    z.object({
      user_id: z.string(),
      email: z.string(),
      display_name: z.string(),
      permissions: z.array(z.string()).describe("Keys the member holds at this location"),
    }),
  ),
});

// ---- effective permissions ----

export const EffectiveQuery = z.strictObject({
  user_id: Uuid,
  scope_node_uuid: Uuid.optional().describe("Omitted: the org node"),
  context: Context.default("all"),
});
export type EffectiveQuery = z.infer<typeof EffectiveQuery>;
export const CompareQuery = z.strictObject({ user_id: Uuid });

const versions = {
  cache_version: z.number().int().describe("Moves with every IAM write in the org (members, groups, assignments, approvals)"),
  registry_version: z.number().int(),
  scope_tree_version: z.number().int(),
};
export const Effective = z.object({
  user_id: z.string(),
  scope_node_uuid: z.string(),
  context: Context,
  permissions: z.array(z.string()).describe("Permission keys, in registry order"),
  ...versions,
});
const GrantLinkSchema = z.object({
  assignment_uuid: z.string(),
  group: z.object({ id: z.string(), name: z.string() }),
  scope_node: z.object({ id: z.string(), type: z.string(), name: z.string() }),
  context: Context,
  expires_at: DateTime.nullable(),
});
export const Diagnostic = z.object({
  user_id: z.string(),
  scope_node_uuid: z.string(),
  context: Context,
  permissions: z.array(z.object({ key: z.string(), grants: z.array(GrantLinkSchema).describe("Every live assignment that grants the key here") })),
  ...versions,
});
export const Compare = z.object({
  user_id: z.string(),
  locations: z.array(z.object({ location_uuid: z.string(), name: z.string(), permissions: z.array(z.string()) })),
  org_permissions: z.array(z.string()).describe("Keys held at the org node (org-level records)"),
  varies: z.array(z.string()).describe("Keys granted at some locations only"),
  ...versions,
});

// ---- approvals ----

export const APPROVAL_STATUSES = ["approved", "expired", "pending", "rejected"] as const;
export const Approval = z
  .object({
    id: z.string(),
    org_id: z.string(),
    status: z.enum(APPROVAL_STATUSES),
    operation_type: z.string().describe("assignment.create"),
    operation_payload: z.record(z.string(), z.unknown()),
    pinned_group_versions: z.record(z.string(), z.number().int()).describe("Group id -> the version approved; a group changed since cannot be approved (409)"),
    pinned_scope_node_id: z.string().nullable(),
    pinned_scope_node_path: z.string().nullable(),
    contains_phi: z.boolean(),
    requested_by: z.string(),
    requested_at: DateTime,
    expires_at: DateTime,
    reviewed_by: z.string().nullable(),
    reviewed_at: DateTime.nullable(),
    review_note: z.string().nullable(),
    version: z.number().int(),
  })
  .meta({ id: "Approval" });
export type Approval = z.infer<typeof Approval>;

export const ApprovalListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: z.enum(APPROVAL_STATUSES).optional().describe("Omitted: every approval"),
});
export type ApprovalListQuery = z.infer<typeof ApprovalListQuery>;
export const ApprovalReview = z.strictObject({ review_note: z.string().trim().max(2000).optional() });
export type ApprovalReview = z.infer<typeof ApprovalReview>;
