import { z } from "zod";
import { BaseVersion, DateOnly, DateTime, QueryBool, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

// Documents (spec.md "Document" and "Documents"; docs/documents/documents.md): the record,
// the upload form, the list query, metadata changes and the pipeline's status.

/** spec.md's document_type values. */
export const DOCUMENT_TYPES = [
  "acls",
  "administrative_procedure",
  "aed_maintenance_record",
  "anesthesia_consent",
  "annual_filing",
  "baa",
  "background_check",
  "biological_monitoring_result",
  "bitewing",
  "board_certification",
  "brand_asset",
  "breach_log",
  "building_permit",
  "business_license",
  "bylaws_operating_agreement",
  "calibration_record",
  "case_presentation",
  "cbct",
  "ce_certificate",
  "ce_summary",
  "cephalometric",
  "certificate_of_occupancy",
  "claim_attachment",
  "clinical_protocol",
  "controlled_substance_license",
  "corporate_resolution",
  "covid_screening",
  "cpr_bls",
  "credentialing_packet",
  "dea_registration",
  "digital_impression",
  "emergency_contact_form",
  "emergency_procedure",
  "emergency_protocol",
  "employee_handbook",
  "employment_agreement",
  "eob",
  "equipment_manual",
  "extraoral_photo",
  "facility_registration",
  "financial_agreement",
  "financial_statement",
  "fire_inspection",
  "form_1099",
  "formation_documents",
  "general_consent",
  "health_department_inspection",
  "health_questionnaire",
  "hipaa_acknowledgment",
  "hipaa_training_certificate",
  "infection_control_manual",
  "insurance_card_back",
  "insurance_card_front",
  "insurance_contract",
  "intraoral_photo",
  "it_agreement",
  "job_description",
  "lab_case_photos",
  "lab_contract",
  "lab_delivery_confirmation",
  "lab_prescription",
  "lease_agreement",
  "liability_insurance",
  "maintenance_log",
  "malpractice_insurance",
  "marketing_collateral",
  "marketing_template",
  "medical_history",
  "minor_guardian_authorization",
  "narrative",
  "npi_documentation",
  "npp",
  "odontogram_snapshot",
  "offer_letter",
  "osha_compliance_document",
  "osha_inspection",
  "osha_training_certificate",
  "other",
  "panel_participation_letter",
  "panoramic",
  "patient_letter",
  "patient_registration",
  "payment_plan_agreement",
  "pdmp_check_documentation",
  "performance_review",
  "periapical",
  "periodontal_chart",
  "photo_id_back",
  "photo_id_front",
  "preauth_request",
  "preauth_response",
  "prescription_record",
  "privacy_policy",
  "procedure_consent",
  "progress_notes",
  "property_insurance",
  "radiation_safety_inspection",
  "radiation_safety_training",
  "recall_notice",
  "receipt",
  "referral_letter_incoming",
  "referral_letter_outgoing",
  "risk_assessment",
  "sds_sheet",
  "security_policy",
  "sedation_permit",
  "smile_design_photo",
  "specialist_report",
  "specialty_certification",
  "state_dental_license",
  "statement",
  "sterilization_log",
  "tax_return",
  "training_manual",
  "treatment_plan_signed",
  "treatment_plan_unsigned",
  "vaccination_record",
  "vendor_contract",
  "w9",
  "warranty_documentation",
  "water_quality_report",
  "workers_comp",
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export const DOCUMENT_STATUSES = ["uploading", "processing", "active", "quarantined", "error", "archived"] as const;
export const OCR_STATUSES = ["pending", "processing", "completed", "failed", "skipped"] as const;
export const OWNER_TYPES = ["patient", "provider", "location"] as const;
export type OwnerType = (typeof OWNER_TYPES)[number];
export const LINK_TARGET_TYPES = ["patient", "appointment", "charted_procedure", "treatment_plan", "insurance_draft"] as const;
/** The pipeline, in order (docs/documents/documents.md, "Processing"). */
export const PROCESSING_STEPS = ["scan", "ocr", "classify", "thumbnail"] as const;
export type ProcessingStep = (typeof PROCESSING_STEPS)[number];
export const STEP_STATUSES = ["pending", "running", "completed", "failed", "skipped"] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];
/** The pipeline in one word, on the Document: queued, running, completed, quarantined or failed. */
export const PROCESSING_STATES = ["queued", "running", "completed", "quarantined", "failed"] as const;
export const DOCUMENT_SORTS = ["created_at", "updated_at", "title", "document_date", "file_size", "document_type"] as const;

const Tag = z.string().trim().min(1).max(50);
const TAGS_MAX = 20;

export const Document = z
  .object({
    ...RecordMeta,
    title: z.string(),
    file_name: z.string(),
    file_size: z.number().int().describe("Bytes of the current version"),
    mime_type: z.string().describe("Sniffed from the bytes, not taken from the client"),
    document_type: z.enum(DOCUMENT_TYPES),
    category: Ref.nullable(),
    description: z.string().nullable(),
    document_date: z.string().nullable(),
    expiration_date: z.string().nullable(),
    ai_classification: z.enum(DOCUMENT_TYPES).nullable().describe("The classifier's suggestion; it never changes document_type"),
    ai_confidence: z.number().nullable().describe("0 to 1"),
    has_thumbnail: z.boolean(),
    is_locked: z.boolean(),
    is_org_scoped: z.boolean(),
    is_signed: z.boolean(),
    is_starred: z.boolean(),
    legal_hold: z.boolean(),
    link_targets: z.array(z.object({ target_type: z.enum(LINK_TARGET_TYPES), target_uuid: z.string() })),
    ocr_status: z.enum(OCR_STATUSES),
    owner_type: z.enum(OWNER_TYPES).nullable(),
    owner_uuid: z.string().nullable(),
    page_count: z.number().int().nullable(),
    processing_status: z.enum(PROCESSING_STATES),
    status: z.enum(DOCUMENT_STATUSES),
    tags: z.array(z.string()),
    uploaded_by: z.string().nullable().describe("The uploading user's id"),
    current_version: z.number().int(),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "Document" });
export type Document = z.infer<typeof Document>;

/** Form fields arrive as text: tags as repeated fields, a JSON array or a comma-separated list. */
const TagsField = z
  .union([z.string(), z.array(z.string())])
  .transform((v, ctx) => {
    const parts = Array.isArray(v) ? v : [v];
    const out: string[] = [];
    for (const p of parts) {
      const s = p.trim();
      if (s.startsWith("[")) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(s);
        } catch {
          ctx.addIssue({ code: "custom", message: "Must be a JSON array of strings, a comma-separated list or repeated fields" });
          return z.NEVER;
        }
        if (!Array.isArray(parsed) || parsed.some((t) => typeof t !== "string")) {
          ctx.addIssue({ code: "custom", message: "Must be a JSON array of strings" });
          return z.NEVER;
        }
        out.push(...(parsed as string[]));
      } else out.push(...s.split(","));
    }
    return [...new Set(out.map((t) => t.trim()).filter(Boolean))];
  })
  .pipe(z.array(Tag).max(TAGS_MAX));

