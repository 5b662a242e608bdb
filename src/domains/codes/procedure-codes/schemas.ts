import { z } from "zod";
import { BaseVersion, DateOnly, DateTime, DollarsInput, RecordMeta } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { PROCEDURE_CATEGORIES, TREATMENT_AREAS } from "@db/tenant/codes";

// The vocabularies of a procedure code (docs/codes/codes.md explains each choice).
export const CODE_TYPES = ["cdt", "cpt", "hcpcs", "custom"] as const;
export const BILLING_ORDERS = ["D", "DD", "DM", "M", "MD", "MDD", "MMD", "N"] as const;
export const PROVIDER_TYPES = ["dentist", "hygienist", "assistant", "specialist"] as const;
export const CODE_STATUSES = ["active", "inactive"] as const;

export type CodeType = (typeof CODE_TYPES)[number];

/** The format each code system's codes follow (checked on create and on every change of code or code_type). */
export const CODE_FORMATS: Record<CodeType, { pattern: RegExp; hint: string }> = {
  cdt: { pattern: /^D\d{4}$/, hint: "D followed by four digits, e.g. D2740" },
  cpt: { pattern: /^\d{4}[0-9FTU]$/, hint: "five characters: four digits then a digit, F, T or U, e.g. 70355" },
  hcpcs: { pattern: /^[A-V]\d{4}$/, hint: "a letter A-V followed by four digits, e.g. G0330" },
  custom: { pattern: /^[A-Z0-9][A-Z0-9._-]{0,14}$/, hint: "1-15 letters, digits, dots, dashes or underscores" },
};

const text = (max: number) => z.string().trim().max(max);
const Money = DollarsInput();

const editable = {
  code: z
    .string()
    .trim()
    .min(1)
    .max(15)
    .transform((c) => c.toUpperCase())
    .describe("Stored upper-case; unique among the org's codes that are not archived (409 duplicate). Its format depends on code_type"),
  short_name: z.string().trim().min(1).max(100).describe('Short label shown in the chart, e.g. "PFM crown (high noble)"'),
  description: text(1000).describe("Longer explanation; defaults to short_name"),
  category: z.enum(PROCEDURE_CATEGORIES).describe("Default other"),
  code_type: z.enum(CODE_TYPES).describe("Default cdt when the code looks like D1234, else custom"),
  code_in_claims: z
    .string()
    .trim()
    .min(1)
    .max(15)
    .transform((c) => c.toUpperCase())
    .nullable()
    .describe("Code sent on claims instead of code (e.g. a custom code billed as a CDT code)"),
  default_billing_order: z
    .enum(BILLING_ORDERS)
    .describe("Default billing_order_code of charted procedures: D dental, M medical, N non-insurance; default D (M for cpt and hcpcs)"),
  default_fee: Money.describe('Office fee in dollars (number, at most two decimals); answered as "125.00"'),
  service_type: z
    .string()
    .trim()
    .regex(/^[A-Z0-9]{1,2}$/, "Must be an X12 service type code of one or two characters, e.g. 23")
    .describe("X12 eligibility service type code; default derived from category (e.g. diagnostic 23, preventive 41)"),
  treatment_area: z
    .enum(TREATMENT_AREAS)
    .describe(
      "What charting must name for this code: a tooth, surfaces of a tooth, a quadrant, an arch, a sextant, a range of teeth, or nothing (mouth). Default mouth",
    ),
  apply_sales_tax: z.boolean(),
  icd_code_mandatory: z.boolean().describe("Charting needs a diagnosis code"),
  is_ortho: z.boolean(),
  provider_mandatory: z.boolean(),
  smart_code_logic: z.boolean().describe("Charting replaces this code through the odontogram auto-code families"),
  under_eighteen_only: z.boolean(),
  effective_date: DateOnly.nullable(),
  termination_date: DateOnly.nullable().describe("On or after effective_date (422 otherwise)"),
  label: text(100).nullable(),
  provider_type: z.enum(PROVIDER_TYPES).nullable().describe("Who usually performs it (hygiene scheduling reads it)"),
  status: z.enum(CODE_STATUSES).describe("Default active; inactive codes stay listed but are not offered for charting"),
};

const optional = Object.fromEntries(Object.entries(editable).map(([k, v]) => [k, v.optional()])) as {
  [K in keyof typeof editable]: z.ZodOptional<(typeof editable)[K]>;
};

export const ProcedureCodeCreate = z.strictObject({ ...optional, code: editable.code, short_name: editable.short_name });
export type ProcedureCodeCreate = z.infer<typeof ProcedureCodeCreate>;

export const ProcedureCodePatch = z.strictObject({ base_version: BaseVersion, ...optional });
export type ProcedureCodePatch = z.infer<typeof ProcedureCodePatch>;

export const ProcedureCode = z
  .object({
    ...RecordMeta,
    code: z.string(),
    short_name: z.string(),
    description: z.string(),
    category: z.enum(PROCEDURE_CATEGORIES),
    code_type: z.enum(CODE_TYPES),
    code_in_claims: z.string().nullable(),
    default_billing_order: z.enum(BILLING_ORDERS),
    default_fee: z.string().describe("Dollars, two decimals"),
    service_type: z.string(),
    treatment_area: z.enum(TREATMENT_AREAS),
    apply_sales_tax: z.boolean(),
    icd_code_mandatory: z.boolean(),
    is_ortho: z.boolean(),
    provider_mandatory: z.boolean(),
    smart_code_logic: z.boolean(),
    under_eighteen_only: z.boolean(),
    effective_date: z.string().nullable(),
    termination_date: z.string().nullable(),
    label: z.string().nullable(),
    provider_type: z.enum(PROVIDER_TYPES).nullable(),
    status: z.enum(CODE_STATUSES),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "ProcedureCode" });
export type ProcedureCode = z.infer<typeof ProcedureCode>;

export const ProcedureCodeListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: z.enum(CODE_STATUSES).optional().describe("Omitted: active and inactive"),
  search: z.string().trim().min(1).max(100).optional().describe("Case-insensitive: a prefix of the code, or a substring of short_name or description"),
  category: z.enum(PROCEDURE_CATEGORIES).optional(),
  code_type: z.enum(CODE_TYPES).optional(),
});
export type ProcedureCodeListQuery = z.infer<typeof ProcedureCodeListQuery>;
