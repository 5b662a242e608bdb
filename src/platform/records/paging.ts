import { z } from "zod";

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

/** The response schema of a paged list. */
export function PageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), page: z.number().int(), page_size: z.number().int(), total: z.number().int() });
}
