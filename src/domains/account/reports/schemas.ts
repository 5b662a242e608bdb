import { z } from "zod";
import { DateOnly, Ref } from "@/platform/records/fields";
import { LedgerEntry } from "@/domains/account/ledger/schemas";

/** The longest range a report covers, both ends counted: a leap year. */
export const MAX_REPORT_DAYS = 366;

export const GROUP_BY = ["day", "provider", "location"] as const;
export type GroupBy = (typeof GROUP_BY)[number];

const Money = z.string().describe("Dollars, two decimals");

export const ProductionCollectionsQuery = z.strictObject({
  date_from: DateOnly.describe("First entry_date counted (inclusive)"),
  date_to: DateOnly.describe(`Last entry_date counted (inclusive); not before date_from, at most ${MAX_REPORT_DAYS} days in all`),
  group_by: z
    .enum(GROUP_BY)
    .default("day")
    .describe("day: one row per date of the range (every date, zeros too); provider or location: one row per provider or location with entries, then `none`"),
  format: z.enum(["json", "csv"]).default("json").describe("csv: text/csv with a header row, one row per group and a total row"),
});
export type ProductionCollectionsQuery = z.infer<typeof ProductionCollectionsQuery>;

/** The report's figures, in the order of its columns (CSV too). */
export const FIGURES = [
  "gross_production",
  "adjustments",
  "net_production",
  "non_production",
  "patient_collections",
  "insurance_collections",
  "net_collections",
] as const;
export type Figure = (typeof FIGURES)[number];

const Figures = {
  gross_production: Money.describe("Charges of completed procedures (entry_type charge, source procedure) dated in the range"),
  adjustments: Money.describe(
    "Every adjustment dated in the range but a payment plan's, signed (negative: discounts, write-offs; positive: finance charges), fee corrections of completed procedures included",
  ),
  net_production: Money.describe("gross_production + adjustments"),
  non_production: Money.describe(
    "What else moved the balances, signed: charges that are not completed work (manual charges, payment plan installments) and a payment plan's adjustments (the debt moved into the plan, and back when it closes). net_production + non_production - net_collections is the change of the balances",
  ),
  patient_collections: Money.describe("Payments by patients net of voids and refunds, each dated the day it was made (a past day's figure never changes)"),
  insurance_collections: Money.describe("Payments by insurance, net of their reversals"),
  net_collections: Money.describe("patient_collections + insurance_collections"),
};

export const ProductionCollectionsRow = z.object({
  key: z.string().describe("The group: the date (group_by day), the provider's or location's uuid, or `none` for entries without one"),
  date: z.string().optional().describe("group_by day: the date"),
  provider: Ref.nullable().optional().describe("group_by provider: the provider, null in the `none` row"),
  location: Ref.nullable().optional().describe("group_by location: the location, null in the `none` row"),
  ...Figures,
});
export type ProductionCollectionsRow = z.infer<typeof ProductionCollectionsRow>;

export const ProductionCollections = z
  .object({
    date_from: z.string(),
    date_to: z.string(),
    group_by: z.enum(GROUP_BY),
    rows: z.array(ProductionCollectionsRow).describe("day: in date order; provider and location: by name, the `none` row last"),
    totals: z.object(Figures).describe("The sums of the rows: the ledger's sums over the range"),
  })
  .meta({ id: "ProductionCollections" });
export type ProductionCollections = z.infer<typeof ProductionCollections>;

export const DaysheetQuery = z.strictObject({ date: DateOnly.describe("The day (entry_date)") });
export type DaysheetQuery = z.infer<typeof DaysheetQuery>;

const KindTotals = z.object({
  entries: z.number().int().describe("How many entries"),
  charges: Money.describe("Sum of the charges"),
  payments: Money.describe("Sum of the payment entries: splits less voids and refunds"),
  adjustments: Money.describe("Sum of the adjustments, signed"),
});

export const DaysheetGroup = z.object({
  provider: Ref.nullable().describe("null: the entries without a provider (manual entries, unallocated prepayments)"),
  entries: z.array(LedgerEntry).describe("In posting order"),
  totals: KindTotals,
});

export const Daysheet = z
  .object({
    date: z.string(),
    providers: z.array(DaysheetGroup).describe("By provider name; the group without a provider last"),
    totals: KindTotals.describe("The day's totals: the sums of the groups"),
  })
  .meta({ id: "Daysheet" });
export type Daysheet = z.infer<typeof Daysheet>;
