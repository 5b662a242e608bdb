import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { inJsonList } from "@/platform/db/in-list";
import { documentLinks, documents, documentVersions } from "@db/tenant/documents";
import { allPrepared, getPrepared, prepared, type Work } from "@/platform/db/work";
import { invalid, NotFound } from "@/platform/errors";
import type { TenantDb, TxScope } from "@/platform/records/context";
import { newId } from "@/platform/ids";
import { namesOf, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { CATEGORY_NAMES } from "./categories/service";
import type { Document, DocumentType, DocumentVersion, OwnerType } from "./schemas";

// The document record as stored and as answered (docs/documents/documents.md). The OCR
// text is stored for search but never answered, audited or put in an event.

export type DocumentRow = typeof documents.$inferSelect;
export type VersionRow = typeof documentVersions.$inferSelect;
type LinkTarget = Document["link_targets"][number];

/** What a version row records of its file. */
export type VersionFile = { file_name: string; file_size: number; mime_type: string; sha256: string };

/** A new version row of a document: its file, where it is stored, who wrote it; `status` and the rest as the writer says. */
export const versionValues = (
  s: TxScope,
  documentId: string,
  n: number,
  file: VersionFile,
  key: string,
  extra: Partial<Pick<VersionRow, "status" | "comment" | "scan_engine" | "page_count">> = {},
) => ({
  id: newId(),
  document_id: documentId,
  version_number: n,
  ...file,
  storage_key: key,
  status: "processing",
  uploaded_by: s.actor.id,
  request_id: s.requestId,
  comment: null,
  ...extra,
  created_at: s.now,
  updated_at: s.now,
});

/** The pipeline in one word (Document.processing_status), from the document's status and OCR state. */
function processingStateOf(r: DocumentRow): Document["processing_status"] {
  if (r.status === "quarantined") return "quarantined";
  if (r.status === "error") return "failed";
  if (r.status === "active" || r.status === "archived") return "completed";
  return r.ocr_status === "pending" ? "queued" : "running";
}

export function serializeDocument(r: DocumentRow, extra: { categories?: Names; links?: LinkTarget[] } = {}): Document {
  return {
    id: r.id,
    title: r.title,
    file_name: r.file_name,
    file_size: r.file_size,
    mime_type: r.mime_type,
    document_type: r.document_type as DocumentType,
    category: ref(r.category_id, extra.categories),
    description: r.description,
    document_date: r.document_date,
    expiration_date: r.expiration_date,
    ai_classification: r.ai_classification as DocumentType | null,
    ai_confidence: r.ai_confidence,
    has_thumbnail: r.has_thumbnail,
    is_locked: r.is_locked,
    is_org_scoped: r.is_org_scoped,
    is_signed: r.is_signed,
    is_starred: r.is_starred,
    legal_hold: r.legal_hold,
    link_targets: extra.links ?? [],
    ocr_status: r.ocr_status as Document["ocr_status"],
    owner_type: r.owner_type as OwnerType | null,
    owner_uuid: r.owner_id,
    page_count: r.page_count,
    processing_status: processingStateOf(r),
    status: r.status as Document["status"],
    tags: r.tags,
    uploaded_by: r.uploaded_by,
    current_version: r.current_version,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  };
}

/** Audit snapshots and events leave the OCR text out: it is the document's content. */
const withoutText = ({ ocr_text: _text, ...r }: DocumentRow) => r;

export const documentRecords = defineResource<DocumentRow, Omit<DocumentRow, "ocr_text">>({
  table: documents,
  name: "document",
  label: "Document",
  serialize: withoutText,
  eventFields: { rename: { ocr_text: null, owner_id: "owner_uuid", category_id: "category_uuid" } },
  // a new document is also document.uploaded (as is a new version: service.ts)
  eventAliases: { created: ["uploaded"] },
  practiceId: (r) => (r.owner_type === "location" ? r.owner_id : null),
});

export const serializeVersion = (v: VersionRow): DocumentVersion => ({
  id: v.id,
  document_uuid: v.document_id,
  version_number: v.version_number,
  file_name: v.file_name,
  file_size: v.file_size,
  mime_type: v.mime_type,
  sha256: v.sha256,
  status: v.status as DocumentVersion["status"],
  has_thumbnail: v.thumbnail_key !== null,
  page_count: v.page_count,
  comment: v.comment,
  uploaded_by: v.uploaded_by,
  created_at: v.created_at,
});

const liveLinksOf = prepared<{ document_id: string; target_type: string; target_id: string }>((db) =>
  db
    .select({ document_id: documentLinks.document_id, target_type: documentLinks.target_type, target_id: documentLinks.target_id })
    .from(documentLinks)
    .where(and(inJsonList(documentLinks.document_id, "ids"), isNull(documentLinks.deleted_at)))
    .orderBy(asc(documentLinks.created_at), asc(documentLinks.id))
    .prepare(),
);

/** Documents as answered: their category names and link targets, one query each for any number of rows. */
export function* documentsOut(db: TenantDb, rows: DocumentRow[]): Work<Document[]> {
  if (!rows.length) return [];
  const categories = yield* namesOf(
    db,
    CATEGORY_NAMES,
    rows.map((r) => r.category_id),
  );
  const links = new Map<string, LinkTarget[]>();
  for (const l of yield* allPrepared(db, liveLinksOf, { ids: JSON.stringify(rows.map((r) => r.id)) })) {
    const list = links.get(l.document_id) ?? [];
    list.push({ target_type: l.target_type as LinkTarget["target_type"], target_uuid: l.target_id });
    links.set(l.document_id, list);
  }
  return rows.map((r) => serializeDocument(r, { categories, links: links.get(r.id) ?? [] }));
}

export function* documentOut(db: TenantDb, row: DocumentRow): Work<Document> {
  return (yield* documentsOut(db, [row]))[0]!;
}

/** A live document (archived ones are 404, as everywhere). */
export const requireDocument = (db: TenantDb, id: string) => documentRecords.require(db, id);

/** 422 document_locked when the document is locked (signed documents are): its content may not change. */
export function assertUnlocked(row: DocumentRow): void {
  if (row.is_locked) throw invalid(["path", "document_uuid"], "The document is locked; unlock it first", "value_error", "document_locked");
}

/** A document whose content may change (assertUnlocked). */
export function* requireUnlocked(db: TenantDb, id: string): Work<DocumentRow> {
  const row = yield* requireDocument(db, id);
  assertUnlocked(row);
  return row;
}

const versionByNumber = prepared<VersionRow>((db) =>
  db
    .select()
    .from(documentVersions)
    .where(and(eq(documentVersions.document_id, sql.placeholder("doc")), eq(documentVersions.version_number, sql.placeholder("n"))))
    .prepare(),
);

export const findVersion = (db: TenantDb, documentId: string, versionNumber: number) => getPrepared(db, versionByNumber, { doc: documentId, n: versionNumber });

export function* requireVersion(db: TenantDb, documentId: string, versionNumber: number): Work<VersionRow> {
  const v = yield* findVersion(db, documentId, versionNumber);
  if (!v) throw new NotFound("Document version");
  return v;
}
