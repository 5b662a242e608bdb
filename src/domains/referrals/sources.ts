import { and, eq, isNull, ne, sql, type SQL } from "drizzle-orm";
import { referralSources } from "@db/tenant/referrals";
import { get, type Work } from "@/platform/db/work";
import { Conflict } from "@/platform/errors";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { nameSource } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { anyContains } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import type { ArchiveQuery, ReferralSource, ReferralSourceCreate, ReferralSourceListQuery, ReferralSourcePatch } from "./schemas";

export type SourceRow = typeof referralSources.$inferSelect;

export const serializeSource = (r: SourceRow): ReferralSource => ({
  id: r.id,
  name: r.name,
  source_type: r.source_type as ReferralSource["source_type"],
  description: r.description,
  is_active: r.is_active,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

export const sourceRecords = defineResource<SourceRow, ReferralSource>({
  table: referralSources,
  name: "referral_source",
  label: "Referral source",
  serialize: serializeSource,
});

export const SOURCE_NAMES = nameSource(referralSources.id, { name: referralSources.name }, (r) => r.name);

/** Two live sources with one name would split the referral report: 409 duplicate. */
function* assertNameFree(db: TenantDb, name: string, selfId?: string): Work<void> {
  const conds: SQL[] = [sql`lower(${referralSources.name}) = lower(${name})`, isNull(referralSources.deleted_at)];
  if (selfId) conds.push(ne(referralSources.id, selfId));
  const clash = yield* get(
    db
      .select({ id: referralSources.id })
      .from(referralSources)
      .where(and(...conds))
      .limit(1),
  );
  if (clash) throw new Conflict("Another referral source already has this name", "duplicate");
}

export async function listSources(ctx: OrgContext, q: ReferralSourceListQuery) {
  const t = referralSources;
  const page = await ctx.db.read((db) =>
    sourceRecords.list(db, q, {
      where: [
        q.source_type ? eq(t.source_type, q.source_type) : undefined,
        q.is_active === undefined ? undefined : eq(t.is_active, q.is_active),
        q.search ? anyContains([t.name, t.description], q.search) : undefined,
      ],
      orderBy: [t.name, t.id],
    }),
  );
  return { ...page, items: page.items.map(serializeSource) };
}

export function getSource(ctx: OrgContext, id: string) {
  return sourceRecords.read(ctx.db, id);
}

export async function createSource(ctx: OrgContext, input: ReferralSourceCreate) {
  return serializeSource(
    await withTransaction(ctx, function* (s) {
      yield* assertNameFree(s.tx, input.name);
      return yield* sourceRecords.create(s, input, { source_type: input.source_type ?? "other" });
    }),
  );
}

export async function updateSource(ctx: OrgContext, id: string, input: ReferralSourcePatch) {
  const { base_version, ...patch } = input;
  return serializeSource(
    await withTransaction(ctx, function* (s) {
      yield* sourceRecords.requireCurrent(s.tx, id, base_version);
      if (patch.name !== undefined) yield* assertNameFree(s.tx, patch.name, id);
      return yield* sourceRecords.update(s, id, base_version, patch);
    }),
  );
}

export async function archiveSource(ctx: OrgContext, id: string, q: ArchiveQuery) {
  return serializeSource(await withTransaction(ctx, (s) => sourceRecords.archive(s, id, q.base_version)));
}
