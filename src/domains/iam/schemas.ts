import { z } from "zod";
import { MIN_PASSWORD_LENGTH } from "@/platform/auth/passwords";
import { BaseVersion, DateTime, Ref, RecordMeta, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { ORG_PERMISSION_KEYS } from "@/platform/permissions/registry";

// ---- members (users of an org) ----

export const MEMBERSHIP_STATUSES = ["active", "invited", "removed", "suspended"] as const;
export type MembershipStatus = (typeof MEMBERSHIP_STATUSES)[number];

const Email = z.string().trim().toLowerCase().pipe(z.email().max(320)).describe("Login email; stored lowercase, unique across the service");
const DisplayName = z.string().trim().min(1).max(200);
const GroupUuids = z.array(Uuid).max(100).describe("Permission groups of this org (active ones); replaces the member's groups");

export const MemberCreate = z.strictObject({
  email: Email,
  display_name: DisplayName.describe("Used only when the email is new; an existing account keeps its own name"),
  group_uuids: GroupUuids.optional(),
  password: z
    .string()
    .min(MIN_PASSWORD_LENGTH)
    .max(1024)
    .optional()
    .describe("Creates the membership active at once. Ignored when the email already has an account: that user is invited instead"),
});
export type MemberCreate = z.infer<typeof MemberCreate>;

export const MemberPatch = z.strictObject({
  base_version: BaseVersion.describe("The membership version you read; stale values get 409 version_conflict"),
  display_name: DisplayName.optional().describe("Changes the account's name; refused (409 shared_account) when the account is also used elsewhere"),
  group_uuids: GroupUuids.optional(),
});
export type MemberPatch = z.infer<typeof MemberPatch>;

export const Member = z
  .object({
    id: z.string().describe("The user's id"),
    email: z.string(),
    display_name: z.string(),
    membership_status: z.enum(MEMBERSHIP_STATUSES),
    joined_at: DateTime.nullable().describe("When the membership became active; null while invited"),
    last_login_at: DateTime.nullable().describe("Null while the membership is only an invitation"),
    groups: z.array(Ref).describe("Active permission groups of this org the member holds"),
    version: z.number().int().describe("Membership version (base_version for PATCH)"),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: "Member" });
export type Member = z.infer<typeof Member>;

export const MemberCreated = Member.extend({
  invitation_token: z
    .string()
    .nullable()
    .describe("One-time token for POST /api/v1/auth/accept-invite, valid 7 days; shown only here. Null when the membership is active"),
}).meta({ id: "MemberCreated" });
export type MemberCreated = z.infer<typeof MemberCreated>;

export const MEMBER_SORTS = ["display_name", "email", "joined_at", "last_login_at", "membership_status"] as const;
export const MemberListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: z.enum(MEMBERSHIP_STATUSES).optional().describe("Omitted: every member except removed ones"),
  search: z.string().max(200).optional().describe("Case-insensitive substring of the email or display name"),
  sort_by: z.enum(MEMBER_SORTS).default("display_name"),
  sort_order: z.enum(["asc", "desc"]).default("asc"),
});
export type MemberListQuery = z.infer<typeof MemberListQuery>;

// ---- permission groups ----

const ORG_KEYS = new Set(ORG_PERMISSION_KEYS);
const PermissionKeys = z
  .array(
    z
      .string()
      .max(100)
      .refine((k) => ORG_KEYS.has(k), "Not an org permission key (see /iam/permission-keys)"),
  )
  .max(200)
  .describe("Org permission keys; see GET /iam/permission-keys");

export const GroupCreate = z.strictObject({
  name: z.string().trim().min(1).max(100).describe("Unique among the org's active groups (case-insensitive)"),
  description: z.string().max(2000).optional(),
  permission_keys: PermissionKeys,
});
export type GroupCreate = z.infer<typeof GroupCreate>;

export const GroupPatch = z.strictObject({
  base_version: BaseVersion,
  name: GroupCreate.shape.name.optional(),
  description: z.string().max(2000).optional(),
  permission_keys: PermissionKeys.optional(),
});
export type GroupPatch = z.infer<typeof GroupPatch>;

export const GROUP_STATUSES = ["active", "archived"] as const;
export const GroupListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: z.enum(GROUP_STATUSES).optional().describe("Omitted: active groups"),
});
export type GroupListQuery = z.infer<typeof GroupListQuery>;

export const PermissionGroup = z
  .object({
    ...RecordMeta,
    org_id: z.string(),
    name: z.string(),
    description: z.string(),
    status: z.enum(GROUP_STATUSES),
    is_system: z.boolean().describe("Created by the service; cannot be changed or archived"),
    is_org_admin: z.boolean().describe("Holds every org key, including keys added to the registry later"),
    contains_phi: z.boolean().describe("True when any of its keys gives access to protected health information"),
    context_types: z.array(z.string()),
    scope_applicability: z.array(z.string()),
    permission_keys: z.array(z.string()),
    created_by: z.string().nullable(),
    updated_by: z.string().nullable(),
  })
  .meta({ id: "PermissionGroup" });
export type PermissionGroup = z.infer<typeof PermissionGroup>;

export const PermissionIds = z.object({ items: z.array(z.string()).describe("Permission keys the group grants") });

export const PermissionKeyList = z.object({ keys: z.array(z.string()), registry_version: z.number().int() });
export const PermissionRegistry = z.object({
  permissions: z.array(z.object({ key: z.string(), description: z.string(), scope: z.string(), contains_phi: z.boolean() })),
  registry_version: z.number().int(),
});
