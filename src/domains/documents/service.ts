import { and, desc, eq, inArray, or, sql, type SQL } from "drizzle-orm";
import { documents, documentVersions } from "@db/tenant/documents";
import { auditEntries } from "@db/tenant/audit";
import { allPrepared, prepared, run, type Work } from "@/platform/db/work";
import { invalid, NotFound } from "@/platform/errors";
import { requestValidator } from "@/platform/http/request-validation";
import { newId } from "@/platform/ids";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { pageFrom, type Page, type Paging } from "@/platform/records/paging";
import { allWordPrefixes, ftsRowids, wordTokens } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import type { PlatformRuntime } from "@/platform/runtime";
import { patientRecords } from "@/domains/patients/record/service";
import { providerRecords } from "@/domains/providers/record/service";
import { locationRecords } from "@/domains/providers/locations/service";
import { requireCategoryForScope } from "./categories/service";
import { requireNoPendingSignatures } from "./signatures/service";
import { startPipeline, stepsOf, processingStatusOf } from "./pipeline/steps";
import { storageKeys } from "./pipeline/services";
import {
  assertUnlocked,
  documentOut,
  documentRecords,
  documentsOut,
  requireDocument,
  requireUnlocked,
  requireVersion,
  serializeDocument,
  serializeVersion,
  versionValues,
  type VersionRow,
} from "./records";
import {
  DocumentUploadForm,
  VersionUploadForm,
  type Document,
  type DocumentListQuery,
  type DocumentPatch,
  type DocumentVersion,
  type FileUrl,
  type OwnerType,
  type ProcessingStatus,
} from "./schemas";
import type { StagedFile, UploadSource } from "./upload";

// Documents (docs/documents/documents.md): upload and new versions, the list with search,
// metadata changes, the flags (star, lock, legal hold), archive, the audit
// trail, versions, processing status and pre-signed file URLs.

const D = documents;
const V = documentVersions;

// ---- references ----------------------------------------------------------------------------

const OWNER_RECORDS = { patient: patientRecords, provider: providerRecords, location: locationRecords } as const;
/** The category scope a document's owner files under (an org-scoped document: organization). */
const categoryScopeOf = (ownerType: OwnerType | null) => ownerType ?? "organization";

/** 422 unless the owner is a live record of this org and the category a live one of the owner's scope. */
function* checkReferences(db: TenantDb, owner: { type: OwnerType | null; id: string | null }, categoryId: string | null | undefined): Work<void> {
  if (owner.type && owner.id) {
    const found = yield* OWNER_RECORDS[owner.type].find(db, owner.id);
    if (!found) throw invalid(["body", "owner_uuid"], `No such ${owner.type}`, "value_error", "reference_not_found");
  }
  if (categoryId) {
    const category = yield* requireCategoryForScope(db, categoryId, categoryScopeOf(owner.type));
    if (!category)
      throw invalid(["body", "category_uuid"], `No such document category for ${categoryScopeOf(owner.type)} documents`, "value_error", "reference_not_found");
  }
}

// ---- upload --------------------------------------------------------------------------------

const validUploadForm = requestValidator(DocumentUploadForm, "body");
const validVersionForm = requestValidator(VersionUploadForm, "body");

/** The file goes to storage before its record is written (a record never names a missing file); a failed write removes it. */
async function storeThenWrite<T>(rt: PlatformRuntime, key: string, file: StagedFile, write: () => Promise<T>): Promise<T> {
  await rt.storage.putFile(key, file.path, file.type.mime);
  try {
    return await write();
  } catch (err) {
    await rt.storage.delete(key).catch(() => {});
    throw err;
  }
}

/** What a version row records of a staged upload. */
const uploaded = (file: StagedFile) => ({ file_name: file.fileName, file_size: file.size, mime_type: file.type.mime, sha256: file.sha256 });

