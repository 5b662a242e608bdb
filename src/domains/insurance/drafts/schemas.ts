import { z } from "zod";
import { DateTime, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { PatientPlan } from "@/domains/insurance/patient-plans/schemas";
import { Subscription } from "@/domains/insurance/subscriptions/schemas";

// Insurance drafts: imported rows of insurance data awaiting review (docs/insurance/insurance-drafts.md).

export const REVIEW_STATUSES = ["pending", "matched", "converted", "rejected", "error"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** Rows one import may hold (docs/insurance/insurance-drafts.md: the body limits decide how many fit in practice). */
export const MAX_IMPORT_ROWS = 10_000;
/** Keys one raw row may hold. */
export const MAX_ROW_KEYS = 100;

/** One raw row as the source system sent it: any JSON values; the recognised keys are read by matching. */
export const RawRow = z
  .record(z.string(), z.unknown())
  // one pass over the keys (a record schema with a key schema costs several times as much over 10,000 rows)
  .refine((r) => {
    let n = 0;
    for (const k in r) if (++n > MAX_ROW_KEYS || k.length === 0 || k.length > 100) return false;
    return true;
  }, `A row may hold at most ${MAX_ROW_KEYS} keys, each 1 to 100 characters`)
  .describe(
    "The source system's row as sent (stored unchanged in raw_data_json). Recognised keys (any case; aliases in docs/insurance/insurance-drafts.md): carrier_name, electronic_id (payer_id), group_number, group_name, subscriber_first_name, subscriber_last_name, subscriber_date_of_birth (YYYY-MM-DD or MM/DD/YYYY), subscriber_id (member_id), relationship (self | spouse | child | other), effective_date, termination_date, source_ref",
  );

export const DraftImport = z.strictObject({
  patient_uuid: Uuid.describe("The patient the rows are about (404 when missing; 422 patient_archived when archived)"),
  rows: z.array(RawRow).min(1).max(MAX_IMPORT_ROWS).describe(`One draft per row, 1 to ${MAX_IMPORT_ROWS} rows`),
  source_system: z.string().trim().min(1).max(100).optional().describe("Where the rows come from, e.g. a clearinghouse or the previous practice system"),
});
export type DraftImport = z.infer<typeof DraftImport>;

export const DraftListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  patient_uuid: Uuid.optional().describe("The patient's drafts (404 when the patient does not exist)"),
  review_status: z.enum(REVIEW_STATUSES).optional(),
  import_id: Uuid.optional().describe("The drafts of one import, in row order"),
});
export type DraftListQuery = z.infer<typeof DraftListQuery>;

export const DraftReject = z.strictObject({
  reason: z.string().trim().min(1).max(2000).describe("Why the draft is rejected (required)"),
});
export type DraftReject = z.infer<typeof DraftReject>;

export const Draft = z
  .object({
    ...RecordMeta,
    patient: Ref.describe('The patient the draft is about; name is "First Last"'),
    subscriber_patient: Ref.nullable().describe("The subscriber matched (the patient themself for relationship self); null until matched"),
    matched_carrier: Ref.nullable(),
    matched_plan: Ref.nullable().describe("name is the plan name, else its group name, else its group number"),
    converted_subscription: Ref.nullable().describe("Set by convert; name is the member id"),
    converted_patient_plan: Ref.nullable().describe("Set by convert; name is null (a patient plan has none)"),
    raw_data_json: z.record(z.string(), z.unknown()).describe("The row as imported"),
    review_status: z.enum(REVIEW_STATUSES).describe("pending until matching finds carrier, plan and subscriber (matched) or finds the row unusable (error)"),
    match_attempted: z.boolean().describe("False until the matching job (or a rematch) has looked at the draft"),
    conversion_error: z.string().nullable().describe("Why the draft cannot be converted (review_status error)"),
    reject_reason: z.string().nullable(),
    reviewed_at: DateTime.nullable().describe("When it was converted or rejected"),
    reviewed_by_user_uuid: z.string().nullable().describe("Who converted or rejected it"),
    source_ref: z.string().nullable().describe("The row's own id in the source system (raw key source_ref)"),
    source_system: z.string().nullable(),
    import_id: z.string().nullable().describe("The import the draft came from"),
  })
  .meta({ id: "InsuranceDraft" });
export type Draft = z.infer<typeof Draft>;

const Candidate = z.object({
  uuid: z.string(),
  name: z.string().nullable(),
  reason: z.string().describe("Why it is offered, e.g. electronic_id, similar_name"),
});

export const DraftCandidates = z
  .object({
    carriers: z.array(Candidate),
    plans: z.array(Candidate),
    patients: z.array(Candidate).describe("Possible subscribers"),
  })
  .meta({ id: "InsuranceDraftCandidates" });
export type DraftCandidates = z.infer<typeof DraftCandidates>;

export const DraftDetail = z.object({ candidates: DraftCandidates, draft: Draft }).meta({ id: "InsuranceDraftDetail" });
export type DraftDetail = z.infer<typeof DraftDetail>;

export const DraftImportResult = z
  .object({
    import_id: z.string(),
    draft_count: z.number().int().describe("One draft per row"),
    drafts: z
      .object({ items: z.array(Draft), page: z.number().int(), page_size: z.number().int(), total: z.number().int() })
      .describe("The first page (50) of the drafts in row order, as GET /drafts?import_id= answers it"),
  })
  .meta({ id: "InsuranceDraftImport" });
export type DraftImportResult = z.infer<typeof DraftImportResult>;

export const DraftConversion = z.object({ draft: Draft, subscription: Subscription, patient_plan: PatientPlan }).meta({ id: "InsuranceDraftConversion" });
export type DraftConversion = z.infer<typeof DraftConversion>;
