import { z } from "zod";
import { BaseVersion, DateOnly, DateTime, DollarsInput, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { centsFromNumber } from "@/platform/money";

// Claim payments' requests and answers (docs/insurance/claims.md, "Claim payments").

export const CLAIM_PAYMENT_TYPES = ["check", "eft", "virtual_card", "other"] as const;
export const CLAIM_PAYMENT_STATUSES = ["active", "voided"] as const;

const Money = z.string().describe("Dollars, two decimals");
const RemarkCode = z
  .string()
  .trim()
  .regex(/^[A-Z0-9-]{1,10}$/, "A CARC or RARC code, e.g. CO-45, PR-1, N130");

export const ClaimPaymentSplitCreate = z.strictObject({
  claim_uuid: Uuid,
  procedure_uuid: Uuid.optional().describe("A procedure on the claim; may be left out when the claim has one procedure"),
  paid: DollarsInput().describe("What the carrier paid on it"),
  allowed: DollarsInput().nullable().optional().describe("The carrier's allowed amount"),
  write_off: DollarsInput().optional().describe("What the practice writes off (contractual adjustment); default 0"),
  deductible: DollarsInput().optional().describe("What the carrier applied to the deductible; default 0"),
  remark_codes: z.array(RemarkCode).max(20).optional(),
});

export const ClaimPaymentCreate = z
  .strictObject({
    carrier_uuid: Uuid,
    payment_date: DateOnly,
    amount: DollarsInput().describe("The check or EFT amount: the splits' paid amounts add up to it"),
    check_number: z.string().trim().min(1).max(50).nullable().optional(),
    payment_type: z.enum(CLAIM_PAYMENT_TYPES).optional().describe("Default check"),
    note: z.string().trim().max(2000).nullable().optional(),
    splits: z.array(ClaimPaymentSplitCreate).min(1).max(500),
  })
  .superRefine((v, c) => {
    const sum = v.splits.reduce((n, s) => n + centsFromNumber(s.paid), 0);
    if (sum !== centsFromNumber(v.amount)) c.addIssue({ code: "custom", path: ["splits"], message: "The splits' paid amounts must add up to the amount" });
  });
export type ClaimPaymentCreate = z.infer<typeof ClaimPaymentCreate>;

export const ClaimPaymentVoid = z.strictObject({ base_version: BaseVersion, reason: z.string().trim().max(500).nullable().optional() });
export type ClaimPaymentVoid = z.infer<typeof ClaimPaymentVoid>;

export const ClaimPaymentListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  carrier_uuid: Uuid.optional(),
  claim_uuid: Uuid.optional().describe("Payments with a split of this claim"),
  date_from: DateOnly.optional().describe("payment_date on or after"),
  date_to: DateOnly.optional().describe("payment_date on or before"),
  status: z.enum(CLAIM_PAYMENT_STATUSES).optional(),
});
export type ClaimPaymentListQuery = z.infer<typeof ClaimPaymentListQuery>;

export const ClaimPaymentSplit = z.object({
  id: z.string(),
  claim: Ref.describe("name: the claim number"),
  procedure: Ref.describe("name: the procedure code"),
  patient: Ref,
  paid: Money,
  allowed: Money.nullable(),
  write_off: Money,
  deductible: Money,
  patient_responsibility: Money.describe("What is left to the patient on the procedure after this split"),
  remark_codes: z.array(z.string()),
  reverses_uuid: z.string().nullable().describe("A void's split: the split it reverses (its amounts negated)"),
});

export const ClaimPayment = z
  .object({
    ...RecordMeta,
    carrier: Ref,
    payment_date: z.string(),
    amount: Money,
    check_number: z.string().nullable(),
    payment_type: z.enum(CLAIM_PAYMENT_TYPES),
    era_uuid: z.string().nullable().describe("The ERA it was posted from; null for a paper EOB entered by hand"),
    note: z.string().nullable(),
    status: z.enum(CLAIM_PAYMENT_STATUSES),
    voided_at: DateTime.nullable(),
    void_reason: z.string().nullable(),
    splits: z.array(ClaimPaymentSplit),
  })
  .meta({ id: "ClaimPayment" });
export type ClaimPayment = z.infer<typeof ClaimPayment>;

export const ClaimPaymentPage = z.object({ items: z.array(ClaimPayment), page: z.number().int(), page_size: z.number().int(), total: z.number().int() });