/** POST {P}/documents: a new document from a multipart upload, status processing, its scan queued. */
export async function uploadDocument(rt: PlatformRuntime, ctx: OrgContext, source: UploadSource): Promise<Document> {
  const upload = await source.receive();
  try {
    const form = validUploadForm(upload.fields).value as DocumentUploadForm;
    const owner = { type: form.owner_type ?? null, id: form.owner_uuid ?? null };
    // judged before the file is stored, and again in the write
    await ctx.db.read((db) => checkReferences(db, owner, form.category_uuid));
    const id = newId();
    const key = storageKeys(ctx.org.id, id, 1).file;
    const file = upload.file;
    return await storeThenWrite(rt, key, file, () =>
      withTransaction(ctx, function* (s) {
        yield* checkReferences(s.tx, owner, form.category_uuid);
        const row = yield* documentRecords.create(
          s,
          {
            id,
            title: form.title ?? file.fileName,
            file_name: file.fileName,
            file_size: file.size,
            mime_type: file.type.mime,
            document_type: form.document_type ?? "other",
            category_id: form.category_uuid ?? null,
            description: form.description ?? null,
            document_date: form.document_date ?? null,
            expiration_date: form.expiration_date ?? null,
            is_org_scoped: !owner.type,
            owner_type: owner.type,
            owner_id: owner.id,
            status: "processing",
            ocr_status: "pending",
            tags: form.tags ?? [],
            uploaded_by: s.actor.id,
            current_version: 1,
          },
          { version_number: 1, document_type: form.document_type ?? "other", owner_type: owner.type, owner_uuid: owner.id },
        );
        yield* run(s.tx.insert(V).values(versionValues(s, id, 1, uploaded(file), key)));
        yield* startPipeline(s, id, 1);
        return yield* documentOut(s.tx, row);
      }),
    );
  } finally {
    await upload.discard();
  }
}

/** POST {P}/documents/{id}/versions: a new version of the file; it becomes current and goes through the pipeline. */
export async function uploadVersion(rt: PlatformRuntime, ctx: OrgContext, documentId: string, source: UploadSource): Promise<DocumentVersion> {
  // a locked, missing or archived document (or one being signed) refuses before its upload is read
  const before = await ctx.db.read(function* (db) {
    const doc = yield* requireUnlocked(db, documentId);
    yield* requireNoPendingSignatures(db, documentId);
    return doc;
  });
  const upload = await source.receive();
  try {
    const form = validVersionForm(upload.fields).value as VersionUploadForm;
    const file = upload.file;
    // the number this version takes; the write checks it is still free
    const next = before.current_version + 1;
    const key = storageKeys(ctx.org.id, documentId, next).file;
    return await storeThenWrite(rt, key, file, () =>
      withTransaction(ctx, function* (s) {
        const doc = yield* requireUnlocked(s.tx, documentId);
        yield* requireNoPendingSignatures(s.tx, documentId);
        if (form.base_version !== undefined && form.base_version !== doc.version) yield* documentRecords.requireCurrent(s.tx, documentId, form.base_version);
        // another version was uploaded meanwhile: its number is taken (the stored file is removed, the client retries)
        if (doc.current_version + 1 !== next)
          throw invalid(["body", "file"], "Another version was uploaded at the same time; upload again", "value_error", "version_conflict");
        yield* run(s.tx.insert(V).values(versionValues(s, documentId, next, uploaded(file), key, { comment: form.comment ?? null })));
        yield* documentRecords.update(
          s,
          documentId,
          undefined,
          {
            current_version: next,
            file_name: file.fileName,
            file_size: file.size,
            mime_type: file.type.mime,
            status: "processing",
            ocr_status: "pending",
            ocr_text: null,
            page_count: null,
            has_thumbnail: false,
            ai_classification: null,
            ai_confidence: null,
          },
          { action: "version_uploaded", event: "uploaded", eventData: { version_number: next } },
        );
        yield* startPipeline(s, documentId, next);
        return serializeVersion(yield* requireVersion(s.tx, documentId, next));
      }),
    );
  } finally {
    await upload.discard();
  }
}

// ---- reads ---------------------------------------------------------------------------------

const SORT_COLUMNS: Record<DocumentListQuery["sort"], SQL> = {
  created_at: sql`${D.created_at}`,
  updated_at: sql`${D.updated_at}`,
  title: sql`${D.title} COLLATE NOCASE`,
  document_date: sql`${D.document_date}`,
  file_size: sql`${D.file_size}`,
  document_type: sql`${D.document_type}`,
};

