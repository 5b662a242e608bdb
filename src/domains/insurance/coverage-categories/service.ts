import { and, eq, inArray, isNull, max, ne, sql, type SQL } from "drizzle-orm";
import { coverageCategories, coverageSpans, insurancePlans } from "@db/tenant/insurance";
import { all, allPrepared, get, prepared, run, type Work } from "@/platform/db/work";
import { AppError, Conflict, ValidationFailed } from "@/platform/errors";
import { audit } from "@/platform/audit/audit";
import { newId } from "@/platform/ids";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { nameSource } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { anyContains } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import { inMatchOrder } from "./resolve";
import type {
  CoverageCategoriesReordered,
  CoverageCategory,
  CoverageCategoryArchiveQuery,
  CoverageCategoryCreate,
  CoverageCategoryGetQuery,
  CoverageCategoryListQuery,
  CoverageCategoryPatch,
  CoverageCategoryReorder,
  Span,
  SpanCreate,
} from "./schemas";

export type CategoryRow = typeof coverageCategories.$inferSelect;
export type SpanRow = typeof coverageSpans.$inferSelect;

const c = coverageCategories;
const sp = coverageSpans;

export const serializeSpan = (r: SpanRow): Span => ({
  id: r.id,
  from_code: r.from_code,
  to_code: r.to_code,
  is_exclusion: r.is_exclusion,
  item_order: r.item_order,
  created_at: r.created_at,
  updated_at: r.updated_at,
});

