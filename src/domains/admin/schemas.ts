import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, QueryBool } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

export const Slug = z
  .string()
  .min(2)
  .max(63)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "Lowercase letters, digits and single hyphens");
const optText = (max = 200) => z.string().max(max).nullable().optional();

const orgEditable = {
  name: z.string().trim().min(1).max(200),
  slug: Slug,
  account_type: z.enum(["practice", "group", "dso", "partner", "internal", "demo"]).describe("Kind of customer account"),
  billing_email: z.email().nullable().optional(),
  contact_email: z.email().nullable().optional(),
  contact_name: optText(),
  contact_phone: optText(40),
  hq_address_line1: optText(),
  hq_address_line2: optText(),
  hq_city: optText(100),
  hq_country: optText(2),
  hq_postal_code: optText(20),
  hq_state: optText(100),
  internal_notes: optText(4000),
  max_locations: z.number().int().min(1).max(10_000),
  tax_id: optText(40),
  website: z.url().max(500).nullable().optional(),
};

export const OrgCreate = z.strictObject({
  ...orgEditable,
  account_type: orgEditable.account_type.optional(),
  max_locations: orgEditable.max_locations.optional(),
  admin_user_uuid: z.string().optional().describe("User who becomes the org administrator; defaults to the caller"),
});
export type OrgCreate = z.infer<typeof OrgCreate>;

export const ONBOARDING_STATUSES = ["pending", "in_progress", "completed"] as const;
export const OrgPatch = z.strictObject({
  base_version: BaseVersion,
  ...z.object(orgEditable).partial().shape,
  onboarding_status: z.enum(ONBOARDING_STATUSES).optional(),
});
export type OrgPatch = z.infer<typeof OrgPatch>;

export const ORG_STATUSES = ["active", "migrating", "suspended", "archived"] as const;
export const Organization = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    account_type: z.string(),
    status: z.enum(ORG_STATUSES),
    onboarding_status: z.string(),
    max_locations: z.number().int(),
    schema_name: z.string(),
    shard: z.object({ id: z.string(), name: z.string(), region: z.string() }),
    billing_email: z.string().nullable(),
    contact_email: z.string().nullable(),
    contact_name: z.string().nullable(),
    contact_phone: z.string().nullable(),
    hq_address_line1: z.string().nullable(),
    hq_address_line2: z.string().nullable(),
    hq_city: z.string().nullable(),
    hq_country: z.string().nullable(),
    hq_postal_code: z.string().nullable(),
    hq_state: z.string().nullable(),
    internal_notes: z.string().nullable(),
    tax_id: z.string().nullable(),
    website: z.string().nullable(),
    created_at: DateTime,
    updated_at: DateTime,
    deleted_at: DateTime.nullable(),
    version: z.number().int(),
  })
  .meta({ id: "Organization" });
export type Organization = z.infer<typeof Organization>;

export const OrgListQuery = z.strictObject({ ...pagingQuery(20, 200), status: z.enum(ORG_STATUSES).optional() });

export const OrgDeleteQuery = z.strictObject({ base_version: BaseVersionQuery.optional() });

export const Detail = z.object({ detail: z.string() });

export const OrgMove = z.strictObject({
  target_shard_uuid: z.uuid().describe("The shard to move the organization's database to (active, with free capacity)"),
  base_version: BaseVersion.optional(),
});
export type OrgMove = z.infer<typeof OrgMove>;

export const ShardCreate = z.strictObject({
  name: z.string().trim().min(1).max(100),
  dsn: z.string().min(6).max(1000).describe("file:<directory> for local files, or a libSQL URL template containing {db}"),
  auth_token: z.string().max(4000).optional().describe("Token for a remote libSQL server (never returned)"),
  region: z.string().min(1).max(50).optional(),
  is_active: z.boolean().optional(),
  max_orgs: z.number().int().min(1).max(100_000).optional(),
});
export type ShardCreate = z.infer<typeof ShardCreate>;

export const Shard = z
  .object({
    id: z.string(),
    name: z.string(),
    region: z.string(),
    is_active: z.boolean(),
    max_orgs: z.number().int(),
    backend: z.enum(["local", "remote"]),
    created_at: DateTime,
    version: z.number().int(),
  })
  .meta({ id: "Shard" });
export type Shard = z.infer<typeof Shard>;

export const ShardListQuery = z.strictObject({ ...pagingQuery(20, 200), is_active: QueryBool.optional() });

export const ShardCapacity = z.object({
  shard_id: z.string(),
  max_orgs: z.number().int(),
  current_orgs: z.number().int(),
  available_slots: z.number().int(),
  utilization_percent: z.number(),
});
