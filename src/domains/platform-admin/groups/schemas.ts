import { z } from "zod";
import { BaseVersion, DateTime, RecordMeta } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { PLATFORM_PERMISSION_KEYS } from "@/platform/permissions/registry";

const PLATFORM_KEYS = new Set(PLATFORM_PERMISSION_KEYS);

const PlatformKeys = z
  .array(
    z
      .string()
      .max(100)
      .refine((k) => PLATFORM_KEYS.has(k), "Not a platform permission key (platform.admins.*, platform.orgs.*, platform.shards.*, platform.audit.*)"),
  )
  .max(100)
  .describe("Platform permission keys from the registry; org keys are refused (422)");

const GroupName = z.string().trim().min(1).max(100).describe("Unique among active platform groups (case-insensitive)");

export const PlatformGroupCreate = z.strictObject({
  name: GroupName,
  description: z.string().max(2000).optional(),
  permission_keys: PlatformKeys,
});
export type PlatformGroupCreate = z.infer<typeof PlatformGroupCreate>;

export const PlatformGroupPatch = z.strictObject({
  base_version: BaseVersion,
  name: GroupName.optional(),
  description: z.string().max(2000).optional(),
  permission_keys: PlatformKeys.optional().describe("Replaces the group's keys; takes effect at once for every admin holding the group"),
});
export type PlatformGroupPatch = z.infer<typeof PlatformGroupPatch>;

export const PLATFORM_GROUP_STATUSES = ["active", "archived"] as const;

export const PlatformGroupListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: z.enum(PLATFORM_GROUP_STATUSES).optional().describe("Omitted: active groups"),
  search: z.string().trim().min(1).max(200).optional().describe("Case-insensitive substring of the name"),
});
export type PlatformGroupListQuery = z.infer<typeof PlatformGroupListQuery>;

export const PlatformGroup = z
  .object({
    ...RecordMeta,
    org_id: z.null().describe("Always null: a platform group belongs to no organization"),
    name: z.string(),
    description: z.string(),
    status: z.enum(PLATFORM_GROUP_STATUSES),
    is_system: z.boolean(),
    is_org_admin: z.literal(false),
    contains_phi: z.literal(false).describe("Platform keys give no access to patient data"),
    context_types: z.array(z.string()),
    scope_applicability: z.array(z.string()),
    permission_keys: z.array(z.string()),
    active_assignment_count: z.number().int().describe("Assignments of this group that grant now (active, not expired)"),
    created_by: z.string().nullable(),
    updated_by: z.string().nullable(),
    updated_at: DateTime,
  })
  .meta({ id: "PlatformGroup" });
export type PlatformGroup = z.infer<typeof PlatformGroup>;
