import { and, eq, inArray, isNull, ne } from "drizzle-orm";
import { patients, providers } from "@db/tenant/schema";
import { referralAttributions, referralPartners, referralSources } from "@db/tenant/referrals";
import { all, get, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound, ValidationFailed, VersionConflict } from "@/platform/errors";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import type { Paging } from "@/platform/records/paging";
import { patientRecords, type PatientRow } from "@/domains/patients/record/service";
import { providerRecords } from "@/domains/providers/record/service";
import { partnerName, partnerRecords } from "./partners";
import { sourceRecords } from "./sources";
import { SOURCE_FIELDS, type ArchiveQuery, type ReferralAttribution, type ReferralAttributionCreate, type ReferralAttributionPatch } from "./schemas";
import { personName } from "@/platform/records/refs";

type AttributionRow = typeof referralAttributions.$inferSelect;
type Role = ReferralAttribution["attribution_role"];

// The audit trail keeps the stored columns (the org's own database; never published).
export const attributionRecords = defineResource<AttributionRow, AttributionRow>({
  table: referralAttributions, name: "referral_attribution", label: "Referral attribution", serialize: (r) => r,
});

/** Clock skew allowed on a client-supplied attributed_at. */
const FUTURE_SLACK_MS = 5 * 60_000;

// ---- references ------------------------------------------------------------------

type Names = { providers: Map<string, string>; partners: Map<string, string | null>; sources: Map<string, string>; patients: Map<string, string> };

const ids = (rows: AttributionRow[], pick: (r: AttributionRow) => string | null) => [...new Set(rows.map(pick).filter((x): x is string => !!x))];

/** Names of everything the rows point to (archived targets too: the link stays readable); one query per kind. */
function* namesFor(db: TenantDb, rows: AttributionRow[]): Work<Names> {
  const provIds = ids(rows, (r) => r.provider_id);
  const partIds = ids(rows, (r) => r.referral_partner_id);
  const srcIds = ids(rows, (r) => r.referral_source_id);
  const patIds = [...new Set([...ids(rows, (r) => r.patient_id), ...ids(rows, (r) => r.referring_patient_id)])];
  const provs = provIds.length ? yield* all(db.select({ id: providers.id, first_name: providers.first_name, last_name: providers.last_name }).from(providers).where(inArray(providers.id, provIds))) : [];
  const parts = partIds.length ? yield* all(db.select().from(referralPartners).where(inArray(referralPartners.id, partIds))) : [];
  const srcs = srcIds.length ? yield* all(db.select({ id: referralSources.id, name: referralSources.name }).from(referralSources).where(inArray(referralSources.id, srcIds))) : [];
  const pats = patIds.length ? yield* all(db.select({ id: patients.id, first_name: patients.first_name, last_name: patients.last_name }).from(patients).where(inArray(patients.id, patIds))) : [];
  return {
    providers: new Map(provs.map((p) => [p.id, personName(p)])),
    partners: new Map(parts.map((p) => [p.id, partnerName(p)])),
    sources: new Map(srcs.map((s) => [s.id, s.name])),
    patients: new Map(pats.map((p) => [p.id, personName(p)])),
  };
}

const ref = (id: string | null, names: Map<string, string | null>) => (id ? { uuid: id, name: names.get(id) ?? null } : null);

function serialize(r: AttributionRow, n: Names): ReferralAttribution {
  return {
    id: r.id,
    patient: { uuid: r.patient_id, name: n.patients.get(r.patient_id) ?? null },
    attribution_role: r.attribution_role as Role,
    provider: ref(r.provider_id, n.providers),
    referral_partner: ref(r.referral_partner_id, n.partners),
    referral_source: ref(r.referral_source_id, n.sources),
    referring_patient: ref(r.referring_patient_id, n.patients),
    source_note: r.source_note,
    attributed_at: r.attributed_at,
    version: r.version, created_at: r.created_at, updated_at: r.updated_at,
  };
}

function* present(db: TenantDb, row: AttributionRow): Work<ReferralAttribution> {
  return serialize(row, yield* namesFor(db, [row]));
}

// ---- rules -------------------------------------------------------------------------

/** The patient in the path: 404 when missing; archived patients stay readable. */
function* readablePatient(db: TenantDb, id: string): Work<PatientRow> {
  return yield* patientRecords.require(db, id, true);
}

/** Writes under an archived patient are refused like the patient's own PATCH (docs/patients.md). */
function* writablePatient(db: TenantDb, id: string): Work<PatientRow> {
  const row = yield* readablePatient(db, id);
  if (row.deleted_at) throw invalid(["path", "patient_uuid"], "Patient is archived; restore it first", "value_error", "patient_archived");
  return row;
}

/** This patient's attribution, else 404 (also when the id is another patient's). */
function* attributionOf(db: TenantDb, patientId: string, id: string): Work<AttributionRow> {
  const row = yield* attributionRecords.require(db, id);
  if (row.patient_id !== patientId) throw new NotFound("Referral attribution");
  return row;
}

function* assertNoOtherPrimary(db: TenantDb, patientId: string, selfId?: string): Work<void> {
  const t = referralAttributions;
  const clash = yield* get(db.select({ id: t.id }).from(t).where(and(
    eq(t.patient_id, patientId), eq(t.attribution_role, "primary"), isNull(t.deleted_at), selfId ? ne(t.id, selfId) : undefined,
  )).limit(1));
  if (clash) throw new Conflict("The patient already has an active primary referral attribution", "duplicate");
}

