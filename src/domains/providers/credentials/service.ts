import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { providerIdentities, providerLocationOverrides, providerPrescriptionAccess } from "@db/tenant/provider-credentials";
import { get, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound } from "@/platform/errors";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { LOCATION_NAMES } from "@/platform/records/names";
import type { Page } from "@/platform/records/paging";
import { idsOf, namesOf, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import { locationRecords } from "@/domains/providers/locations/service";
import { requireProvider } from "@/domains/providers/record/service";
import { isMember } from "@/domains/iam/repository";
import type {
  CredentialArchiveQuery,
  CredentialListQuery,
  ProviderIdentity,
  ProviderIdentityCreate,
  ProviderLocationOverride,
  ProviderLocationOverrideCreate,
  ProviderPrescriptionAccess,
  ProviderPrescriptionAccessCreate,
} from "./schemas";

type IdentityRow = typeof providerIdentities.$inferSelect;
type OverrideRow = typeof providerLocationOverrides.$inferSelect;
type AccessRow = typeof providerPrescriptionAccess.$inferSelect;

const meta = (r: { id: string; version: number; created_at: string; updated_at: string; deleted_at: string | null }) => ({
  id: r.id,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

// DEA and state controlled-substance numbers let someone forge a prescription:
// the audit trail keeps only their last four characters. Clients holding
// providers.credentials.read see them whole; events never carry them.
const lastFour = (v: string | null) => (v ? `***${v.slice(-4)}` : null);

const serializeIdentity = (r: IdentityRow): ProviderIdentity => ({
  ...meta(r),
  id_number: r.id_number,
  payor_id: r.payor_id,
  supplemental_id_type: r.supplemental_id_type as ProviderIdentity["supplemental_id_type"],
});

const serializeOverride = (r: OverrideRow, names: Names): ProviderLocationOverride => ({
  ...meta(r),
  location: ref(r.location_id, names),
  location_name: names.get(r.location_id) ?? null,
  dea_number: r.dea_number,
  state_license: r.state_license,
  state_rx_id: r.state_rx_id,
  state_where_licensed: r.state_where_licensed,
});

const serializeAccess = (r: AccessRow): ProviderPrescriptionAccess => ({
  ...meta(r),
  national_provider_id: r.national_provider_id,
  erx_status: (r.erx_status ?? "disabled") as ProviderPrescriptionAccess["erx_status"],
  erx_type: r.erx_type,
  is_epcs: r.is_epcs,
  is_identity_proofed: r.is_identity_proofed,
  user_uuid: r.user_id,
});

// Audit snapshots: the record with API names plus its provider.
const identityRecords = defineResource<IdentityRow, Record<string, unknown>>({
  table: providerIdentities,
  name: "provider_identity",
  label: "Provider identity",
  serialize: (r) => ({ ...serializeIdentity(r), provider_uuid: r.provider_id }),
});
const overrideRecords = defineResource<OverrideRow, Record<string, unknown>>({
  table: providerLocationOverrides,
  name: "provider_location_override",
  label: "Provider location override",
  serialize: (r) => ({
    ...meta(r),
    provider_uuid: r.provider_id,
    location_uuid: r.location_id,
    dea_number: lastFour(r.dea_number),
    state_license: r.state_license,
    state_rx_id: lastFour(r.state_rx_id),
    state_where_licensed: r.state_where_licensed,
  }),
  practiceId: (r) => r.location_id,
});
const accessRecords = defineResource<AccessRow, Record<string, unknown>>({
  table: providerPrescriptionAccess,
  name: "provider_prescription_access",
  label: "Provider prescription access",
  serialize: (r) => ({ ...serializeAccess(r), provider_uuid: r.provider_id }),
});

// The three tables share provider_id and the record columns; the helpers below work on any of them.
type Records = ReturnType<typeof defineResource<any, Record<string, unknown>>>;

/** 409 duplicate when a non-archived row of the provider matches `same`. */
function* assertNoDuplicate(db: TenantDb, records: Records, providerId: string, same: SQL[], what: string): Work<void> {
  const t = records.table as typeof providerIdentities;
  const clash = yield* get(
    db
      .select({ id: t.id })
      .from(t)
      .where(and(eq(t.provider_id, providerId), isNull(t.deleted_at), ...same))
      .limit(1),
  );
  if (clash) throw new Conflict(`This provider already has ${what}`, "duplicate");
}

/** One page of the provider's non-archived rows, oldest first. */
function* pageOf<R>(db: TenantDb, records: Records, providerId: string, q: CredentialListQuery): Work<Page<R>> {
  const provider = yield* requireProvider(db, providerId);
  const t = records.table as typeof providerIdentities;
  return (yield* records.list(db, q, { where: [eq(t.provider_id, provider.id)], orderBy: [t.id] })) as Page<R>;
}

/** Archive one row of the provider: 404 for a missing provider, or a row that is missing, archived or another provider's. */
function* archiveOf<R extends { provider_id: string }>(s: TxScope, records: Records, providerId: string, id: string, q: CredentialArchiveQuery): Work<R> {
  const provider = yield* requireProvider(s.tx, providerId);
  const row = (yield* records.find(s.tx, id)) as R | undefined;
  if (!row || row.provider_id !== provider.id) throw new NotFound(records.label);
  return (yield* records.archive(s, id, q.base_version)) as R;
}

// ---------------------------------------------------------------- identities

export async function listIdentities(ctx: OrgContext, providerId: string, q: CredentialListQuery) {
  const page = await ctx.db.read((db) => pageOf<IdentityRow>(db, identityRecords, providerId, q));
  return { ...page, items: page.items.map(serializeIdentity) };
}

export async function createIdentity(ctx: OrgContext, providerId: string, input: ProviderIdentityCreate): Promise<ProviderIdentity> {
  return withTransaction(ctx, function* (s) {
    const provider = yield* requireProvider(s.tx, providerId);
    yield* assertNoDuplicate(
      s.tx,
      identityRecords,
      provider.id,
      [sql`lower(${providerIdentities.payor_id}) = lower(${input.payor_id})`, eq(providerIdentities.supplemental_id_type, input.supplemental_id_type)],
      "an identity of this type for this payor",
    );
    const row = yield* identityRecords.create(s, { provider_id: provider.id, ...input }, { provider_id: provider.id });
    return serializeIdentity(row);
  });
}

export async function archiveIdentity(ctx: OrgContext, providerId: string, id: string, q: CredentialArchiveQuery) {
  return serializeIdentity(await withTransaction(ctx, (s) => archiveOf<IdentityRow>(s, identityRecords, providerId, id, q)));
}

// ---------------------------------------------------------------- location overrides

/** Location names by id (archived locations keep their name in a reference). */
const locationNames = (db: TenantDb, rows: OverrideRow[]) =>
  namesOf(
    db,
    LOCATION_NAMES,
    idsOf(rows, (r) => r.location_id),
  );

export async function listLocationOverrides(ctx: OrgContext, providerId: string, q: CredentialListQuery) {
  return ctx.db.read(function* (db) {
    const page = yield* pageOf<OverrideRow>(db, overrideRecords, providerId, q);
    const names = yield* locationNames(db, page.items);
    return { ...page, items: page.items.map((r) => serializeOverride(r, names)) };
  });
}

export async function createLocationOverride(ctx: OrgContext, providerId: string, input: ProviderLocationOverrideCreate): Promise<ProviderLocationOverride> {
  const { location_uuid, ...fields } = input;
  return withTransaction(ctx, function* (s) {
    const provider = yield* requireProvider(s.tx, providerId);
    const location = yield* locationRecords.require(s.tx, location_uuid);
    // one override per location: a second one would leave "which DEA number applies here?" unanswered
    yield* assertNoDuplicate(s.tx, overrideRecords, provider.id, [eq(providerLocationOverrides.location_id, location.id)], "an override for this location");
    const row = yield* overrideRecords.create(
      s,
      {
        provider_id: provider.id,
        location_id: location.id,
        dea_number: fields.dea_number ?? null,
        state_license: fields.state_license ?? null,
        state_rx_id: fields.state_rx_id ?? null,
        state_where_licensed: fields.state_where_licensed ?? null,
      },
      { provider_id: provider.id, location_id: location.id },
    );
    return serializeOverride(row, new Map([[location.id, location.name]]));
  });
}

export async function archiveLocationOverride(ctx: OrgContext, providerId: string, id: string, q: CredentialArchiveQuery) {
  return withTransaction(ctx, function* (s) {
    const row = yield* archiveOf<OverrideRow>(s, overrideRecords, providerId, id, q);
    return serializeOverride(row, yield* locationNames(s.tx, [row]));
  });
}

// ---------------------------------------------------------------- prescription access

/** Is `userId` a member of this org (active, invited or suspended; removed members are not)? Read from the control database. */
const isOrgMember = (ctx: OrgContext, userId: string) => ctx.control.read((c) => isMember(c, userId));

export async function listPrescriptionAccess(ctx: OrgContext, providerId: string, q: CredentialListQuery) {
  const page = await ctx.db.read((db) => pageOf<AccessRow>(db, accessRecords, providerId, q));
  return { ...page, items: page.items.map(serializeAccess) };
}

export async function createPrescriptionAccess(
  ctx: OrgContext,
  providerId: string,
  input: ProviderPrescriptionAccessCreate,
): Promise<ProviderPrescriptionAccess> {
  const userId = input.user_uuid ?? null;
  // the membership lives in the control database: read it before the org's transaction, judge it after the provider's 404
  const userKnown = userId ? await isOrgMember(ctx, userId) : true;
  return withTransaction(ctx, function* (s) {
    const provider = yield* requireProvider(s.tx, providerId);
    if (!userKnown) throw new NotFound("User");
    // DEA rules: controlled substances may be e-prescribed only after identity proofing
    if (input.is_epcs && !input.is_identity_proofed) {
      throw invalid(["body", "is_epcs"], "EPCS needs is_identity_proofed", "value_error", "epcs_requires_identity_proofing");
    }
    const erxType = input.erx_type ?? null;
    yield* assertNoDuplicate(
      s.tx,
      accessRecords,
      provider.id,
      [
        eq(providerPrescriptionAccess.national_provider_id, input.national_provider_id),
        erxType === null ? isNull(providerPrescriptionAccess.erx_type) : sql`lower(${providerPrescriptionAccess.erx_type}) = lower(${erxType})`,
      ],
      "prescription access for this NPI and eRx type",
    );
    const row = yield* accessRecords.create(
      s,
      {
        provider_id: provider.id,
        national_provider_id: input.national_provider_id,
        erx_status: input.erx_status ?? "disabled",
        erx_type: erxType,
        is_epcs: input.is_epcs ?? false,
        is_identity_proofed: input.is_identity_proofed ?? false,
        user_id: userId,
      },
      { provider_id: provider.id, user_id: userId },
    );
    return serializeAccess(row);
  });
}

export async function archivePrescriptionAccess(ctx: OrgContext, providerId: string, id: string, q: CredentialArchiveQuery) {
  return serializeAccess(await withTransaction(ctx, (s) => archiveOf<AccessRow>(s, accessRecords, providerId, id, q)));
}
