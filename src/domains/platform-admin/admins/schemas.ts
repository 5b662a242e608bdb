import { z } from "zod";
import { MIN_PASSWORD_LENGTH } from "@/platform/auth/passwords";
import { BaseVersion, DateTime, FutureDateTime, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

const Email = z.string().trim().toLowerCase().pipe(z.email().max(320)).describe("Login email; stored lowercase, unique across the service");
const DisplayName = z.string().trim().min(1).max(200);

export const AdminListQuery = z.strictObject({
  ...pagingQuery(25, 100),
  search: z.string().trim().min(1).max(200).optional().describe("Case-insensitive substring of the email or display name"),
});
export type AdminListQuery = z.infer<typeof AdminListQuery>;

export const AdminCreate = z.strictObject({
  email: Email,
  display_name: DisplayName.describe("Used when the email is new; an existing account keeps its own name"),
  group_uuid: Uuid.describe("The platform group the new administrator receives"),
  password: z
    .string()
    .min(MIN_PASSWORD_LENGTH)
    .max(1024)
    .optional()
    .describe("Sets the password of a new account. Without it a new account has no usable password until one is set through the account flow"),
});
export type AdminCreate = z.infer<typeof AdminCreate>;

export const AdminPatch = z.strictObject({
  base_version: BaseVersion.optional().describe("The administrator's version you read; when given and stale: 409 version_conflict"),
  display_name: DisplayName.optional(),
  email: Email.optional().describe("409 when another account has it"),
});
export type AdminPatch = z.infer<typeof AdminPatch>;

export const AssignmentCreate = z.strictObject({
  group_uuid: Uuid.describe("An active platform group"),
  expires_at: FutureDateTime.nullable().optional().describe("When the assignment stops granting (ISO 8601 date-time in the future); omitted: never"),
});
export type AssignmentCreate = z.infer<typeof AssignmentCreate>;

export const ADMIN_STATUSES = ["active", "suspended", "deactivated"] as const;

const GroupRef = z.object({ id: z.string(), name: z.string() });
const OrgRef = z.object({ id: z.string(), name: z.string() });

const adminFields = {
  id: z.string().describe("The user's id"),
  email: z.string(),
  display_name: z.string(),
  status: z.enum(ADMIN_STATUSES).describe("The account's status"),
  is_global_access: z.boolean().describe("Holds every platform key and may act in every organization"),
  last_login_at: DateTime.nullable(),
  created_at: DateTime,
  updated_at: DateTime,
  version: z.number().int(),
  groups: z.array(GroupRef).describe("Platform groups of the assignments that grant now (removed and expired ones are left out)"),
};

export const PlatformAdminSummary = z
  .object({ ...adminFields, org_access_count: z.number().int().describe("Organizations the user is an active member of") })
  .meta({ id: "PlatformAdminSummary" });
export type PlatformAdminSummary = z.infer<typeof PlatformAdminSummary>;

export const PlatformAdmin = z
  .object({
    ...adminFields,
    org_access: z.array(OrgRef).describe("Organizations the user is an active member of; with is_global_access the admin may act in every organization"),
    effective_permissions: z.array(z.string()).describe("Platform keys the administrator holds now, sorted"),
  })
  .meta({ id: "PlatformAdmin" });
export type PlatformAdmin = z.infer<typeof PlatformAdmin>;

export const PlatformAssignment = z
  .object({
    id: z.string(),
    group: GroupRef,
    assigned_by: z.object({ id: z.string(), display_name: z.string().nullable() }).nullable().describe("Null when not recorded"),
    assigned_at: DateTime,
    expires_at: DateTime.nullable(),
    is_active: z.boolean().describe("True while the assignment grants: not removed, not expired, its group active"),
    status: z.enum(["active", "expired", "removed"]).describe("removed: taken away (DELETE); expired: expires_at has passed"),
  })
  .meta({ id: "PlatformAssignment" });
export type PlatformAssignment = z.infer<typeof PlatformAssignment>;

export const AssignmentList = z.object({ items: z.array(PlatformAssignment).describe("Every assignment of the administrator, newest first") });
