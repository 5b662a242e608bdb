import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id, json, softDelete, timestamps, versioned } from "@db/columns";

// Documents (docs/documents/documents.md): the document record with its metadata, every
// uploaded version of its file, the state of each processing step per version,
// links to other records, signature requests and the category tree. File bytes
// live in object storage under `storage_key`; only keys and hashes are here.
// Search over title and OCR text is an FTS5 index (migration 0008).

export const documentCategories = sqliteTable(
  "document_categories",
  {
    id: id(),
    /** Which owners the category is for: location | organization | patient | provider. */
    scope: text("scope").notNull(),
    parent_id: text("parent_id"),
    name: text("name").notNull(),
    /** The names from the root down, "/"-joined ("Clinical/Radiographs"): the tree's order. */
    path: text("path").notNull(),
    sort_order: integer("sort_order").notNull().default(0),
    description: text("description"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("document_categories_scope_idx").on(t.scope, t.path, t.sort_order), index("document_categories_parent_idx").on(t.parent_id)],
);

export const documents = sqliteTable(
  "documents",
  {
    id: id(),
    title: text("title").notNull(),
    /** The current version's file. */
    file_name: text("file_name").notNull(),
    file_size: integer("file_size").notNull(),
    mime_type: text("mime_type").notNull(),
    document_type: text("document_type").notNull(),
    category_id: text("category_id"),
    description: text("description"),
    document_date: text("document_date"),
    expiration_date: text("expiration_date"),
    ai_classification: text("ai_classification"),
    ai_confidence: real("ai_confidence"),
    has_thumbnail: bool("has_thumbnail").notNull().default(false),
    is_locked: bool("is_locked").notNull().default(false),
    is_org_scoped: bool("is_org_scoped").notNull().default(false),
    is_signed: bool("is_signed").notNull().default(false),
    is_starred: bool("is_starred").notNull().default(false),
    legal_hold: bool("legal_hold").notNull().default(false),
    /** patient | provider | location (null: an org-scoped document). */
    owner_type: text("owner_type"),
    owner_id: text("owner_id"),
    page_count: integer("page_count"),
    /** uploading | processing | active | quarantined | error | archived */
    status: text("status").notNull(),
    /** pending | processing | completed | failed | skipped */
    ocr_status: text("ocr_status").notNull().default("pending"),
    /** The text read from the current version (never in events or audit snapshots). */
    ocr_text: text("ocr_text"),
    tags: json<string[]>("tags").notNull().default(sql`'[]'`),
    uploaded_by: text("uploaded_by"),
    /** The newest version's number. */
    current_version: integer("current_version").notNull().default(1),
    /** The newest version that passed the virus scan (null: none yet): what downloads serve. */
    confirmed_version: integer("confirmed_version"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    index("documents_owner_idx").on(t.owner_type, t.owner_id, t.created_at),
    index("documents_type_idx").on(t.document_type),
    index("documents_category_idx").on(t.category_id),
    // documents still processing are few: the resume job finds them by status
    index("documents_status_idx").on(t.status),
    index("documents_created_idx").on(t.created_at),
  ],
);

export const documentVersions = sqliteTable(
  "document_versions",
  {
    id: id(),
    document_id: text("document_id").notNull(),
    version_number: integer("version_number").notNull(),
    file_name: text("file_name").notNull(),
    file_size: integer("file_size").notNull(),
    mime_type: text("mime_type").notNull(),
    sha256: text("sha256").notNull(),
    storage_key: text("storage_key").notNull(),
    thumbnail_key: text("thumbnail_key"),
    /** processing | confirmed | quarantined | error */
    status: text("status").notNull(),
    /** What the scanner named, when it found malware. */
    scan_signature: text("scan_signature"),
    scan_engine: text("scan_engine"),
    page_count: integer("page_count"),
    uploaded_by: text("uploaded_by"),
    /** The upload's request id: the pipeline's jobs carry it. */
    request_id: text("request_id"),
    comment: text("comment"),
    ...timestamps(),
  },
  (t) => [uniqueIndex("document_versions_number_idx").on(t.document_id, t.version_number)],
);

/** One processing step of one version: scan, ocr, classify, thumbnail. */
export const documentSteps = sqliteTable(
  "document_steps",
  {
    document_id: text("document_id").notNull(),
    version_number: integer("version_number").notNull(),
    step: text("step").notNull(),
    /** pending | running | completed | failed | skipped */
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    started_at: text("started_at"),
    finished_at: text("finished_at"),
    /** Why it failed or was skipped (no document content). */
    message: text("message"),
    result: json<Record<string, unknown>>("result"),
    updated_at: text("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.document_id, t.version_number, t.step] })],
);

export const documentLinks = sqliteTable(
  "document_links",
  {
    id: id(),
    document_id: text("document_id").notNull(),
    /** patient | appointment | charted_procedure | treatment_plan | insurance_draft */
    target_type: text("target_type").notNull(),
    target_id: text("target_id").notNull(),
    note: text("note"),
    created_by: text("created_by"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    uniqueIndex("document_links_live_idx").on(t.document_id, t.target_type, t.target_id).where(sql`deleted_at IS NULL`),
    index("document_links_target_idx").on(t.target_type, t.target_id),
  ],
);

export const documentSignatures = sqliteTable(
  "document_signatures",
  {
    id: id(),
    document_id: text("document_id").notNull(),
    signer_name: text("signer_name").notNull(),
    signer_email: text("signer_email"),
    /** patient | guardian | provider | staff | witness | other */
    signer_role: text("signer_role").notNull(),
    signer_patient_id: text("signer_patient_id"),
    signer_user_id: text("signer_user_id"),
    signing_order: integer("signing_order").notNull(),
    /** pending | signed | declined | canceled */
    status: text("status").notNull(),
    /** typed | drawn */
    signature_type: text("signature_type"),
    signature_text: text("signature_text"),
    /** A drawn signature as a PNG data URL (bounded in size). */
    signature_image: text("signature_image"),
    signed_at: text("signed_at"),
    signed_version_number: integer("signed_version_number"),
    signed_sha256: text("signed_sha256"),
    decline_reason: text("decline_reason"),
    requested_by: text("requested_by"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("document_signatures_document_idx").on(t.document_id, t.signing_order)],
);
