import { eq } from "drizzle-orm";
import { operatories } from "@db/tenant/practice";
import type { Work } from "@/platform/db/work";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { LOCATION_NAMES } from "@/platform/records/names";
import { namesOf } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";
import type { Operatory, OperatoryArchiveQuery, OperatoryCreate, OperatoryListQuery, OperatoryPatch } from "./schemas";

export type OperatoryRow = typeof operatories.$inferSelect;

/** The API record; `locationName` is the location's name (null when unknown). */
export const serializeOperatory = (r: OperatoryRow, locationName: string | null = null): Operatory => ({
  id: r.id,
  location: { uuid: r.location_id, name: locationName },
  name: r.name,
  abbreviation: r.abbreviation,
  item_order: r.item_order,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

export const operatoryRecords = defineResource<OperatoryRow, Operatory>({
  table: operatories,
  name: "operatory",
  label: "Operatory",
  serialize: (r) => serializeOperatory(r),
  practiceId: (r) => r.location_id,
});

/**
 * For other domains, inside a unit of work: the non-archived operatory `id`, or
 * 404 "Operatory not found". Callers check `location_id` against their own location.
 */
export function* requireOperatory(db: TenantDb, id: string): Work<OperatoryRow> {
  return yield* operatoryRecords.require(db, id);
}

function* present(db: TenantDb, row: OperatoryRow): Work<Operatory> {
  const names = yield* namesOf(db, LOCATION_NAMES, [row.location_id]);
  return serializeOperatory(row, names.get(row.location_id) ?? null);
}

export async function listOperatories(ctx: OrgContext, q: OperatoryListQuery) {
  return ctx.db.read(function* (db) {
    const locationId = q.location_uuid;
    if (locationId) yield* locationRecords.require(db, locationId);
    const page = yield* operatoryRecords.list(db, q, {
      where: [locationId ? eq(operatories.location_id, locationId) : undefined],
      orderBy: [operatories.item_order, operatories.name, operatories.id],
    });
    const names = yield* namesOf(
      db,
      LOCATION_NAMES,
      page.items.map((r) => r.location_id),
    );
    return { ...page, items: page.items.map((r) => serializeOperatory(r, names.get(r.location_id) ?? null)) };
  });
}

export async function getOperatory(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return yield* present(db, yield* operatoryRecords.require(db, id));
  });
}

export async function createOperatory(ctx: OrgContext, input: OperatoryCreate) {
  const { location_uuid, ...fields } = input;
  return withTransaction(ctx, function* (s) {
    const location = yield* locationRecords.require(s.tx, location_uuid);
    const row = yield* operatoryRecords.create(s, { ...fields, location_id: location.id });
    return serializeOperatory(row, location.name);
  });
}

export async function updateOperatory(ctx: OrgContext, id: string, input: OperatoryPatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    return yield* present(s.tx, yield* operatoryRecords.update(s, id, base_version, patch));
  });
}

export async function archiveOperatory(ctx: OrgContext, id: string, q: OperatoryArchiveQuery) {
  return withTransaction(ctx, function* (s) {
    return yield* present(s.tx, yield* operatoryRecords.archive(s, id, q.base_version));
  });
}
