import { and, eq, isNull, ne } from "drizzle-orm";
import { referralAttributions } from "@db/tenant/referrals";
import { declareUniqueConflict } from "@/platform/db/constraints";
import { get, type Work } from "@/platform/db/work";
import { Conflict, invalid, NotFound, ValidationFailed } from "@/platform/errors";
import type { OrgContext, TenantDb, TxScope } from "@/platform/records/context";
import { PATIENT_NAMES, PROVIDER_NAMES } from "@/platform/records/names";
import { idsOf, namesOfEach, ref, type Names } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { withTransaction } from "@/platform/records/transaction";
import type { Paging } from "@/platform/records/paging";
import { checkVersion } from "@/platform/records/versions";
import { patientRecords, type PatientRow } from "@/domains/patients/record/service";
import { providerRecords } from "@/domains/providers/record/service";
import { PARTNER_NAMES, partnerRecords } from "./partners";
import { SOURCE_NAMES, sourceRecords } from "./sources";
import { SOURCE_FIELDS, type ArchiveQuery, type ReferralAttribution, type ReferralAttributionCreate, type ReferralAttributionPatch } from "./schemas";

type AttributionRow = typeof referralAttributions.$inferSelect;
type Role = ReferralAttribution["attribution_role"];

// The audit trail keeps the stored columns (the org's own database; never published).
export const attributionRecords = defineResource<AttributionRow, AttributionRow>({
  table: referralAttributions,
  name: "referral_attribution",
  label: "Referral attribution",
  serialize: (r) => r,
});

const PRIMARY_TAKEN = "The patient already has an active primary referral attribution";
// The partial unique index referral_attributions_one_primary_uq backs the primary rule if two writers race past the check.
declareUniqueConflict("referral_attributions.patient_id", PRIMARY_TAKEN, "duplicate");

/** Clock skew allowed on a client-supplied attributed_at. */
const FUTURE_SLACK_MS = 5 * 60_000;

// ---- references ------------------------------------------------------------------

type RefNames = Record<"providers" | "partners" | "sources" | "patients", Names>;

/** Names of everything the rows point to (archived targets too: the link stays readable); one query per kind. */
function refNames(db: TenantDb, rows: AttributionRow[]): Work<RefNames> {
  return namesOfEach(db, {
    providers: [PROVIDER_NAMES, idsOf(rows, (r) => r.provider_id)],
    partners: [PARTNER_NAMES, idsOf(rows, (r) => r.referral_partner_id)],
    sources: [SOURCE_NAMES, idsOf(rows, (r) => r.referral_source_id)],
    patients: [
      PATIENT_NAMES,
      idsOf(
        rows,
        (r) => r.patient_id,
        (r) => r.referring_patient_id,
      ),
    ],
  });
}

function serialize(r: AttributionRow, n: RefNames): ReferralAttribution {
  return {
    id: r.id,
    patient: ref(r.patient_id, n.patients),
    attribution_role: r.attribution_role as Role,
    provider: ref(r.provider_id, n.providers),
    referral_partner: ref(r.referral_partner_id, n.partners),
    referral_source: ref(r.referral_source_id, n.sources),
    referring_patient: ref(r.referring_patient_id, n.patients),
    source_note: r.source_note,
    attributed_at: r.attributed_at,
    version: r.version,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

function* present(db: TenantDb, row: AttributionRow): Work<ReferralAttribution> {
  return serialize(row, yield* refNames(db, [row]));
}

// ---- rules -------------------------------------------------------------------------

/** The patient in the path: 404 when missing; archived patients stay readable. */
function* readablePatient(db: TenantDb, id: string): Work<PatientRow> {
  return yield* patientRecords.require(db, id, true);
}

/** Writes under an archived patient are refused like the patient's own PATCH (docs/patients/patients.md). */
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
  const clash = yield* get(
    db
      .select({ id: t.id })
      .from(t)
      .where(and(eq(t.patient_id, patientId), eq(t.attribution_role, "primary"), isNull(t.deleted_at), selfId ? ne(t.id, selfId) : undefined))
      .limit(1),
  );
  if (clash) throw new Conflict(PRIMARY_TAKEN, "duplicate");
}

type Source = { field: (typeof SOURCE_FIELDS)[number]; id: string };

/** Exactly one of the four source fields (null counts as absent), and never the patient itself. */
function chooseSource(patientId: string, input: ReferralAttributionCreate): Source {
  const given = SOURCE_FIELDS.filter((f) => input[f] != null);
  if (given.length !== 1) {
    const msg = `Exactly one of ${SOURCE_FIELDS.join(", ")} is required`;
    throw new ValidationFailed(
      given.length ? given.map((f) => ({ loc: ["body", f], msg, type: "value_error" })) : [{ loc: ["body"], msg, type: "missing" }],
      "exactly_one_source",
    );
  }
  const source = { field: given[0], id: input[given[0]]! };
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

// ---- verbs -------------------------------------------------------------------------

export async function listAttributions(ctx: OrgContext, patientId: string, q: Paging) {
  return ctx.db.read(function* (db) {
    yield* readablePatient(db, patientId);
    const page = yield* attributionRecords.list(db, q, {
      where: [eq(referralAttributions.patient_id, patientId)],
      orderBy: [referralAttributions.attributed_at, referralAttributions.id],
    });
    const names = yield* refNames(db, page.items);
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
    const row = yield* attributionRecords.create(
      s,
      {
        patient_id: patient.id,
        attribution_role: role,
        ...sourceColumns,
        source_note: input.source_note ?? null,
        attributed_at: at ?? s.now,
      },
      { patient_id: patient.id, attribution_role: role },
    );
    return yield* present(s.tx, row);
  });
}

export async function updateAttribution(ctx: OrgContext, patientId: string, id: string, input: ReferralAttributionPatch) {
  const { base_version, ...patch } = input;
  return withTransaction(ctx, function* (s) {
    yield* writablePatient(s.tx, patientId);
    const current = yield* attributionOf(s.tx, patientId, id);
    checkVersion(current, base_version);
    if (patch.attribution_role === "primary" && current.attribution_role !== "primary") yield* assertNoOtherPrimary(s.tx, patientId, id);
    const row = yield* attributionRecords.update(s, id, base_version, patch);
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