/** The category; `spans` only when they were read (include_spans). */
export const serializeCategory = (r: CategoryRow, spans?: readonly SpanRow[]): CoverageCategory => ({
  id: r.id,
  category_name: r.category_name,
  description: r.description,
  is_hidden: r.is_hidden,
  is_system: r.is_system,
  system_key: r.system_key,
  item_order: r.item_order,
  ...(spans ? { spans: spans.map(serializeSpan) } : {}),
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

// Audit snapshots are the category row; each span has its own entry (coverage_span.created).
export const categoryRecords = defineResource<CategoryRow, CoverageCategory>({
  table: coverageCategories,
  name: "coverage_category",
  label: "Coverage category",
  serialize: (r) => serializeCategory(r),
});

/** Coverage categories in references (plan coverage rules, overlapping spans): by category_name. */
export const COVERAGE_CATEGORY_NAMES = nameSource(c.id, { category_name: c.category_name }, (r) => r.category_name);

/** A live category a verb may reference (a plan's coverage rule): 404 when missing or archived. Hidden ones are valid. */
export function requireCategory(db: TenantDb, id: string): Work<CategoryRow> {
  return categoryRecords.require(db, id);
}

const spanOrder = [sp.item_order, sp.from_code, sp.id];

/** The spans of these categories, each list in span order. */
export function* spansOf(db: TenantDb, categoryIds: readonly string[]): Work<Map<string, SpanRow[]>> {
  const out = new Map<string, SpanRow[]>(categoryIds.map((id) => [id, []]));
  if (!categoryIds.length) return out;
  const rows = yield* all(
    db
      .select()
      .from(sp)
      .where(inArray(sp.category_id, [...categoryIds]))
      .orderBy(...spanOrder),
  );
  for (const r of rows) out.get(r.category_id)?.push(r);
  return out;
}

export type CategoryWithSpans = CategoryRow & { spans: SpanRow[] };

/**
 * Every live category (hidden ones too) with its spans, in matching order: what
 * the estimate engine hands to coverageCategoryFor (./resolve.ts).
 */
export function* loadCoverageCategories(db: TenantDb): Work<CategoryWithSpans[]> {
  const rows = yield* allPrepared(db, liveCategories, {});
  const spans = new Map<string, SpanRow[]>();
  for (const r of yield* allPrepared(db, liveCategorySpans, {})) {
    const list = spans.get(r.category_id);
    if (list) list.push(r);
    else spans.set(r.category_id, [r]);
  }
  return inMatchOrder(rows.map((r) => ({ ...r, spans: spans.get(r.id) ?? [] })));
}
// (read on every estimate: prepared once per connection)
const liveCategories = prepared<CategoryRow>((db) => db.select().from(c).where(isNull(c.deleted_at)).prepare());
const liveCategorySpans = prepared<SpanRow>((db) =>
  db
    .select()
    .from(sp)
    .where(sql`${sp.category_id} IN (SELECT ${c.id} FROM ${c} WHERE ${c.deleted_at} IS NULL)`)
    .orderBy(...spanOrder)
    .prepare(),
);

const listOrder = [c.item_order, sql`${c.category_name} COLLATE NOCASE`, c.id];

export async function listCategories(ctx: OrgContext, q: CoverageCategoryListQuery) {
  return ctx.db.read(function* (db) {
    const page = yield* categoryRecords.list(db, q, {
      where: [q.include_hidden ? undefined : eq(c.is_hidden, false), q.search ? anyContains([c.category_name, c.description], q.search) : undefined],
      orderBy: listOrder,
    });
    const spans = q.include_spans
      ? yield* spansOf(
          db,
          page.items.map((r) => r.id),
        )
      : null;
    return { ...page, items: page.items.map((r) => serializeCategory(r, spans?.get(r.id))) };
  });
}

function* withSpans(db: TenantDb, row: CategoryRow): Work<CoverageCategory> {
  return serializeCategory(row, (yield* spansOf(db, [row.id])).get(row.id));
}

export async function getCategory(ctx: OrgContext, id: string, q: CoverageCategoryGetQuery) {
  return ctx.db.read(function* (db) {
    const row = yield* categoryRecords.require(db, id);
    return q.include_spans ? yield* withSpans(db, row) : serializeCategory(row);
  });
}

/** Two live categories with one name would make plan coverage tables ambiguous: 409 duplicate. */
function* assertNameFree(db: TenantDb, name: string, selfId?: string): Work<void> {
  const conds: SQL[] = [sql`lower(${c.category_name}) = lower(${name})`, isNull(c.deleted_at)];
  if (selfId) conds.push(ne(c.id, selfId));
  const clash = yield* get(
    db
      .select({ id: c.id })
      .from(c)
      .where(and(...conds))
      .limit(1),
  );
  if (clash) throw new Conflict("Another coverage category already has this name", "duplicate");
}

/** from_code defaults to to_code; it must not come after it (422 invalid_range at `loc`). */
export function spanRange(input: SpanCreate, loc: (string | number)[]): { from_code: string; to_code: string } {
  const from_code = input.from_code ?? input.to_code;
  if (from_code > input.to_code)
    throw new ValidationFailed(
      [{ loc: [...loc, "from_code"], msg: `from_code ${from_code} comes after to_code ${input.to_code}`, type: "value_error" }],
      "invalid_range",
    );
  return { from_code, to_code: input.to_code };
}

export function* nextSpanOrder(db: TenantDb, categoryId: string): Work<number> {
  const row = yield* get(
    db
      .select({ n: max(sp.item_order) })
      .from(sp)
      .where(eq(sp.category_id, categoryId)),
  );
  return row?.n === null || row?.n === undefined ? 0 : row.n + 1;
}

/** Insert a span with its own audit entry (spans have no version of their own: the category's carries them). */
export function* insertSpan(
  s: TxScope,
  categoryId: string,
  span: { from_code: string; to_code: string; is_exclusion: boolean; item_order: number },
): Work<SpanRow> {
  const row: SpanRow = { id: newId(), category_id: categoryId, ...span, created_at: s.now, updated_at: s.now };
  yield* run(s.tx.insert(sp).values(row));
  yield* audit(s, {
    action: "coverage_span.created",
    resource_type: "coverage_span",
    resource_id: row.id,
    before: null,
    after: { ...serializeSpan(row), category_id: categoryId },
  });
  return row;
}

export async function createCategory(ctx: OrgContext, input: CoverageCategoryCreate) {
  const spans = (input.spans ?? []).map((span, i) => ({ ...span, ...spanRange(span, ["body", "spans", i]) }));
  return withTransaction(ctx, function* (s) {
    yield* assertNameFree(s.tx, input.category_name);
    const last = yield* get(
      s.tx
        .select({ n: max(c.item_order) })
        .from(c)
        .where(isNull(c.deleted_at)),
    );
    const row = yield* categoryRecords.create(
      s,
      {
        category_name: input.category_name,
        description: input.description ?? null,
        is_hidden: input.is_hidden ?? false,
        is_system: false,
        system_key: null,
        item_order: input.item_order ?? (last?.n ?? 0) + 10,
      },
      { span_count: spans.length },
    );
    const rows: SpanRow[] = [];
    for (const [i, span] of spans.entries()) {
      rows.push(
        yield* insertSpan(s, row.id, {
          from_code: span.from_code,
          to_code: span.to_code,
          is_exclusion: span.is_exclusion ?? false,
          item_order: span.item_order ?? i,
        }),
      );
    }
    return serializeCategory(
      row,
      rows.sort((a, b) => a.item_order - b.item_order || a.from_code.localeCompare(b.from_code) || a.id.localeCompare(b.id)),
    );
  });
}

export async function updateCategory(ctx: OrgContext, id: string, input: CoverageCategoryPatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    // stale first: a rule is never judged against a record the client has not seen
    const current = yield* categoryRecords.requireCurrent(s.tx, id, base_version);
    if (patch.category_name !== undefined && patch.category_name.toLowerCase() !== current.category_name.toLowerCase())
      yield* assertNameFree(s.tx, patch.category_name, id);
    return yield* withSpans(s.tx, yield* categoryRecords.update(s, id, base_version, patch));
  });
}

