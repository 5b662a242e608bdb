import { eq, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { z } from "zod";
import type { Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import type { TenantDb } from "@/platform/records/context";
import { LOCATION_NAMES, OPERATORY_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { namesOfEach, type Names } from "@/platform/records/refs";
import { locationRecords } from "@/domains/providers/locations/service";
import { requireProvider } from "@/domains/providers/record/service";
import { requireOperatory } from "@/domains/scheduling/operatories/service";

// Pieces every scheduling domain of this folder group shares (templates,
// overrides, blockouts, goals, calendars, availability).

/** A time of day on the location's wall clock. */
export const TimeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "Must be a time of day HH:MM (00:00 to 23:59)");

/** The operatory, which must be live (404) and belong to the location (422 operatory_location_mismatch). */
export function* requireOperatoryAt(db: TenantDb, id: string, locationId: string, loc: (string | number)[] = ["body", "operatory_uuid"]) {
  const op = yield* requireOperatory(db, id);
  if (op.location_id !== locationId) throw invalid(loc, "The operatory belongs to another location", "value_error", "operatory_location_mismatch");
  return op;
}

/** A list's provider_uuid and location_uuid filters: 404 for an unknown one (provider first), else a match on its column. */
export function* providerAndLocation(
  db: TenantDb,
  q: { provider_uuid?: string; location_uuid?: string },
  t: { provider_id: SQLiteColumn; location_id: SQLiteColumn },
): Work<(SQL | undefined)[]> {
  if (q.provider_uuid) yield* requireProvider(db, q.provider_uuid);
  if (q.location_uuid) yield* locationRecords.require(db, q.location_uuid);
  return [q.provider_uuid ? eq(t.provider_id, q.provider_uuid) : undefined, q.location_uuid ? eq(t.location_id, q.location_uuid) : undefined];
}

/** A PATCH's operatory_uuid: null clears it; an id must be a live operatory of the record's location. */
export function* operatoryChange(db: TenantDb, id: string | null, locationId: string): Work<string | null> {
  return id === null ? null : (yield* requireOperatoryAt(db, id, locationId)).id;
}

/** 422 invalid_hours unless the hours end after they start ("HH:MM" compare as text). */
export function checkHoursInOrder(v: { start_time: string; end_time: string }) {
  if (v.end_time <= v.start_time) throw invalid(["body", "end_time"], "Must be after start_time", "value_error", "invalid_hours");
}

/** The names a scheduling record's references show, by kind. */
export type PlaceNames = Record<"providers" | "locations" | "operatories", Names>;

/**
 * The provider, location and operatory names of these rows (rows without an
 * operatory name none): one query per kind that has ids.
 */
export function* placeNames(
  db: TenantDb,
  rows: readonly { provider_id: string | null; location_id: string; operatory_id?: string | null }[],
): Work<PlaceNames> {
  return yield* namesOfEach(db, {
    providers: [PROVIDER_NAMES, rows.map((r) => r.provider_id)],
    locations: [LOCATION_NAMES, rows.map((r) => r.location_id)],
    operatories: [OPERATORY_NAMES, rows.map((r) => r.operatory_id)],
  });
}
