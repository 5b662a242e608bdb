import { sql } from "drizzle-orm";
import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { bool, id, softDelete, versioned } from "@db/columns";
import { patients } from "./patients";
import { providers } from "./practice";

// Referrals (docs/referrals/referrals.md): who sends patients to the practice.

/** Outside clinicians, practices and labs the practice refers to or receives referrals from. */
export const referralPartners = sqliteTable(
  "referral_partners",
  {
    id: id(),
    contact_type: text("contact_type").notNull().default("other"),
    first_name: text("first_name"),
    last_name: text("last_name"),
    practice_name: text("practice_name"),
    specialty: text("specialty"),
    npi: text("npi"),
    email: text("email"),
    phone: text("phone"),
    fax: text("fax"),
    address_line1: text("address_line1"),
    address_line2: text("address_line2"),
    city: text("city"),
    state: text("state"),
    postal_code: text("postal_code"),
    country: text("country").notNull().default("US"),
    accepts_ereferral: bool("accepts_ereferral").notNull().default(false),
    ereferral_endpoint: text("ereferral_endpoint"),
    preferred_contact_method: text("preferred_contact_method"),
    is_active: bool("is_active").notNull().default(true),
    notes: text("notes"),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [index("referral_partners_npi_idx").on(t.npi)],
);

/** Non-person channels a patient can come from (an ad campaign, the website, a health fair). */
export const referralSources = sqliteTable("referral_sources", {
  id: id(),
  name: text("name").notNull(),
  source_type: text("source_type").notNull().default("other"),
  description: text("description"),
  is_active: bool("is_active").notNull().default(true),
  ...versioned(),
  ...softDelete(),
});

/** How a patient came to the practice: exactly one of the four source columns is set. */
export const referralAttributions = sqliteTable(
  "referral_attributions",
  {
    id: id(),
    patient_id: text("patient_id")
      .notNull()
      .references(() => patients.id),
    attribution_role: text("attribution_role").notNull().default("primary"),
    provider_id: text("provider_id").references(() => providers.id),
    referral_partner_id: text("referral_partner_id").references(() => referralPartners.id),
    referral_source_id: text("referral_source_id").references(() => referralSources.id),
    referring_patient_id: text("referring_patient_id").references(() => patients.id),
    source_note: text("source_note"),
    attributed_at: text("attributed_at").notNull(),
    ...versioned(),
    ...softDelete(),
  },
  (t) => [
    index("referral_attributions_patient_idx").on(t.patient_id, t.attributed_at),
    // one active primary per patient; the service checks first (409), this stops a race
    uniqueIndex("referral_attributions_one_primary_uq").on(t.patient_id).where(sql`attribution_role = 'primary' AND deleted_at IS NULL`),
  ],
);
