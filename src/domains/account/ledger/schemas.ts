import { z } from "zod";
import { DateOnly, DateTime, RecordMeta, Ref } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { hasAtMostTwoDecimals } from "@/platform/money";

export const ENTRY_TYPES = ["charge", "payment", "adjustment"] as const;
/** What posted an entry (docs/account/account.md, "The ledger"). */
export const ENTRY_SOURCES = ["manual", "procedure", "payment", "refund", "void", "adjustment", "payment_plan", "insurance"] as const;
export const PAYERS = ["patient", "insurance"] as const;

/** 1,000,000.00: far above any dental bill, low enough that cents stay exact integers. */
export const MAX_AMOUNT = 1_000_000;

/** Dollars as the API takes them: a number with at most two decimals, up to 1,000,000.00 either way. */
export const Amount = z.number().min(-MAX_AMOUNT).max(MAX_AMOUNT).refine(hasAtMostTwoDecimals, "Must have at most two decimals");

export const LedgerEntryCreate = z
  .strictObject({
    entry_type: z.enum(ENTRY_TYPES),
    amount: Amount.describe("Dollars. Charges and payments: above 0. Adjustments: signed, not 0 (positive adds to the balance, negative is a credit)"),
    entry_date: DateOnly.optional().describe("Default: today in the patient's practice time zone (UTC without a location); at most one day ahead of UTC today"),
    description: z.string().trim().max(500).nullable().optional(),
  })
  .superRefine((v, c) => {
    if (v.entry_type !== "adjustment" && v.amount <= 0)
      c.addIssue({ code: "custom", path: ["amount"], message: "Must be greater than 0 (use an adjustment for a credit)" });
    if (v.entry_type === "adjustment" && v.amount === 0) c.addIssue({ code: "custom", path: ["amount"], message: "An adjustment cannot be 0" });
  });
export type LedgerEntryCreate = z.infer<typeof LedgerEntryCreate>;

export const LedgerEntry = z
  .object({
    ...RecordMeta,
    patient: Ref,
    entry_type: z.enum(ENTRY_TYPES),
    amount: z
      .string()
      .describe(
        "Dollars, two decimals. Charges positive; payments positive (a credit) or negative (a void or refund); adjustments signed (negative is a credit)",
      ),
    entry_date: z.string().describe("YYYY-MM-DD"),
    description: z.string().nullable(),
    source: z
      .enum(ENTRY_SOURCES)
      .describe(
        "What posted it: manual, a completed procedure (its charge and corrections), a payment's split, a refund, a void, an adjustment, a payment plan's installment, an insurance payment",
      ),
    payer: z.enum(PAYERS).describe("Whose money a payment is"),
    provider: Ref.nullable().describe("Who produced the charge, or whom a payment split credits"),
    location: Ref.nullable(),
    procedure_uuid: z.string().nullable().describe("The charted procedure the entry is for"),
    payment_uuid: z.string().nullable().describe("The payment the entry is a split, void or refund of"),
    adjustment_type: Ref.nullable(),
    payment_plan_uuid: z.string().nullable(),
    claim_uuid: z.string().nullable().describe("An insurance payment or write-off: the claim it was posted to"),
    reverses_uuid: z.string().nullable().describe("The entry this one reverses"),
    created_at: DateTime,
  })
  .meta({ id: "LedgerEntry" });
export type LedgerEntry = z.infer<typeof LedgerEntry>;

export const LedgerListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  entry_type: z.enum(ENTRY_TYPES).optional(),
  date_from: DateOnly.optional().describe("entry_date on or after"),
  date_to: DateOnly.optional().describe("entry_date on or before"),
});
export type LedgerListQuery = z.infer<typeof LedgerListQuery>;
