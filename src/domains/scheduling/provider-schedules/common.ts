import { inArray } from "drizzle-orm";
import { z } from "zod";
import { locations, operatories, providers } from "@db/tenant/schema";
import { definitions } from "@db/tenant/definitions";
import { all, type Work } from "@/platform/db/work";
import { invalid } from "@/platform/errors";
import type { TenantDb } from "@/platform/records/context";
import { requireOperatory } from "@/domains/scheduling/operatories/service";

// Pieces every scheduling domain of this folder group shares (templates,
// overrides, blockouts, goals, calendars, availability).

/** A time of day on the location's wall clock. */
export const TimeOfDay = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, "Must be a time of day HH:MM (00:00 to 23:59)");

/** The operatory, which must be live (404) and belong to the location (422 operatory_location_mismatch). */
export function* requireOperatoryAt(db: TenantDb, id: string, locationId: string, loc: (string | number)[] = ["body", "operatory_uuid"]) {
  const op = yield* requireOperatory(db, id.toLowerCase());
  if (op.location_id !== locationId) throw invalid(loc, "The operatory belongs to another location", "value_error", "operatory_location_mismatch");
  return op;
}

export type Names = { providers: Map<string, string>; locations: Map<string, string>; operatories: Map<string, string>; definitions: Map<string, string> };
type Wanted = { providers?: (string | null)[]; locations?: (string | null)[]; operatories?: (string | null)[]; definitions?: (string | null)[] };

const ids = (v?: (string | null)[]) => [...new Set((v ?? []).filter((x): x is string => !!x))];

/**
 * Names for references, archived records included (a link keeps its name):
 * providers "First Last", locations and operatories by name, definitions by item_name.
 */
export function* namesOf(db: TenantDb, want: Wanted): Work<Names> {
  const out: Names = { providers: new Map(), locations: new Map(), operatories: new Map(), definitions: new Map() };
  const p = ids(want.providers), l = ids(want.locations), o = ids(want.operatories), d = ids(want.definitions);
  if (p.length) for (const r of yield* all(db.select({ id: providers.id, f: providers.first_name, l: providers.last_name }).from(providers).where(inArray(providers.id, p)))) out.providers.set(r.id, `${r.f} ${r.l}`);
  if (l.length) for (const r of yield* all(db.select({ id: locations.id, n: locations.name }).from(locations).where(inArray(locations.id, l)))) out.locations.set(r.id, r.n);
  if (o.length) for (const r of yield* all(db.select({ id: operatories.id, n: operatories.name }).from(operatories).where(inArray(operatories.id, o)))) out.operatories.set(r.id, r.n);
  if (d.length) for (const r of yield* all(db.select({ id: definitions.id, n: definitions.item_name }).from(definitions).where(inArray(definitions.id, d)))) out.definitions.set(r.id, r.n);
  return out;
}

/** `{uuid, name}`, or null without an id. */
export function ref(id: string, names: Map<string, string>): { uuid: string; name: string | null };
export function ref(id: string | null, names: Map<string, string>): { uuid: string; name: string | null } | null;
export function ref(id: string | null, names: Map<string, string>) {
  return id ? { uuid: id, name: names.get(id) ?? null } : null;
}

// Columns whose API name differs: events name fields as the API does.
const API_FIELD: Record<string, string | null> = { start_utc: null, end_utc: null, goal_cents: "goal_amount", blockout_type_id: "blockout_type" };

/** Rename the changed_fields of the event just queued (`operatory_id` -> `operatory`; UTC copies travel with start/end). */
export function apiChangedFields(s: { after: { events: { data?: Record<string, unknown> }[] } }) {
  const data = s.after.events.at(-1)?.data as { changed_fields?: string[] } | undefined;
  if (!data?.changed_fields) return;
  const rename = (f: string) => (f in API_FIELD ? API_FIELD[f]! : f.endsWith("_id") ? f.slice(0, -3) : f);
  data.changed_fields = [...new Set(data.changed_fields.map(rename).filter(Boolean))];
}
