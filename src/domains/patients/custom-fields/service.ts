import { and, asc, count, eq, isNull } from "drizzle-orm";
import { patientFieldDefinitions, patientFieldValues } from "@db/tenant/custom-fields";
import { audit } from "@/platform/audit/audit";
import { all, get, run, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound } from "@/platform/errors";
import { newId } from "@/platform/ids";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { DateOnly } from "@/platform/records/fields";
import { pageFrom, type Paging } from "@/platform/records/paging";
import { defineResource } from "@/platform/records/resource";
import { emit } from "@/platform/records/events";
import { withTransaction } from "@/platform/records/transaction";
import { patientForRead, patientForWrite } from "@/domains/patients/record/scope";
import type { PatientRow } from "@/domains/patients/record/service";
import type { FieldDefinition, FieldDefinitionCreate, FieldDefinitionListQuery, FieldType, FieldValue, FieldValueSet } from "./schemas";

type DefinitionRow = typeof patientFieldDefinitions.$inferSelect;
type ValueRow = typeof patientFieldValues.$inferSelect;
type Value = ValueRow["value"];

const serializeDefinition = (r: DefinitionRow): FieldDefinition => ({
  id: r.id,
  name: r.name,
  field_type: r.field_type as FieldType,
  pick_list_options: r.pick_list_options ?? null,
  is_required: r.is_required,
  item_order: r.item_order,
  description: r.description,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

export const fieldDefinitionRecords = defineResource<DefinitionRow, FieldDefinition>({
  table: patientFieldDefinitions,
  name: "patient_field_definition",
  label: "Field definition",
  serialize: serializeDefinition,
});

// ---- definitions --------------------------------------------------------------------

/** Names are unique among active definitions, ignoring case (a short list: compared in code). */
function* checkNameFree(tx: TenantDb, name: string): Work<void> {
  const active = yield* all(tx.select({ name: patientFieldDefinitions.name }).from(patientFieldDefinitions).where(isNull(patientFieldDefinitions.deleted_at)));
  if (active.some((d) => d.name.toLowerCase() === name.toLowerCase())) throw new Conflict("An active field definition already has this name");
}

export async function createFieldDefinition(ctx: OrgContext, input: FieldDefinitionCreate) {
  return serializeDefinition(
    await withTransaction(ctx, function* (s) {
      yield* checkNameFree(s.tx, input.name);
      return yield* fieldDefinitionRecords.create(
        s,
        {
          name: input.name,
          field_type: input.field_type,
          pick_list_options: input.pick_list_options ?? null,
          is_required: input.is_required ?? false,
          item_order: input.item_order ?? 0,
          description: input.description || null,
        },
        { field_type: input.field_type },
      );
    }),
  );
}

export async function listFieldDefinitions(ctx: OrgContext, q: FieldDefinitionListQuery) {
  const page = await ctx.db.read((db) =>
    fieldDefinitionRecords.list(db, q, {
      where: [q.field_type ? eq(patientFieldDefinitions.field_type, q.field_type) : undefined],
      orderBy: [patientFieldDefinitions.item_order, patientFieldDefinitions.name, patientFieldDefinitions.id],
      includeDeleted: q.include_archived ?? false,
    }),
  );
  return { ...page, items: page.items.map(serializeDefinition) };
}

export function getFieldDefinition(ctx: OrgContext, id: string) {
  return fieldDefinitionRecords.read(ctx.db, id);
}

/** Values of an archived definition are kept but no longer listed, set or cleared. */
export async function archiveFieldDefinition(ctx: OrgContext, id: string) {
  return serializeDefinition(await withTransaction(ctx, (s) => fieldDefinitionRecords.archive(s, id)));
}

// ---- values -------------------------------------------------------------------------

const at = ["body", "value"];

/** The value as the definition's type wants it: 422 otherwise. */
export function checkValue(def: Pick<DefinitionRow, "field_type" | "pick_list_options">, value: unknown): Value {
  const type = def.field_type as FieldType;
  const expect = (kind: "string" | "number" | "boolean") => {
    if (typeof value !== kind)
      throw invalid(at, `Expected ${kind} for a ${type} field, got ${value === null ? "null" : Array.isArray(value) ? "array" : typeof value}`, "type_error");
  };
  switch (type) {
    case "text":
      expect("string");
      if (!(value as string).trim() || (value as string).length > 4000) throw invalid(at, "Must be 1-4000 characters (use DELETE to clear)", "out_of_range");
      return value as string;
    case "number":
      expect("number");
      return value as number;
    case "boolean":
      expect("boolean");
      return value as boolean;
    case "date":
      expect("string");
      if (!DateOnly.safeParse(value).success) throw invalid(at, "Must be a date, YYYY-MM-DD", "format");
      return value as string;
    case "pick_list":
      expect("string");
      if (!def.pick_list_options?.includes(value as string)) throw invalid(at, `Must be one of: ${(def.pick_list_options ?? []).join(", ")}`, "enum");
      return value as string;
  }
}

type ValueJoin = ValueRow & { name: string; field_type: string };
const serializeValue = (r: ValueJoin): FieldValue => ({
  id: r.id,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  field_definition: { uuid: r.field_definition_id, name: r.name },
  field_type: r.field_type as FieldType,
  value: r.value,
});

/** Values of active definitions only, in the definitions' display order. */
export async function listFieldValues(ctx: OrgContext, patientId: string, q: Paging) {
  return ctx.db.read(function* (db) {
    const patient = yield* patientForRead(db, patientId);
    const definition = eq(patientFieldDefinitions.id, patientFieldValues.field_definition_id);
    const where = and(eq(patientFieldValues.patient_id, patient.id), isNull(patientFieldDefinitions.deleted_at));
    const page = yield* pageFrom(
      q,
      db.select({ n: count() }).from(patientFieldValues).innerJoin(patientFieldDefinitions, definition).where(where),
      db
        .select({ value: patientFieldValues, name: patientFieldDefinitions.name, field_type: patientFieldDefinitions.field_type })
        .from(patientFieldValues)
        .innerJoin(patientFieldDefinitions, definition)
        .where(where)
        .orderBy(asc(patientFieldDefinitions.item_order), asc(patientFieldDefinitions.name), asc(patientFieldDefinitions.id)),
    );
    return { ...page, items: page.items.map((r) => serializeValue({ ...r.value, name: r.name, field_type: r.field_type })) };
  });
}

const snapshot = (r: ValueRow) => ({ patient_id: r.patient_id, field_definition_id: r.field_definition_id, value: r.value });

/** Audit row and event of a value change; the event names the field, never the value. */
function* recordValueChange(s: TxScope, patient: PatientRow, row: ValueRow, verb: "set" | "cleared", before: ValueRow | null): Work<void> {
  yield* audit(s, {
    action: `patient_field_value.${verb}`,
    resource_type: "patient_field_value",
    resource_id: row.id,
    before: before && snapshot(before),
    after: verb === "set" ? snapshot(row) : null,
  });
  emit(s, {
    type: `patient_field_value.${verb}`,
    resource_type: "patient_field_value",
    resource_id: row.id,
    practice_id: patient.location_id,
    data: { id: row.id, patient_id: patient.id, field_definition_id: row.field_definition_id },
  });
}

function* target(s: TxScope, patientId: string, definitionId: string) {
  const patient = yield* patientForWrite(s.tx, patientId);
  const def = yield* fieldDefinitionRecords.require(s.tx, definitionId);
  const existing = yield* get(
    s.tx
      .select()
      .from(patientFieldValues)
      .where(and(eq(patientFieldValues.patient_id, patient.id), eq(patientFieldValues.field_definition_id, def.id))),
  );
  return { patient, def, existing };
}

/** Create or replace the value; the same value again changes nothing (no version bump, audit or event). */
export async function setFieldValue(ctx: OrgContext, patientId: string, definitionId: string, input: FieldValueSet): Promise<FieldValue> {
  return withTransaction(ctx, function* (s) {
    const { patient, def, existing } = yield* target(s, patientId, definitionId);
    const value = checkValue(def, input.value);
    let row: ValueRow;
    if (existing && existing.value === value) row = existing;
    else if (existing) {
      row = (yield* get(
        s.tx
          .update(patientFieldValues)
          .set({ value, version: existing.version + 1, updated_at: s.now })
          .where(eq(patientFieldValues.id, existing.id))
          .returning(),
      ))!;
      yield* recordValueChange(s, patient, row, "set", existing);
    } else {
      row = (yield* get(
        s.tx
          .insert(patientFieldValues)
          .values({ id: newId(), patient_id: patient.id, field_definition_id: def.id, value, version: 1, created_at: s.now, updated_at: s.now })
          .returning(),
      ))!;
      yield* recordValueChange(s, patient, row, "set", null);
    }
    return serializeValue({ ...row, name: def.name, field_type: def.field_type });
  });
}

export async function clearFieldValue(ctx: OrgContext, patientId: string, definitionId: string): Promise<void> {
  await withTransaction(ctx, function* (s) {
    const { patient, def, existing } = yield* target(s, patientId, definitionId);
    if (!existing) throw new NotFound("Field value");
    if (def.is_required)
      throw invalid(["path", "field_definition_uuid"], "This field is required: change its value instead of clearing it", "value_error", "field_required");
    yield* run(s.tx.delete(patientFieldValues).where(eq(patientFieldValues.id, existing.id)));
    yield* recordValueChange(s, patient, existing, "cleared", existing);
  });
}
