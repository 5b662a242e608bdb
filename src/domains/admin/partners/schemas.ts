import { z } from "zod";
import { BaseVersion, DateTime } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { Slug } from "@/domains/admin/schemas";

// Partners: companies the platform works with (docs/admin/admin.md, "Partners").

export const PARTNER_TYPES = ["reseller", "integrator", "dso", "referral", "technology"] as const;
export const PARTNER_STATUSES = ["active", "suspended", "archived"] as const;

/** extra_data: a flat-or-nested JSON object, at most 50 top-level keys and 16 KiB as JSON. */
export const EXTRA_DATA_MAX_BYTES = 16 * 1024;
const ExtraData = z
  .record(z.string().min(1).max(100), z.unknown())
  .refine((o) => Object.keys(o).length <= 50, "At most 50 keys")
  .refine((o) => new TextEncoder().encode(JSON.stringify(o)).length <= EXTRA_DATA_MAX_BYTES, `At most ${EXTRA_DATA_MAX_BYTES} bytes as JSON`)
  .describe("Free-form JSON object for integration data (at most 50 keys, 16 KiB)");

const optText = (max = 200) => z.string().max(max).nullable().optional();

const partnerEditable = {
  name: z.string().trim().min(1).max(200),
  slug: Slug.describe("Lower-case letters, digits and single hyphens, 2 to 63 characters (the organizations' slug rule); unique"),
  partner_type: z.enum(PARTNER_TYPES).describe("reseller | integrator | dso | referral | technology"),
  contact_email: z.email().nullable().optional(),
  contact_name: optText(),
  contact_phone: optText(40),
  description: optText(4000),
  display_name: optText(),
  extra_data: ExtraData,
  internal_notes: optText(4000),
  logo_url: z.url().max(1000).nullable().optional(),
  website: z.url().max(500).nullable().optional(),
};

export const PartnerCreate = z.strictObject({
  ...partnerEditable,
  partner_type: partnerEditable.partner_type.optional().describe("Defaults to reseller"),
  extra_data: partnerEditable.extra_data.optional().describe("Defaults to {}"),
});
export type PartnerCreate = z.infer<typeof PartnerCreate>;

export const PartnerPatch = z.strictObject({
  base_version: BaseVersion,
  ...z.object(partnerEditable).partial().shape,
  status: z.enum(PARTNER_STATUSES).optional().describe("archived is the same as POST /archive; active or suspended restores an archived partner"),
});
export type PartnerPatch = z.infer<typeof PartnerPatch>;

export const Partner = z
  .object({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    partner_type: z.enum(PARTNER_TYPES),
    status: z.enum(PARTNER_STATUSES),
    display_name: z.string().nullable(),
    description: z.string().nullable(),
    contact_email: z.string().nullable(),
    contact_name: z.string().nullable(),
    contact_phone: z.string().nullable(),
    extra_data: z.record(z.string(), z.unknown()),
    internal_notes: z.string().nullable(),
    logo_url: z.string().nullable(),
    website: z.string().nullable(),
    created_at: DateTime,
    updated_at: DateTime,
    deleted_at: DateTime.nullable().describe("When the partner was archived"),
    version: z.number().int(),
  })
  .meta({ id: "Partner" });
export type Partner = z.infer<typeof Partner>;

export const PartnerListQuery = z.strictObject({
  ...pagingQuery(20, 200),
  status: z.enum(PARTNER_STATUSES).optional().describe("Without it, archived partners are left out"),
  partner_type: z.enum(PARTNER_TYPES).optional(),
});
export type PartnerListQuery = z.infer<typeof PartnerListQuery>;
