import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, QueryBool, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { isValidNpi } from "@/domains/providers/record/schemas";

export const CONTACT_TYPES = ["provider", "practice", "lab", "other"] as const;
export const PARTNER_CONTACT_METHODS = ["email", "fax", "phone", "portal"] as const;
export const SOURCE_TYPES = ["advertising", "website", "search_engine", "social_media", "walk_in", "insurance", "event", "word_of_mouth", "other"] as const;
export const ATTRIBUTION_ROLES = ["primary", "secondary", "assist"] as const;
/** The four ways a patient can be attributed; exactly one per record. */
export const SOURCE_FIELDS = ["provider_uuid", "referral_partner_uuid", "referral_source_uuid", "referring_patient_uuid"] as const;

const text = (max: number) => z.string().trim().max(max);
const personName = z.string().trim().min(1).max(100);
const optional = <T extends Record<string, z.ZodType>>(shape: T) =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as { [K in keyof T]: z.ZodOptional<T[K]> };

export const ArchiveQuery = z.strictObject({ base_version: BaseVersionQuery });
export type ArchiveQuery = z.infer<typeof ArchiveQuery>;

// ---- referral partners ---------------------------------------------------------------

const partnerFields = {
  contact_type: z.enum(CONTACT_TYPES).describe("Default other; provider needs first_name and last_name"),
  first_name: personName.nullable(),
  last_name: personName.nullable(),
  practice_name: text(200).nullable(),
  specialty: text(100).nullable().describe("Free text, e.g. Orthodontics; the list filter matches it exactly (any case)"),
  npi: z
    .string()
    .trim()
    .refine(isValidNpi, "Must be a 10-digit NPI with a valid check digit")
    .nullable()
    .describe("10 digits; the last is the Luhn check digit computed with the 80840 prefix"),
  email: z.email().max(320).nullable(),
  phone: text(40).nullable(),
  fax: text(40).nullable(),
  address_line1: text(200).nullable(),
  address_line2: text(200).nullable(),
  city: text(100).nullable(),
  state: text(100).nullable(),
  postal_code: text(20).nullable(),
  country: z
    .string()
    .trim()
    .regex(/^[A-Za-z]{2}$/, "Must be an ISO 3166-1 alpha-2 code, e.g. US")
    .transform((c) => c.toUpperCase())
    .describe("ISO 3166-1 alpha-2; default US"),
  accepts_ereferral: z.boolean().describe("Default false; true needs ereferral_endpoint"),
  ereferral_endpoint: text(500).min(1).nullable().describe("Where e-referrals go: a Direct address or an https URL"),
  preferred_contact_method: z.enum(PARTNER_CONTACT_METHODS).nullable(),
  is_active: z.boolean().describe("Default true"),
  notes: text(4000).nullable(),
};

export const ReferralPartnerCreate = z.strictObject(optional(partnerFields));
export type ReferralPartnerCreate = z.infer<typeof ReferralPartnerCreate>;

export const ReferralPartnerPatch = z.strictObject({ base_version: BaseVersion, ...optional(partnerFields) });
export type ReferralPartnerPatch = z.infer<typeof ReferralPartnerPatch>;

export const ReferralPartner = z
  .object({
    ...RecordMeta,
    contact_type: z.enum(CONTACT_TYPES),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    practice_name: z.string().nullable(),
    specialty: z.string().nullable(),
    npi: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    fax: z.string().nullable(),
    address_line1: z.string().nullable(),
    address_line2: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    postal_code: z.string().nullable(),
    country: z.string(),
    accepts_ereferral: z.boolean(),
    ereferral_endpoint: z.string().nullable(),
    preferred_contact_method: z.enum(PARTNER_CONTACT_METHODS).nullable(),
    is_active: z.boolean(),
    notes: z.string().nullable(),
    deleted_at: DateTime.nullable().describe("Set only on the answer of archive"),
  })
  .meta({ id: "ReferralPartner" });
export type ReferralPartner = z.infer<typeof ReferralPartner>;

