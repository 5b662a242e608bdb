import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { ClaimBatch, ClaimBatchCreate, ClaimBatchFile, ClaimBatchListQuery, ClaimBatchPage, X12_CONTENT_TYPE } from "./schemas";
import { claimBatchFile, createClaimBatch, getClaimBatch, listClaimBatches } from "./service";

export const claimBatchRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.claim-batches", prefix: "/api/v1/:org_id/insurance", tags: ["Claims"] })
    .use(guard(rt))
    .post(
      "/claim-batches",
      async ({ ctx, body, set }) => {
        set.status = 202;
        return createClaimBatch(ctx, body ?? {});
      },
      {
        permission: "insurance.claims.write",
        body: ClaimBatchCreate.optional(),
        response: { 202: ClaimBatch, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Send queued claims in an 837D batch",
          description:
            "Answers 202 with the batch building (control_number: the org's next); the claims.export-837d job then writes the 837D file of the batch's claims still queued, checks it by reading it back, stores it and makes the batch ready, each written claim sent (date_sent, batch_uuid). A claim that cannot be sent (no NPI, no payer id, no member id, a line without its tooth...) is left out, listed in errors with its problems, and stays queued with them in its status_note; a batch none of whose claims could be written is failed. Without claim_uuids (or without a body): every queued claim not already in a batch being built, oldest first, up to 500. 404 for a missing claim; 422 claim_not_queued naming each claim that is not queued or is in a batch being built; 422 nothing_to_send when there is no queued claim.",
        },
      },
    )
    .get("/claim-batches", ({ ctx, query }) => listClaimBatches(ctx, query), {
      permission: "insurance.claims.read",
      query: ClaimBatchListQuery,
      response: { 200: ClaimBatchPage, ...orgErrors() },
      detail: {
        summary: "List claim batches",
        description: "837D batches, newest first, filtered by status (building, ready, failed).",
      },
    })
    .get("/claim-batches/:batch_uuid", ({ ctx, params }) => getClaimBatch(ctx, params.batch_uuid), {
      permission: "insurance.claims.read",
      response: { 200: ClaimBatch, ...orgErrors() },
      detail: {
        summary: "Get a claim batch",
        description: "The batch with its claims, the ones written to the file and the ones left out with their problems; 404 when missing.",
      },
    })
    .get(
      "/claim-batches/:batch_uuid/file",
      async ({ ctx, params }) => {
        const file = await claimBatchFile(rt, ctx, params.batch_uuid);
        return new Response(file.text, {
          headers: {
            "content-type": X12_CONTENT_TYPE,
            "content-disposition": `attachment; filename="${file.fileName}"`,
            "cache-control": "private, no-store",
            "x-content-type-options": "nosniff",
          },
        });
      },
      {
        permission: "insurance.claims.read",
        response: { 200: ClaimBatchFile, ...orgErrors() },
        detail: {
          summary: "Download a claim batch's 837D file",
          description:
            "The ready batch's X12 file (application/edi-x12, an attachment named <control number>.x12), to upload to the clearinghouse. It holds patients' data: each download is recorded in the org's audit trail (claim_batch.downloaded). 404 when the batch is missing or not ready.",
        },
      },
    );
