import { eq, sql } from "drizzle-orm";
import { referralPartners } from "@db/tenant/referrals";
import { ValidationFailed, type ValidationIssue } from "@/platform/errors";
import type { OrgContext } from "@/platform/records/context";
import { nameSource } from "@/platform/records/refs";
import { defineResource } from "@/platform/records/resource";
import { anyContains } from "@/platform/records/search";
import { withTransaction } from "@/platform/records/transaction";
import type { ArchiveQuery, ReferralPartner, ReferralPartnerCreate, ReferralPartnerListQuery, ReferralPartnerPatch } from "./schemas";

export type PartnerRow = typeof referralPartners.$inferSelect;

export const serializePartner = (r: PartnerRow): ReferralPartner => ({
  id: r.id,
  contact_type: r.contact_type as ReferralPartner["contact_type"],
  first_name: r.first_name,
  last_name: r.last_name,
  practice_name: r.practice_name,
  specialty: r.specialty,
  npi: r.npi,
  email: r.email,
  phone: r.phone,
  fax: r.fax,
  address_line1: r.address_line1,
  address_line2: r.address_line2,
  city: r.city,
  state: r.state,
  postal_code: r.postal_code,
  country: r.country,
  accepts_ereferral: r.accepts_ereferral,
  ereferral_endpoint: r.ereferral_endpoint,
  preferred_contact_method: r.preferred_contact_method as ReferralPartner["preferred_contact_method"],
  is_active: r.is_active,
  notes: r.notes,
  version: r.version,
  created_at: r.created_at,
  updated_at: r.updated_at,
  deleted_at: r.deleted_at,
});

export const partnerRecords = defineResource<PartnerRow, ReferralPartner>({
  table: referralPartners,
  name: "referral_partner",
  label: "Referral partner",
  serialize: serializePartner,
});

/** The name a reference shows: a person for provider contacts, else the practice. */
function partnerName(r: Pick<PartnerRow, "contact_type" | "first_name" | "last_name" | "practice_name">): string | null {
  const person = [r.first_name, r.last_name].filter(Boolean).join(" ") || null;
  return r.contact_type === "provider" ? (person ?? r.practice_name) : (r.practice_name ?? person);
}

// A partner with neither a person nor a practice name has no name: its references show name null.
export const PARTNER_NAMES = nameSource(
  referralPartners.id,
  {
    contact_type: referralPartners.contact_type,
    first_name: referralPartners.first_name,
    last_name: referralPartners.last_name,
    practice_name: referralPartners.practice_name,
  },
  partnerName,
);

type PartnerRules = Pick<PartnerRow, "contact_type" | "first_name" | "last_name" | "accepts_ereferral" | "ereferral_endpoint">;

/** spec.md's cross-field rules, judged on the record as it would be stored (create, or current + patch). */
function checkRules(r: PartnerRules): void {
  if (r.contact_type === "provider") {
    const missing: ValidationIssue[] = (["first_name", "last_name"] as const)
      .filter((f) => !r[f])
      .map((f) => ({ loc: ["body", f], msg: "Required when contact_type is provider", type: "missing" }));
    if (missing.length) throw new ValidationFailed(missing, "names_required");
  }
  if (r.accepts_ereferral && !r.ereferral_endpoint) {
    throw new ValidationFailed(
      [{ loc: ["body", "ereferral_endpoint"], msg: "Required when accepts_ereferral is true", type: "missing" }],
      "ereferral_endpoint_required",
    );
  }
}

// Defaults are the column defaults; written explicitly so the rules see them on create.
const DEFAULTS = { contact_type: "other", country: "US", accepts_ereferral: false, is_active: true } as const;

export async function listPartners(ctx: OrgContext, q: ReferralPartnerListQuery) {
  const t = referralPartners;
  const page = await ctx.db.read((db) =>
    partnerRecords.list(db, q, {
      where: [
        q.contact_type ? eq(t.contact_type, q.contact_type) : undefined,
        q.specialty ? sql`lower(${t.specialty}) = lower(${q.specialty})` : undefined,
        q.is_active === undefined ? undefined : eq(t.is_active, q.is_active),
        q.search ? anyContains([t.first_name, t.last_name, sql`${t.first_name} || ' ' || ${t.last_name}`, t.practice_name, t.npi], q.search) : undefined,
      ],
      orderBy: [t.id],
    }),
  );
  return { ...page, items: page.items.map(serializePartner) };
}

export function getPartner(ctx: OrgContext, id: string) {
  return partnerRecords.read(ctx.db, id);
}

export async function createPartner(ctx: OrgContext, input: ReferralPartnerCreate) {
  const values = { ...DEFAULTS, ...input };
  checkRules({ first_name: null, last_name: null, ereferral_endpoint: null, ...values });
  return serializePartner(await withTransaction(ctx, (s) => partnerRecords.create(s, values, { contact_type: values.contact_type })));
}

export async function updatePartner(ctx: OrgContext, id: string, input: ReferralPartnerPatch) {
  const { base_version, ...patch } = input;
  return serializePartner(
    await withTransaction(ctx, function* (s) {
      // stale first: a rule is never judged against a record the client has not seen
      const current = yield* partnerRecords.requireCurrent(s.tx, id, base_version);
      checkRules({ ...current, ...patch });
      return yield* partnerRecords.update(s, id, base_version, patch);
    }),
  );
}

export async function archivePartner(ctx: OrgContext, id: string, q: ArchiveQuery) {
  return serializePartner(await withTransaction(ctx, (s) => partnerRecords.archive(s, id, q.base_version)));
}
