import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, DollarsInput, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

export const RULE_TYPES = ["manual_fee_schedule", "allowed_from_claims", "ucr_fallback"] as const;
export const SCOPE_TYPES = ["tenant", "carrier", "plan"] as const;
export const BOOK_STATUSES = ["active", "archived"] as const;
export const CHANGE_REASONS = ["rule_match", "manual_override", "recompute"] as const;
/** From the most specific to the broadest: the order allowed fees are preferred in (docs/insurance/estimate-books.md). */
export const RESOLUTION_SCOPES = ["insurance_plan", "group_number", "insurance_carrier"] as const;

export type RuleType = (typeof RULE_TYPES)[number];
export type ScopeType = (typeof SCOPE_TYPES)[number];
export type ResolutionScope = (typeof RESOLUTION_SCOPES)[number];

/** Dollars as a request number: at most two decimals, stored as cents. */
const Dollars = DollarsInput();
const SignedDollars = DollarsInput(-1_000_000);
/** An instant: ISO 8601 with Z or an offset, stored in UTC. */
const Instant = z.iso.datetime({ offset: true }).refine((v) => v >= "1900" && v < "3000", "Year must be between 1900 and 2999");
const Money = z.string().describe('Dollars, two decimals ("125.00")');
const SourceInteger = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const optional = <T extends Record<string, z.ZodType>>(shape: T) =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as { [K in keyof T]: z.ZodOptional<T[K]> };

export const ArchiveQuery = z.strictObject({
  base_version: BaseVersionQuery.optional().describe("Optional: when given and stale, 409 version_conflict"),
});
export type ArchiveQuery = z.infer<typeof ArchiveQuery>;

// ---- estimate books --------------------------------------------------------------------

const bookFields = {
  name: z.string().trim().min(1).max(200),
  rule_type: z
    .enum(RULE_TYPES)
    .describe(
      "manual_fee_schedule: allowed fees entered by the office; allowed_from_claims: derived from what carriers paid; ucr_fallback: the office's UCR fee when the book has no allowed fee for a code",
    ),
  scope_type: z
    .enum(SCOPE_TYPES)
    .describe(
      "Default tenant (every plan). carrier needs carrier_uuid, plan needs insurance_plan_uuid; a reference the scope does not use is 422 invalid_scope",
    ),
  status: z.enum(BOOK_STATUSES).describe("Default active; an archived book is kept and readable but never used by estimates"),
  allowed_fee_schedule_uuid: Uuid.nullable().describe(
    "A fee schedule (404 when missing or archived): where the book has no allowed fee for a code, a ppo or allowed schedule's fee is the allowed fee",
  ),
  carrier_uuid: Uuid.nullable().describe(
    "The carrier of a carrier-scoped book; on a plan-scoped book, optional and must be the plan's carrier. 404 when missing",
  ),
  insurance_plan_uuid: Uuid.nullable().describe("The plan of a plan-scoped book. 404 when missing"),
  claim_match_method: z
    .string()
    .trim()
    .min(1)
    .max(50)
    .nullable()
    .describe("How claims are matched when allowed fees are derived from them, e.g. insurance_plan, group_number, insurance_carrier"),
  exclude_over_ucr: z.boolean().describe("Default false; true caps every allowed fee of the book at the office's UCR fee for the procedure"),
};

const BOOK_DERIVED = ["carrier", "insurance_plan", "allowed_fee_schedule"];

export const EstimateBookCreate = z
  .strictObject({ ...optional(bookFields), name: bookFields.name, rule_type: bookFields.rule_type })
  .meta({ readOnly: BOOK_DERIVED });
export type EstimateBookCreate = z.infer<typeof EstimateBookCreate>;

export const EstimateBookPatch = z.strictObject({ base_version: BaseVersion, ...optional(bookFields) }).meta({ readOnly: BOOK_DERIVED });
export type EstimateBookPatch = z.infer<typeof EstimateBookPatch>;

export const EstimateBook = z
  .object({
    ...RecordMeta,
    name: z.string(),
    rule_type: z.enum(RULE_TYPES),
    scope_type: z.enum(SCOPE_TYPES),
    status: z.enum(BOOK_STATUSES),
    allowed_fee_schedule: Ref.nullable().describe("name is the schedule's"),
    carrier: Ref.nullable().describe("name is the carrier_name"),
    insurance_plan: Ref.nullable(),
    claim_match_method: z.string().nullable(),
    exclude_over_ucr: z.boolean(),
    deleted_at: DateTime.nullable().describe("Set only on the answer of archive"),
  })
  .meta({ id: "EstimateBook" });
export type EstimateBook = z.infer<typeof EstimateBook>;

export const EstimateBookListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  search: z.string().trim().max(200).optional().describe("Case-insensitive substring of the name"),
  scope_type: z.enum(SCOPE_TYPES).optional(),
  status: z.enum(BOOK_STATUSES).optional().describe("Omitted: active and archived books"),
});
export type EstimateBookListQuery = z.infer<typeof EstimateBookListQuery>;

// ---- allowed fees ------------------------------------------------------------------------

