import { and, eq } from "drizzle-orm";
import { productionGoals } from "@db/tenant/scheduling";
import { get, type Work } from "@/platform/db/work";
import { checkDateRange, withinDates } from "@/platform/records/search";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { ref } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";
import { requireProvider } from "@/domains/providers/record/service";
import { placeNames, providerAndLocation, type PlaceNames } from "@/domains/scheduling/provider-schedules/common";
import type { ProductionGoal, ProductionGoalListQuery, ProductionGoalUpsert } from "./schemas";

type Row = typeof productionGoals.$inferSelect;

/** What the API answer and the audit trail both show after the references. */
const fields = (r: Row) => ({
  goal_date: r.goal_date,
  goal_amount: formatCents(r.goal_cents)!,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

const serialize = (r: Row, n: PlaceNames): ProductionGoal => ({
  id: r.id,
  provider: ref(r.provider_id, n.providers),
  location: ref(r.location_id, n.locations),
  ...fields(r),
});

const auditForm = (r: Row) => ({ id: r.id, provider_uuid: r.provider_id, location_uuid: r.location_id, ...fields(r) });

const records = defineResource<Row, ReturnType<typeof auditForm>>({
  table: productionGoals,
  name: "production_goal",
  label: "Production goal",
  serialize: auditForm,
  practiceId: (r) => r.location_id,
  eventFields: { rename: { goal_cents: "goal_amount" } },
});

function* present(db: TenantDb, rows: Row[]): Work<ProductionGoal[]> {
  const n = yield* placeNames(db, rows);
  return rows.map((r) => serialize(r, n));
}

/** One goal per provider, location and date: created, or its amount replaced (an unchanged amount writes nothing). */
export async function upsertProductionGoal(ctx: OrgContext, input: ProductionGoalUpsert) {
  return withTransaction(ctx, function* (s) {
    const provider = yield* requireProvider(s.tx, input.provider_uuid);
    const location = yield* locationRecords.require(s.tx, input.location_uuid);
    const cents = centsFromNumber(input.goal_amount);
    const current = yield* get<Row>(
      s.tx
        .select()
        .from(productionGoals)
        .where(and(eq(productionGoals.provider_id, provider.id), eq(productionGoals.location_id, location.id), eq(productionGoals.goal_date, input.goal_date))),
    );
    let row: Row;
    if (!current) {
      row = yield* records.create(
        s,
        { provider_id: provider.id, location_id: location.id, goal_date: input.goal_date, goal_cents: cents },
        { provider_id: provider.id, location_id: location.id, goal_date: input.goal_date },
      );
    } else if (current.goal_cents === cents) {
      row = current;
    } else {
      row = yield* records.update(s, current.id, current.version, { goal_cents: cents });
    }
    return (yield* present(s.tx, [row]))[0]!;
  });
}

export async function listProductionGoals(ctx: OrgContext, q: ProductionGoalListQuery) {
  checkDateRange(q);
  return ctx.db.read(function* (db) {
    const t = productionGoals;
    const page = yield* records.list(db, q, {
      where: [...(yield* providerAndLocation(db, q, t)), ...withinDates(t.goal_date, q)],
      orderBy: [t.goal_date, t.id],
    });
    return { ...page, items: yield* present(db, page.items) };
  });
}