export const ReferralPartnerListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  contact_type: z.enum(CONTACT_TYPES).optional(),
  specialty: z.string().trim().min(1).max(100).optional().describe("Exact specialty, any case"),
  is_active: QueryBool.optional().describe("Omitted: active and inactive partners"),
  search: z.string().trim().max(200).optional().describe("Case-insensitive substring of the first, last or full name, the practice name, or the NPI"),
});
export type ReferralPartnerListQuery = z.infer<typeof ReferralPartnerListQuery>;

// ---- referral sources ----------------------------------------------------------------

const sourceFields = {
  name: z.string().trim().min(1).max(200).describe("Unique (any case) among non-archived sources"),
  source_type: z.enum(SOURCE_TYPES).describe("Default other"),
  description: text(2000).nullable(),
  is_active: z.boolean().describe("Default true"),
};

export const ReferralSourceCreate = z.strictObject({ ...optional(sourceFields), name: sourceFields.name });
export type ReferralSourceCreate = z.infer<typeof ReferralSourceCreate>;

export const ReferralSourcePatch = z.strictObject({ base_version: BaseVersion, ...optional(sourceFields) });
export type ReferralSourcePatch = z.infer<typeof ReferralSourcePatch>;

export const ReferralSource = z
  .object({
    ...RecordMeta,
    name: z.string(),
    source_type: z.enum(SOURCE_TYPES),
    description: z.string().nullable(),
    is_active: z.boolean(),
    deleted_at: DateTime.nullable().describe("Set only on the answer of archive"),
  })
  .meta({ id: "ReferralSource" });
export type ReferralSource = z.infer<typeof ReferralSource>;

export const ReferralSourceListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  source_type: z.enum(SOURCE_TYPES).optional(),
  is_active: QueryBool.optional().describe("Omitted: active and inactive sources"),
  search: z.string().trim().max(200).optional().describe("Case-insensitive substring of the name or description"),
});
export type ReferralSourceListQuery = z.infer<typeof ReferralSourceListQuery>;

// ---- referral attributions -----------------------------------------------------------

const sourceNote = text(2000).nullable();
// Shown as read_only (422) when sent on PATCH: the source of an attribution never changes.
const IMMUTABLE = [...SOURCE_FIELDS, "patient_uuid", "attributed_at", "provider", "referral_partner", "referral_source", "referring_patient", "patient"];

export const ReferralAttributionCreate = z
  .strictObject({
    attribution_role: z.enum(ATTRIBUTION_ROLES).optional().describe("Default primary; one active primary per patient"),
    provider_uuid: Uuid.nullable().optional(),
    referral_partner_uuid: Uuid.nullable().optional(),
    referral_source_uuid: Uuid.nullable().optional(),
    referring_patient_uuid: Uuid.nullable().optional(),
    source_note: sourceNote.optional(),
    attributed_at: z.iso
      .datetime({ offset: true })
      .optional()
      .describe("When the referral happened (Z or an offset; returned in UTC). Default now; not in the future"),
  })
  .meta({ readOnly: ["provider", "referral_partner", "referral_source", "referring_patient", "patient"] });
export type ReferralAttributionCreate = z.infer<typeof ReferralAttributionCreate>;

export const ReferralAttributionPatch = z
  .strictObject({
    base_version: BaseVersion,
    attribution_role: z.enum(ATTRIBUTION_ROLES).optional(),
    source_note: sourceNote.optional(),
  })
  .meta({ readOnly: IMMUTABLE });
export type ReferralAttributionPatch = z.infer<typeof ReferralAttributionPatch>;

export const ReferralAttribution = z
  .object({
    ...RecordMeta,
    patient: Ref.describe('name is "First Last"'),
    attribution_role: z.enum(ATTRIBUTION_ROLES),
    provider: Ref.nullable().describe('name is "First Last"'),
    referral_partner: Ref.nullable().describe('name is "First Last" for a provider contact, else the practice name (falling back to the person\'s name)'),
    referral_source: Ref.nullable(),
    referring_patient: Ref.nullable().describe('name is "First Last"'),
    source_note: z.string().nullable(),
    attributed_at: DateTime,
  })
  .meta({ id: "ReferralAttribution" });
export type ReferralAttribution = z.infer<typeof ReferralAttribution>;

export const ReferralAttributionListQuery = z.strictObject({ ...pagingQuery(50, 200) });

export const Archived = z.object({ detail: z.literal("archived") }).meta({ id: "Archived" });
