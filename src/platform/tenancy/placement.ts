import { eq, sql } from "drizzle-orm";
import { patients } from "@db/tenant/patients";
import { getPrepared, prepared } from "@/platform/db/work";
import { then, type Maybe } from "@/platform/async/maybe";
import type { OrgContext } from "@/platform/records/context";
import { ANYWHERE, type Where } from "./grants";

// Where a request acts, for members whose key holds only at some locations or
// providers (docs/iam/iam.md, enforcement). Only such requests pay for it.

export type RouteInput = { params: Record<string, string>; query: Record<string, any>; body: any };
/** A route's own answer: the places its request touches (all must be reached). */
export type WhereResolver = (ctx: OrgContext, input: RouteInput) => Maybe<readonly Where[]>;

const patientHome = prepared<{ location_id: string | null }>((db) =>
  db
    .select({ location_id: patients.location_id })
    .from(patients)
    .where(eq(patients.id, sql.placeholder("id")))
    .prepare(),
);

/** A patient's place is their home location; an unknown patient or one without a location is an org-level record. */
export const patientPlace = (ctx: OrgContext, patientId: string): Maybe<Where> =>
  then(
    ctx.db.read((db) => getPrepared(db, patientHome, { id: patientId })),
    (row) => ({ location: row?.location_id ?? null }),
  );

/**
 * The default for routes that declare no resolver: read from the path. A
 * patient's routes act at the patient's home location, a location's at that
 * location, a provider's at that provider; anything else is an org-level record.
 */
export function placeFromPath(ctx: OrgContext, params: Record<string, string>): Maybe<readonly Where[]> {
  const places: Where[] = [];
  const location = params.location_id ?? params.location_uuid;
  const provider = params.provider_uuid ?? params.provider_id;
  if (location) places.push({ location });
  if (provider) places.push({ provider });
  const patient = params.patient_uuid ?? params.patient_id;
  if (patient) return then(patientPlace(ctx, patient), (p) => [...places, p]);
  return places.length ? places : [{}];
}

/**
 * A list narrowed by `location_uuid` and/or `provider_uuid` acts there (a row
 * of it is reached through either); an unnarrowed list acts anywhere, so a
 * member whose key holds only at some places must narrow it.
 */
export const listPlace: WhereResolver = (_ctx, { query }) =>
  query.location_uuid || query.provider_uuid ? [{ location: query.location_uuid ?? null, provider: query.provider_uuid ?? null }] : [ANYWHERE];

/** A record created with `location_uuid` and/or `provider_uuid` in its body acts there. */
export const bodyPlace: WhereResolver = (_ctx, { body }) => [{ location: body?.location_uuid ?? null, provider: body?.provider_uuid ?? null }];
