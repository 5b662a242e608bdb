import type { PatientPlan } from "@/domains/insurance/patient-plans/schemas";

// What matching reads from a raw row: the recognised keys (docs/insurance/insurance-drafts.md, "Raw rows"),
// found under their name or an alias in any case, as trimmed text; dates as YYYY-MM-DD.

export type Relationship = PatientPlan["relationship"];

export type DraftFields = {
  carrier_name: string | null;
  electronic_id: string | null;
  group_number: string | null;
  group_name: string | null;
  subscriber_first_name: string | null;
  subscriber_last_name: string | null;
  subscriber_date_of_birth: string | null;
  subscriber_id: string | null;
  relationship: Relationship | null;
  effective_date: string | null;
  termination_date: string | null;
  source_ref: string | null;
};

type Field = keyof DraftFields;

/** Each recognised field and the keys it is read from, first found wins (keys compared lower-case, spaces and hyphens as _). */
export const ALIASES: Record<Field, readonly string[]> = {
  carrier_name: ["carrier_name", "carrier", "insurance_company", "insurance_carrier", "payer_name"],
  electronic_id: ["electronic_id", "payer_id", "carrier_electronic_id", "edi_payer_id"],
  group_number: ["group_number", "group_no", "group_num"],
  group_name: ["group_name", "employer", "employer_name"],
  subscriber_first_name: ["subscriber_first_name", "subscriber_first"],
  subscriber_last_name: ["subscriber_last_name", "subscriber_last"],
  subscriber_date_of_birth: ["subscriber_date_of_birth", "subscriber_dob", "subscriber_birth_date", "subscriber_birthdate"],
  subscriber_id: ["subscriber_id", "member_id", "subscriber_member_id", "insured_id"],
  relationship: ["relationship", "relationship_to_subscriber", "patient_relationship"],
  effective_date: ["effective_date", "coverage_start", "eff_date"],
  termination_date: ["termination_date", "coverage_end", "term_date"],
  source_ref: ["source_ref"],
};

const FIELDS = Object.keys(ALIASES) as Field[];
const DATES: readonly Field[] = ["subscriber_date_of_birth", "effective_date", "termination_date"];

/** Longest text kept per field (a subscription's member id is at most 50 characters). */
const MAX_LENGTH: Partial<Record<Field, number>> = { subscriber_id: 50, source_ref: 200 };
const DEFAULT_MAX_LENGTH = 200;

const RELATIONSHIP_WORDS: Record<string, Relationship> = {
  self: "self",
  subscriber: "self",
  insured: "self",
  employee: "self",
  spouse: "spouse",
  husband: "spouse",
  wife: "spouse",
  domestic_partner: "spouse",
  child: "child",
  son: "child",
  daughter: "child",
  other: "other",
};

const normKey = (k: string) =>
  k
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_");

/** YYYY-MM-DD or MM/DD/YYYY (M/D/YYYY) to YYYY-MM-DD when it is a real date; null otherwise. */
export function isoDate(text: string): string | null {
  let y: number, m: number, d: number;
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(text);
  if (iso) [y, m, d] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  else if (us) [m, d, y] = [Number(us[1]), Number(us[2]), Number(us[3])];
  else return null;
  if (y < 1850 || y > 2200 || m < 1 || m > 12 || d < 1) return null;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  if (d > days) return null;
  return `${String(y).padStart(4, "0")}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`;
}

/** The row's own id in the source system (key source_ref, any case), as text; null when absent or not text. */
export function sourceRefOf(raw: Record<string, unknown>): string | null {
  for (const [k, v] of Object.entries(raw)) {
    if (normKey(k) !== "source_ref") continue;
    const text = typeof v === "string" ? v.trim() : typeof v === "number" && Number.isFinite(v) ? String(v) : "";
    if (text && text.length <= (MAX_LENGTH.source_ref ?? DEFAULT_MAX_LENGTH)) return text;
  }
  return null;
}

export type ReadRow = { fields: DraftFields; problems: string[] };

/**
 * The recognised fields of a raw row, and what makes it unusable: a recognised key whose value is
 * not text or a number, text too long, a date that is not a real date, an unknown relationship,
 * a termination before the effective date, neither carrier name nor electronic id.
 */
export function readRow(raw: Record<string, unknown>): ReadRow {
  const byKey = new Map<string, unknown>();
  for (const [k, v] of Object.entries(raw)) {
    const key = normKey(k);
    if (!byKey.has(key) || byKey.get(key) === null || byKey.get(key) === "") byKey.set(key, v);
  }
  const problems: string[] = [];
  const bad = new Set<Field>();
  const fields = Object.fromEntries(FIELDS.map((f) => [f, null])) as DraftFields;
  for (const f of FIELDS) {
    for (const key of ALIASES[f]) {
      const v = byKey.get(key);
      if (v === undefined || v === null) continue;
      let text: string;
      if (typeof v === "string") text = v.trim();
      else if (typeof v === "number" && Number.isFinite(v)) text = String(v);
      else {
        problems.push(`${key} must be text`);
        bad.add(f);
        break;
      }
      if (!text) continue;
      if (text.length > (MAX_LENGTH[f] ?? DEFAULT_MAX_LENGTH)) {
        problems.push(`${key} is longer than ${MAX_LENGTH[f] ?? DEFAULT_MAX_LENGTH} characters`);
        bad.add(f);
        break;
      }
      if (DATES.includes(f)) {
        const date = isoDate(text);
        if (!date) {
          problems.push(`${key} is not a valid date (YYYY-MM-DD or MM/DD/YYYY)`);
          bad.add(f);
          break;
        }
        text = date;
      }
      if (f === "relationship") {
        const rel = RELATIONSHIP_WORDS[normKey(text)];
        if (!rel) {
          problems.push(`${key} must be self, spouse, child or other`);
          bad.add(f);
          break;
        }
        fields.relationship = rel;
        break;
      }
      (fields as Record<Field, string | null>)[f] = text;
      break;
    }
  }
  if (!fields.carrier_name && !fields.electronic_id && !bad.has("carrier_name") && !bad.has("electronic_id"))
    problems.push("carrier_name or electronic_id is required");
  if (fields.effective_date && fields.termination_date && fields.termination_date < fields.effective_date)
    problems.push("termination_date is before effective_date");
  return { fields, problems };
}
