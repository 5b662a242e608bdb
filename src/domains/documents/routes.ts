import { Elysia } from "elysia";
import { z } from "zod";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema, pagingQuery } from "@/platform/records/paging";
import { DateTime } from "@/platform/records/fields";
import {
  Document,
  DocumentArchiveQuery,
  DocumentListQuery,
  DocumentPatch,
  DocumentVersion,
  DOCUMENT_TYPES,
  FileUrl,
  OWNER_TYPES,
  ProcessingStatus,
} from "./schemas";
import {
  archiveDocument,
  documentAudit,
  fileUrl,
  getDocument,
  listDocuments,
  listVersions,
  processingStatus,
  setFlag,
  updateDocument,
  uploadDocument,
  uploadVersion,
} from "./service";
import { uploadOf } from "./upload";

const LOCKED = "A locked document (signed documents are) refuses content changes: 422 document_locked.";
const UPLOAD_RULES =
  "multipart/form-data with the file in the part named `file` (anything else: 415). The type is sniffed from the bytes and must be PDF, JPEG, PNG, TIFF, HEIC or DICOM (else 422 file_type_not_allowed); a declared Content-Type or file extension that contradicts the bytes is 422 file_type_mismatch; over UPLOAD_LIMIT_BYTES (default 50 MB) 413. The file is streamed to storage and its SHA-256 kept; the virus scan, OCR, classification and thumbnail follow as background jobs (GET .../processing-status).";

const multipartBody = (fields: Record<string, unknown>, required: string[] = []) => ({
  required: true,
  content: {
    "multipart/form-data": {
      schema: { type: "object", required: ["file", ...required], properties: { file: { type: "string", format: "binary" }, ...fields } },
    },
  },
});

const UPLOAD_FIELDS = {
  title: { type: "string", maxLength: 200, description: "Default: the file name" },
  document_type: { type: "string", enum: [...DOCUMENT_TYPES], description: "Default other" },
  owner_type: { type: "string", enum: [...OWNER_TYPES] },
  owner_uuid: { type: "string", format: "uuid", description: "With owner_type: a live patient, provider or location" },
  category_uuid: { type: "string", format: "uuid", description: "A live category of the owner's scope (organization without an owner)" },
  description: { type: "string", maxLength: 4000 },
  document_date: { type: "string", format: "date" },
  expiration_date: { type: "string", format: "date" },
  tags: { type: "string", description: "Repeated fields, a JSON array or a comma-separated list; at most 20 tags of 50 characters" },
  is_org_scoped: { type: "string", enum: ["true", "false"], description: "Default: true when no owner is given (and only then)" },
};

const AuditItem = z.object({
  id: z.string(),
  action: z.string(),
  resource_type: z.string(),
  resource_id: z.string(),
  actor_id: z.string(),
  actor_type: z.string(),
  actor_display_name: z.string().nullable(),
  request_id: z.string().nullable(),
  created_at: DateTime,
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
});

const VersionParams = z.object({
  org_id: z.string(),
  document_uuid: z.string(),
  version_number: z
    .string()
    .regex(/^[1-9]\d{0,8}$/, "Must be a version number (1, 2, ...)")
    .transform(Number),
});

const BaseVersionOnly = z.strictObject({ base_version: DocumentArchiveQuery.shape.base_version });

