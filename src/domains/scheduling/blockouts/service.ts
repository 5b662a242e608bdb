import { and, eq, gt, isNull, lt } from "drizzle-orm";
import { blockouts } from "@db/tenant/scheduling";
import { definitions } from "@db/tenant/definitions";
import { get, type Work } from "@/platform/db/work";
import { checkDateRange } from "@/platform/records/search";
import { invalid, NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { DEFINITION_NAMES } from "@/platform/records/names";
import { namesOf, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { formatWallClock, utcIso } from "@/platform/time/zoned";
import { locationRecords } from "@/domains/providers/locations/service";
import { requireProvider } from "@/domains/providers/record/service";
import { requireOperatory } from "@/domains/scheduling/operatories/service";
import { zonedSecond } from "@/domains/scheduling/appointments/conflicts";
import { operatoryChange, placeNames, requireOperatoryAt, type PlaceNames } from "@/domains/scheduling/provider-schedules/common";
import type { Blockout, BlockoutCreate, BlockoutListQuery, BlockoutPatch } from "./schemas";

type Row = typeof blockouts.$inferSelect;

/** Longest blockout (a vacation); also bounds the overlap queries' index range. */
export const MAX_BLOCKOUT_MS = 31 * 24 * 60 * 60 * 1000;
export const BLOCKOUT_TYPES = "blockout_types";

const serialize = (r: Row, n: PlaceNames & { definitions: Names }): Blockout => ({
  id: r.id,
  location: ref(r.location_id, n.locations),
  operatory: ref(r.operatory_id, n.operatories),
  provider: ref(r.provider_id, n.providers),
  blockout_type: ref(r.blockout_type_id, n.definitions),
  start: r.start,
  end: r.end,
  note: r.note,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const auditForm = (r: Row) => ({
  id: r.id,
  location_uuid: r.location_id,
  operatory_uuid: r.operatory_id,
  provider_uuid: r.provider_id,
  blockout_type_uuid: r.blockout_type_id,
  start: r.start,
  end: r.end,
  start_utc: r.start_utc,
  end_utc: r.end_utc,
  note: r.note,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

const records = defineResource<Row, ReturnType<typeof auditForm>>({
  table: blockouts,
  name: "blockout",
  label: "Blockout",
  serialize: auditForm,
  practiceId: (r) => r.location_id,
  // the UTC copies travel with start and end
  eventFields: { rename: { start_utc: null, end_utc: null }, stripIdSuffix: true },
});

export function* presentBlockouts(db: TenantDb, rows: Row[]): Work<Blockout[]> {
  const n = {
    ...(yield* placeNames(db, rows)),
    definitions: yield* namesOf(
      db,
      DEFINITION_NAMES,
      rows.map((r) => r.blockout_type_id),
    ),
  };
  return rows.map((r) => serialize(r, n));
}

function* requireBlockoutType(db: TenantDb, id: string) {
  const row = yield* get(
    db
      .select({ id: definitions.id, category: definitions.category })
      .from(definitions)
      .where(and(eq(definitions.id, id), isNull(definitions.deleted_at))),
  );
  if (!row) throw new NotFound("Blockout type");
  if (row.category !== BLOCKOUT_TYPES)
    throw invalid(["body", "blockout_type_uuid"], "Must be a definition of category blockout_types", "value_error", "blockout_type_invalid");
  return row;
}

/** A request value, or what is stored (an unchanged end on PATCH). */
type End = string | { wall: string; utc: string };

/** Both ends in the location's zone; the UTC copies are what overlaps compare. */
function times(timeZone: string, start: End, end: End) {
  const one = (x: End, field: string) => {
    if (typeof x !== "string") return x;
    const z = zonedSecond(x, timeZone, field);
    return { wall: formatWallClock(z.toPlainDateTime()), utc: utcIso(z) };
  };
  const a = one(start, "start"),
    b = one(end, "end");
  const ms = Date.parse(b.utc) - Date.parse(a.utc);
  if (ms <= 0) throw invalid(["body", "end"], "Must be after start", "value_error", "invalid_window");
  if (ms > MAX_BLOCKOUT_MS) throw invalid(["body", "end"], "A blockout lasts at most 31 days", "value_error", "invalid_window");
  return { start: a.wall, end: b.wall, start_utc: a.utc, end_utc: b.utc };
}

const nextDay = (date: string) => Temporal.PlainDate.from(date).add({ days: 1 }).toString();

export async function listBlockouts(ctx: OrgContext, q: BlockoutListQuery) {
  checkDateRange(q);
  return ctx.db.read(function* (db) {
    if (q.location_uuid) yield* locationRecords.require(db, q.location_uuid);
    if (q.operatory_uuid) yield* requireOperatory(db, q.operatory_uuid);
    if (q.provider_uuid) yield* requireProvider(db, q.provider_uuid);
    const t = blockouts;
    const page = yield* records.list(db, q, {
      // dates compare with the stored wall clock: each blockout's own location day
      where: [
        q.location_uuid ? eq(t.location_id, q.location_uuid) : undefined,
        q.operatory_uuid ? eq(t.operatory_id, q.operatory_uuid) : undefined,
        q.provider_uuid ? eq(t.provider_id, q.provider_uuid) : undefined,
        q.date_from ? gt(t.end, `${q.date_from}T00:00:00`) : undefined,
        q.date_to ? lt(t.start, `${nextDay(q.date_to)}T00:00:00`) : undefined,
      ],
      orderBy: [t.start_utc, t.id],
    });
    return { ...page, items: yield* presentBlockouts(db, page.items) };
  });
}

export async function getBlockout(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return (yield* presentBlockouts(db, [yield* records.require(db, id)]))[0]!;
  });
}

export async function createBlockout(ctx: OrgContext, input: BlockoutCreate) {
  return withTransaction(ctx, function* (s) {
    const location = yield* locationRecords.require(s.tx, input.location_uuid);
    const operatory = input.operatory_uuid ? yield* requireOperatoryAt(s.tx, input.operatory_uuid, location.id) : null;
    const provider = input.provider_uuid ? yield* requireProvider(s.tx, input.provider_uuid) : null;
    const type = yield* requireBlockoutType(s.tx, input.blockout_type_uuid);
    const values = {
      location_id: location.id,
      operatory_id: operatory?.id ?? null,
      provider_id: provider?.id ?? null,
      blockout_type_id: type.id,
      ...times(location.timezone, input.start, input.end),
      note: input.note ?? "",
    };
    const row = yield* records.create(s, values, {
      location_id: location.id,
      operatory_id: values.operatory_id,
      provider_id: values.provider_id,
      blockout_type_id: type.id,
    });
    return (yield* presentBlockouts(s.tx, [row]))[0]!;
  });
}

export async function updateBlockout(ctx: OrgContext, id: string, input: BlockoutPatch) {
  const { base_version, operatory_uuid, provider_uuid, blockout_type_uuid, start, end, note } = input;
  return withTransaction(ctx, function* (s) {
    const current = yield* records.requireCurrent(s.tx, id, base_version);
    const changes: Partial<Row> = {};
    if (operatory_uuid !== undefined) changes.operatory_id = yield* operatoryChange(s.tx, operatory_uuid, current.location_id);
    if (provider_uuid !== undefined) changes.provider_id = provider_uuid === null ? null : (yield* requireProvider(s.tx, provider_uuid)).id;
    if (blockout_type_uuid !== undefined) changes.blockout_type_id = (yield* requireBlockoutType(s.tx, blockout_type_uuid)).id;
    if (start !== undefined || end !== undefined) {
      // the zone as it is now; an unchanged end keeps what was stored
      const location = yield* locationRecords.require(s.tx, current.location_id, true);
      Object.assign(
        changes,
        times(location.timezone, start ?? { wall: current.start, utc: current.start_utc }, end ?? { wall: current.end, utc: current.end_utc }),
      );
    }
    if (note !== undefined) changes.note = note;
    const row = yield* records.update(s, id, base_version, changes);
    return (yield* presentBlockouts(s.tx, [row]))[0]!;
  });
}

export async function deleteBlockout(ctx: OrgContext, id: string, baseVersion: number) {
  await withTransaction(ctx, (s) => records.archive(s, id, baseVersion, "deleted"));
}

/** Schedule templates write blockouts with these (scheduling/schedule-templates/apply.ts): the record mechanics, the type check and the zone conversion. */
export { records as blockoutRecords, requireBlockoutType, times as blockoutTimes };
