import { claimBatches } from "@db/tenant/claims";
import { defineResource } from "@/platform/records/resource";
import type { ClaimBatch, ClaimBatchStatus } from "./schemas";

// The claim batch record (docs/insurance/claims.md, "Batches"): its audit and
// events through defineResource, and how it is answered.

export type ClaimBatchRow = typeof claimBatches.$inferSelect;
export type BatchError = ClaimBatchRow["errors"][number];

export const claimBatchRecords = defineResource<ClaimBatchRow, ClaimBatchRow>({
  table: claimBatches,
  name: "claim_batch",
  label: "Claim batch",
  serialize: (r) => r,
  // events name fields as the API does; where the file is stored is nobody's business but the service's
  eventFields: {
    rename: { claim_ids: "claim_uuids", written_claim_ids: "written_claim_uuids", storage_key: null },
  },
});

export function batchOut(r: ClaimBatchRow): ClaimBatch {
  return {
    id: r.id,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    status: r.status as ClaimBatchStatus,
    control_number: r.control_number,
    claim_uuids: r.claim_ids,
    written_claim_uuids: r.written_claim_ids,
    errors: r.errors.map((e) => ({ claim_uuid: e.claim_id, claim_number: e.claim_number, problems: e.problems })),
    file_size: r.file_size,
    error: r.error,
  };
}
