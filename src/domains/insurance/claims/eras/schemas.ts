import { z } from "zod";
import { BaseVersion, DateTime, QueryList, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

// ERAs' answers and requests (docs/insurance/claims.md, "ERAs").

export const ERA_STATUSES = ["received", "processing", "posted", "needs_review", "failed"] as const;
export const ERA_CLAIM_STATUSES = ["unmatched", "matched", "posted", "needs_review"] as const;
export const MATCH_METHODS = ["claim_number", "patient_date_amount", "manual"] as const;
/** The media types an ERA is taken in besides multipart/form-data (a part named `file`). */
export const ERA_TEXT_TYPES = ["text/plain", "application/edi-x12"] as const;

const Money = z.string().describe("Dollars, two decimals");

export const EraAdjustment = z.object({ group: z.string().describe("CAS group: CO, PR, OI, PI, CR"), reason: z.string().describe("CARC"), amount: Money });

export const EraService = z.object({
  procedure_code: z.string(),
  billed: Money,
  paid: Money,
  allowed: Money.nullable(),
  adjustments: z.array(EraAdjustment),
  remark_codes: z.array(z.string()),
  line_control: z.string().nullable().describe("REF*6R: the procedure id we sent"),
});

export const EraClaim = z.object({
  clp_index: z.number().int().describe("The CLP's position in the file, from 0"),
  claim_number: z.string().describe("CLP01 as the carrier sent it"),
  claim: Ref.nullable().describe("The claim it is matched to (name: the claim number)"),
  match_method: z.enum(MATCH_METHODS).nullable(),
  status: z.enum(ERA_CLAIM_STATUSES),
  status_code: z.string().describe("CLP02: 1 processed as primary, 2 as secondary, 4 denied, 22 reversal, ..."),
  denied: z.boolean().describe("Paid 0 with the carrier's reasons"),
  billed: Money,
  paid: Money,
  patient_responsibility: Money,
  patient_name: z.string().nullable(),
  date_service: z.string().nullable(),
  problems: z.array(z.string()).describe("Why it is not posted (or what to check)"),
  posted_at: DateTime.nullable(),
  services: z.array(EraService),
});

const EraFields = {
  ...RecordMeta,
  status: z.enum(ERA_STATUSES),
  file_name: z.string().nullable(),
  file_size: z.number().int(),
  trace_number: z.string().nullable().describe("TRN02: the check or EFT trace number"),
  payer_name: z.string().nullable(),
  payer_id: z.string().nullable().describe("The payer's identifier (TRN03, else N1*PR's id, else its name): with the trace number, what makes a duplicate"),
  carrier: Ref.nullable().describe("The carrier whose electronic id is the payer's, else the carrier of the claims matched by number"),
  payment_date: z.string().nullable(),
  payment_type: z.string().nullable(),
  total_paid: Money.nullable().describe("BPR02"),
  claim_payment_uuid: z.string().nullable().describe("The claim payment its check was posted as"),
  provider_adjustments: z.array(z.object({ reason: z.string(), reference: z.string().nullable(), amount: Money })).describe("PLB"),
  problems: z.array(z.string()).describe("The file's own problems (totals that do not add up, the carrier's automation)"),
  error: z.string().nullable().describe("failed: the parser's message"),
  posted_at: DateTime.nullable(),
  counts: z.object({
    claims: z.number().int(),
    matched: z.number().int(),
    posted: z.number().int(),
    unmatched: z.number().int(),
    needs_review: z.number().int(),
    denied: z.number().int(),
  }),
};

export const EraSummary = z.object(EraFields).meta({ id: "EraSummary" });
export const Era = z.object({ ...EraFields, claims: z.array(EraClaim) }).meta({ id: "Era" });
export type Era = z.infer<typeof Era>;
export type EraSummary = z.infer<typeof EraSummary>;

export const EraPage = z.object({ items: z.array(EraSummary), page: z.number().int(), page_size: z.number().int(), total: z.number().int() });

export const EraListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: QueryList(z.enum(ERA_STATUSES)).optional().describe("Repeatable"),
  carrier_uuid: Uuid.optional(),
});
export type EraListQuery = z.infer<typeof EraListQuery>;

export const EraPost = z.strictObject({ base_version: BaseVersion });
export type EraPost = z.infer<typeof EraPost>;

export const EraMatch = z.strictObject({ base_version: BaseVersion, claim_uuid: Uuid });
export type EraMatch = z.infer<typeof EraMatch>;
