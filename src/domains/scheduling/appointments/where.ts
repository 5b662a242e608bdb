import { eq, sql } from "drizzle-orm";
import { appointments } from "@db/tenant/appointments";
import { getPrepared, prepared } from "@/platform/db/work";
import { then } from "@/platform/async/maybe";
import type { WhereResolver } from "@/platform/tenancy/placement";

// Where an appointment request acts, for members whose key holds only at some
// locations or providers (docs/iam/iam.md): the appointment's location and provider.

const placeById = prepared<{ location_id: string; provider_id: string }>((db) =>
  db
    .select({ location_id: appointments.location_id, provider_id: appointments.provider_id })
    .from(appointments)
    .where(eq(appointments.id, sql.placeholder("id")))
    .prepare(),
);

/** An existing appointment (an unknown one answers its own 404); a PATCH that changes the provider also acts at the new one. */
export const appointmentPlace: WhereResolver = (ctx, { params, body }) =>
  then(
    ctx.db.read((db) => getPrepared(db, placeById, { id: params.appointment_id })),
    (row) => {
      if (!row) return [];
      const here = { location: row.location_id, provider: row.provider_id };
      return body?.provider_uuid && body.provider_uuid !== row.provider_id ? [here, { location: row.location_id, provider: body.provider_uuid }] : [here];
    },
  );