/** Documents: upload, the list and search, metadata, flags, archive, audit, versions, processing status and file URLs. */
export const documentRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.documents", prefix: "/api/v1/:org_id/documents", tags: ["Documents"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listDocuments(ctx, query), {
      permission: "documents.read",
      query: DocumentListQuery,
      response: { 200: PageSchema(Document), ...orgErrors() },
      detail: {
        summary: "List documents",
        description:
          "Archived documents are left out; org-scoped ones (no owner) only with include_org_scoped=true. search matches every word, as a prefix, in the title or the text OCR read (case and accents ignored). Sorted by sort (default created_at) in order (default desc), empty values last, then by id.",
      },
    })
    .post(
      "",
      async ({ ctx, request, set }) => {
        set.status = 201;
        return uploadDocument(rt, ctx, uploadOf(rt.config, request));
      },
      {
        permission: { key: "documents.write", form: true },
        response: { 201: Document, ...orgErrors(413, 415) },
        detail: {
          summary: "Upload a document",
          description: `${UPLOAD_RULES} Answers the Document with status processing; document.uploaded (and document.created) follow.`,
          requestBody: multipartBody(UPLOAD_FIELDS) as never,
        },
      },
    )
    .get("/:document_uuid", ({ ctx, params }) => getDocument(ctx, params.document_uuid), {
      permission: "documents.read",
      response: { 200: Document, ...orgErrors() },
      detail: { summary: "Get a document", description: "404 when missing or archived. The OCR text is never answered; search finds it." },
    })
    .patch("/:document_uuid", ({ ctx, params, body }) => updateDocument(ctx, params.document_uuid, body), {
      permission: "documents.write",
      body: DocumentPatch,
      response: { 200: Document, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Change a document's metadata",
        description: `Only the fields sent change; null clears an optional field. document_type is the uploader's choice: the classifier only suggests (ai_classification). ${LOCKED}`,
      },
    })
    .post("/:document_uuid/archive", ({ ctx, params, query }) => archiveDocument(ctx, params.document_uuid, query.base_version), {
      permission: "documents.write",
      query: DocumentArchiveQuery,
      response: { 200: Document, ...orgErrors(409) },
      detail: {
        summary: "Archive a document",
        description: "Soft delete (status archived): the document leaves lists and answers 404. Under a legal hold: 422 legal_hold.",
      },
    })
    .post("/:document_uuid/star", ({ ctx, params, query }) => setFlag(ctx, params.document_uuid, "is_starred", true, query.base_version), {
      permission: "documents.write",
      query: BaseVersionOnly,
      response: { 200: Document, ...orgErrors(409) },
      detail: { summary: "Star a document", description: "Starring a starred document changes nothing." },
    })
    .post("/:document_uuid/unstar", ({ ctx, params, query }) => setFlag(ctx, params.document_uuid, "is_starred", false, query.base_version), {
      permission: "documents.write",
      query: BaseVersionOnly,
      response: { 200: Document, ...orgErrors(409) },
      detail: { summary: "Unstar a document", description: "Unstarring a document that is not starred changes nothing." },
    })
    .post("/:document_uuid/lock", ({ ctx, params, query }) => setFlag(ctx, params.document_uuid, "is_locked", true, query.base_version), {
      permission: "documents.write",
      query: BaseVersionOnly,
      response: { 200: Document, ...orgErrors(409) },
      detail: { summary: "Lock a document", description: "A locked document refuses metadata changes, new versions and signature requests until unlocked." },
    })
    .post("/:document_uuid/unlock", ({ ctx, params, query }) => setFlag(ctx, params.document_uuid, "is_locked", false, query.base_version), {
      permission: "documents.write",
      query: BaseVersionOnly,
      response: { 200: Document, ...orgErrors(409) },
      detail: { summary: "Unlock a document", description: "A signed document stays locked: 422 document_signed." },
    })
    .post("/:document_uuid/legal-hold", ({ ctx, params, query }) => setFlag(ctx, params.document_uuid, "legal_hold", true, query.base_version), {
      permission: "documents.manage",
      query: BaseVersionOnly,
      response: { 200: Document, ...orgErrors(409) },
      detail: { summary: "Place a legal hold", description: "While held, the document cannot be archived (422 legal_hold)." },
    })
    .post("/:document_uuid/legal-hold/release", ({ ctx, params, query }) => setFlag(ctx, params.document_uuid, "legal_hold", false, query.base_version), {
      permission: "documents.manage",
      query: BaseVersionOnly,
      response: { 200: Document, ...orgErrors(409) },
      detail: { summary: "Release a legal hold", description: "Releasing a document not on hold changes nothing." },
    })
    .get("/:document_uuid/audit", ({ ctx, params, query }) => documentAudit(ctx, params.document_uuid, query), {
      permission: "documents.read",
      query: z.strictObject(pagingQuery(50, 200)),
      response: { 200: PageSchema(AuditItem), ...orgErrors() },
      detail: {
        summary: "A document's audit trail",
        description:
          "Newest first: the document's own entries (upload, versions, each processing step, metadata, flags, archive) and those of its links and signatures. Snapshots never hold the OCR text.",
      },
    })
    .get("/:document_uuid/download", ({ ctx, params }) => fileUrl(rt, ctx, params.document_uuid, "download"), {
      permission: "documents.read",
      response: { 200: FileUrl, ...orgErrors() },
      detail: {
        summary: "A download URL of the document",
        description:
          "A pre-signed URL (attachment disposition) of the newest version that passed the virus scan, valid expires_in seconds. 404 when there is none yet, and always for a quarantined document.",
      },
    })
    .get("/:document_uuid/preview", ({ ctx, params }) => fileUrl(rt, ctx, params.document_uuid, "preview"), {
      permission: "documents.read",
      response: { 200: FileUrl, ...orgErrors() },
      detail: {
        summary: "A preview URL of the document",
        description:
          "A pre-signed URL of the same file as download, with inline disposition so a browser shows it instead of saving it; valid expires_in seconds. 404 when no version passed the scan yet, and always for a quarantined document.",
      },
    })
    .get("/:document_uuid/thumbnail", ({ ctx, params }) => fileUrl(rt, ctx, params.document_uuid, "thumbnail"), {
      permission: "documents.read",
      response: { 200: FileUrl, ...orgErrors() },
      detail: {
        summary: "A thumbnail URL of the document",
        description: "The JPEG thumbnail (inline) of the newest version that passed the scan; 404 when it has none (yet, or DICOM).",
      },
    })
    .get("/:document_uuid/processing-status", ({ ctx, params }) => processingStatus(ctx, params.document_uuid), {
      permission: "documents.read",
      response: { 200: ProcessingStatus, ...orgErrors() },
      detail: {
        summary: "The processing pipeline's state",
        description:
          "The current version's steps (virus scan, OCR, AI classification, thumbnail) with their state and attempts, and overall_progress, a summary such as '2 of 4 steps done; OCR running'.",
      },
    })
    .get("/:document_uuid/versions", ({ ctx, params }) => listVersions(ctx, params.document_uuid), {
      permission: "documents.read",
      response: { 200: z.object({ items: z.array(DocumentVersion) }), ...orgErrors() },
      detail: { summary: "A document's versions", description: "Newest first; status confirmed once the version passed the virus scan." },
    })
    .post(
      "/:document_uuid/versions",
      async ({ ctx, params, request, set }) => {
        set.status = 201;
        return uploadVersion(rt, ctx, params.document_uuid, uploadOf(rt.config, request));
      },
      {
        permission: { key: "documents.write", form: true },
        response: { 201: DocumentVersion, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Upload a new version",
          description: `${UPLOAD_RULES} The new version is numbered after the last and becomes current; downloads serve the last confirmed one until it passes the scan. Text fields: comment, base_version (409 when stale). ${LOCKED}`,
          requestBody: multipartBody({ comment: { type: "string", maxLength: 1000 }, base_version: { type: "integer", minimum: 1 } }) as never,
        },
      },
    )
    .get("/:document_uuid/versions/:version_number/download", ({ ctx, params }) => fileUrl(rt, ctx, params.document_uuid, "download", params.version_number), {
      permission: "documents.read",
      params: VersionParams,
      response: { 200: FileUrl, ...orgErrors() },
      detail: {
        summary: "A download URL of one version",
        description: "404 when the version does not exist or did not pass the virus scan (processing, quarantined, error).",
      },
    });
