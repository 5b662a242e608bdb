import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateOnly, DateTime, QueryBool, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { hasAtMostTwoDecimals } from "@/platform/money";

// spec.md leaves `status` a free string; this service validates a small set (docs/providers/providers.md).
export const PROVIDER_STATUSES = ["active", "inactive", "terminated"] as const;
export type ProviderStatus = (typeof PROVIDER_STATUSES)[number];

/** NPI check: Luhn over the 80840 prefix plus the ten digits (CMS NPI standard). */
export function isValidNpi(npi: string): boolean {
  if (!/^\d{10}$/.test(npi)) return false;
  const digits = `80840${npi}`;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const text = (max: number) => z.string().trim().max(max);
const name = (max: number) => z.string().trim().min(1).max(max);
// Colours are stored as integers (RGB, or signed / unsigned 32-bit ARGB as desktop systems save them).
const Color = z.number().int().min(-2147483648).max(4294967295).describe("Colour as an integer, e.g. 0x3366FF = 3368703 (RGB) or a 32-bit ARGB value");

const editable = {
  abbreviation: name(20).describe("Short code shown on the schedule; unique (case-insensitive) among non-archived providers"),
  first_name: name(100),
  last_name: name(100),
  middle_name: text(100).nullable(),
  preferred_name: text(100).nullable(),
  suffix: text(20).nullable().describe("e.g. DDS, DMD, RDH"),
  title: text(20).nullable().describe('Extension to spec.md: honorific shown with the provider on appointments, e.g. "Dr."'),
  billing_override_provider_uuid: Uuid.nullable().describe("Another non-archived provider of this org who bills for this one; unknown is 404"),
  birthdate: DateOnly.nullable(),
  custom_id: text(100).nullable(),
  date_term: DateOnly.nullable().describe("Termination date"),
  erx_enabled: text(50).nullable().describe("eRx enablement as the eRx vendor names it"),
  hourly_production_goal: z
    .number()
    .min(0)
    .max(1_000_000)
    .refine(hasAtMostTwoDecimals, "Must have at most two decimals")
    .nullable()
    .describe("Dollars per hour (number); answered as a two-decimal string"),
  is_hidden: z.boolean(),
  is_hidden_report: z.boolean(),
  is_instructor: z.boolean(),
  is_not_person: z.boolean(),
  is_secondary: z.boolean(),
  item_order: z.number().int().min(0).max(1_000_000).describe("Display order; lists sort by it first"),
  medicaid_id: text(50).nullable(),
  national_provider_id: z
    .string()
    .trim()
    .refine(isValidNpi, "Must be a 10-digit NPI with a valid check digit")
    .nullable()
    .describe("10 digits; the last is the Luhn check digit computed with the 80840 prefix"),
  outline_color: Color.nullable(),
  provider_color: Color.nullable(),
  provider_type_uuid: Uuid.nullable(),
  schedule_note: text(2000).nullable(),
  sig_on_file: z.boolean(),
  specialty_uuid: Uuid.nullable(),
  ssn_tin: z
    .string()
    .trim()
    .regex(/^(\d{3}-?\d{2}-?\d{4}|\d{2}-\d{7})$/, "Must be an SSN (123-45-6789) or an EIN (12-3456789); dashes optional for SSN")
    .nullable()
    .describe("SSN or TIN (EIN) used on claims; see using_tin"),
  status: z.enum(PROVIDER_STATUSES).describe("Default active"),
  taxonomy_code_override: z
    .string()
    .trim()
    .regex(/^[0-9A-Za-z]{10}$/, "Must be a 10-character NUCC taxonomy code")
    .nullable(),
  using_tin: z.boolean().describe("Claims use the TIN in ssn_tin rather than an SSN"),
  fee_schedule_uuid: Uuid.nullable().describe(
    "The fee schedule this provider's procedures are charged from when the patient names none (fee resolution); 404 when it does not exist or is archived",
  ),
};

// Fields a client reads but never writes (422 read_only when sent).
const DERIVED = ["billing_override_provider", "provider_type", "provider_type_name", "specialty", "specialty_name", "fee_schedule"];

const optionalAll = Object.fromEntries(Object.entries(editable).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof editable]: z.ZodOptional<(typeof editable)[K]>;
};

