import { and, asc, count, eq, isNull } from "drizzle-orm";
import { patientTags, tagDefinitions } from "@db/tenant/patients";
import { audit } from "@/platform/audit/audit";
import { all, get, run, type Work } from "@/platform/db/work";
import { Conflict, NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { pageFrom, type Paging } from "@/platform/records/paging";
import { defineResource } from "@/platform/records/resource";
import { emit } from "@/platform/records/events";
import { containsText } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import type { PatientRow } from "@/domains/patients/record/service";
import type { PatientTag, PatientTagAdd, TagDefinition, TagDefinitionCreate, TagDefinitionListQuery, TagDefinitionPatch } from "./schemas";

type TagRow = typeof tagDefinitions.$inferSelect;

const serializeTag = (r: TagRow): TagDefinition => ({
  id: r.id,
  name: r.name,
  color: r.color,
  description: r.description,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

export const tagRecords = defineResource<TagRow, TagDefinition>({
  table: tagDefinitions,
  name: "tag_definition",
  label: "Tag definition",
  serialize: serializeTag,
});

// ---- definitions --------------------------------------------------------------------

/** Names are unique among active definitions, ignoring case (the vocabulary is small: compared in code). */
function* checkNameFree(tx: TenantDb, name: string, selfId?: string): Work<void> {
  const active = yield* all(tx.select({ id: tagDefinitions.id, name: tagDefinitions.name }).from(tagDefinitions).where(isNull(tagDefinitions.deleted_at)));
  const wanted = name.toLowerCase();
  if (active.some((t) => t.id !== selfId && t.name.toLowerCase() === wanted)) throw new Conflict("An active tag definition already has this name");
}

export async function createTagDefinition(ctx: OrgContext, input: TagDefinitionCreate) {
  return serializeTag(
    await withTransaction(ctx, function* (s) {
      yield* checkNameFree(s.tx, input.name);
      return yield* tagRecords.create(s, { name: input.name, color: input.color ?? null, description: input.description || null });
    }),
  );
}

export async function listTagDefinitions(ctx: OrgContext, q: TagDefinitionListQuery) {
  const page = await ctx.db.read((db) =>
    tagRecords.list(db, q, {
      where: [q.search ? containsText(tagDefinitions.name, q.search) : undefined],
      orderBy: [tagDefinitions.name, tagDefinitions.id],
      includeDeleted: q.include_archived ?? false,
    }),
  );
  return { ...page, items: page.items.map(serializeTag) };
}

export function getTagDefinition(ctx: OrgContext, id: string) {
  return tagRecords.read(ctx.db, id);
}

export async function updateTagDefinition(ctx: OrgContext, id: string, input: TagDefinitionPatch) {
  const { base_version, ...patch } = input;
  return serializeTag(
    await withTransaction(ctx, function* (s) {
      yield* tagRecords.require(s.tx, id);
      if (patch.name !== undefined) yield* checkNameFree(s.tx, patch.name, id);
      if (patch.description === "") patch.description = null;
      return yield* tagRecords.update(s, id, base_version, patch);
    }),
  );
}

/** Archived definitions leave pickers and lists; patients keep their tags (and the patient list still filters by them). */
export async function archiveTagDefinition(ctx: OrgContext, id: string) {
  return serializeTag(await withTransaction(ctx, (s) => tagRecords.archive(s, id)));
}

// ---- a patient's tags ------------------------------------------------------------------

const tagColumns = {
  id: tagDefinitions.id,
  name: tagDefinitions.name,
  color: tagDefinitions.color,
  deleted_at: tagDefinitions.deleted_at,
  tagged_at: patientTags.created_at,
};
type TagJoin = { id: string; name: string; color: string | null; deleted_at: string | null; tagged_at: string };

const serializePatientTag = (r: TagJoin): PatientTag => ({
  tag_definition: { uuid: r.id, name: r.name },
  color: r.color,
  tag_archived: !!r.deleted_at,
  tagged_at: r.tagged_at,
});

const tagsOf = (db: TenantDb, patientId: string, tagId?: string) =>
  db
    .select(tagColumns)
    .from(patientTags)
    .innerJoin(tagDefinitions, eq(tagDefinitions.id, patientTags.tag_definition_id))
    .where(and(eq(patientTags.patient_id, patientId), tagId ? eq(patientTags.tag_definition_id, tagId) : undefined));

export async function listPatientTags(ctx: OrgContext, patientId: string, q: Paging) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const page = yield* pageFrom(
      q,
      db.select({ n: count() }).from(patientTags).where(eq(patientTags.patient_id, patient.id)),
      tagsOf(db, patient.id).orderBy(asc(tagDefinitions.name), asc(tagDefinitions.id)),
    );
    return { ...page, items: page.items.map(serializePatientTag) };
  });
}

function* findPatientTag(tx: TenantDb, patientId: string, tagId: string): Work<TagJoin | undefined> {
  return yield* get(tagsOf(tx, patientId, tagId));
}

/** The audit row and event of a tag change: the resource is the patient's tag set (patient_tags has no id of its own). */
function* recordTagChange(s: TxScope, patient: PatientRow, tagId: string, verb: "added" | "removed"): Work<void> {
  const snapshot = { patient_id: patient.id, tag_definition_id: tagId };
  yield* audit(s, {
    action: `patient_tag.${verb}`,
    resource_type: "patient_tag",
    resource_id: patient.id,
    before: verb === "removed" ? snapshot : null,
    after: verb === "added" ? snapshot : null,
  });
  emit(s, { type: `patient_tag.${verb}`, resource_type: "patient_tag", resource_id: patient.id, practice_id: patient.location_id, data: snapshot });
}

/** Adds the tag; re-adding one the patient already has changes nothing and answers the existing tag (`created: false`). */
export async function addPatientTag(ctx: OrgContext, patientId: string, input: PatientTagAdd): Promise<{ created: boolean; tag: PatientTag }> {
  return withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const existing = yield* findPatientTag(s.tx, patient.id, input.tag_definition_uuid);
    if (existing) return { created: false, tag: serializePatientTag(existing) };
    const def = yield* tagRecords.require(s.tx, input.tag_definition_uuid);
    yield* run(s.tx.insert(patientTags).values({ patient_id: patient.id, tag_definition_id: def.id, created_at: s.now }));
    yield* recordTagChange(s, patient, def.id, "added");
    return { created: true, tag: serializePatientTag({ id: def.id, name: def.name, color: def.color, deleted_at: def.deleted_at, tagged_at: s.now }) };
  });
}

export async function removePatientTag(ctx: OrgContext, patientId: string, tagId: string): Promise<void> {
  await withTransaction(ctx, function* (s) {
    const patient = yield* patientForWrite(s.tx, patientId);
    const removed = yield* all(
      s.tx
        .delete(patientTags)
        .where(and(eq(patientTags.patient_id, patient.id), eq(patientTags.tag_definition_id, tagId)))
        .returning(),
    );
    if (!removed.length) throw new NotFound("Patient tag");
    yield* recordTagChange(s, patient, tagId, "removed");
  });
}
