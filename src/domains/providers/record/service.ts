import { and, count, eq, inArray, isNull, ne, sql, type SQL } from "drizzle-orm";
import { providers } from "@db/tenant/practice";
import { get, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound } from "@/platform/errors";
import { centsFromNumber, formatCents } from "@/platform/money";
import type { OrgContext, TenantDb } from "@/platform/records/context";
import { FEE_SCHEDULE_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { idsOf, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { requireFeeSchedule } from "@/domains/codes/fee-schedules/records";
import { defineResource } from "@/platform/records/resource";
import { anyContains } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import type { ArchiveQuery, Provider, ProviderCreate, ProviderListQuery, ProviderPatch, ProviderSummary, ProviderSummaryQuery } from "./schemas";

export type ProviderRow = typeof providers.$inferSelect;

/** The API record; `names` holds the billing override provider's "First Last", `schedules` the fee schedule's name (without them names are null). */
export const serializeProvider = (r: ProviderRow, names?: Names, schedules?: Names): Provider => ({
  id: r.id,
  abbreviation: r.abbreviation,
  first_name: r.first_name,
  last_name: r.last_name,
  middle_name: r.middle_name,
  preferred_name: r.preferred_name,
  suffix: r.suffix,
  title: r.title,
  billing_override_provider: ref(r.billing_override_provider_id, names),
  birthdate: r.birthdate,
  custom_id: r.custom_id,
  date_term: r.date_term,
  erx_enabled: r.erx_enabled,
  hourly_production_goal: formatCents(r.hourly_production_goal_cents),
  is_hidden: r.is_hidden,
  is_hidden_report: r.is_hidden_report,
  is_instructor: r.is_instructor,
  is_not_person: r.is_not_person,
  is_secondary: r.is_secondary,
  item_order: r.item_order,
  medicaid_id: r.medicaid_id,
  national_provider_id: r.national_provider_id,
  outline_color: r.outline_color,
  provider_color: r.provider_color,
  provider_type: r.provider_type_id ? { uuid: r.provider_type_id, name: r.provider_type_name } : null,
  provider_type_name: r.provider_type_name,
  schedule_note: r.schedule_note,
  sig_on_file: r.sig_on_file,
  specialty: r.specialty_id ? { uuid: r.specialty_id, name: r.specialty_name } : null,
  specialty_name: r.specialty_name,
  ssn_tin: r.ssn_tin,
  status: r.status,
  taxonomy_code_override: r.taxonomy_code_override,
  using_tin: r.using_tin,
  fee_schedule: ref(r.fee_schedule_id, schedules),
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

// The audit trail keeps the record as written, except the SSN/TIN: only its last four digits.
const auditView = (r: ProviderRow) => {
  const out = serializeProvider(r);
  return { ...out, ssn_tin: r.ssn_tin ? `***${r.ssn_tin.replace(/\D/g, "").slice(-4)}` : null };
};

export const providerRecords = defineResource<ProviderRow, ReturnType<typeof auditView>>({
  table: providers,
  name: "provider",
  label: "Provider",
  serialize: auditView,
});

/**
 * For other domains, inside a unit of work: the non-archived provider `id`, or
 * 404 "Provider not found".
 */
export function* requireProvider(db: TenantDb, id: string): Work<ProviderRow> {
  return yield* providerRecords.require(db, id);
}

/** The billing override providers' and fee schedules' names (archived ones included: a ref keeps its name). */
function* refNames(db: TenantDb, rows: ProviderRow[]): Work<{ providers: Names; schedules: Names }> {
  return yield* namesOfEach(db, {
    providers: [PROVIDER_NAMES, idsOf(rows, (r) => r.billing_override_provider_id)],
    schedules: [FEE_SCHEDULE_NAMES, idsOf(rows, (r) => r.fee_schedule_id)],
  });
}

function* present(db: TenantDb, row: ProviderRow): Work<Provider> {
  const names = yield* refNames(db, [row]);
  return serializeProvider(row, names.providers, names.schedules);
}

function* assertAbbreviationFree(db: TenantDb, abbreviation: string, selfId?: string): Work<void> {
  const conds: SQL[] = [sql`lower(${providers.abbreviation}) = lower(${abbreviation})`, isNull(providers.deleted_at)];
  if (selfId) conds.push(ne(providers.id, selfId));
  const clash = yield* get(
    db
      .select({ id: providers.id })
      .from(providers)
      .where(and(...conds))
      .limit(1),
  );
  if (clash) throw new Conflict("Another provider already uses this abbreviation", "duplicate");
}

function* assertOverrideProvider(db: TenantDb, overrideId: string, selfId?: string): Work<void> {
  if (overrideId === selfId) throw invalid(["body", "billing_override_provider_uuid"], "A provider cannot be its own billing override provider");
  const row = yield* providerRecords.find(db, overrideId);
  if (!row) throw new NotFound("Billing override provider");
}

type Writable = Omit<ProviderCreate, "abbreviation" | "first_name" | "last_name"> & Partial<Pick<ProviderCreate, "abbreviation" | "first_name" | "last_name">>;

/** API fields -> columns; only the fields present in the request. */
function toColumns(input: Writable): Partial<ProviderRow> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    switch (key) {
      case "billing_override_provider_uuid":
        out.billing_override_provider_id = value;
        break;
      case "provider_type_uuid":
        out.provider_type_id = value;
        break;
      case "specialty_uuid":
        out.specialty_id = value;
        break;
      case "fee_schedule_uuid":
        out.fee_schedule_id = value;
        break;
      case "hourly_production_goal":
        out.hourly_production_goal_cents = value === null ? null : centsFromNumber(value as number);
        break;
      default:
        out[key] = value;
    }
  }
  return out as Partial<ProviderRow>;
}

export async function listProviders(ctx: OrgContext, q: ProviderListQuery) {
  return ctx.db.read(function* (db) {
    const search = q.search?.trim();
    const page = yield* providerRecords.list(db, q, {
      where: [
        q.status ? eq(providers.status, q.status) : undefined,
        q.provider_type_uuid ? eq(providers.provider_type_id, q.provider_type_uuid) : undefined,
        q.is_hidden === undefined ? undefined : eq(providers.is_hidden, q.is_hidden),
        search
          ? anyContains(
              [
                providers.first_name,
                providers.last_name,
                providers.preferred_name,
                providers.abbreviation,
                sql`${providers.first_name} || ' ' || ${providers.last_name}`,
              ],
              search,
            )
          : undefined,
      ],
      orderBy: [providers.item_order, providers.last_name, providers.first_name, providers.id],
    });
    const names = yield* refNames(db, page.items);
    return { ...page, items: page.items.map((r) => serializeProvider(r, names.providers, names.schedules)) };
  });
}

export async function providerSummary(ctx: OrgContext, q: ProviderSummaryQuery): Promise<ProviderSummary> {
  const statusSet = q.status_set ?? ["active"];
  const includeHidden = q.include_hidden ?? false;
  const total = await ctx.db.read(function* (db) {
    const row = yield* get<{ n: number }>(
      db
        .select({ n: count() })
        .from(providers)
        .where(and(isNull(providers.deleted_at), inArray(providers.status, statusSet), includeHidden ? undefined : eq(providers.is_hidden, false))),
    );
    return row?.n ?? 0;
  });
  return { include_hidden: includeHidden, status_set: statusSet, total };
}

export async function getProvider(ctx: OrgContext, id: string) {
  return ctx.db.read(function* (db) {
    return yield* present(db, yield* providerRecords.require(db, id));
  });
}

export async function createProvider(ctx: OrgContext, input: ProviderCreate) {
  return withTransaction(ctx, function* (s) {
    yield* assertAbbreviationFree(s.tx, input.abbreviation);
    if (input.billing_override_provider_uuid) yield* assertOverrideProvider(s.tx, input.billing_override_provider_uuid);
    if (input.fee_schedule_uuid) yield* requireFeeSchedule(s.tx, input.fee_schedule_uuid);
    const row = yield* providerRecords.create(s, toColumns(input));
    return yield* present(s.tx, row);
  });
}

export async function updateProvider(ctx: OrgContext, id: string, input: ProviderPatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    // a stale write is refused before any rule is judged against data the client has not seen
    const current = yield* providerRecords.requireCurrent(s.tx, id, base_version);
    if (patch.abbreviation !== undefined) yield* assertAbbreviationFree(s.tx, patch.abbreviation, current.id);
    if (patch.billing_override_provider_uuid) yield* assertOverrideProvider(s.tx, patch.billing_override_provider_uuid, current.id);
    if (patch.fee_schedule_uuid) yield* requireFeeSchedule(s.tx, patch.fee_schedule_uuid);
    const row = yield* providerRecords.update(s, id, base_version, toColumns(patch));
    return yield* present(s.tx, row);
  });
}

export async function archiveProvider(ctx: OrgContext, id: string, q: ArchiveQuery) {
  return withTransaction(ctx, function* (s) {
    const row = yield* providerRecords.archive(s, id, q.base_version);
    return yield* present(s.tx, row);
  });
}
