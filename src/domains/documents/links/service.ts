import { and, asc, eq, isNull } from "drizzle-orm";
import { documentLinks } from "@db/tenant/documents";
import { patients } from "@db/tenant/patients";
import { appointments } from "@db/tenant/appointments";
import { chartedProcedures, treatmentPlans } from "@db/tenant/charted-procedures";
import { insuranceDrafts } from "@db/tenant/insurance";
import { all, get, type Work } from "@/platform/db/work";
import { declareUniqueConflict } from "@/platform/db/constraints";
import { Conflict, invalid, NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { APPOINTMENT_NAMES, PATIENT_NAMES } from "@/platform/records/names";
import { namesOf, nameSource, type NameSource } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { requireDocument } from "@/domains/documents/records";
import type { DocumentLink, DocumentLinkCreate, DocumentLinkList, LinkTargetType } from "./schemas";

// Links from a document to other records (docs/documents/document-signatures-and-links.md).
// A link is not the document's content: a locked (signed) document may still be
// linked and unlinked, and linking never changes the document's own version.

export type LinkRow = typeof documentLinks.$inferSelect;

const t = documentLinks;

const DUPLICATE = "The document is already linked to this record";
// two concurrent links of the same pair: the partial unique index decides, with the same answer
declareUniqueConflict("document_links.document_id, document_links.target_type, document_links.target_id", DUPLICATE);

export const linkRecords = defineResource<LinkRow, LinkRow>({
  table: documentLinks,
  name: "document_link",
  label: "Document link",
  serialize: (r) => r,
});

/** How each kind of target is found (live rows only) and named; insurance drafts have no name and are never soft-deleted. */
type TargetKind = { table: any; names: NameSource | null };
const TARGETS: Record<LinkTargetType, TargetKind> = {
  patient: { table: patients, names: PATIENT_NAMES },
  appointment: { table: appointments, names: APPOINTMENT_NAMES },
  charted_procedure: {
    table: chartedProcedures,
    names: nameSource(chartedProcedures.id, { procedure_code: chartedProcedures.procedure_code }, (r) => r.procedure_code),
  },
  treatment_plan: { table: treatmentPlans, names: nameSource(treatmentPlans.id, { name: treatmentPlans.name }, (r) => r.name) },
  insurance_draft: { table: insuranceDrafts, names: null },
};

/** 422 at ["body", "target_uuid"] unless the target is a live record of this org (the org's own database holds no other org's rows). */
function* requireTarget(db: TenantDb, type: LinkTargetType, id: string): Work<void> {
  const table = TARGETS[type].table;
  const where = table.deleted_at ? and(eq(table.id, id), isNull(table.deleted_at)) : eq(table.id, id);
  const row = yield* get<{ id: string }>(db.select({ id: table.id }).from(table).where(where));
  if (!row) throw invalid(["body", "target_uuid"], `Must be a live ${type.replace("_", " ")} of this organization`);
}

/** Links as answered: one name lookup per kind of target on the list. */
function* linksOut(db: TenantDb, rows: LinkRow[]): Work<DocumentLink[]> {
  const names = new Map<string, string>();
  for (const [type, kind] of Object.entries(TARGETS) as [LinkTargetType, TargetKind][]) {
    if (!kind.names) continue;
    const ids = rows.filter((r) => r.target_type === type).map((r) => r.target_id);
    if (!ids.length) continue;
    for (const [id, name] of yield* namesOf(db, kind.names, ids)) names.set(`${type}:${id}`, name);
  }
  return rows.map((r) => ({
    id: r.id,
    document_uuid: r.document_id,
    target_type: r.target_type as LinkTargetType,
    target_uuid: r.target_id,
    target_name: names.get(`${r.target_type}:${r.target_id}`) ?? null,
    note: r.note,
    created_by: r.created_by,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  }));
}

const liveLinks = (db: TenantDb, documentId: string) =>
  all<LinkRow>(
    db
      .select()
      .from(t)
      .where(and(eq(t.document_id, documentId), isNull(t.deleted_at)))
      .orderBy(asc(t.created_at), asc(t.id)),
  );

/** The live links of a live document, oldest first; 404 when the document is missing or archived. */
export async function listLinks(ctx: OrgContext, documentId: string): Promise<DocumentLinkList> {
  return ctx.db.read(function* (db) {
    yield* requireDocument(db, documentId);
    return { items: yield* linksOut(db, yield* liveLinks(db, documentId)) };
  });
}

const eventData = (r: Pick<LinkRow, "document_id" | "target_type" | "target_id">) => ({
  document_uuid: r.document_id,
  target_type: r.target_type,
  target_uuid: r.target_id,
});

/** Link a document to a live record of the org: 404 document, 422 target, 409 duplicate (a live link to the same target). */
export async function createLink(ctx: OrgContext, documentId: string, input: DocumentLinkCreate): Promise<DocumentLink> {
  return withTransaction(ctx, function* (s) {
    yield* requireDocument(s.tx, documentId);
    yield* requireTarget(s.tx, input.target_type, input.target_uuid);
    const existing = yield* get<{ id: string }>(
      s.tx
        .select({ id: t.id })
        .from(t)
        .where(and(eq(t.document_id, documentId), eq(t.target_type, input.target_type), eq(t.target_id, input.target_uuid), isNull(t.deleted_at))),
    );
    if (existing) throw new Conflict(DUPLICATE, "duplicate");
    const values = {
      document_id: documentId,
      target_type: input.target_type,
      target_id: input.target_uuid,
      note: input.note ?? null,
      created_by: s.actor.type === "user" ? s.actor.id : null,
    };
    const row = yield* linkRecords.create(s, values, eventData(values));
    return (yield* linksOut(s.tx, [row]))[0]!;
  });
}

/** Soft delete; 404 unless the link is a live link of this live document, 409 on a stale base_version. */
export async function deleteLink(ctx: OrgContext, documentId: string, linkId: string, baseVersion: number): Promise<void> {
  await withTransaction(ctx, function* (s) {
    yield* requireDocument(s.tx, documentId);
    const row = yield* linkRecords.find(s.tx, linkId);
    if (!row || row.document_id !== documentId) throw new NotFound("Document link");
    yield* linkRecords.update(s, row.id, baseVersion, { deleted_at: s.now }, { action: "deleted", changedFields: false, eventData: eventData(row) });
  });
}
