import { and, countDistinct, eq, isNull, sql, type SQL } from "drizzle-orm";
import { insuranceCarriers, insurancePlans, insuranceSubscriptions } from "@db/tenant/insurance";
import { all, type Work } from "@/platform/db/work";
import { ValidationFailed } from "@/platform/errors";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { nameSource } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { anyContains } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import type { Carrier, CarrierArchiveQuery, CarrierCreate, CarrierListQuery, CarrierPatch, CarrierStats } from "./schemas";

export type CarrierRow = typeof insuranceCarriers.$inferSelect;

export const serializeCarrier = (r: CarrierRow): Carrier => ({
  id: r.id,
  carrier_name: r.carrier_name,
  carrier_group_name: r.carrier_group_name,
  address_line1: r.address_line1,
  address_line2: r.address_line2,
  city: r.city,
  state: r.state,
  zip_code: r.zip_code,
  phone: r.phone,
  notes: r.notes,
  electronic_id: r.electronic_id,
  electronic_filing_type: r.electronic_filing_type as Carrier["electronic_filing_type"],
  era_automation_override: r.era_automation_override as Carrier["era_automation_override"],
  cob_insurance_paid_behavior_override: r.cob_insurance_paid_behavior_override as Carrier["cob_insurance_paid_behavior_override"],
  trust_level: r.trust_level as Carrier["trust_level"],
  is_hidden: r.is_hidden,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

export const carrierRecords = defineResource<CarrierRow, Carrier>({
  table: insuranceCarriers,
  name: "insurance_carrier",
  label: "Insurance carrier",
  serialize: serializeCarrier,
});

/** Carriers in references (plans, estimate books, drafts): by carrier_name; archived carriers keep theirs. */
export const CARRIER_NAMES = nameSource(insuranceCarriers.id, { carrier_name: insuranceCarriers.carrier_name }, (r) => r.carrier_name);

const t = insuranceCarriers;

// Text sorts ignore case; trust_level sorts by rank (untrusted < standard < trusted), not by the alphabet.
const SORT_KEYS: Record<CarrierListQuery["sort_by"], SQL> = {
  carrier_name: sql`${t.carrier_name} COLLATE NOCASE`,
  electronic_id: sql`${t.electronic_id} COLLATE NOCASE`,
  carrier_group_name: sql`${t.carrier_group_name} COLLATE NOCASE`,
  trust_level: sql`CASE ${t.trust_level} WHEN 'untrusted' THEN 0 WHEN 'standard' THEN 1 ELSE 2 END`,
  created_at: sql`${t.created_at}`,
};

/** The sort key in the asked direction with empty values last either way, then name and id so pages never shuffle (created_at: then id, creation order). */
function carrierOrder(q: Pick<CarrierListQuery, "sort_by" | "sort_order">): SQL[] {
  const dir = sql.raw(q.sort_order === "desc" ? "DESC" : "ASC");
  // records made in the same millisecond: their time-ordered ids keep creation order
  if (q.sort_by === "created_at") return [sql`${t.created_at} ${dir}`, sql`${t.id} ${dir}`];
  return [sql`${SORT_KEYS[q.sort_by]} ${dir} NULLS LAST`, sql`${t.carrier_name} COLLATE NOCASE`, sql`${t.id}`];
}

export async function listCarriers(ctx: OrgContext, q: CarrierListQuery) {
  const page = await ctx.db.read((db) =>
    carrierRecords.list(db, q, {
      where: [
        q.include_hidden ? undefined : eq(t.is_hidden, false),
        q.carrier_group_name ? sql`lower(${t.carrier_group_name}) = lower(${q.carrier_group_name})` : undefined,
        q.search ? anyContains([t.carrier_name, t.electronic_id, t.carrier_group_name], q.search) : undefined,
      ],
      orderBy: carrierOrder(q),
    }),
  );
  return { ...page, items: page.items.map(serializeCarrier) };
}

/** Archived carriers stay readable by id: plans, claims and drafts that name them keep a readable link. */
export async function getCarrier(ctx: OrgContext, id: string) {
  return serializeCarrier(await ctx.db.read((db) => carrierRecords.require(db, id, true)));
}

/**
 * A carrier a verb may reference (a plan, an estimate book): 404 when missing
 * or archived. Hidden carriers are still valid.
 */
export function requireCarrier(db: TenantDb, id: string): Work<CarrierRow> {
  return carrierRecords.require(db, id);
}

const DEFAULTS = { electronic_filing_type: "send_electronically", trust_level: "standard", is_hidden: false } as const;

export async function createCarrier(ctx: OrgContext, input: CarrierCreate) {
  const values = { ...DEFAULTS, ...input };
  return serializeCarrier(
    await withTransaction(ctx, (s) =>
      carrierRecords.create(s, values, { electronic_filing_type: values.electronic_filing_type, trust_level: values.trust_level }),
    ),
  );
}

const archivedRule = () =>
  new ValidationFailed(
    [{ loc: ["path", "carrier_uuid"], msg: "The carrier is archived; it can be read but not changed", type: "value_error" }],
    "carrier_archived",
  );

/** The carrier a write applies to: 404 when missing, 409 when stale, then 422 carrier_archived when archived. */
function* writable(s: TxScope, id: string, baseVersion: number): Work<CarrierRow> {
  const row = yield* carrierRecords.requireCurrent(s.tx, id, baseVersion, true);
  if (row.deleted_at) throw archivedRule();
  return row;
}

export async function updateCarrier(ctx: OrgContext, id: string, input: CarrierPatch) {
  const { base_version, ...patch } = input;
  return serializeCarrier(
    await withTransaction(ctx, function* (s) {
      yield* writable(s, id, base_version);
      return yield* carrierRecords.update(s, id, base_version, patch);
    }),
  );
}

export async function archiveCarrier(ctx: OrgContext, id: string, q: CarrierArchiveQuery) {
  return serializeCarrier(
    await withTransaction(ctx, function* (s) {
      yield* writable(s, id, q.base_version);
      return yield* carrierRecords.archive(s, id, q.base_version);
    }),
  );
}

const p = insurancePlans;
const sub = insuranceSubscriptions;

/**
 * Per active carrier (not archived, not hidden): its plans that are not
 * archived, and the distinct subscriber patients of the non-archived
 * subscriptions to those plans. Carriers with no plans are listed with zeros.
 */
export async function carrierStats(ctx: OrgContext): Promise<CarrierStats> {
  const rows = await ctx.db.read((db) =>
    all(
      db
        .select({
          carrier_uuid: t.id,
          carrier_name: t.carrier_name,
          electronic_id: t.electronic_id,
          plan_count: countDistinct(p.id),
          subscriber_count: countDistinct(sub.subscriber_patient_id),
        })
        .from(t)
        .leftJoin(p, and(eq(p.carrier_id, t.id), isNull(p.deleted_at)))
        .leftJoin(sub, and(eq(sub.plan_id, p.id), isNull(sub.deleted_at)))
        .where(and(isNull(t.deleted_at), eq(t.is_hidden, false)))
        .groupBy(t.id)
        .orderBy(sql`${t.carrier_name} COLLATE NOCASE`, t.id),
    ),
  );
  return { items: rows.map((r) => ({ ...r, plan_count: Number(r.plan_count), subscriber_count: Number(r.subscriber_count) })) };
}