export const ProviderCreate = z
  .strictObject({
    ...optionalAll,
    abbreviation: editable.abbreviation,
    first_name: editable.first_name,
    last_name: editable.last_name,
  })
  .meta({ readOnly: DERIVED });
export type ProviderCreate = z.infer<typeof ProviderCreate>;

export const ProviderPatch = z.strictObject({ base_version: BaseVersion, ...optionalAll }).meta({ readOnly: DERIVED });
export type ProviderPatch = z.infer<typeof ProviderPatch>;

export const Provider = z
  .object({
    ...RecordMeta,
    abbreviation: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    middle_name: z.string().nullable(),
    preferred_name: z.string().nullable(),
    suffix: z.string().nullable(),
    title: z.string().nullable().describe('Extension to spec.md: honorific, e.g. "Dr."'),
    billing_override_provider: Ref.nullable().describe('name is "First Last"'),
    birthdate: z.string().nullable().describe("YYYY-MM-DD"),
    custom_id: z.string().nullable(),
    date_term: z.string().nullable().describe("YYYY-MM-DD"),
    erx_enabled: z.string().nullable(),
    hourly_production_goal: z.string().nullable().describe('Dollars, two decimals, e.g. "250.00"'),
    is_hidden: z.boolean(),
    is_hidden_report: z.boolean(),
    is_instructor: z.boolean(),
    is_not_person: z.boolean(),
    is_secondary: z.boolean(),
    item_order: z.number().int(),
    medicaid_id: z.string().nullable(),
    national_provider_id: z.string().nullable(),
    outline_color: z.number().int().nullable(),
    provider_color: z.number().int().nullable(),
    provider_type: Ref.nullable(),
    provider_type_name: z.string().nullable(),
    schedule_note: z.string().nullable(),
    sig_on_file: z.boolean(),
    specialty: Ref.nullable(),
    specialty_name: z.string().nullable(),
    ssn_tin: z.string().nullable(),
    status: z.string(),
    taxonomy_code_override: z.string().nullable(),
    using_tin: z.boolean(),
    fee_schedule: Ref.nullable().describe("The provider's fee schedule (name: the schedule's)"),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "Provider" });
export type Provider = z.infer<typeof Provider>;

export const ProviderListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: z.enum(PROVIDER_STATUSES).optional().describe("Omitted: every status"),
  search: z.string().max(200).optional().describe("Case-insensitive substring of the first, last, preferred or full name, or the abbreviation"),
  provider_type_uuid: Uuid.optional(),
  is_hidden: QueryBool.optional().describe("Omitted: hidden and visible providers"),
});
export type ProviderListQuery = z.infer<typeof ProviderListQuery>;

const StatusSetValue = z.enum(PROVIDER_STATUSES);
export const ProviderSummaryQuery = z.strictObject({
  status_set: z
    .union([z.string(), z.array(z.string())])
    .transform((v) => [
      ...new Set(
        (Array.isArray(v) ? v : [v])
          .flatMap((s) => s.split(","))
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ])
    .pipe(z.array(StatusSetValue).min(1))
    .optional()
    .describe("Statuses to count; repeat the parameter (or separate by commas). Default active"),
  include_hidden: QueryBool.optional().describe("Default false"),
});
export type ProviderSummaryQuery = z.infer<typeof ProviderSummaryQuery>;

export const ProviderSummary = z
  .object({
    include_hidden: z.boolean(),
    status_set: z.array(z.string()),
    total: z.number().int().describe("Non-archived providers in those statuses"),
  })
  .meta({ id: "ProviderSummary" });
export type ProviderSummary = z.infer<typeof ProviderSummary>;

export const ArchiveQuery = z.strictObject({
  base_version: BaseVersionQuery.optional().describe("Optional: when given and stale, 409 version_conflict"),
});
export type ArchiveQuery = z.infer<typeof ArchiveQuery>;
