import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { CancelBody, DeclineBody, DocumentSignature, DocumentSignatureList, SignatureRequest, SignBody, SIGNATURE_IMAGE_MAX_BYTES } from "./schemas";
import { cancelSignature, declineSignature, listSignatures, requestSignatures, signSignature } from "./service";

const DOC_404 = "404 when the document is missing, archived or another org's, or the signature is not this document's.";
const PENDING_ONLY =
  "Only a pending signature (else 409 signature_not_pending); base_version (optional) is the signature's version, stale is 409 version_conflict.";

/** Signature requests on a document and the signatures, declines and cancellations recorded against them. */
export const documentSignatureRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.documents.signatures", prefix: "/api/v1/:org_id/documents/:document_uuid", tags: ["Documents"] })
    .use(guard(rt))
    .get("/signatures", ({ ctx, params }) => listSignatures(ctx, params.document_uuid), {
      permission: "documents.read",
      response: { 200: DocumentSignatureList, ...orgErrors() },
      detail: {
        summary: "List a document's signatures",
        description:
          "Every signature request of the document in any status (not paged), by signing_order, then created_at. A typed signature's text is answered; a drawn signature's image is not (has_signature_image tells whether one is stored). 404 when the document is missing, archived or another org's.",
      },
    })
    .post(
      "/signatures",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return requestSignatures(ctx, params.document_uuid, body);
      },
      {
        permission: "documents.sign",
        body: SignatureRequest,
        response: { 201: DocumentSignatureList, ...orgErrors(413, 415) },
        detail: {
          summary: "Request signatures on a document",
          description:
            "Creates one pending signature per signer (1-10) and answers them in the order given. signer_patient_uuid must be a live patient of this org (422 at that signer). A signer without signing_order comes one after the highest order on the document so far; lower orders sign first, equal orders in any order. 422 document_locked when the document is locked; 422 document_not_ready unless it is active with a confirmed version. 404 when the document is missing, archived or another org's.",
        },
      },
    )
    .post("/signatures/:signature_uuid/sign", ({ ctx, params, body }) => signSignature(ctx, params.document_uuid, params.signature_uuid, body), {
      permission: "documents.sign",
      body: SignBody,
      response: { 200: DocumentSignature, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Record a signature",
        description: `typed: signature_text (1-200 characters); drawn: signature_image, a data:image/png;base64, URL whose bytes are a PNG of at most ${SIGNATURE_IMAGE_MAX_BYTES} bytes. ${PENDING_ONLY} 422 signing_out_of_order while a pending signature has a lower signing_order; 422 document_not_ready unless the document is active with a confirmed version. The signature records signed_at, signed_version_number (the document's confirmed version) and signed_sha256 (that file's hash). When no signature of the document is pending any more, the document becomes is_signed and is_locked in the same transaction (event document.signed). ${DOC_404}`,
      },
    })
    .post("/signatures/:signature_uuid/decline", ({ ctx, params, body }) => declineSignature(ctx, params.document_uuid, params.signature_uuid, body), {
      permission: "documents.sign",
      body: DeclineBody,
      response: { 200: DocumentSignature, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Record that a signer declined",
        description: `reason is required. ${PENDING_ONLY} A declined signature no longer holds back later signers, and never signs or locks the document by itself. ${DOC_404}`,
      },
    })
    .post("/signatures/:signature_uuid/cancel", ({ ctx, params, body }) => cancelSignature(ctx, params.document_uuid, params.signature_uuid, body), {
      permission: "documents.sign",
      body: CancelBody,
      response: { 200: DocumentSignature, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Cancel a signature request",
        description: `The body may be left out. ${PENDING_ONLY} A canceled request no longer holds back later signers, and never signs or locks the document by itself. ${DOC_404}`,
      },
    });
