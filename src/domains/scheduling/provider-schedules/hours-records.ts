import type { SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Work } from "@/platform/db/work";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import type { Paging } from "@/platform/records/paging";
import { ref } from "@/platform/records/refs";
import { defineResource, type ResourceTable } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";
import { requireProvider } from "@/domains/providers/record/service";
import { placeNames, requireOperatoryAt, type PlaceNames } from "./common";

// A provider's hours at a location, weekly (templates, ./service.ts) or on one
// date (overrides, scheduling/overrides): records placed at a provider, a
// location and perhaps an operatory, whose practice is the location. They share
// the record mechanics below; each kind brings its table and the fields it
// shows between its references and its version.

type HoursRow = {
  id: string;
  provider_id: string;
  location_id: string;
  operatory_id: string | null;
  version: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
} & Record<string, unknown>;

/** A new record's place: the provider, then the location (404 each), then the operatory (404, or 422 at another location). */
export function* requireHoursPlace(db: TenantDb, input: { provider_uuid: string; location_uuid: string; operatory_uuid?: string | null }) {
  const provider = yield* requireProvider(db, input.provider_uuid);
  const location = yield* locationRecords.require(db, input.location_uuid);
  const operatory = input.operatory_uuid ? yield* requireOperatoryAt(db, input.operatory_uuid, location.id) : null;
  return { provider_id: provider.id, location_id: location.id, operatory_id: operatory?.id ?? null };
}

/**
 * One kind of hours record: its resource (the audit form keeps ids, events name
 * references as the API does, the practice is the location), its answers with
 * named references (`one`, `list`), the by-id GET and the DELETE.
 */
export function hoursRecords<R extends HoursRow, Fields extends object>(kind: {
  table: ResourceTable;
  name: string;
  label: string;
  /** What the API answer and the audit trail both show after the place. */
  fields: (r: R) => Fields;
}) {
  // The audit trail keeps ids (names change); answers name the references.
  const auditForm = (r: R) => ({
    id: r.id,
    provider_uuid: r.provider_id,
    location_uuid: r.location_id,
    operatory_uuid: r.operatory_id,
    ...kind.fields(r),
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
    deleted_at: r.deleted_at,
  });
  const serialize = (r: R, n: PlaceNames) => ({
    id: r.id,
    provider: ref(r.provider_id, n.providers),
    location: ref(r.location_id, n.locations),
    operatory: ref(r.operatory_id, n.operatories),
    ...kind.fields(r),
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  });
  const records = defineResource<R, ReturnType<typeof auditForm>>({
    table: kind.table,
    name: kind.name,
    label: kind.label,
    serialize: auditForm,
    practiceId: (r) => r.location_id,
    eventFields: { stripIdSuffix: true },
  });

  /** Rows as answers, their place names read at once. */
  function* present(db: TenantDb, rows: R[]) {
    const n = yield* placeNames(db, rows);
    return rows.map((r) => serialize(r, n));
  }
  type Answer = ReturnType<typeof serialize>;
  function* one(db: TenantDb, row: R): Work<Answer> {
    return (yield* present(db, [row]))[0]!;
  }

  return {
    records,
    one,
    /** A page of the live records matching `filter`, as answers. */
    *list(db: TenantDb, q: Paging, filter: { where: (SQL | undefined)[]; orderBy: (SQL | SQLiteColumn)[] }) {
      const page = yield* records.list(db, q, filter);
      return { ...page, items: yield* present(db, page.items) };
    },
    /** The by-id GET: 404 when missing or deleted. */
    get: async (ctx: OrgContext, id: string) =>
      ctx.db.read(function* (db) {
        return yield* one(db, yield* records.require(db, id));
      }),
    /** DELETE: archived as deleted; 404 when missing, 409 on a stale base version. */
    async remove(ctx: OrgContext, id: string, baseVersion?: number): Promise<void> {
      await withTransaction(ctx, (s) => records.archive(s, id, baseVersion, "deleted"));
    },
  };
}