const FormBool = QueryBool;

const metadataFields = {
  title: z.string().trim().min(1).max(200).describe("Default: the file name"),
  document_type: z.enum(DOCUMENT_TYPES).describe("Default other; the classifier suggests one in ai_classification"),
  category_uuid: Uuid.describe("A live document category"),
  description: z.string().trim().max(4000),
  document_date: DateOnly,
  expiration_date: DateOnly,
};

/** The text fields of POST {P}/documents (the file goes in the part named `file`). */
export const DocumentUploadForm = z
  .strictObject({
    ...Object.fromEntries(Object.entries(metadataFields).map(([k, v]) => [k, v.optional()])),
    owner_type: z.enum(OWNER_TYPES).optional(),
    owner_uuid: Uuid.optional(),
    tags: TagsField.optional(),
    is_org_scoped: FormBool.optional().describe("Default: true when no owner is given"),
  } as {
    [K in keyof typeof metadataFields]: z.ZodOptional<(typeof metadataFields)[K]>;
  } & {
    owner_type: z.ZodOptional<z.ZodEnum<{ [K in OwnerType]: K }>>;
    owner_uuid: z.ZodOptional<typeof Uuid>;
    tags: z.ZodOptional<typeof TagsField>;
    is_org_scoped: z.ZodOptional<typeof FormBool>;
  })
  .superRefine((v, ctx) => {
    if (!!v.owner_type !== !!v.owner_uuid)
      ctx.addIssue({ code: "custom", path: [v.owner_type ? "owner_uuid" : "owner_type"], message: "owner_type and owner_uuid go together" });
    if (v.owner_type && v.is_org_scoped === true) ctx.addIssue({ code: "custom", path: ["is_org_scoped"], message: "An org-scoped document has no owner" });
    if (!v.owner_type && v.is_org_scoped === false)
      ctx.addIssue({ code: "custom", path: ["is_org_scoped"], message: "A document without an owner is org-scoped" });
    if (v.document_date && v.expiration_date && v.expiration_date < v.document_date)
      ctx.addIssue({ code: "custom", path: ["expiration_date"], message: "Must not be before document_date" });
  });
