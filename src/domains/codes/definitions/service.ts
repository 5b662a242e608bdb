import { and, eq, isNull, max } from "drizzle-orm";
import { definitions } from "@db/tenant/definitions";
import { all, get, type Work } from "@/platform/db/work";
import { invalid, NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { DateOnly } from "@/platform/records/fields";
import { defineResource } from "@/platform/records/resource";
import { anyContains } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { HOLIDAYS, type DefinitionCategory } from "@db/tenant/definitions";
import type { Definition, DefinitionCreate, DefinitionListQuery, DefinitionPatch, DefinitionReorder } from "./schemas";

type DefinitionRow = typeof definitions.$inferSelect;

export const serializeDefinition = (r: DefinitionRow): Definition => ({
  id: r.id,
  category: r.category as DefinitionCategory,
  item_name: r.item_name,
  item_value: r.item_value ?? "",
  item_order: r.item_order,
  item_color: r.item_color,
  is_hidden: r.is_hidden,
  metadata: r.metadata ?? null,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

export const definitionRecords = defineResource<DefinitionRow, Definition>({
  table: definitions,
  name: "definition",
  label: "Definition",
  serialize: serializeDefinition,
});

/** A holiday's item_value is the closed date (the calendar reads it as YYYY-MM-DD). */
function checkItemValue(category: string, value: string | undefined, creating: boolean) {
  if (category !== HOLIDAYS) return;
  if (value === undefined) {
    if (creating) throw invalid(["body", "item_value"], "Field required: a holiday's date, YYYY-MM-DD", "missing", "holiday_date_required");
    return;
  }
  if (!DateOnly.safeParse(value).success)
    throw invalid(["body", "item_value"], "A holiday's item_value must be a date, YYYY-MM-DD", "format", "holiday_date_invalid");
}

const liveIn = (category: string) => and(eq(definitions.category, category), isNull(definitions.deleted_at));

/** A live item of `category` (for other domains: a payment's type, an adjustment's); 404 `label` otherwise. */
export function* requireDefinitionOf(db: TenantDb, id: string, category: DefinitionCategory, label: string): Work<DefinitionRow> {
  const row = yield* get<DefinitionRow>(
    db
      .select()
      .from(definitions)
      .where(and(eq(definitions.id, id), liveIn(category))),
  );
  if (!row) throw new NotFound(label);
  return row;
}

/** After the last active item of the category. */
function* nextOrder(tx: TenantDb, category: string): Work<number> {
  const row = yield* get(
    tx
      .select({ n: max(definitions.item_order) })
      .from(definitions)
      .where(liveIn(category)),
  );
  return row?.n === null || row?.n === undefined ? 0 : row.n + 1;
}

export async function listDefinitions(ctx: OrgContext, q: DefinitionListQuery) {
  const page = await ctx.db.read((db) =>
    definitionRecords.list(db, q, {
      where: [
        eq(definitions.category, q.category),
        q.is_hidden === undefined ? undefined : eq(definitions.is_hidden, q.is_hidden),
        q.search ? anyContains([definitions.item_name, definitions.item_value], q.search) : undefined,
      ],
      orderBy: [definitions.item_order, definitions.id],
    }),
  );
  return { ...page, items: page.items.map(serializeDefinition) };
}

export function getDefinition(ctx: OrgContext, id: string) {
  return definitionRecords.read(ctx.db, id);
}

export async function createDefinition(ctx: OrgContext, input: DefinitionCreate) {
  checkItemValue(input.category, input.item_value, true);
  return serializeDefinition(
    await withTransaction(ctx, function* (s) {
      return yield* definitionRecords.create(
        s,
        {
          category: input.category,
          item_name: input.item_name,
          item_value: input.item_value ?? "",
          item_order: input.item_order ?? (yield* nextOrder(s.tx, input.category)),
          item_color: input.item_color ?? null,
          is_hidden: input.is_hidden ?? false,
          metadata: input.metadata ?? null,
        },
        { category: input.category },
      );
    }),
  );
}

export async function updateDefinition(ctx: OrgContext, id: string, input: DefinitionPatch) {
  const { base_version, ...patch } = input;
  return serializeDefinition(
    await withTransaction(ctx, function* (s) {
      const row = yield* definitionRecords.require(s.tx, id);
      checkItemValue(row.category, patch.item_value, false);
      return yield* definitionRecords.update(s, id, base_version, patch);
    }),
  );
}

export async function archiveDefinition(ctx: OrgContext, id: string) {
  return serializeDefinition(await withTransaction(ctx, (s) => definitionRecords.archive(s, id)));
}

/**
 * Give the category's active items item_order 0..n-1 in the listed order. The
 * list must name each active item exactly once, so a reorder built from a stale
 * read (an item added or archived meanwhile) is refused instead of half-applied.
 */
export async function reorderDefinitions(ctx: OrgContext, input: DefinitionReorder) {
  const rows = await withTransaction(ctx, function* (s) {
    const live = yield* all(s.tx.select().from(definitions).where(liveIn(input.category)));
    const byId = new Map(live.map((r) => [r.id, r]));
    const wanted = input.definition_uuids;
    if (wanted.length !== live.length || wanted.some((i) => !byId.has(i))) {
      throw invalid(
        ["body", "definition_uuids"],
        `Must list each of the category's ${live.length} active items exactly once`,
        "value_error",
        "reorder_mismatch",
      );
    }
    const out: DefinitionRow[] = [];
    for (const [order, id] of wanted.entries()) {
      const row = byId.get(id)!;
      out.push(row.item_order === order ? row : yield* definitionRecords.update(s, id, undefined, { item_order: order }, { action: "reordered" }));
    }
    return out;
  });
  return { category: input.category, items: rows.map(serializeDefinition) };
}
