import { z } from "zod";
import { DateTime } from "@/platform/records/fields";

export const PRESENTATION_STATUSES = ["awaiting_signature", "signed", "declined", "canceled"] as const;

export const PresentationCreate = z
  .strictObject({
    signer_name: z.string().trim().min(1).max(200).optional().describe("Who signs; default the patient's name"),
    signer_role: z.enum(["patient", "guardian"]).default("patient").describe("patient (default) or guardian (a minor's plan)"),
    signer_email: z.email().max(320).nullable().optional(),
  })
  .optional();
export type PresentationCreate = z.infer<typeof PresentationCreate>;

export const Presentation = z
  .object({
    id: z.string(),
    treatment_plan_uuid: z.string(),
    patient_uuid: z.string(),
    document_uuid: z.string().describe("The stored PDF: a document of the patient (treatment_plan_unsigned, treatment_plan_signed once signed)"),
    signature_uuid: z.string().describe("The signature request opened on it (sign it through the document signature endpoints)"),
    status: z.enum(PRESENTATION_STATUSES).describe("The signature's: awaiting_signature (pending), signed, declined, canceled"),
    signed_at: DateTime.nullable(),
    procedure_count: z.number().int(),
    total_fee: z.string().describe("Dollars, as presented (frozen: later fee changes do not change it)"),
    insurance_estimates: z.array(z.string()).describe("Each insurance's estimate as presented, in coordination-of-benefits order (dollars)"),
    write_off: z.string().describe("The PPO write-off the estimates expect (fee less insurance and patient portion), dollars, as presented"),
    patient_portion: z.string().describe("Dollars, as presented"),
    estimate_state: z.enum(["current", "stale", "none"]).describe("Whether the insurance figures were current when presented"),
    sha256: z.string().describe("Of the PDF presented: what a signature covers"),
    page_count: z.number().int(),
    presented_by: z.string().nullable().describe("The user who presented it"),
    version: z.number().int(),
    created_at: DateTime,
  })
  .meta({ id: "TreatmentPlanPresentation" });
export type Presentation = z.infer<typeof Presentation>;

export const PresentationList = z.object({ items: z.array(Presentation).describe("Newest first"), total: z.number().int() });
export const PdfFile = z
  .string()
  .meta({ contentMediaType: "application/pdf", format: "binary" })
  .describe("The presentation as a PDF (application/pdf, inline; filename treatment-plan-<chart number>.pdf)");
