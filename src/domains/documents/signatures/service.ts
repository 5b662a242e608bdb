import { and, asc, count, eq, isNull, lt, max } from "drizzle-orm";
import { documentSignatures } from "@db/tenant/documents";
import { patients } from "@db/tenant/patients";
import { all, get, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound, ValidationFailed, type ValidationIssue } from "@/platform/errors";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { checkVersion } from "@/platform/records/versions";
import { documentRecords, requireDocument, requireUnlocked, requireVersion, type DocumentRow } from "@/domains/documents/records";
import { announce } from "@/platform/records/moments";
import type { DocumentType } from "@/domains/documents/schemas";
import { documentSigned } from "@/domains/documents/moments";
import type { CancelBody, DeclineBody, DocumentSignature, DocumentSignatureList, SignatureRequest, SignBody } from "./schemas";

// Signature requests and signatures (docs/documents/document-signatures-and-links.md). A
// signature records exactly what was signed: the confirmed version's number and
// its SHA-256. When the last open request is signed the document is signed and
// locked in the same transaction.

export type SignatureRow = typeof documentSignatures.$inferSelect;

const t = documentSignatures;

export const serializeSignature = (r: SignatureRow): DocumentSignature => ({
  id: r.id,
  document_uuid: r.document_id,
  signer_name: r.signer_name,
  signer_email: r.signer_email,
  signer_role: r.signer_role as DocumentSignature["signer_role"],
  signer_patient_uuid: r.signer_patient_id,
  signer_user_uuid: r.signer_user_id,
  signing_order: r.signing_order,
  status: r.status as DocumentSignature["status"],
  signature_type: r.signature_type as DocumentSignature["signature_type"],
  signature_text: r.signature_text,
  has_signature_image: r.signature_image !== null,
  signed_at: r.signed_at,
  signed_version_number: r.signed_version_number,
  signed_sha256: r.signed_sha256,
  decline_reason: r.decline_reason,
  requested_by: r.requested_by,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

// audit snapshots are the answer's shape: the drawn image (up to 200 KB) is not copied into the trail
export const signatureRecords = defineResource<SignatureRow, DocumentSignature>({
  table: documentSignatures,
  name: "document_signature",
  label: "Document signature",
  serialize: serializeSignature,
});

const userOf = (s: Pick<TxScope, "actor">) => (s.actor.type === "user" ? s.actor.id : null);

const notReady = () =>
  invalid(
    ["path", "document_uuid"],
    "The document has no confirmed version or is not active; wait for processing to finish",
    "value_error",
    "document_not_ready",
  );

/** Signatures are requested and signed only on an active document with a confirmed (scanned) version. */
function assertReady(doc: DocumentRow): asserts doc is DocumentRow & { confirmed_version: number } {
  if (doc.status !== "active" || doc.confirmed_version === null) throw notReady();
}

const signaturesOf = (db: TenantDb, documentId: string) =>
  all<SignatureRow>(
    db
      .select()
      .from(t)
      .where(and(eq(t.document_id, documentId), isNull(t.deleted_at)))
      .orderBy(asc(t.signing_order), asc(t.created_at), asc(t.id)),
  );

/** Every signature of a live document, by signing_order then created_at; 404 when the document is missing or archived. */
export async function listSignatures(ctx: OrgContext, documentId: string): Promise<DocumentSignatureList> {
  return ctx.db.read(function* (db) {
    yield* requireDocument(db, documentId);
    return { items: (yield* signaturesOf(db, documentId)).map(serializeSignature) };
  });
}

/**
 * Request signatures: 404 document, 422 document_locked, 422 document_not_ready,
 * 422 at a signer's signer_patient_uuid. Signers without signing_order follow
 * the highest order on the document so far, in the order given.
 */
export async function requestSignatures(ctx: OrgContext, documentId: string, input: SignatureRequest): Promise<DocumentSignatureList> {
  return withTransaction(ctx, (s) => openSignatureRequests(s, documentId, input));
}

/** requestSignatures inside the caller's write (a document the service generated and asks to be signed in the same commit). */
export function* openSignatureRequests(s: TxScope, documentId: string, input: SignatureRequest): Work<DocumentSignatureList> {
  const doc = yield* requireUnlocked(s.tx, documentId);
  assertReady(doc);
  const problems: ValidationIssue[] = [];
  for (const [i, signer] of input.signers.entries()) {
    if (!signer.signer_patient_uuid) continue;
    const patient = yield* get(
      s.tx
        .select({ id: patients.id })
        .from(patients)
        .where(and(eq(patients.id, signer.signer_patient_uuid), isNull(patients.deleted_at))),
    );
    if (!patient)
      problems.push({ loc: ["body", "signers", i, "signer_patient_uuid"], msg: "Must be a live patient of this organization", type: "value_error" });
  }
  if (problems.length) throw new ValidationFailed(problems);
  const highest = yield* get<{ n: number | null }>(
    s.tx
      .select({ n: max(t.signing_order) })
      .from(t)
      .where(and(eq(t.document_id, documentId), isNull(t.deleted_at))),
  );
  let last = highest?.n ?? 0;
  const out: DocumentSignature[] = [];
  for (const signer of input.signers) {
    const order = signer.signing_order ?? last + 1;
    last = Math.max(last, order);
    const row = yield* signatureRecords.create(
      s,
      {
        document_id: documentId,
        signer_name: signer.signer_name,
        signer_email: signer.signer_email ?? null,
        signer_role: signer.signer_role,
        signer_patient_id: signer.signer_patient_uuid ?? null,
        signing_order: order,
        status: "pending",
        requested_by: userOf(s),
      },
      { document_uuid: documentId },
    );
    out.push(serializeSignature(row));
  }
  return { items: out };
}

/** A pending signature of this live document that base_version names: 404, then 409 version_conflict, then 409 signature_not_pending. */
function* pendingSignature(
  s: TxScope,
  documentId: string,
  signatureId: string,
  baseVersion: number | undefined,
): Work<{ doc: DocumentRow; sig: SignatureRow }> {
  const doc = yield* requireDocument(s.tx, documentId);
  const sig = yield* signatureRecords.find(s.tx, signatureId);
  if (!sig || sig.document_id !== documentId) throw new NotFound("Document signature");
  checkVersion(sig, baseVersion);
  if (sig.status !== "pending") throw new Conflict(`The signature is ${sig.status}; only a pending signature can change`, "signature_not_pending");
  return { doc, sig };
}

const countWhere = (db: TenantDb, documentId: string, status: string) =>
  get<{ n: number }>(
    db
      .select({ n: count() })
      .from(t)
      .where(and(eq(t.document_id, documentId), eq(t.status, status), isNull(t.deleted_at))),
  );

/**
 * Record a signature against the document's confirmed version. When no request
 * of the document is pending any more, the document becomes is_signed and
 * is_locked (audited as document.signed; event document.signed).
 */
export async function signSignature(ctx: OrgContext, documentId: string, signatureId: string, input: SignBody): Promise<DocumentSignature> {
  return serializeSignature(
    await withTransaction(ctx, function* (s) {
      const { doc, sig } = yield* pendingSignature(s, documentId, signatureId, input.base_version);
      assertReady(doc);
      const earlier = yield* get<{ id: string }>(
        s.tx
          .select({ id: t.id })
          .from(t)
          .where(and(eq(t.document_id, documentId), eq(t.status, "pending"), lt(t.signing_order, sig.signing_order), isNull(t.deleted_at))),
      );
      if (earlier)
        throw invalid(["path", "signature_uuid"], "Signatures earlier in the signing order must be signed first", "value_error", "signing_out_of_order");
      const version = yield* requireVersion(s.tx, documentId, doc.confirmed_version);
      const signed = yield* signatureRecords.update(
        s,
        sig.id,
        sig.version,
        {
          status: "signed",
          signature_type: input.signature_type,
          signature_text: input.signature_type === "typed" ? input.signature_text! : null,
          signature_image: input.signature_type === "drawn" ? input.signature_image! : null,
          signed_at: s.now,
          signed_version_number: version.version_number,
          signed_sha256: version.sha256,
          signer_user_id: userOf(s),
        },
        { action: "signed", changedFields: false, eventData: { document_uuid: documentId, signed_version_number: version.version_number } },
      );
      if (((yield* countWhere(s.tx, documentId, "pending"))?.n ?? 0) === 0) {
        const signatures = (yield* countWhere(s.tx, documentId, "signed"))?.n ?? 0;
        const locked = yield* documentRecords.update(
          s,
          doc.id,
          doc.version,
          { is_signed: true, is_locked: true },
          { action: "signed", changedFields: false, eventData: { signature_count: signatures } },
        );
        yield* announce(s, documentSigned, {
          document_id: locked.id,
          document_type: locked.document_type as DocumentType,
          owner_type: locked.owner_type,
          owner_id: locked.owner_id,
          signature_count: signatures,
        });
      }
      return signed;
    }),
  );
}

export async function declineSignature(ctx: OrgContext, documentId: string, signatureId: string, input: DeclineBody): Promise<DocumentSignature> {
  return serializeSignature(
    await withTransaction(ctx, function* (s) {
      const { sig } = yield* pendingSignature(s, documentId, signatureId, input.base_version);
      return yield* signatureRecords.update(
        s,
        sig.id,
        sig.version,
        { status: "declined", decline_reason: input.reason, signer_user_id: userOf(s) },
        { action: "declined", changedFields: false, eventData: { document_uuid: documentId } },
      );
    }),
  );
}

export async function cancelSignature(ctx: OrgContext, documentId: string, signatureId: string, input: CancelBody): Promise<DocumentSignature> {
  return serializeSignature(
    await withTransaction(ctx, function* (s) {
      const { sig } = yield* pendingSignature(s, documentId, signatureId, input?.base_version);
      return yield* signatureRecords.update(
        s,
        sig.id,
        sig.version,
        { status: "canceled" },
        { action: "canceled", changedFields: false, eventData: { document_uuid: documentId } },
      );
    }),
  );
}

/** 422 signatures_pending while a signature request of the document is pending: a signing round covers one version of the file. */
export function* requireNoPendingSignatures(db: TenantDb, documentId: string): Work<void> {
  const pending = yield* get<{ id: string }>(
    db
      .select({ id: documentSignatures.id })
      .from(documentSignatures)
      .where(and(eq(documentSignatures.document_id, documentId), eq(documentSignatures.status, "pending"), isNull(documentSignatures.deleted_at)))
      .limit(1),
  );
  if (pending) {
    throw invalid(
      ["path", "document_uuid"],
      "Signatures are pending on this version: complete or cancel them before uploading a new one",
      "value_error",
      "signatures_pending",
    );
  }
}
