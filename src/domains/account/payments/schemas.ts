import { z } from "zod";
import { BaseVersion, DateOnly, DateTime, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { Amount } from "@/domains/account/ledger/schemas";
import { centsFromNumber } from "@/platform/money";

export const PAYMENT_STATUSES = ["active", "voided"] as const;

const Positive = Amount.refine((v) => v > 0, "Must be greater than 0");
const Note = z.string().trim().max(500);

export const PaymentSplitCreate = z.strictObject({
  provider_uuid: Uuid.describe("The provider the money is credited to"),
  procedure_uuid: Uuid.optional().describe("A charted procedure of the patient the split pays"),
  amount: Positive.describe("Dollars"),
});

export const PaymentCreate = z
  .strictObject({
    amount: Positive.describe("Dollars, above 0, at most 1,000,000.00, two decimals at most"),
    payment_type_uuid: Uuid.describe("A definition of category payment_types"),
    payment_date: DateOnly.optional().describe("Default: today in the patient's practice time zone; at most one day ahead of UTC today"),
    check_number: z.string().trim().max(40).nullable().optional(),
    note: Note.nullable().optional(),
    splits: z
      .array(PaymentSplitCreate)
      .min(1)
      .max(50)
      .optional()
      .describe(
        "How the payment is split to providers (and procedures); they must add up to the amount. Without splits, the payment pays the patient's oldest open procedure charges first, each credited to the charge's provider, and what is left is an unallocated prepayment",
      ),
  })
  .superRefine((v, c) => {
    if (!v.splits) return;
    const sum = v.splits.reduce((n, s) => n + centsFromNumber(s.amount), 0);
    if (sum !== centsFromNumber(v.amount)) c.addIssue({ code: "custom", path: ["splits"], message: "The splits must add up to the amount" });
  });
export type PaymentCreate = z.infer<typeof PaymentCreate>;

export const PaymentSplit = z.object({
  entry_uuid: z.string().describe("The ledger entry of the split"),
  provider: Ref.nullable().describe("null: an unallocated prepayment"),
  procedure_uuid: z.string().nullable(),
  amount: z.string().describe("Dollars, two decimals: what the split paid"),
  left: z.string().describe("Dollars: what of it is not refunded or voided"),
});

export const Payment = z
  .object({
    ...RecordMeta,
    patient: Ref,
    amount: z.string().describe("Dollars, two decimals"),
    payment_type: Ref,
    payment_date: z.string().describe("YYYY-MM-DD"),
    check_number: z.string().nullable(),
    note: z.string().nullable(),
    location: Ref.nullable().describe("The patient's location when paid"),
    status: z.enum(PAYMENT_STATUSES),
    refunded: z.string().describe("Dollars refunded so far"),
    unallocated: z.string().describe("Dollars of it not split to a provider (a prepayment), net of refunds"),
    splits: z.array(PaymentSplit),
    voided_at: DateTime.nullable(),
    void_reason: z.string().nullable(),
  })
  .meta({ id: "Payment" });
export type Payment = z.infer<typeof Payment>;

export const PaymentVoid = z.strictObject({ base_version: BaseVersion, reason: Note.nullable().optional() });
export type PaymentVoid = z.infer<typeof PaymentVoid>;

export const PaymentRefund = z.strictObject({
  base_version: BaseVersion,
  amount: Positive.describe("Dollars, at most what is left of the payment (its amount less what was refunded)"),
  reason: Note.min(1),
});
export type PaymentRefund = z.infer<typeof PaymentRefund>;

export const PaymentListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  date_from: DateOnly.optional().describe("payment_date on or after"),
  date_to: DateOnly.optional().describe("payment_date on or before"),
  payment_type_uuid: Uuid.optional(),
  location_uuid: Uuid.optional(),
  provider_uuid: Uuid.optional().describe("Payments with a split to this provider"),
  patient_uuid: Uuid.optional(),
  status: z.enum(PAYMENT_STATUSES).optional(),
});
export type PaymentListQuery = z.infer<typeof PaymentListQuery>;

const Totals = z.object({
  count: z.number().int(),
  amount: z.string(),
  refunded: z.string(),
  net: z.string().describe("amount less refunded"),
});

export const PaymentPage = z.object({
  items: z.array(Payment),
  page: z.number().int(),
  page_size: z.number().int(),
  total: z.number().int(),
  totals: Totals.extend({ by_type: z.array(Totals.extend({ payment_type: Ref })) }).describe(
    "Over every matching payment that is not voided (not only this page): the deposit list's totals, and by payment type",
  ),
});
