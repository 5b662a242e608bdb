import { containsText } from "@/platform/records/search";
import { locations } from "@db/tenant/practice";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import type { OrgContext } from "@/platform/records/context";
import type { Paging } from "@/platform/records/paging";
import type { Location, LocationCreate, LocationPatch } from "./schemas";
import { eq } from "drizzle-orm";
import { get, type Work } from "@/platform/db/work";
import { todayIn } from "@/platform/time/dates";
import type { TenantDb } from "@/platform/records/context";

type LocationRow = typeof locations.$inferSelect;

export const serializeLocation = (r: LocationRow): Location => ({
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
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

export const locationRecords = defineResource<LocationRow, Location>({
  table: locations,
  name: "location",
  label: "Location",
  serialize: serializeLocation,
  practiceId: (r) => r.id,
});

export async function listLocations(ctx: OrgContext, q: Paging & { search?: string }) {
  const page = await ctx.db.read((db) =>
    locationRecords.list(db, q, { where: [q.search ? containsText(locations.name, q.search) : undefined], orderBy: [locations.name, locations.id] }),
  );
  return { ...page, items: page.items.map(serializeLocation) };
}

export function getLocation(ctx: OrgContext, id: string) {
  return locationRecords.read(ctx.db, id);
}

export async function createLocation(ctx: OrgContext, input: LocationCreate) {
  return serializeLocation(await withTransaction(ctx, (s) => locationRecords.create(s, input)));
}

export async function updateLocation(ctx: OrgContext, id: string, input: LocationPatch) {
  const { base_version, ...patch } = input;
  return serializeLocation(await withTransaction(ctx, (s) => locationRecords.update(s, id, base_version, patch)));
}

export async function archiveLocation(ctx: OrgContext, id: string) {
  return serializeLocation(await withTransaction(ctx, (s) => locationRecords.archive(s, id)));
}

/** Today at a location, in its time zone (UTC without one): the date that work done there is dated by. */
export function* todayAt(db: TenantDb, locationId: string | null | undefined): Work<string> {
  const loc = locationId
    ? yield* get<{ timezone: string }>(db.select({ timezone: locations.timezone }).from(locations).where(eq(locations.id, locationId)))
    : undefined;
  return todayIn(loc?.timezone);
}