export const AllowedFeeCreate = z
  .strictObject({
    allowed_fee: Dollars.describe("Dollars (number, at most two decimals)"),
    computed_at: Instant.describe("When the fee was worked out (ISO 8601 with Z or an offset; stored in UTC); not in the future"),
    procedure_code_uuid: Uuid.describe("404 when missing or archived"),
    resolution_scope_type: z.enum(RESOLUTION_SCOPES).describe("group_number needs group_number (422 group_number_required)"),
    confidence: z.number().min(0).max(1).nullable().optional().describe("0 to 1: how sure the derivation is"),
    estimate_book_rule_step_uuid: Uuid.nullable().optional().describe("The rule step that produced the fee (kept as given: rule steps are not served)"),
    estimate_book_run_uuid: Uuid.nullable().optional().describe("A run of this book; 404 when missing or another book's"),
    expires_at: Instant.nullable().optional().describe("When the fee stops applying (after computed_at); null: never"),
    group_number: z.string().trim().min(1).max(50).nullable().optional().describe("The plan group number a group_number-scoped fee applies to (any case)"),
    resolution_scope_identifier: SourceInteger.nullable().optional().describe("The source system's id of the scope (kept as given, not matched)"),
    sample_count: SourceInteger.optional().describe("How many claim payments the fee was derived from; default 0"),
  })
  .meta({ readOnly: ["estimate_book", "procedure_code", "estimate_book_rule_step", "estimate_book_run"] });
export type AllowedFeeCreate = z.infer<typeof AllowedFeeCreate>;

export const AllowedFee = z
  .object({
    id: z.string(),
    estimate_book: Ref,
    procedure_code: Ref.describe("name is the code, e.g. D2391"),
    estimate_book_rule_step: Ref.nullable().describe("name is null"),
    estimate_book_run: Ref.nullable().describe("name is the run's start time"),
    allowed_fee: Money,
    computed_at: DateTime,
    confidence: z.number().nullable(),
    expires_at: DateTime.nullable(),
    group_number: z.string().nullable(),
    resolution_scope_type: z.enum(RESOLUTION_SCOPES),
    resolution_scope_identifier: z.number().int().nullable(),
    sample_count: z.number().int(),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: "AllowedFee" });
export type AllowedFee = z.infer<typeof AllowedFee>;

export const AllowedFeeListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  procedure_code_uuid: Uuid.optional().describe("Only this code's fees; 404 when the code is missing"),
});
export type AllowedFeeListQuery = z.infer<typeof AllowedFeeListQuery>;

// ---- adjustment logs ---------------------------------------------------------------------

export const AdjustmentLogCreate = z
  .strictObject({
    change_reason: z.enum(CHANGE_REASONS),
    description: z.string().trim().min(1).max(2000).describe("Why the allowed fee changed; never sent on the event stream"),
    new_allowed_fee: Dollars.describe("Dollars (number, at most two decimals)"),
    procedure_code_uuid: Uuid.describe("404 when missing or archived"),
    delta_allowed_fee: SignedDollars.nullable()
      .optional()
      .describe(
        "Signed dollars; worked out as new - previous when omitted and previous_allowed_fee is given; must equal it when both are given (422 delta_mismatch)",
      ),
    estimate_book_run_uuid: Uuid.nullable().optional().describe("A run of this book; 404 when missing or another book's"),
    insurance_claim_procedure_identifier: SourceInteger.nullable().optional(),
    insurance_procedure_estimate_id: SourceInteger.nullable().optional(),
    previous_allowed_fee: Dollars.nullable().optional().describe("Dollars (number, at most two decimals)"),
  })
  .meta({ readOnly: ["estimate_book", "estimate_book_run", "procedure_code"] });
export type AdjustmentLogCreate = z.infer<typeof AdjustmentLogCreate>;

export const AdjustmentLog = z
  .object({
    id: z.string(),
    estimate_book: Ref,
    estimate_book_run: Ref.nullable().describe("name is the run's start time"),
    procedure_code: Ref.describe("name is the code, e.g. D2391"),
    change_reason: z.enum(CHANGE_REASONS),
    description: z.string(),
    new_allowed_fee: Money,
    previous_allowed_fee: Money.nullable(),
    delta_allowed_fee: Money.nullable().describe("Signed"),
    insurance_claim_procedure_identifier: z.number().int().nullable(),
    insurance_procedure_estimate_id: z.number().int().nullable(),
    created_at: DateTime,
  })
  .meta({ id: "EstimateBookAdjustmentLog" });
export type AdjustmentLog = z.infer<typeof AdjustmentLog>;

export const AdjustmentLogListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  procedure_code_uuid: Uuid.optional().describe("Only this code's logs; 404 when the code is missing"),
});
export type AdjustmentLogListQuery = z.infer<typeof AdjustmentLogListQuery>;

// ---- claim payment evidence ------------------------------------------------------------

export const ClaimPaymentEvidence = z
  .object({
    id: z.string(),
    estimate_book: Ref,
    procedure_code: Ref.describe("name is the code, e.g. D2391"),
    carrier: Ref.nullable().describe("name is the carrier_name"),
    group_number: z.string().nullable(),
    fee_billed: Money.describe("What the office billed"),
    allowed_fee: Money.nullable().describe("What the carrier allowed, when the EOB says"),
    paid_amount: Money.describe("What the carrier paid"),
    date_paid: z.string().describe("YYYY-MM-DD"),
    source_ref: z.string().nullable().describe("The claim or EOB it came from"),
    created_at: DateTime,
  })
  .meta({ id: "ClaimPaymentEvidence" });
export type ClaimPaymentEvidence = z.infer<typeof ClaimPaymentEvidence>;

export const EvidenceListQuery = z.strictObject({ ...pagingQuery(50, 200) });
export type EvidenceListQuery = z.infer<typeof EvidenceListQuery>;
