import { z } from "zod";
import { RecordMeta, Uuid } from "@/platform/records/fields";
import { PageSchema, pagingQuery } from "@/platform/records/paging";

// 837D claim batches' requests and answers (docs/insurance/claims.md, "Batches").

export const CLAIM_BATCH_STATUSES = ["building", "ready", "failed"] as const;
export type ClaimBatchStatus = (typeof CLAIM_BATCH_STATUSES)[number];

/** The media type of an X12 file (RFC 1767). */
export const X12_CONTENT_TYPE = "application/edi-x12";

/** At most this many claims go in one batch (one 837D file). */
export const MAX_BATCH_CLAIMS = 500;

export const ClaimBatchCreate = z.strictObject({
  claim_uuids: z
    .array(Uuid)
    .min(1)
    .max(MAX_BATCH_CLAIMS)
    .optional()
    .describe(
      `1 to ${MAX_BATCH_CLAIMS} queued claims (a uuid given twice counts once); default: every queued claim not in a batch being built, oldest first, up to ${MAX_BATCH_CLAIMS}`,
    ),
});
export type ClaimBatchCreate = z.infer<typeof ClaimBatchCreate>;

export const ClaimBatchListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  status: z.enum(CLAIM_BATCH_STATUSES).optional(),
});
export type ClaimBatchListQuery = z.infer<typeof ClaimBatchListQuery>;

export const ClaimBatchError = z.object({
  claim_uuid: z.string(),
  claim_number: z.string(),
  problems: z.array(z.string()).describe('Why the claim was left out of the file, e.g. "The billing provider has no NPI"'),
});

export const ClaimBatch = z
  .object({
    ...RecordMeta,
    status: z
      .enum(CLAIM_BATCH_STATUSES)
      .describe("building until the claims.export-837d job has written the file; then ready, or failed when no claim could be written"),
    control_number: z.number().int().describe("Per org, from 1: the file's ISA13 / GS06 / ST02"),
    claim_uuids: z.array(z.string()).describe("The claims the batch took"),
    written_claim_uuids: z.array(z.string()).describe("The claims in the file (now sent)"),
    errors: z.array(ClaimBatchError).describe("The claims left out of the file and why (they stay queued, the problems in their status_note)"),
    file_size: z.number().int().nullable().describe("Bytes of the X12 file once ready"),
    error: z.string().nullable().describe("Why the batch failed"),
  })
  .meta({ id: "ClaimBatch" });
export type ClaimBatch = z.infer<typeof ClaimBatch>;

export const ClaimBatchPage = PageSchema(ClaimBatch);

export const ClaimBatchFile = z.string().describe("The 837D (005010X224A2) interchange as X12 text, segments ended by ~");
