import { DRUG_ALLERGY_MAP, type AllergenCategory, type WarningSeverity } from "./drug-allergy-map";

export type InteractionWarning = {
  allergy_id: string;
  allergen: string;
  medication_term: string;
  severity: WarningSeverity;
  rule: string;
  message: string;
};

type ActiveAllergy = { id: string; allergen: string; allergen_category: string };
type MedicationText = { med_descript: string | null; rx_cui: string | null };

/** Lower case, accents and punctuation dropped, padded with spaces so terms match whole words only. */
export const normalize = (s: string) =>
  ` ${s
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim()} `;

const ENTRIES = DRUG_ALLERGY_MAP.map((e) => ({
  ...e,
  allergens: e.allergen_terms.map(normalize),
  // longest first: "amoxicillin clavulanate" is reported rather than "amoxicillin"
  drugs: e.drugs.map((d) => ({ ...d, norm: normalize(d.term) })).sort((a, b) => b.norm.length - a.norm.length),
}));

const fill = (message: string, allergen: string, drug: string) => message.replaceAll("{allergen}", allergen).replaceAll("{drug}", drug);

/**
 * Warnings for a medication against the patient's active allergies, through
 * the shipped map: one per (allergy, map entry) that matches. An allergen the
 * map does not know still warns when the medication names it (same_substance).
 */
export function interactionWarnings(allergies: ActiveAllergy[], med: MedicationText): InteractionWarning[] {
  const text = med.med_descript ? normalize(med.med_descript) : " ";
  const rxcui = med.rx_cui?.trim() || null;
  const out: InteractionWarning[] = [];
  for (const a of allergies) {
    const allergen = normalize(a.allergen);
    let matched = false;
    for (const e of ENTRIES) {
      const allergic = e.allergens.some((t) => allergen.includes(t)) || !!e.allergen_categories?.includes(a.allergen_category as AllergenCategory);
      if (!allergic) continue;
      const drug = e.drugs.find((d) => text.includes(d.norm) || (rxcui !== null && d.rxcui === rxcui));
      if (!drug) continue;
      matched = true;
      out.push({
        allergy_id: a.id,
        allergen: a.allergen,
        medication_term: drug.term,
        severity: e.severity,
        rule: e.id,
        message: fill(e.message, a.allergen, drug.term),
      });
    }
    if (!matched && allergen.length >= 6 && text.includes(allergen)) {
      const term = allergen.trim();
      out.push({
        allergy_id: a.id,
        allergen: a.allergen,
        medication_term: term,
        severity: "high",
        rule: "same_substance",
        message: `Allergy to ${a.allergen}: the medication names the allergen itself.`,
      });
    }
  }
  return out;
}
