import { z } from "zod";
import { DateOnly, DateTime, RecordMeta, Ref } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { hasAtMostTwoDecimals } from "@/platform/money";

export const ENTRY_TYPES = ["charge", "payment", "adjustment"] as const;

/** 1,000,000.00: far above any dental bill, low enough that cents stay exact integers. */
const MAX_AMOUNT = 1_000_000;

export const LedgerEntryCreate = z
  .strictObject({
    entry_type: z.enum(ENTRY_TYPES),
    amount: z
      .number()
      .min(-MAX_AMOUNT)
      .max(MAX_AMOUNT)
      .refine(hasAtMostTwoDecimals, "Must have at most two decimals")
      .describe("Dollars. Charges and payments: above 0. Adjustments: signed, not 0 (positive adds to the balance, negative is a credit)"),
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
    amount: z.string().describe("Dollars, two decimals; negative only for credit adjustments"),
    entry_date: z.string().describe("YYYY-MM-DD"),
    description: z.string().nullable(),
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