/** The FTS5 condition for a search: every word, as a prefix, in the title or the OCR text. */
function searchCondition(db: TenantDb, term: string): SQL {
  const words = wordTokens(term);
  // a term of punctuation only matches nothing (rather than everything)
  if (!words.length) return sql`0`;
  return sql`${D}.rowid IN (${ftsRowids(db, "documents_fts", allWordPrefixes(words))})`;
}

export async function listDocuments(ctx: OrgContext, q: DocumentListQuery): Promise<Page<Document>> {
  return ctx.db.read(function* (db) {
    const dir = sql.raw(q.order === "asc" ? "ASC" : "DESC");
    const page = yield* documentRecords.list(db, q, {
      where: [
        q.owner_type ? eq(D.owner_type, q.owner_type) : undefined,
        q.owner_uuid ? eq(D.owner_id, q.owner_uuid) : undefined,
        q.include_org_scoped ? undefined : eq(D.is_org_scoped, false),
        q.document_type ? eq(D.document_type, q.document_type) : undefined,
        q.category_uuid ? eq(D.category_id, q.category_uuid) : undefined,
        q.status ? eq(D.status, q.status) : undefined,
        q.search ? searchCondition(db, q.search) : undefined,
      ],
      // empty values last either way; ties in creation order (time-ordered ids)
      orderBy: [sql`${SORT_COLUMNS[q.sort]} ${dir} NULLS LAST`, sql`${D.id} ${dir}`],
    });
    return { ...page, items: yield* documentsOut(db, page.items) };
  });
}

export async function getDocument(ctx: OrgContext, id: string): Promise<Document> {
  return ctx.db.read(function* (db) {
    return yield* documentOut(db, yield* requireDocument(db, id));
  });
}

const versionsNewestFirst = prepared<VersionRow>((db) =>
  db
    .select()
    .from(V)
    .where(eq(V.document_id, sql.placeholder("doc")))
    .orderBy(desc(V.version_number))
    .prepare(),
);

export async function listVersions(ctx: OrgContext, id: string): Promise<{ items: DocumentVersion[] }> {
  return ctx.db.read(function* (db) {
    yield* requireDocument(db, id);
    return { items: (yield* allPrepared(db, versionsNewestFirst, { doc: id })).map(serializeVersion) };
  });
}

export async function processingStatus(ctx: OrgContext, id: string): Promise<ProcessingStatus> {
  return ctx.db.read(function* (db) {
    const doc = yield* requireDocument(db, id);
    const steps = yield* stepsOf(db, id, doc.current_version);
    return processingStatusOf(id, doc.current_version, serializeDocument(doc).processing_status, steps);
  });
}

/** A document's audit trail, newest first: its own entries and those of its versions' uploads, links and signatures. */
export async function documentAudit(ctx: OrgContext, id: string, paging: Paging) {
  return ctx.db.read(function* (db) {
    yield* requireDocument(db, id);
    const A = auditEntries;
    const mine = or(
      and(eq(A.resource_type, "document"), eq(A.resource_id, id)),
      and(
        inArray(A.resource_type, ["document_link", "document_signature"]),
        sql`coalesce(json_extract(${A.after}, '$.document_id'), json_extract(${A.before}, '$.document_id')) = ${id}`,
      ),
    );
    const page = yield* pageFrom(
      paging,
      db.select({ n: sql<number>`count(*)` }).from(A).where(mine),
      db.select().from(A).where(mine).orderBy(desc(A.created_at), desc(A.id)),
    );
    return {
      ...page,
      items: page.items.map((e) => ({
        id: e.id,
        action: e.action,
        resource_type: e.resource_type,
        resource_id: e.resource_id,
        actor_id: e.actor_id,
        actor_type: e.actor_type,
        actor_display_name: e.actor_display_name,
        request_id: e.request_id,
        created_at: e.created_at,
        before: e.before,
        after: e.after,
      })),
    };
  });
}

// ---- files ---------------------------------------------------------------------------------

type FileKind = "download" | "preview" | "thumbnail";

/**
 * A pre-signed URL of a document's file: the newest version that passed the
 * scan (download: attachment, preview: inline), or its thumbnail. 404 when
 * there is none; a quarantined document is never served.
 */
