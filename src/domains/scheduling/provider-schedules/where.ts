import { eq, sql } from "drizzle-orm";
import { providerSchedules } from "@db/tenant/scheduling";
import { getPrepared, prepared } from "@/platform/db/work";
import { then } from "@/platform/async/maybe";
import type { WhereResolver } from "@/platform/tenancy/placement";

// Where a provider-schedule request acts (docs/iam/iam.md): the template's location and provider.

const placeById = prepared<{ location_id: string; provider_id: string }>((db) =>
  db
    .select({ location_id: providerSchedules.location_id, provider_id: providerSchedules.provider_id })
    .from(providerSchedules)
    .where(eq(providerSchedules.id, sql.placeholder("id")))
    .prepare(),
);

export const providerSchedulePlace: WhereResolver = (ctx, { params }) =>
  then(
    ctx.db.read((db) => getPrepared(db, placeById, { id: params.schedule_uuid })),
    (row) => (row ? [{ location: row.location_id, provider: row.provider_id }] : []),
  );
