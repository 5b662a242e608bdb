import { z } from "zod";
import { DateOnly, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { Amount, LedgerEntry } from "@/domains/account/ledger/schemas";

export const AdjustmentCreate = z
  .strictObject({
    amount: Amount.describe("Dollars, signed: negative lowers what is owed (a discount, a write-off), positive raises it (a finance charge); not 0"),
    adjustment_type_uuid: Uuid.describe("A definition of category adjustment_types"),
    procedure_uuid: Uuid.optional().describe("A charted procedure of the patient the adjustment is for"),
    provider_uuid: Uuid.optional().describe("Default: the procedure's provider"),
    reason: z.string().trim().max(500).nullable().optional(),
    entry_date: DateOnly.optional().describe("Default: today in the patient's practice time zone; at most one day ahead of UTC today"),
  })
  .refine((v) => v.amount !== 0, { path: ["amount"], message: "An adjustment cannot be 0" });
export type AdjustmentCreate = z.infer<typeof AdjustmentCreate>;

const Money = z.string().describe("Dollars, two decimals");

export const AccountMember = z.object({
  patient: Ref,
  balance_0_30: Money,
  balance_31_60: Money,
  balance_61_90: Money,
  balance_over_90: Money,
  balance_total: Money,
  insurance_pending: Money.describe(
    "What insurance is expected to pay: the estimates of the member's claims not yet answered by the carrier (docs/insurance/claims.md)",
  ),
  patient_portion: Money.describe("balance_total less insurance_pending"),
  unallocated_credit: Money.describe("Prepayments not split to a provider, net of refunds and voids"),
});

export const Account = z
  .object({
    guarantor: Ref,
    members: z.array(AccountMember).describe("The guarantor and every patient whose guarantor (responsible party) they are, the guarantor first"),
    totals: AccountMember.omit({ patient: true }),
    last_payment: z.object({ payment_uuid: z.string(), patient: Ref, payment_date: z.string(), amount: Money }).nullable(),
    last_statement: z.object({ statement_uuid: z.string(), created_at: z.string(), amount_due: Money.nullable(), status: z.string() }).nullable(),
  })
  .meta({ id: "Account" });
export type Account = z.infer<typeof Account>;

export const AccountEntry = LedgerEntry.extend({ running_balance: Money.describe("The family's balance after this entry, in ledger order") });

export const AccountEntriesQuery = z.strictObject({
  ...pagingQuery(100, 500),
  date_from: DateOnly.optional().describe("entry_date on or after (the running balance still counts every earlier entry)"),
  date_to: DateOnly.optional().describe("entry_date on or before"),
});
export type AccountEntriesQuery = z.infer<typeof AccountEntriesQuery>;
