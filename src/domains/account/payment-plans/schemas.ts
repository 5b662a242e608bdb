import { z } from "zod";
import { BaseVersion, DateOnly, DateTime, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { hasAtMostTwoDecimals } from "@/platform/money";
import { Amount } from "@/domains/account/ledger/schemas";
import { FREQUENCIES, MAX_APR_BPS, MAX_INSTALLMENTS } from "./amortization";

export const PLAN_STATUSES = ["open", "closed"] as const;

const Positive = Amount.refine((v) => v > 0, "Must be greater than 0");
const Money = z.string().describe("Dollars, two decimals");

export const PaymentPlanCreate = z
  .strictObject({
    guarantor_uuid: Uuid.describe("The patient's guarantor (their responsible party, else the patient): who signs the plan and pays its installments"),
    patient_uuid: Uuid.describe("Whose debt the plan finances: its entries are posted to this patient's ledger"),
    principal: Positive.describe(
      "Dollars: the debt the plan covers, down payment included; at most what the patient owes outside their open plans (balance_total less payment_plan_due)",
    ),
    down_payment: Amount.min(0)
      .optional()
      .describe("Dollars paid up front with an ordinary payment, less than the principal (default 0); it stays on the account as what is owed now"),
    apr: z
      .number()
      .min(0)
      .max(MAX_APR_BPS / 100)
      .refine(hasAtMostTwoDecimals, "Must have at most two decimals")
      .optional()
      .describe("Annual percentage rate in percent, 0 to 30, two decimals at most (default 0: no interest)"),
    frequency: z.enum(FREQUENCIES).describe("weekly (52 a year), every_two_weeks (26) or monthly (12, on the start date's day, clamped to the month's end)"),
    installment_amount: Positive.optional().describe(
      "Dollars per installment; the count follows (the last installment is smaller). 422 when it does not pay more than a period's interest. Give this or installment_count",
    ),
    installment_count: z
      .number()
      .int()
      .min(1)
      .max(MAX_INSTALLMENTS)
      .optional()
      .describe("How many installments; the amount follows from the annuity formula (the last takes the rounding remainder). Give this or installment_amount"),
    start_date: DateOnly.describe("The first installment's due date: today in the patient's practice time zone or later, at most 366 days ahead"),
    note: z.string().trim().max(500).nullable().optional(),
  })
  .superRefine((v, c) => {
    const amount = v.installment_amount !== undefined;
    const count = v.installment_count !== undefined;
    if (amount && count) c.addIssue({ code: "custom", path: ["installment_count"], message: "Give installment_amount or installment_count, not both" });
    if (!amount && !count) c.addIssue({ code: "custom", path: ["installment_amount"], message: "Give installment_amount or installment_count" });
    if (v.down_payment !== undefined && v.down_payment >= v.principal)
      c.addIssue({ code: "custom", path: ["down_payment"], message: "Must be less than the principal (something must be financed)" });
  });
export type PaymentPlanCreate = z.infer<typeof PaymentPlanCreate>;

export const PaymentPlanClose = z.strictObject({ base_version: BaseVersion, reason: z.string().trim().max(500).nullable().optional() });
export type PaymentPlanClose = z.infer<typeof PaymentPlanClose>;

export const PaymentPlanListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  guarantor_uuid: Uuid.optional(),
  patient_uuid: Uuid.optional(),
  status: z.enum(PLAN_STATUSES).optional(),
});
export type PaymentPlanListQuery = z.infer<typeof PaymentPlanListQuery>;

const planFields = {
  ...RecordMeta,
  guarantor: Ref,
  patient: Ref,
  principal: Money.describe("Dollars: the debt the plan covers, down payment included"),
  down_payment: Money,
  financed: Money.describe("principal less down_payment: what the plan took off the account when it was created"),
  apr: z.number().describe("Annual percentage rate, percent"),
  frequency: z.enum(FREQUENCIES),
  installment_amount: Money.describe("Every installment but the last, which takes the remainder"),
  installment_count: z.number().int(),
  start_date: z.string().describe("YYYY-MM-DD: the first installment's due date"),
  note: z.string().nullable(),
  status: z.enum(PLAN_STATUSES),
  closed_at: DateTime.nullable(),
  total_interest: Money.describe("Interest over the whole schedule"),
  total_of_installments: Money.describe("financed plus total_interest: what the installments add up to"),
  installments_posted: z.number().int().describe("Installments posted to the ledger as charges so far"),
  posted: Money.describe("What those installments add up to"),
  principal_remaining: Money.describe("Principal still held by the plan (not yet posted); 0.00 once closed, when it went back to the account"),
  due: Money.describe("Installments posted and not yet paid (0.00 once closed): this plan's part of the patient's payment_plan_due"),
  next_due_date: z.string().nullable().describe("The next installment not yet posted; null when every one is posted or the plan is closed"),
};

export const PaymentPlan = z.object(planFields).meta({ id: "PaymentPlan" });
export type PaymentPlan = z.infer<typeof PaymentPlan>;

export const PaymentPlanInstallment = z
  .object({
    number: z.number().int(),
    due_date: z.string().describe("YYYY-MM-DD"),
    amount: Money,
    principal: Money,
    interest: Money,
    balance_after: Money.describe("Principal left after this installment"),
    posted: z.boolean().describe("Posted to the ledger as a charge"),
    entry_uuid: z.string().nullable().describe("The ledger entry of the charge, once posted"),
  })
  .meta({ id: "PaymentPlanInstallment" });

export const PaymentPlanDetail = z
  .object({ ...planFields, schedule: z.array(PaymentPlanInstallment).describe("The amortization schedule, one row per installment") })
  .meta({ id: "PaymentPlanDetail" });
export type PaymentPlanDetail = z.infer<typeof PaymentPlanDetail>;