type Source = { field: (typeof SOURCE_FIELDS)[number]; id: string };

/** Exactly one of the four source fields (null counts as absent), and never the patient itself. */
function chooseSource(patientId: string, input: ReferralAttributionCreate): Source {
  const given = SOURCE_FIELDS.filter((f) => input[f] != null);
  if (given.length !== 1) {
    const msg = `Exactly one of ${SOURCE_FIELDS.join(", ")} is required`;
    throw new ValidationFailed(given.length ? given.map((f) => ({ loc: ["body", f], msg, type: "value_error" })) : [{ loc: ["body"], msg, type: "missing" }], "exactly_one_source");
  }
  const source = { field: given[0], id: input[given[0]]!.toLowerCase() };
  if (source.field === "referring_patient_uuid" && source.id === patientId) {
    throw invalid(["body", "referring_patient_uuid"], "A patient cannot refer themself", "value_error", "self_referral");
  }
  return source;
}

/** The source must exist in this org and not be archived (inactive ones still count). */
function* requireSource(db: TenantDb, s: Source): Work<Partial<AttributionRow>> {
  switch (s.field) {
    case "provider_uuid":
      if (!(yield* providerRecords.find(db, s.id))) throw new NotFound("Provider");
      return { provider_id: s.id };
    case "referral_partner_uuid":
      if (!(yield* partnerRecords.find(db, s.id))) throw new NotFound("Referral partner");
      return { referral_partner_id: s.id };
    case "referral_source_uuid":
      if (!(yield* sourceRecords.find(db, s.id))) throw new NotFound("Referral source");
      return { referral_source_id: s.id };
    case "referring_patient_uuid":
      if (!(yield* patientRecords.find(db, s.id))) throw new NotFound("Referring patient");
      return { referring_patient_id: s.id };
  }
}

function attributedAt(value: string | undefined, now: number): string | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (ms > now + FUTURE_SLACK_MS) throw invalid(["body", "attributed_at"], "Cannot be in the future", "value_error");
  return new Date(ms).toISOString();
}

/** The partial unique index backs the primary rule if two writers race past the check. */
function* guardPrimaryRace<T>(work: Work<T>): Work<T> {
  try {
    return yield* work;
  } catch (err) {
    if (/UNIQUE constraint failed: referral_attributions/.test((err as Error)?.message ?? "")) {
      throw new Conflict("The patient already has an active primary referral attribution", "duplicate");
    }
    throw err;
  }
}

// ---- verbs -------------------------------------------------------------------------

export async function listAttributions(ctx: OrgContext, patientId: string, q: Paging) {
  return ctx.db.read(function* (db) {
    yield* readablePatient(db, patientId);
    const page = yield* attributionRecords.list(db, q, {
      where: [eq(referralAttributions.patient_id, patientId)],
      orderBy: [referralAttributions.attributed_at, referralAttributions.id],
    });
    const names = yield* namesFor(db, page.items);
    return { ...page, items: page.items.map((r) => serialize(r, names)) };
  });
}

export async function getAttribution(ctx: OrgContext, patientId: string, id: string) {
  return ctx.db.read(function* (db) {
    yield* readablePatient(db, patientId);
    return yield* present(db, yield* attributionOf(db, patientId, id));
  });
}

export async function createAttribution(ctx: OrgContext, patientId: string, input: ReferralAttributionCreate) {
  const at = attributedAt(input.attributed_at, Date.now());
  const role: Role = input.attribution_role ?? "primary";
  return withTransaction(ctx, function* (s: TxScope) {
    const patient = yield* writablePatient(s.tx, patientId);
    const sourceColumns = yield* requireSource(s.tx, chooseSource(patient.id, input));
    if (role === "primary") yield* assertNoOtherPrimary(s.tx, patient.id);
    const row = yield* guardPrimaryRace(attributionRecords.create(s, {
      patient_id: patient.id, attribution_role: role, ...sourceColumns,
      source_note: input.source_note ?? null, attributed_at: at ?? s.now,
    }, { patient_id: patient.id, attribution_role: role }));
    return yield* present(s.tx, row);
  });
}

export async function updateAttribution(ctx: OrgContext, patientId: string, id: string, input: ReferralAttributionPatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    yield* writablePatient(s.tx, patientId);
    const current = yield* attributionOf(s.tx, patientId, id);
    if (current.version !== base_version) throw new VersionConflict(current.version);
    if (patch.attribution_role === "primary" && current.attribution_role !== "primary") yield* assertNoOtherPrimary(s.tx, patientId, id);
    const row = yield* guardPrimaryRace(attributionRecords.update(s, id, base_version, patch));
    return yield* present(s.tx, row);
  });
}

export async function archiveAttribution(ctx: OrgContext, patientId: string, id: string, q: ArchiveQuery) {
  await withTransaction(ctx, function* (s) {
    yield* writablePatient(s.tx, patientId);
    yield* attributionOf(s.tx, patientId, id);
    yield* attributionRecords.archive(s, id, q.base_version);
  });
  return { detail: "archived" as const };
}