const archiveRule = (msg: string, code: string) => new ValidationFailed([{ loc: ["path", "category_uuid"], msg, type: "value_error" }], code);

/** A live plan names the category in its coverage table, deductible categories or waiting periods. */
function* usedByPlan(db: TenantDb, id: string): Work<boolean> {
  const p = insurancePlans;
  const hit = yield* get(
    db
      .select({ id: p.id })
      .from(p)
      .where(
        and(
          isNull(p.deleted_at),
          sql`(EXISTS (SELECT 1 FROM json_each(${p.coverage}) WHERE json_extract(value, '$.category_id') = ${id})
            OR EXISTS (SELECT 1 FROM json_each(${p.deductible_category_ids}) WHERE value = ${id})
            OR EXISTS (SELECT 1 FROM json_each(${p.waiting_periods}) WHERE json_extract(value, '$.category_id') = ${id}))`,
        ),
      )
      .limit(1),
  );
  return !!hit;
}

/** Soft delete. System categories (422 system_category) and categories a live plan uses (422 category_in_use) are refused. */
export async function archiveCategory(ctx: OrgContext, id: string, q: CoverageCategoryArchiveQuery) {
  return withTransaction(ctx, function* (s) {
    const current = yield* categoryRecords.requireCurrent(s.tx, id, q.base_version);
    if (current.is_system) throw archiveRule("System coverage categories cannot be archived; hide it instead", "system_category");
    if (yield* usedByPlan(s.tx, id)) throw archiveRule("An insurance plan uses this category; change the plan first, or hide the category", "category_in_use");
    return yield* withSpans(s.tx, yield* categoryRecords.archive(s, id, q.base_version));
  });
}

/**
 * Give the named categories their new item_order; the others keep theirs.
 * Every one must exist and be live, else 404 naming the missing ids and
 * nothing changes. Categories whose order changes get a new version.
 */
export async function reorderCategories(ctx: OrgContext, input: CoverageCategoryReorder): Promise<CoverageCategoriesReordered> {
  const ids = input.items.map((i) => i.category_uuid);
  const rows = await withTransaction(ctx, function* (s) {
    const live = yield* all(
      s.tx
        .select()
        .from(c)
        .where(and(inArray(c.id, ids), isNull(c.deleted_at))),
    );
    const byId = new Map(live.map((r) => [r.id, r]));
    const missing = ids.filter((i) => !byId.has(i));
    if (missing.length) {
      const named = missing.length > 20 ? `${missing.slice(0, 20).join(", ")} and ${missing.length - 20} more` : missing.join(", ");
      throw new AppError(404, "not_found", `Coverage category not found: ${named}; no category was reordered`);
    }
    const out: CategoryRow[] = [];
    for (const { category_uuid, item_order } of input.items) {
      const row = byId.get(category_uuid)!;
      out.push(row.item_order === item_order ? row : yield* categoryRecords.update(s, category_uuid, undefined, { item_order }, { action: "reordered" }));
    }
    return out;
  });
  return { detail: "reordered", items: rows.map((r) => serializeCategory(r)) };
}
