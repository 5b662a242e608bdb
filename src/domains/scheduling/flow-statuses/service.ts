import { and, eq, isNull, max, ne, type SQL } from "drizzle-orm";
import { flowStatuses } from "@db/tenant/schedule-config";
import { get, type Work } from "@/platform/db/work";
import { Conflict } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { slugOf, type FlowStatus, type FlowStatusArchiveQuery, type FlowStatusCreate, type FlowStatusListQuery, type FlowStatusPatch } from "./schemas";

type FlowStatusRow = typeof flowStatuses.$inferSelect;

export const serializeFlowStatus = (r: FlowStatusRow): FlowStatus => ({
  id: r.id,
  name: r.name,
  slug: r.slug,
  color: r.color,
  is_active: r.is_active,
  item_order: r.item_order,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

const records = defineResource<FlowStatusRow, FlowStatus>({ table: flowStatuses, name: "flow_status", label: "Flow status", serialize: serializeFlowStatus });

/** 409 duplicate when another status that is not archived has this slug. */
function* assertSlugFree(db: TenantDb, slug: string, selfId?: string): Work<void> {
  const conds: SQL[] = [eq(flowStatuses.slug, slug), isNull(flowStatuses.deleted_at)];
  if (selfId) conds.push(ne(flowStatuses.id, selfId));
  const clash = yield* get(
    db
      .select({ id: flowStatuses.id })
      .from(flowStatuses)
      .where(and(...conds))
      .limit(1),
  );
  if (clash) throw new Conflict(`A flow status with the slug "${slug}" already exists`, "duplicate");
}

export async function listFlowStatuses(ctx: OrgContext, q: FlowStatusListQuery) {
  const page = await ctx.db.read((db) =>
    records.list(db, q, {
      where: [q.include_inactive === false ? eq(flowStatuses.is_active, true) : undefined],
      orderBy: [flowStatuses.item_order, flowStatuses.name, flowStatuses.id],
    }),
  );
  return { ...page, items: page.items.map(serializeFlowStatus) };
}

export async function getFlowStatus(ctx: OrgContext, id: string) {
  return serializeFlowStatus(await ctx.db.read((db) => records.require(db, id)));
}

export async function createFlowStatus(ctx: OrgContext, input: FlowStatusCreate) {
  const slug = slugOf(input.name);
  return serializeFlowStatus(
    await withTransaction(ctx, function* (s) {
      yield* assertSlugFree(s.tx, slug);
      let itemOrder = input.item_order;
      if (itemOrder === undefined) {
        const last = yield* get(
          s.tx
            .select({ n: max(flowStatuses.item_order) })
            .from(flowStatuses)
            .where(isNull(flowStatuses.deleted_at)),
        );
        itemOrder = last?.n === null || last?.n === undefined ? 0 : last.n + 1;
      }
      return yield* records.create(s, { name: input.name, slug, color: input.color, is_active: input.is_active ?? true, item_order: itemOrder });
    }),
  );
}

export async function updateFlowStatus(ctx: OrgContext, id: string, input: FlowStatusPatch) {
  const { base_version, ...patch } = input;
  return serializeFlowStatus(
    await withTransaction(ctx, function* (s) {
      const slug = patch.name === undefined ? undefined : slugOf(patch.name);
      if (slug !== undefined) {
        yield* records.require(s.tx, id); // a missing status is 404 before any duplicate check
        yield* assertSlugFree(s.tx, slug, id);
      }
      return yield* records.update(s, id, base_version, slug === undefined ? patch : { ...patch, slug });
    }),
  );
}

export async function archiveFlowStatus(ctx: OrgContext, id: string, q: FlowStatusArchiveQuery) {
  return serializeFlowStatus(await withTransaction(ctx, (s) => records.archive(s, id, q.base_version)));
}