export async function fileUrl(rt: PlatformRuntime, ctx: OrgContext, id: string, kind: FileKind, versionNumber?: number): Promise<FileUrl> {
  const version = await ctx.db.read(function* (db) {
    const doc = yield* requireDocument(db, id);
    if (doc.status === "quarantined") throw new NotFound("Document file");
    const n = versionNumber ?? doc.confirmed_version;
    if (n === null) throw new NotFound("Confirmed document version");
    const v = yield* requireVersion(db, id, n);
    if (v.status !== "confirmed") throw new NotFound("Confirmed document version");
    return v;
  });
  const expiresIn = rt.config.documents.urlTtlSeconds;
  if (kind === "thumbnail") {
    if (!version.thumbnail_key) throw new NotFound("Document thumbnail");
    const url = await rt.storage.signedUrl(version.thumbnail_key, {
      expiresInSeconds: expiresIn,
      disposition: "inline",
      fileName: `${version.file_name}.thumbnail.jpg`,
      contentType: "image/jpeg",
    });
    return { download_url: url, expires_in: expiresIn };
  }
  const url = await rt.storage.signedUrl(version.storage_key, {
    expiresInSeconds: expiresIn,
    disposition: kind === "download" ? "attachment" : "inline",
    fileName: version.file_name,
    contentType: version.mime_type,
  });
  return { download_url: url, expires_in: expiresIn };
}

// ---- writes --------------------------------------------------------------------------------

export async function updateDocument(ctx: OrgContext, id: string, input: DocumentPatch): Promise<Document> {
  return withTransaction(ctx, function* (s) {
    const before = yield* documentRecords.requireCurrent(s.tx, id, input.base_version);
    assertUnlocked(before);
    const { base_version: _v, category_uuid, ...fields } = input;
    if (category_uuid) yield* checkReferences(s.tx, { type: before.owner_type as OwnerType | null, id: null }, category_uuid);
    const next = { ...fields, ...(category_uuid !== undefined ? { category_id: category_uuid } : {}) };
    const date = next.document_date !== undefined ? next.document_date : before.document_date;
    const expires = next.expiration_date !== undefined ? next.expiration_date : before.expiration_date;
    if (date && expires && expires < date) throw invalid(["body", "expiration_date"], "Must not be before document_date");
    return yield* documentOut(s.tx, yield* documentRecords.update(s, id, input.base_version, next));
  });
}

/** The flags: star (anyone who may write), lock, legal hold. Setting a flag to its current value changes nothing. */
type Flag = "is_starred" | "is_locked" | "legal_hold";
const FLAG_ACTIONS: Record<Flag, [on: string, off: string]> = {
  is_starred: ["starred", "unstarred"],
  is_locked: ["locked", "unlocked"],
  legal_hold: ["legal_hold_placed", "legal_hold_released"],
};

export async function setFlag(ctx: OrgContext, id: string, flag: Flag, value: boolean, baseVersion?: number): Promise<Document> {
  return withTransaction(ctx, function* (s) {
    const before = yield* documentRecords.requireCurrent(s.tx, id, baseVersion);
    if (flag === "is_locked" && !value && before.is_signed) {
      throw invalid(["path", "document_uuid"], "A signed document stays locked", "value_error", "document_signed");
    }
    if (before[flag] === value) return yield* documentOut(s.tx, before);
    const [on, off] = FLAG_ACTIONS[flag];
    return yield* documentOut(s.tx, yield* documentRecords.update(s, id, undefined, { [flag]: value }, { action: value ? on : off }));
  });
}

/** Archive: 422 under a legal hold; the document leaves lists and reads (404), its files stay in storage. */
export async function archiveDocument(ctx: OrgContext, id: string, baseVersion?: number): Promise<Document> {
  return withTransaction(ctx, function* (s) {
    const before = yield* documentRecords.requireCurrent(s.tx, id, baseVersion);
    if (before.legal_hold) throw invalid(["path", "document_uuid"], "The document is under a legal hold: release it first", "value_error", "legal_hold");
    const row = yield* documentRecords.update(s, id, undefined, { deleted_at: s.now, status: "archived" }, { action: "archived" });
    // answered like every other write: with its category's name and its link targets
    return yield* documentOut(s.tx, row);
  });
}
