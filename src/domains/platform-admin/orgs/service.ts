import { and, asc, count, eq, isNull, ne, sql } from "drizzle-orm";
import { orgs, shards } from "@db/control/schema";
import { pageFrom } from "@/platform/records/paging";
import { anyContains } from "@/platform/records/search";
import type { PlatformRuntime } from "@/platform/runtime";
import { serializeOrg } from "@/domains/admin/service";
import type { PlatformOrgListQuery } from "./schemas";

type Row = { org: typeof orgs.$inferSelect; shard: typeof shards.$inferSelect };

/** Organizations that are not archived, by name; the same Organization record as the admin API. */
export async function listPlatformOrgs(rt: PlatformRuntime, q: PlatformOrgListQuery) {
  const page = await rt.control.read((db) => {
    const where = and(
      isNull(orgs.deleted_at),
      ne(orgs.status, "archived"),
      q.status ? eq(orgs.status, q.status) : undefined,
      q.search ? anyContains([orgs.name, orgs.slug], q.search) : undefined,
    );
    return pageFrom<Row>(
      q,
      db.select({ n: count() }).from(orgs).where(where),
      db
        .select({ org: orgs, shard: shards })
        .from(orgs)
        .innerJoin(shards, eq(shards.id, orgs.shard_id))
        .where(where)
        .orderBy(sql`${orgs.name} COLLATE NOCASE`, asc(orgs.id)),
    );
  });
  return { ...page, items: page.items.map((r) => serializeOrg(r.org, r.shard)) };
}
