import { and, asc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { patientRelationships } from "@db/tenant/relationships";
import { patients } from "@db/tenant/patients";
import { all, get, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { inPractice, patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import { idsOf, namesOf, personRef, ref } from "@/platform/records/refs";
import { PATIENT_NAMES } from "@/platform/records/names";
import type { Family, Relationship, RelationshipCreate, RelationshipListQuery, RelationshipType } from "./schemas";
import { familyWhere, guarantorOf } from "@/domains/patients/record/family";

type RelationshipRow = typeof patientRelationships.$inferSelect;
const R = patientRelationships;

// Audit snapshots are the stored columns; responses add the patients' names.
export const relationshipRecords = defineResource<RelationshipRow, RelationshipRow>({
  table: R,
  name: "patient_relationship",
  label: "Relationship",
  serialize: (r) => r,
});

function* present(db: TenantDb, rows: RelationshipRow[]): Work<Relationship[]> {
  const names = yield* namesOf(
    db,
    PATIENT_NAMES,
    idsOf(
      rows,
      (r) => r.from_patient_id,
      (r) => r.to_patient_id,
    ),
  );
  return rows.map((r) => {
    const from = ref(r.from_patient_id, names),
      to = ref(r.to_patient_id, names);
    return {
      id: r.id,
      version: r.version,
      created_at: r.created_at,
      updated_at: r.updated_at,
      deleted_at: r.deleted_at,
      from_patient: from,
      from_patient_name: from.name,
      to_patient: to,
      to_patient_name: to.name,
      relationship_type: r.relationship_type as RelationshipType,
      is_guardian: r.is_guardian,
      note: r.note,
    };
  });
}

function* one(db: TenantDb, row: RelationshipRow): Work<Relationship> {
  return (yield* present(db, [row]))[0]!;
}

export async function createRelationship(ctx: OrgContext, patientId: string, input: RelationshipCreate): Promise<Relationship> {
  return withTransaction(ctx, function* (s) {
    const from = yield* patientForWrite(s.tx, patientId);
    if (input.to_patient_uuid === from.id)
      throw invalid(["body", "to_patient_uuid"], "A patient cannot be related to itself", "value_error", "self_relationship");
    const to = yield* get(
      s.tx
        .select({ id: patients.id })
        .from(patients)
        .where(and(eq(patients.id, input.to_patient_uuid), isNull(patients.deleted_at))),
    );
    if (!to) throw new NotFound("Related patient");
    const dup = yield* get(
      s.tx
        .select({ id: R.id })
        .from(R)
        .where(and(eq(R.from_patient_id, from.id), eq(R.to_patient_id, to.id), eq(R.relationship_type, input.relationship_type), isNull(R.deleted_at))),
    );
    if (dup) throw new Conflict("This relationship is already recorded for the patient", "duplicate");
    const row = yield* inPractice(
      s,
      from.location_id,
      relationshipRecords.create(
        s,
        {
          from_patient_id: from.id,
          to_patient_id: to.id,
          relationship_type: input.relationship_type,
          is_guardian: input.is_guardian,
          note: input.note ?? null,
        },
        { from_patient_id: from.id, to_patient_id: to.id },
      ),
    );
    return yield* one(s.tx, row);
  });
}

export async function listRelationships(ctx: OrgContext, patientId: string, q: RelationshipListQuery) {
  return ctx.db.read(function* (db) {
    const p = yield* patientForRead(db, patientId);
    const side =
      q.direction === "outgoing"
        ? eq(R.from_patient_id, p.id)
        : q.direction === "incoming"
          ? eq(R.to_patient_id, p.id)
          : or(eq(R.from_patient_id, p.id), eq(R.to_patient_id, p.id));
    const page = yield* relationshipRecords.list(db, q, {
      where: [side, q.relationship_type ? eq(R.relationship_type, q.relationship_type) : undefined],
      orderBy: [R.id],
    });
    return { ...page, items: yield* present(db, page.items) };
  });
}

/** A relationship is readable through either of its patients; 404 through any other. */
export async function getRelationship(ctx: OrgContext, patientId: string, id: string): Promise<Relationship> {
  return ctx.db.read(function* (db) {
    const p = yield* patientForRead(db, patientId);
    const row = yield* relationshipRecords.require(db, id);
    if (row.from_patient_id !== p.id && row.to_patient_id !== p.id) throw new NotFound("Relationship");
    return yield* one(db, row);
  });
}

/** Only the owner (from_patient) archives its record; the answer carries deleted_at. */
export async function archiveRelationship(ctx: OrgContext, patientId: string, id: string): Promise<Relationship> {
  return withTransaction(ctx, function* (s) {
    const p = yield* patientForWrite(s.tx, patientId);
    const row = yield* relationshipRecords.require(s.tx, id);
    if (row.from_patient_id !== p.id) throw new NotFound("Relationship");
    return yield* one(s.tx, yield* inPractice(s, p.location_id, relationshipRecords.archive(s, id)));
  });
}

/** The patient's records with is_guardian: the dependents are their to_patients (archived ones left out). */
export async function listDependents(ctx: OrgContext, patientId: string) {
  return ctx.db.read(function* (db) {
    const p = yield* patientForRead(db, patientId);
    const rows = yield* all(
      db
        .select({ r: R })
        .from(R)
        .innerJoin(patients, eq(patients.id, R.to_patient_id))
        .where(and(eq(R.from_patient_id, p.id), eq(R.is_guardian, true), isNull(R.deleted_at), isNull(patients.deleted_at)))
        .orderBy(R.id),
    );
    const items = yield* present(
      db,
      rows.map((x) => x.r),
    );
    return { items, total: items.length };
  });
}

// What B is to A, read from a record "A is B's <type>". Types without an inverse in
// the enum (guardian, caregiver, foster_child) and merge/clone give nothing.
const INVERSE: Partial<Record<RelationshipType, RelationshipType>> = {
  spouse: "spouse",
  life_partner: "life_partner",
  sibling: "sibling",
  other_family: "other_family",
  parent: "child",
  child: "parent",
  grandparent: "grandchild",
  grandchild: "grandparent",
  stepparent: "stepchild",
  stepchild: "stepparent",
};
const RECORD_LINKS = new Set<string>(["merge", "clone"]);

/**
 * The guarantor (the patient's responsible party, else the patient itself) and
 * every non-archived patient whose responsible party it is. One level: the
 * guarantor's own responsible party is not followed.
 */
export async function getFamily(ctx: OrgContext, patientId: string): Promise<Family> {
  return ctx.db.read(function* (db) {
    const p = yield* patientForRead(db, patientId);
    const gid = guarantorOf(p);
    const members = yield* all(
      db
        .select({
          id: patients.id,
          first_name: patients.first_name,
          last_name: patients.last_name,
          preferred_name: patients.preferred_name,
          date_of_birth: patients.date_of_birth,
          status: patients.status,
        })
        .from(patients)
        .where(familyWhere(gid))
        .orderBy(sql`${patients.id} = ${gid} DESC`, asc(patients.last_name), asc(patients.first_name), asc(patients.id)),
    );
    const others = members.map((m) => m.id).filter((id) => id !== gid);
    const links = others.length
      ? yield* all(
          db
            .select()
            .from(R)
            .where(
              and(
                isNull(R.deleted_at),
                or(and(eq(R.from_patient_id, gid), inArray(R.to_patient_id, others)), and(eq(R.to_patient_id, gid), inArray(R.from_patient_id, others))),
              ),
            )
            .orderBy(R.id),
        )
      : [];
    const toGuarantor = (id: string): RelationshipType | null => {
      const mine = links.find((l) => l.from_patient_id === id && !RECORD_LINKS.has(l.relationship_type));
      if (mine) return mine.relationship_type as RelationshipType;
      for (const l of links) {
        const inverse = l.to_patient_id === id ? INVERSE[l.relationship_type as RelationshipType] : undefined;
        if (inverse) return inverse;
      }
      return null;
    };
    const g = members.find((m) => m.id === gid);
    const guarantor = g ? personRef(g) : ref(gid, yield* namesOf(db, PATIENT_NAMES, [gid])); // archived: not a member
    const items = members.map((m) => ({
      ...m,
      uuid: m.id,
      status: m.status as Family["items"][number]["status"],
      is_guarantor: m.id === gid,
      relationship_to_guarantor: m.id === gid ? null : toGuarantor(m.id),
    }));
    return { guarantor, items, total: items.length };
  });
}
