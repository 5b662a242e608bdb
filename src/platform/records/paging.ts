import { z } from "zod";
import { all, get, type Work } from "@/platform/db/work";

/** `page` (1-based) and `page_size` with a per-list default and maximum (CONTRACT.md). */
export function pagingQuery(defaultSize = 50, maxSize = 200) {
  return {
    page: z.coerce.number().int().min(1).default(1).describe("1-based page number"),
    page_size: z.coerce.number().int().min(1).max(maxSize).default(defaultSize).describe(`Items per page (default ${defaultSize}, at most ${maxSize})`),
  };
}

export type Paging = { page: number; page_size: number };
export type Page<T> = { items: T[]; page: number; page_size: number; total: number };

export const offsetOf = (p: Paging) => (p.page - 1) * p.page_size;

export function pageOf<T>(items: T[], total: number, p: Paging): Page<T> {
  return { items, page: p.page, page_size: p.page_size, total };
}

type CountQuery = { get: (...a: never[]) => { n: number } | undefined | Promise<{ n: number } | undefined> };
type RowsLimit = { limit(n: number): { offset(n: number): unknown } };
type RowsQuery<R> = { limit(n: number): { offset(n: number): { all: (...a: never[]) => R[] | Promise<R[]> } } };

/**
 * One page of a query: `total` from `count` (a select of `{ n: count() }` over
 * the same rows), the items from `rows` (filtered and ordered, not yet limited)
 * with the page's limit and offset applied.
 */
export function* pageFrom<R>(paging: Paging, count: CountQuery, rows: RowsQuery<R>): Work<Page<R>> {
  const total = yield* get(count);
  const items = yield* all<R>(rows.limit(paging.page_size).offset(offsetOf(paging)));
  return pageOf(items, total?.n ?? 0, paging);
}

/** The page's limit and offset on a query that selects the page before its rows are joined to more (used as a subquery). */
export function limitToPage<Q extends RowsLimit>(rows: Q, paging: Paging): ReturnType<ReturnType<Q["limit"]>["offset"]> {
  return rows.limit(paging.page_size).offset(offsetOf(paging)) as ReturnType<ReturnType<Q["limit"]>["offset"]>;
}

/** `pageFrom` for lists that spec.md pages by `limit` and `offset` (IAM assignments): items and total. */
export function* rangeFrom<R>(range: { limit: number; offset: number }, count: CountQuery, rows: RowsQuery<R>): Work<{ items: R[]; total: number }> {
  const total = yield* get(count);
  const items = yield* all<R>(rows.limit(range.limit).offset(range.offset));
  return { items, total: total?.n ?? 0 };
}

/** One page of a list already in memory (small lists ordered by a rule SQL cannot express). */
export function pageOfList<T>(items: readonly T[], p: Paging): Page<T> {
  const from = offsetOf(p);
  return pageOf(items.slice(from, from + p.page_size), items.length, p);
}

/** The response schema of a paged list. */
export function PageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), page: z.number().int(), page_size: z.number().int(), total: z.number().int() });
}
