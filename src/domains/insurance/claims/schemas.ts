import { z } from "zod";
import { BaseVersion, DateOnly, DollarsInput, QueryList, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

// Claims' requests and answers (docs/insurance/claims.md). Money answers are
// two-decimal strings; the claim's totals are the sums of its procedures.

export const CLAIM_TYPES = ["primary", "secondary", "preauth", "other"] as const;
export const CLAIM_STATUSES = ["unsent", "hold", "queued", "sent", "received", "rejected", "void"] as const;
export type ClaimType = (typeof CLAIM_TYPES)[number];
export type ClaimStatus = (typeof CLAIM_STATUSES)[number];
export const CLAIM_PROCEDURE_STATUSES = ["estimate", "received", "denied", "void"] as const;

const Note = z.string().trim().max(2000);
const PlaceOfService = z.string().regex(/^\d{2}$/, "A two-digit CMS place of service code, e.g. 11 (office)");
const AuthNumber = z.string().trim().min(1).max(50);

export const ClaimCreate = z.strictObject({
  patient_uuid: Uuid,
  patient_plan_uuid: Uuid.describe("The plan billed: one of the patient's active plans"),
  claim_type: z.enum(CLAIM_TYPES),
  procedure_uuids: z
    .array(Uuid)
    .min(1)
    .max(50)
    .describe("1 to 50 charted procedures of the patient: completed ones for a claim, treatment-planned ones for a preauth"),
  treating_provider_uuid: Uuid.nullable().optional().describe("Default: the first procedure's provider"),
  billing_provider_uuid: Uuid.nullable().optional().describe("Default: the treating provider"),
  place_of_service: PlaceOfService.optional().describe("CMS place of service code; default 11 (office)"),
  prior_authorization_number: AuthNumber.nullable().optional(),
  note: Note.nullable().optional(),
  attachment_document_uuids: z.array(Uuid).max(20).optional().describe("The patient's documents sent with it (radiographs, perio charts)"),
});
export type ClaimCreate = z.infer<typeof ClaimCreate>;

export const ClaimPatch = z.strictObject({
  base_version: BaseVersion,
  procedure_uuids: z.array(Uuid).min(1).max(50).optional().describe("Only while unsent or on hold"),
  treating_provider_uuid: Uuid.nullable().optional(),
  billing_provider_uuid: Uuid.nullable().optional(),
  place_of_service: PlaceOfService.optional(),
  prior_authorization_number: AuthNumber.nullable().optional(),
  note: Note.nullable().optional(),
  attachment_document_uuids: z.array(Uuid).max(20).optional(),
});
export type ClaimPatch = z.infer<typeof ClaimPatch>;

export const ClaimStatusChange = z.strictObject({
  base_version: BaseVersion,
  status: z.enum(CLAIM_STATUSES),
  note: Note.nullable().optional().describe("Why: a hold's reason, the clearinghouse's rejection, a void's reason"),
  date: DateOnly.optional().describe("sent or received: the date it happened (default today)"),
  preauth_estimates: z
    .array(z.strictObject({ procedure_uuid: Uuid, insurance_estimate: DollarsInput().describe("What the carrier says it will pay") }))
    .min(1)
    .max(50)
    .optional()
    .describe("A pre-authorization received: the carrier's estimate per procedure (the procedures' estimates then show it as preauth_amount)"),
});
export type ClaimStatusChange = z.infer<typeof ClaimStatusChange>;

export const ClaimListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: QueryList(z.enum(CLAIM_STATUSES)).optional().describe("Repeatable"),
  claim_type: z.enum(CLAIM_TYPES).optional(),
  patient_uuid: Uuid.optional(),
  carrier_uuid: Uuid.optional(),
  date_from: DateOnly.optional().describe("date_service on or after"),
  date_to: DateOnly.optional().describe("date_service on or before"),
  sent_from: DateOnly.optional().describe("date_sent on or after"),
  sent_to: DateOnly.optional().describe("date_sent on or before: status=sent&sent_to=<30 days ago> is the outstanding-claims list"),
});
export type ClaimListQuery = z.infer<typeof ClaimListQuery>;

const Money = z.string().describe("Dollars, two decimals");

export const ClaimProcedure = z.object({
  id: z.string(),
  procedure: Ref.describe("The charted procedure (name: its code)"),
  procedure_code: z.string(),
  tooth_number: z.string().nullable(),
  surfaces: z.string().nullable(),
  date_service: z.string(),
  fee_billed: Money,
  insurance_estimate: Money.describe("The procedure's estimate for this plan when claimed; a received pre-authorization's: the carrier's"),
  deductible_applied: Money.describe("Estimated until the carrier answers, then what it applied"),
  allowed_amount: Money.nullable(),
  insurance_paid: Money,
  write_off: Money,
  patient_portion: Money.describe("Estimated (fee less estimate and prior payments) until the carrier answers, then its patient responsibility"),
  prior_paid: Money.describe("A secondary claim: what the primary paid and wrote off on it"),
  remark_codes: z.array(z.string()).describe("CARC/RARC codes the carrier gave (e.g. CO-45, N130)"),
  status: z.enum(CLAIM_PROCEDURE_STATUSES),
});

export const Claim = z
  .object({
    ...RecordMeta,
    claim_number: z.string(),
    claim_type: z.enum(CLAIM_TYPES),
    status: z.enum(CLAIM_STATUSES),
    patient: Ref,
    patient_plan: Ref.describe("name: the plan's name"),
    subscription: Ref.describe("name: the subscriber id"),
    carrier: Ref,
    plan: Ref,
    ordinal: z.number().int().describe("The patient plan's ordinal when billed: 1 primary, 2 secondary"),
    treating_provider: Ref.nullable(),
    billing_provider: Ref.nullable(),
    place_of_service: z.string(),
    prior_authorization_number: z.string().nullable(),
    note: z.string().nullable(),
    attachment_document_uuids: z.array(z.string()),
    date_service: z.string().describe("The earliest procedure's date"),
    date_sent: z.string().nullable(),
    date_received: z.string().nullable(),
    primary_claim: Ref.nullable().describe("A secondary claim: the primary claim of its procedures"),
    secondary_ready: z.boolean().describe("Received, and the patient has another plan to bill next"),
    batch_uuid: z.string().nullable().describe("The last 837D batch that took it"),
    status_note: z.string().nullable(),
    fee_billed: Money,
    insurance_estimate: Money,
    deductible_applied: Money,
    insurance_paid: Money,
    write_off: Money,
    patient_portion: Money,
    procedures: z.array(ClaimProcedure),
  })
  .meta({ id: "Claim" });
export type Claim = z.infer<typeof Claim>;

export const ClaimPage = z.object({
  items: z.array(Claim),
  page: z.number().int(),
  page_size: z.number().int(),
  total: z.number().int(),
});
