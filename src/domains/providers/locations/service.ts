import { containsText } from "@/platform/records/search";
import { locations } from "@db/tenant/practice";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import type { OrgContext } from "@/platform/records/context";
import type { Paging } from "@/platform/records/paging";
import type { Location, LocationCreate, LocationPatch } from "./schemas";
import { FEE_SCHEDULE_NAMES } from "@/platform/records/names";
import { idsOf, namesOf, ref, type Names } from "@/platform/records/refs";
import { requireFeeSchedule } from "@/domains/codes/fee-schedules/records";
import { eq } from "drizzle-orm";
import { get, type Work } from "@/platform/db/work";
import { todayIn } from "@/platform/time/dates";
import type { TenantDb } from "@/platform/records/context";

type LocationRow = typeof locations.$inferSelect;

/** The API record; `schedules` holds the fee schedule's name (without it the name is null: the audit snapshot). */
export const serializeLocation = (r: LocationRow, schedules?: Names): Location => ({
  id: r.id,
  name: r.name,
  timezone: r.timezone,
  address_line1: r.address_line1,
  address_line2: r.address_line2,
  city: r.city,
  state: r.state,
  postal_code: r.postal_code,
  country: r.country,
  phone: r.phone,
  email: r.email,
  fee_schedule: ref(r.fee_schedule_id, schedules),
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

export const locationRecords = defineResource<LocationRow, Location>({
  table: locations,
  name: "location",
  label: "Location",
  serialize: (r) => serializeLocation(r),
  practiceId: (r) => r.id,
});

function* present(db: TenantDb, row: LocationRow): Work<Location> {
  return serializeLocation(row, yield* namesOf(db, FEE_SCHEDULE_NAMES, [row.fee_schedule_id]));
}

/** API fields -> columns; only the fields present. */
function toColumns(input: Omit<LocationPatch, "base_version">): Partial<LocationRow> {
  const { fee_schedule_uuid, ...rest } = input;
  const out: Partial<LocationRow> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
  if (fee_schedule_uuid !== undefined) out.fee_schedule_id = fee_schedule_uuid;
  return out;
}

export async function listLocations(ctx: OrgContext, q: Paging & { search?: string }) {
  return ctx.db.read(function* (db) {
    const page = yield* locationRecords.list(db, q, {
      where: [q.search ? containsText(locations.name, q.search) : undefined],
      orderBy: [locations.name, locations.id],
    });
    const names = yield* namesOf(
      db,
      FEE_SCHEDULE_NAMES,
      idsOf(page.items, (r) => r.fee_schedule_id),
    );
    return { ...page, items: page.items.map((r) => serializeLocation(r, names)) };
  });
}

// Kept while the database is unchanged, as defineResource's read is (the fee schedule's name is the database's too).
export function getLocation(ctx: OrgContext, id: string) {
  return ctx.db.readKept(`location:${id}`, function* (db) {
    return yield* present(db, yield* locationRecords.require(db, id));
  });
}

export async function createLocation(ctx: OrgContext, input: LocationCreate) {
  return withTransaction(ctx, function* (s) {
    if (input.fee_schedule_uuid) yield* requireFeeSchedule(s.tx, input.fee_schedule_uuid);
    return yield* present(s.tx, yield* locationRecords.create(s, toColumns(input)));
  });
}

export async function updateLocation(ctx: OrgContext, id: string, input: LocationPatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    // a stale write is refused before a reference is looked up
    yield* locationRecords.requireCurrent(s.tx, id, base_version);
    if (patch.fee_schedule_uuid) yield* requireFeeSchedule(s.tx, patch.fee_schedule_uuid);
    return yield* present(s.tx, yield* locationRecords.update(s, id, base_version, toColumns(patch)));
  });
}

export async function archiveLocation(ctx: OrgContext, id: string) {
  return withTransaction(ctx, function* (s) {
    return yield* present(s.tx, yield* locationRecords.archive(s, id));
  });
}

/** Today at a location, in its time zone (UTC without one): the date that work done there is dated by. */
export function* todayAt(db: TenantDb, locationId: string | null | undefined): Work<string> {
  const loc = locationId
    ? yield* get<{ timezone: string }>(db.select({ timezone: locations.timezone }).from(locations).where(eq(locations.id, locationId)))
    : undefined;
  return todayIn(loc?.timezone);
}
