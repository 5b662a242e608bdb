import { and, count, eq, gte, isNull, lte, ne } from "drizzle-orm";
import { coverageCategories, coverageSpans } from "@db/tenant/insurance";
import { all, type Work } from "@/platform/db/work";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { pageFrom } from "@/platform/records/paging";
import { namesOf, ref } from "@/platform/records/refs";
import { withTransaction } from "@/platform/records/transaction";
import { categoryRecords, COVERAGE_CATEGORY_NAMES, insertSpan, nextSpanOrder, serializeSpan, spanRange, type SpanRow } from "./service";
import type { OverlappingSpan, SpanCreate, SpanCreated, SpanListQuery } from "./schemas";

const c = coverageCategories;
const sp = coverageSpans;

export async function listSpans(ctx: OrgContext, categoryId: string, q: SpanListQuery) {
  return ctx.db.read(function* (db) {
    yield* categoryRecords.require(db, categoryId);
    const where = eq(sp.category_id, categoryId);
    const page = yield* pageFrom(
      q,
      db.select({ n: count() }).from(sp).where(where),
      db.select().from(sp).where(where).orderBy(sp.item_order, sp.from_code, sp.id),
    );
    return { ...page, items: page.items.map(serializeSpan) };
  });
}

/** Spans of live categories (this one included) sharing at least one code with from..to, except `exceptId`. */
function* overlapping(db: TenantDb, range: { from_code: string; to_code: string }, exceptId: string): Work<OverlappingSpan[]> {
  const rows = yield* all(
    db
      .select({ span: sp, category_order: c.item_order })
      .from(sp)
      .innerJoin(c, eq(c.id, sp.category_id))
      .where(and(isNull(c.deleted_at), ne(sp.id, exceptId), lte(sp.from_code, range.to_code), gte(sp.to_code, range.from_code)))
      .orderBy(c.item_order, c.id, sp.item_order, sp.from_code, sp.id),
  );
  const names = yield* namesOf(
    db,
    COVERAGE_CATEGORY_NAMES,
    rows.map((r) => r.span.category_id),
  );
  return rows.map((r: { span: SpanRow }) => ({ ...serializeSpan(r.span), category: ref(r.span.category_id, names) }));
}

/**
 * Add a span to a live category. Overlaps with other spans are answered as a
 * warning (`overlapping_spans`), never refused: carve-outs and deliberate
 * double listings are the office's call. The category gets a new version.
 */
export async function addSpan(ctx: OrgContext, categoryId: string, input: SpanCreate): Promise<SpanCreated> {
  const range = spanRange(input, ["body"]);
  return withTransaction(ctx, function* (s) {
    yield* categoryRecords.require(s.tx, categoryId);
    const span = yield* insertSpan(s, categoryId, {
      ...range,
      is_exclusion: input.is_exclusion ?? false,
      item_order: input.item_order ?? (yield* nextSpanOrder(s.tx, categoryId)),
    });
    yield* categoryRecords.update(
      s,
      categoryId,
      undefined,
      {},
      { action: "span_added", eventData: { span_id: span.id, is_exclusion: span.is_exclusion, changed_fields: ["spans"] } },
    );
    return { overlapping_spans: yield* overlapping(s.tx, range, span.id), span: serializeSpan(span) };
  });
}
