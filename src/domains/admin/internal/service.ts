import { asc, eq, ne, sql } from "drizzle-orm";
import { orgs } from "@db/control/schema";
import { all } from "@/platform/db/work";
import type { PlatformRuntime } from "@/platform/runtime";
import type { InternalOrg, InternalOrgListQuery } from "./schemas";

/** Orgs by name, id, slug and status only; `all` is every status but deleted (a deleted org is gone). */
export async function listInternalOrgs(rt: PlatformRuntime, q: InternalOrgListQuery) {
  const rows = await rt.control.read((db) =>
    all<{ id: string; name: string; slug: string; status: string }>(
      db
        .select({ id: orgs.id, name: orgs.name, slug: orgs.slug, status: orgs.status })
        .from(orgs)
        .where(q.status === "all" ? ne(orgs.status, "deleted") : eq(orgs.status, q.status))
        .orderBy(sql`${orgs.name} COLLATE NOCASE`, asc(orgs.id)),
    ),
  );
  const items = rows.map((r) => ({ ...r, status: r.status as InternalOrg["status"] }));
  return { items, total: items.length };
}
