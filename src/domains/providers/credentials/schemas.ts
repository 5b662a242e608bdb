import { z } from "zod";
import { BaseVersionQuery, DateTime, RecordMeta, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { isValidNpi } from "@/domains/providers/record/schemas";

// Payer-specific provider ids as desktop dental systems name them (docs/providers/provider-credentials.md).
export const SUPPLEMENTAL_ID_TYPES = ["blue_cross", "blue_shield", "site_number", "commercial_number", "other"] as const;
// Open Dental's eRx enablement states.
export const ERX_STATUSES = ["disabled", "enabled", "enabled_with_legacy"] as const;
// The 50 states, DC and the inhabited territories (each licenses its own prescribers).
export const US_STATES = [
  "AL",
  "AK",
  "AZ",
  "AR",
  "CA",
  "CO",
  "CT",
  "DE",
  "FL",
  "GA",
  "HI",
  "ID",
  "IL",
  "IN",
  "IA",
  "KS",
  "KY",
  "LA",
  "ME",
  "MD",
  "MA",
  "MI",
  "MN",
  "MS",
  "MO",
  "MT",
  "NE",
  "NV",
  "NH",
  "NJ",
  "NM",
  "NY",
  "NC",
  "ND",
  "OH",
  "OK",
  "OR",
  "PA",
  "RI",
  "SC",
  "SD",
  "TN",
  "TX",
  "UT",
  "VT",
  "VA",
  "WA",
  "WV",
  "WI",
  "WY",
  "DC",
  "PR",
  "VI",
  "GU",
  "AS",
  "MP",
] as const;

/**
 * DEA registration number: two letters and seven digits; the last digit is the
 * last digit of (d1 + d3 + d5) + 2 × (d2 + d4 + d6).
 */
export function isValidDea(dea: string): boolean {
  if (!/^[A-Z]{2}\d{7}$/.test(dea)) return false;
  const d = [...dea.slice(2)].map(Number) as [number, number, number, number, number, number, number];
  return (d[0] + d[2] + d[4] + 2 * (d[1] + d[3] + d[5])) % 10 === d[6];
}

const text = (max: number) => z.string().trim().min(1).max(max);
const upper = (s: string) => s.toUpperCase();
const Meta = { ...RecordMeta, deleted_at: DateTime.nullable().describe("Set when archived (archived rows leave lists)") };

export const CredentialListQuery = z.strictObject({ ...pagingQuery(50, 200) });
export type CredentialListQuery = z.infer<typeof CredentialListQuery>;

export const CredentialArchiveQuery = z.strictObject({
  base_version: BaseVersionQuery.optional().describe("Optional: when given and stale, 409 version_conflict"),
});
export type CredentialArchiveQuery = z.infer<typeof CredentialArchiveQuery>;

// ---- identities

export const ProviderIdentityCreate = z.strictObject({
  id_number: text(50).describe("The id the payer assigned to the provider"),
  payor_id: text(50).describe("The payer's electronic id; with supplemental_id_type unique per provider (409 duplicate)"),
  supplemental_id_type: z.enum(SUPPLEMENTAL_ID_TYPES),
});
export type ProviderIdentityCreate = z.infer<typeof ProviderIdentityCreate>;

export const ProviderIdentity = z
  .object({
    ...Meta,
    id_number: z.string(),
    payor_id: z.string(),
    supplemental_id_type: z.enum(SUPPLEMENTAL_ID_TYPES),
  })
  .meta({ id: "ProviderIdentity" });
export type ProviderIdentity = z.infer<typeof ProviderIdentity>;

// ---- location overrides

const Dea = z
  .string()
  .trim()
  .transform(upper)
  .refine(isValidDea, "Must be a DEA number: two letters and seven digits with a valid check digit")
  .describe("Two letters and seven digits, the last a check digit; stored upper-case");
const OVERRIDE_FIELDS = ["dea_number", "state_license", "state_rx_id", "state_where_licensed"] as const;

export const ProviderLocationOverrideCreate = z
  .strictObject({
    location_uuid: Uuid.describe("A location of this org; unknown or archived is 404; one override per location (409 duplicate)"),
    dea_number: Dea.nullable().optional(),
    state_license: text(50).nullable().optional(),
    state_rx_id: text(50).nullable().optional().describe("State controlled-substance registration"),
    state_where_licensed: z
      .string()
      .trim()
      .transform(upper)
      .pipe(z.enum(US_STATES))
      .nullable()
      .optional()
      .describe("Two-letter US state or territory code, e.g. NY"),
  })
  .refine((v) => OVERRIDE_FIELDS.some((k) => v[k] != null), { message: `Give at least one of ${OVERRIDE_FIELDS.join(", ")}` })
  .meta({ readOnly: ["location", "location_name"] });
export type ProviderLocationOverrideCreate = z.infer<typeof ProviderLocationOverrideCreate>;

export const ProviderLocationOverride = z
  .object({
    ...Meta,
    location: z.object({ uuid: z.string(), name: z.string().nullable() }),
    location_name: z.string().nullable(),
    dea_number: z.string().nullable(),
    state_license: z.string().nullable(),
    state_rx_id: z.string().nullable(),
    state_where_licensed: z.string().nullable(),
  })
  .meta({ id: "ProviderLocationOverride" });
export type ProviderLocationOverride = z.infer<typeof ProviderLocationOverride>;

// ---- prescription access

export const ProviderPrescriptionAccessCreate = z.strictObject({
  national_provider_id: z
    .string()
    .trim()
    .refine(isValidNpi, "Must be a 10-digit NPI with a valid check digit")
    .describe("10 digits; the last is the Luhn check digit computed with the 80840 prefix"),
  erx_status: z.enum(ERX_STATUSES).optional().describe("Default disabled"),
  erx_type: text(50).nullable().optional().describe("The eRx vendor or product, e.g. DoseSpot"),
  is_epcs: z.boolean().optional().describe("Electronic prescribing of controlled substances; needs is_identity_proofed (422 epcs_requires_identity_proofing)"),
  is_identity_proofed: z.boolean().optional(),
  user_uuid: Uuid.nullable().optional().describe("The user who prescribes with this access: a member of this org (not removed); otherwise 404"),
});
export type ProviderPrescriptionAccessCreate = z.infer<typeof ProviderPrescriptionAccessCreate>;

export const ProviderPrescriptionAccess = z
  .object({
    ...Meta,
    national_provider_id: z.string(),
    erx_status: z.enum(ERX_STATUSES),
    erx_type: z.string().nullable(),
    is_epcs: z.boolean(),
    is_identity_proofed: z.boolean(),
    user_uuid: z.string().nullable(),
  })
  .meta({ id: "ProviderPrescriptionAccess" });
export type ProviderPrescriptionAccess = z.infer<typeof ProviderPrescriptionAccess>;
