import { and, count, eq, or, sql, type SQL } from "drizzle-orm";
import { icdCodes } from "@db/tenant/codes";
import { get } from "@/platform/db/work";
import { NotFound } from "@/platform/errors";
import type { OrgContext } from "@/platform/records/context";
import { pageFrom } from "@/platform/records/paging";
import { containsText, startsWithText } from "@/platform/records/search";
import type { IcdCode, IcdCodeListQuery } from "./schemas";

// A read-only catalogue seeded into every org (db/seeds/icd-codes.ts): no
// versions, no writes through the API, so no defineResource.

type IcdRow = typeof icdCodes.$inferSelect;
const serialize = (r: IcdRow): IcdCode => ({
  id: r.id,
  code: r.code,
  description: r.description,
  category: r.category as IcdCode["category"],
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export async function listIcdCodes(ctx: OrgContext, q: IcdCodeListQuery) {
  const conds: (SQL | undefined)[] = [q.category ? eq(icdCodes.category, q.category) : undefined];
  if (q.search) {
    const bare = q.search.replace(/\./g, "");
    conds.push(or(bare ? startsWithText(sql`replace(${icdCodes.code}, '.', '')`, bare) : undefined, containsText(icdCodes.description, q.search)));
  }
  const where = and(...conds);
  const page = await ctx.db.read((db) =>
    pageFrom(q, db.select({ n: count() }).from(icdCodes).where(where), db.select().from(icdCodes).where(where).orderBy(icdCodes.code)),
  );
  return { ...page, items: page.items.map(serialize) };
}

export async function getIcdCode(ctx: OrgContext, id: string) {
  const row = await ctx.db.read((db) => get(db.select().from(icdCodes).where(eq(icdCodes.id, id))));
  if (!row) throw new NotFound("ICD code");
  return serialize(row);
}
