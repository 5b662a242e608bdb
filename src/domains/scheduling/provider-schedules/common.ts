import { eq, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { z } from "zod";
import type { Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import type { TenantDb } from "@/platform/records/context";
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