export type DocumentUploadForm = z.infer<typeof DocumentUploadForm>;

/** The text fields of POST {P}/documents/{id}/versions. */
export const VersionUploadForm = z.strictObject({ comment: z.string().trim().max(1000).optional(), base_version: z.coerce.number().int().min(1).optional() });
export type VersionUploadForm = z.infer<typeof VersionUploadForm>;

export const DocumentPatch = z
  .strictObject({
    base_version: BaseVersion,
    title: metadataFields.title.optional(),
    document_type: metadataFields.document_type.optional(),
    category_uuid: Uuid.nullable().optional(),
    description: metadataFields.description.nullable().optional(),
    document_date: DateOnly.nullable().optional(),
    expiration_date: DateOnly.nullable().optional(),
    // as on upload: trimmed, duplicates dropped (first occurrence kept)
    tags: z
      .array(Tag)
      .max(TAGS_MAX)
      .transform((tags) => [...new Set(tags)])
      .optional(),
  })
  .describe("Only the fields sent change; null clears an optional field");
export type DocumentPatch = z.infer<typeof DocumentPatch>;

export const DocumentListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  owner_type: z.enum(OWNER_TYPES).optional(),
  owner_uuid: Uuid.optional(),
  document_type: z.enum(DOCUMENT_TYPES).optional(),
  category_uuid: Uuid.optional(),
  status: z.enum(DOCUMENT_STATUSES).optional().describe("Default: every status but archived"),
  search: z.string().trim().min(1).max(200).optional().describe("Words (prefixes) of the title or the OCR text, all of them"),
  sort: z.enum(DOCUMENT_SORTS).default("created_at"),
  order: z.enum(["asc", "desc"]).default("desc"),
  include_org_scoped: QueryBool.default(false).describe("Org-scoped documents (no owner) are left out unless true"),
});
export type DocumentListQuery = z.infer<typeof DocumentListQuery>;

export const FileUrl = z
  .object({ download_url: z.string(), expires_in: z.number().int().describe("Seconds the URL stays valid") })
  .meta({ id: "DocumentFileUrl" });
export type FileUrl = z.infer<typeof FileUrl>;

export const DocumentVersion = z
  .object({
    id: z.string(),
    document_uuid: z.string(),
    version_number: z.number().int(),
    file_name: z.string(),
    file_size: z.number().int(),
    mime_type: z.string(),
    sha256: z.string(),
    status: z.enum(["processing", "confirmed", "quarantined", "error"]).describe("confirmed: passed the virus scan (downloadable)"),
    has_thumbnail: z.boolean(),
    page_count: z.number().int().nullable(),
    comment: z.string().nullable(),
    uploaded_by: z.string().nullable(),
    created_at: DateTime,
  })
  .meta({ id: "DocumentVersion" });
export type DocumentVersion = z.infer<typeof DocumentVersion>;

export const ProcessingStatus = z
  .object({
    document_uuid: z.string(),
    version_number: z.number().int(),
    overall_progress: z.string().describe('A summary such as "2 of 4 steps done"'),
    processing_status: z.enum(PROCESSING_STATES),
    steps: z.array(
      z.object({
        step: z.enum(PROCESSING_STEPS),
        label: z.string(),
        status: z.enum(STEP_STATUSES),
        attempts: z.number().int(),
        started_at: DateTime.nullable(),
        finished_at: DateTime.nullable(),
        message: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: "DocumentProcessingStatus" });
export type ProcessingStatus = z.infer<typeof ProcessingStatus>;

export const DocumentArchiveQuery = z.strictObject({ base_version: z.coerce.number().int().min(1).optional() });
