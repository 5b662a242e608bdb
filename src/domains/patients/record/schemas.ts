import { z } from "zod";
import { BaseVersion, DateOnly, DateTime, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

export const PATIENT_STATUSES = ["active", "inactive", "prospective", "deceased", "archived"] as const;
export type PatientStatus = (typeof PATIENT_STATUSES)[number];
export const GENDERS = ["male", "female", "non_binary", "other", "unknown", "prefer_not_to_say"] as const;
export const MARITAL_STATUSES = ["divorced", "domestic_partner", "married", "other", "separated", "single", "widowed"] as const;
export const PRONOUNS = ["he_him", "not_specified", "other", "she_her", "they_them"] as const;
export const CONTACT_METHODS = ["email", "mail", "none", "phone", "text"] as const;
export const ALLERGY_REVIEW_STATUSES = ["nkda", "not_reviewed", "reviewed"] as const;
export const SORT_FIELDS = ["chart_number", "created_at", "date_of_birth", "first_name", "last_name", "status"] as const;

const text = (max: number) => z.string().max(max).nullable();
const name = z.string().trim().min(1).max(100);
const phone = z.string().max(40).nullable().describe("Any formatting; search matches its digits");
const refUuid = (what: string) => Uuid.nullable().describe(what);

/** Date-time with Z or an offset; stored and returned in UTC. */
const InstantInput = z.iso.datetime({ offset: true }).describe("ISO 8601 date-time with Z or an offset; returned in UTC");

const Ssn = z
  .string()
  .regex(/^\d{3}-?\d{2}-?\d{4}$/, "Must be 9 digits (dashes allowed)")
  .nullable()
  .describe("9 digits, dashes allowed. Stored, but every response shows it masked as ***-**-1234; never in audit entries or events");

/** Fields a client may write (create and PATCH); refs are written as `<thing>_uuid`. */
const writable = {
  first_name: name,
  last_name: name,
  middle_name: text(100),
  preferred_name: text(100),
  title: text(50),
  salutation: text(50),
  gender: z.enum(GENDERS).nullable(),
  marital_status: z.enum(MARITAL_STATUSES).nullable(),
  pronoun: z.enum(PRONOUNS).nullable(),
  date_of_birth: DateOnly.nullable(),
  date_first_visit: DateOnly.nullable(),
  date_time_deceased: InstantInput.nullable(),
  chart_number: z.string().trim().min(1).max(50).nullable().describe("Practice chart number; search matches it exactly"),
  email: z.email().max(320).nullable(),
  home_phone: phone,
  mobile_phone: phone,
  work_phone: phone,
  address_line1: text(200),
  address_line2: text(200),
  address_note: text(1000),
  city: text(100),
  state: text(100),
  postal_code: text(20),
  country: text(100),
  preferred_confirmation_method: z.enum(CONTACT_METHODS).nullable(),
  preferred_contact_method: z.enum(CONTACT_METHODS).nullable(),
  preferred_language: text(50),
  receives_email: z.boolean().describe("Opt-in to email"),
  receives_sms: z.boolean().describe("Opt-in to text messages"),
  ask_to_arrive_early_mins: z.number().int().min(0).max(120).nullable().describe("Minutes, 0-120"),
  allergy_review_status: z.enum(ALLERGY_REVIEW_STATUSES).describe("Default not_reviewed"),
  appointment_module_note: text(1000),
  billing_cycle_day: z.number().int().min(1).max(31).nullable().describe("Day of month, 1-31"),
  consent_flags: z.number().int().min(0).max(2_147_483_647).describe("Integer bitmask, default 0"),
  emergency_contact_name: text(200),
  emergency_contact_phone: text(40),
  medicaid_id: text(50),
  medical_summary: text(4000),
  medical_urgent_note: text(1000),
  premedication_required: z.boolean(),
  smoking_snomed: text(32).describe("SNOMED CT code of the smoking status"),
  social_security_number: Ssn,
  treatment_notes: text(10_000),
  latest_vitals_date: DateOnly.nullable(),
  billing_type_uuid: refUuid("Billing type (not checked: billing types are not served yet)"),
  employer_uuid: refUuid("Employer (not checked: employers are not served yet)"),
  fee_schedule_uuid: refUuid("The fee schedule the patient is charged from (first in fee resolution); 404 when it does not exist or is archived"),
  location_uuid: refUuid("Home location (practice); 404 when it does not exist"),
  primary_provider_uuid: refUuid("Primary provider; 404 when it does not exist"),
  secondary_provider_uuid: refUuid("Secondary provider; 404 when it does not exist"),
  responsible_party_uuid: refUuid("Guarantor: a patient of this org (may be the patient itself); 404 when it does not exist"),
};

/** Response fields that a body may not carry: 422 read_only, never silently written. */
const DERIVED = [
  "balance_0_30",
  "balance_31_60",
  "balance_61_90",
  "balance_over_90",
  "balance_total",
  "estimated_balance",
  "insurance_estimate",
  "payment_plan_due",
  "scheduling_restricted",
  "potential_duplicates",
  "primary_phone",
  "preferred_provider_uuid",
  "billing_type",
  "employer",
  "fee_schedule",
  "location",
  "primary_provider",
  "secondary_provider",
  "responsible_party",
];

const CREATE_STATUSES = ["active", "inactive", "prospective", "deceased"] as const;

export const PatientCreate = z
  .strictObject({
    ...z.object(writable).partial().shape,
    first_name: writable.first_name,
    last_name: writable.last_name,
    status: z.enum(CREATE_STATUSES).optional().describe("Initial status (default active); archived only through archive"),
  })
  .meta({ readOnly: DERIVED });
export type PatientCreate = z.infer<typeof PatientCreate>;

export const PatientPatch = z
  .strictObject({
    base_version: BaseVersion,
    ...z.object(writable).partial().shape,
  })
  .meta({ readOnly: [...DERIVED, "status"] });
export type PatientPatch = z.infer<typeof PatientPatch>;

export const PatientTransition = z.strictObject({
  status: z.enum(PATIENT_STATUSES).describe("Target status; see docs/patients/patients.md for the allowed moves"),
  base_version: BaseVersion,
  date_time_deceased: InstantInput.optional().describe("Only with status deceased; defaults to now when the patient has none"),
});
export type PatientTransition = z.infer<typeof PatientTransition>;

const Money = z.string().describe("Dollars, two decimals");

export const PotentialDuplicate = z
  .object({
    uuid: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    date_of_birth: z.string().nullable(),
    reasons: z.array(z.enum(["same_date_of_birth", "same_phone", "same_name", "similar_name"])),
    score: z.number().int().describe("0-100: same_date_of_birth 40, same_phone 30, same_name 30 or similar_name 15"),
  })
  .meta({ id: "PotentialDuplicate" });

const NullableRef = Ref.nullable();

export const Patient = z
  .object({
    ...RecordMeta,
    uuid: z.string().describe("Same as id (the booking pipeline reads uuid)"),
    first_name: z.string(),
    last_name: z.string(),
    middle_name: z.string().nullable(),
    preferred_name: z.string().nullable(),
    title: z.string().nullable(),
    salutation: z.string().nullable(),
    status: z.enum(PATIENT_STATUSES),
    gender: z.enum(GENDERS).nullable(),
    marital_status: z.enum(MARITAL_STATUSES).nullable(),
    pronoun: z.enum(PRONOUNS).nullable(),
    date_of_birth: z.string().nullable(),
    date_first_visit: z.string().nullable(),
    date_time_deceased: z.string().nullable(),
    chart_number: z.string().nullable(),
    email: z.string().nullable(),
    home_phone: z.string().nullable(),
    mobile_phone: z.string().nullable(),
    work_phone: z.string().nullable(),
    primary_phone: z.string().nullable().describe("mobile_phone, else home_phone, else work_phone"),
    address_line1: z.string().nullable(),
    address_line2: z.string().nullable(),
    address_note: z.string().nullable(),
    city: z.string().nullable(),
    state: z.string().nullable(),
    postal_code: z.string().nullable(),
    country: z.string().nullable(),
    preferred_confirmation_method: z.enum(CONTACT_METHODS).nullable(),
    preferred_contact_method: z.enum(CONTACT_METHODS).nullable(),
    preferred_language: z.string().nullable(),
    receives_email: z.boolean(),
    receives_sms: z.boolean(),
    ask_to_arrive_early_mins: z.number().int().nullable(),
    allergy_review_status: z.enum(ALLERGY_REVIEW_STATUSES),
    appointment_module_note: z.string().nullable(),
    billing_cycle_day: z.number().int().nullable(),
    consent_flags: z.number().int(),
    emergency_contact_name: z.string().nullable(),
    emergency_contact_phone: z.string().nullable(),
    medicaid_id: z.string().nullable(),
    medical_summary: z.string().nullable(),
    medical_urgent_note: z.string().nullable(),
    premedication_required: z.boolean(),
    smoking_snomed: z.string().nullable(),
    social_security_number: z
      .string()
      .regex(/^\*\*\*-\*\*-\d{4}$/)
      .nullable()
      .describe("Always masked: ***-**-1234"),
    treatment_notes: z.string().nullable(),
    latest_vitals_date: z.string().nullable(),
    billing_type: NullableRef,
    employer: NullableRef,
    fee_schedule: NullableRef,
    location: NullableRef,
    primary_provider: NullableRef,
    secondary_provider: NullableRef,
    responsible_party: NullableRef,
    preferred_provider_uuid: z.string().nullable().describe("The primary provider's id (booking pipeline)"),
    balance_0_30: Money,
    balance_31_60: Money,
    balance_61_90: Money,
    balance_over_90: Money,
    balance_total: Money.describe("Sum of the four aging buckets, which are derived from the patient ledger (docs/account/account.md)"),
    estimated_balance: Money,
    insurance_estimate: Money,
    payment_plan_due: Money,
    scheduling_restricted: z.boolean().describe("Derived: status inactive, or balance_total above 500.00"),
    potential_duplicates: z
      .array(PotentialDuplicate)
      .describe(
        "Other non-archived patients that look like the same person (similar name plus the same date of birth or phone); highest score first. See docs/patients/patients.md",
      ),
    deleted_at: DateTime.nullable().describe("Set while archived"),
  })
  .meta({ id: "Patient" });
export type Patient = z.infer<typeof Patient>;

export const PatientListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  sort_by: z.enum(SORT_FIELDS).default("last_name"),
  sort_dir: z.enum(["asc", "desc"]).default("asc"),
  status: z.enum(PATIENT_STATUSES).optional().describe("Archived patients are listed only with status=archived"),
  search: z
    .string()
    .trim()
    .max(200)
    .optional()
    .describe("Name (word prefixes; 'Last, First' or 'First Last'), phone digits, email, chart number, or date of birth (YYYY-MM-DD or MM/DD/YYYY)"),
  query: z.string().trim().max(200).optional().describe("Alias of search (booking pipeline)"),
  primary_provider_uuid: Uuid.optional(),
  location_uuid: Uuid.optional(),
  dob_from: DateOnly.optional().describe("Born on or after"),
  dob_to: DateOnly.optional().describe("Born on or before"),
  tag_definition_uuid: Uuid.optional().describe("Patients carrying this tag"),
});
export type PatientListQuery = z.infer<typeof PatientListQuery>;
