// The drug-allergy map the interaction check reads (interactions.ts), shipped
// as data. Terms are matched as whole words or phrases after normalising (lower
// case, accents and punctuation dropped: "Amoxicillin-Clavulanate 875 mg"
// contains "amoxicillin clavulanate"). `rxcui` is the RxNorm ingredient code,
// matched against a medication's rx_cui. A clinical aid, not a substitute for
// the clinician's judgement: messages say what to check, not what to do.

export const ALLERGEN_CATEGORIES = ["drug", "food", "environmental", "latex", "other"] as const;
export type AllergenCategory = (typeof ALLERGEN_CATEGORIES)[number];

export const WARNING_SEVERITIES = ["high", "moderate", "low"] as const;
export type WarningSeverity = (typeof WARNING_SEVERITIES)[number];

export type DrugAllergyEntry = {
  /** stable id, returned as `rule` on each warning */
  id: string;
  /** an active allergy matches when its allergen contains one of these terms... */
  allergen_terms: string[];
  /** ...or when its allergen_category is one of these */
  allergen_categories?: AllergenCategory[];
  /** the medication matches when med_descript contains a term, or rx_cui equals the rxcui */
  drugs: { term: string; rxcui?: string }[];
  severity: WarningSeverity;
  /** `{allergen}` and `{drug}` are filled in */
  message: string;
};

const PENICILLIN_ALLERGENS = [
  "penicillin",
  "penicillins",
  "pcn",
  "amoxicillin",
  "ampicillin",
  "augmentin",
  "amoxicillin clavulanate",
  "penicillin v",
  "penicillin g",
  "beta lactam",
  "beta lactams",
];
const NSAID_ALLERGENS = [
  "aspirin",
  "asa",
  "acetylsalicylic acid",
  "salicylate",
  "salicylates",
  "nsaid",
  "nsaids",
  "ibuprofen",
  "naproxen",
  "ketorolac",
  "diclofenac",
];
const OPIOID_ALLERGENS = ["codeine", "opioid", "opioids", "opiate", "opiates", "morphine", "hydrocodone", "oxycodone", "tramadol", "hydromorphone"];
const ESTER_ANESTHETIC_ALLERGENS = [
  "ester",
  "esters",
  "ester anesthetic",
  "ester anaesthetic",
  "ester anesthetics",
  "ester anaesthetics",
  "ester local anesthetic",
  "ester local anaesthetic",
  "benzocaine",
  "tetracaine",
  "procaine",
  "novocain",
  "novocaine",
  "chloroprocaine",
  "paba",
  "para aminobenzoic acid",
];
const AMIDE_ANESTHETIC_ALLERGENS = [
  "amide",
  "amides",
  "amide anesthetic",
  "amide anaesthetic",
  "amide anesthetics",
  "amide anaesthetics",
  "amide local anesthetic",
  "amide local anaesthetic",
  "lidocaine",
  "lignocaine",
  "xylocaine",
  "articaine",
  "septocaine",
  "mepivacaine",
  "carbocaine",
  "prilocaine",
  "citanest",
  "bupivacaine",
  "marcaine",
];

export const DRUG_ALLERGY_MAP: readonly DrugAllergyEntry[] = [
  {
    id: "penicillin_class",
    allergen_terms: PENICILLIN_ALLERGENS,
    drugs: [
      { term: "penicillin" },
      { term: "penicillin v", rxcui: "7984" },
      { term: "penicillin vk" },
      { term: "penicillin g", rxcui: "7980" },
      { term: "amoxicillin", rxcui: "723" },
      { term: "ampicillin", rxcui: "733" },
      { term: "amoxicillin clavulanate" },
      { term: "augmentin" },
      { term: "dicloxacillin" },
      { term: "piperacillin" },
      { term: "nafcillin" },
      { term: "amoxil" },
    ],
    severity: "high",
    message: "Allergy to {allergen} (penicillin class): {drug} is a penicillin. Do not give unless the allergy has been evaluated and ruled out.",
  },
  {
    id: "penicillin_cephalosporin_cross",
    allergen_terms: PENICILLIN_ALLERGENS,
    drugs: [
      { term: "cephalexin", rxcui: "2231" },
      { term: "keflex" },
      { term: "cefadroxil" },
      { term: "cefazolin" },
      { term: "cefuroxime" },
      { term: "cefdinir" },
      { term: "cefprozil" },
      { term: "ceftriaxone", rxcui: "2193" },
      { term: "cephalosporin" },
    ],
    severity: "moderate",
    message:
      "Allergy to {allergen} (penicillin class): {drug} is a cephalosporin. Cross-reactivity is low (about 1-2%) but higher for first-generation cephalosporins with side chains like amoxicillin's (cephalexin, cefadroxil); avoid after anaphylaxis or a severe reaction.",
  },
  {
    id: "cephalosporin_class",
    allergen_terms: ["cephalosporin", "cephalosporins", "cephalexin", "keflex", "cefadroxil", "cefazolin", "cefuroxime", "cefdinir", "ceftriaxone"],
    drugs: [
      { term: "cephalexin", rxcui: "2231" },
      { term: "keflex" },
      { term: "cefadroxil" },
      { term: "cefazolin" },
      { term: "cefuroxime" },
      { term: "cefdinir" },
      { term: "cefprozil" },
      { term: "ceftriaxone", rxcui: "2193" },
      { term: "cephalosporin" },
    ],
    severity: "high",
    message: "Allergy to {allergen} (cephalosporin): {drug} is a cephalosporin. Do not give unless the allergy has been evaluated.",
  },
  {
    id: "sulfonamide_antibiotics",
    allergen_terms: [
      "sulfa",
      "sulfas",
      "sulfa drugs",
      "sulfonamide",
      "sulfonamides",
      "sulphonamide",
      "sulphonamides",
      "sulfamethoxazole",
      "bactrim",
      "septra",
      "smx tmp",
      "tmp smx",
    ],
    drugs: [
      { term: "sulfamethoxazole", rxcui: "10180" },
      { term: "trimethoprim sulfamethoxazole" },
      { term: "sulfamethoxazole trimethoprim" },
      { term: "smx tmp" },
      { term: "tmp smx" },
      { term: "bactrim" },
      { term: "septra" },
      { term: "sulfadiazine", rxcui: "10171" },
      { term: "sulfasalazine", rxcui: "9524" },
    ],
    severity: "high",
    message:
      "Allergy to {allergen} (sulfonamide): {drug} is an arylamine sulfonamide (the sulfa drugs that cross-react). Do not give unless the allergy has been evaluated.",
  },
  {
    id: "aspirin_nsaid",
    allergen_terms: NSAID_ALLERGENS,
    drugs: [
      { term: "ibuprofen", rxcui: "5640" },
      { term: "advil" },
      { term: "motrin" },
      { term: "naproxen", rxcui: "7258" },
      { term: "aleve" },
      { term: "anaprox" },
      { term: "aspirin", rxcui: "1191" },
      { term: "acetylsalicylic acid" },
      { term: "ketorolac" },
      { term: "toradol" },
      { term: "diclofenac", rxcui: "3355" },
      { term: "meloxicam" },
      { term: "etodolac" },
      { term: "diflunisal" },
      { term: "nabumetone" },
    ],
    severity: "high",
    message:
      "Allergy to {allergen} (aspirin/NSAID): {drug} is an NSAID; aspirin- and NSAID-sensitive patients often react across the class. Consider acetaminophen.",
  },
  {
    id: "opioid",
    allergen_terms: OPIOID_ALLERGENS,
    drugs: [
      { term: "codeine", rxcui: "2670" },
      { term: "tylenol 3" },
      { term: "tylenol with codeine" },
      { term: "hydrocodone", rxcui: "5489" },
      { term: "vicodin" },
      { term: "norco" },
      { term: "oxycodone", rxcui: "7804" },
      { term: "percocet" },
      { term: "oxycontin" },
      { term: "tramadol", rxcui: "10689" },
      { term: "ultram" },
      { term: "morphine", rxcui: "7052" },
      { term: "hydromorphone" },
    ],
    severity: "moderate",
    message:
      "Allergy to {allergen} (opioid): {drug} is an opioid. Many recorded opioid reactions are intolerance (nausea, itching) rather than allergy; confirm the reaction before prescribing.",
  },
  {
    id: "latex",
    allergen_terms: ["latex", "natural rubber", "natural rubber latex", "rubber"],
    allergen_categories: ["latex"],
    drugs: [
      { term: "injection" },
      { term: "injectable" },
      { term: "cartridge" },
      { term: "carpule" },
      { term: "vial" },
      { term: "latex" },
      { term: "rubber" },
      { term: "lidocaine", rxcui: "6387" },
      { term: "articaine" },
      { term: "mepivacaine" },
      { term: "prilocaine" },
      { term: "bupivacaine" },
    ],
    severity: "low",
    message:
      "Latex allergy ({allergen}): confirm that {drug} and its packaging (cartridge plunger and diaphragm, vial stopper) are latex-free, and use latex-free gloves and dams.",
  },
  {
    id: "ester_local_anesthetic",
    allergen_terms: ESTER_ANESTHETIC_ALLERGENS,
    drugs: [
      { term: "benzocaine" },
      { term: "hurricaine" },
      { term: "orajel" },
      { term: "cetacaine" },
      { term: "tetracaine" },
      { term: "procaine" },
      { term: "novocain" },
      { term: "novocaine" },
      { term: "chloroprocaine" },
      { term: "propoxycaine" },
    ],
    severity: "high",
    message:
      "Allergy to {allergen} (ester local anaesthetic): {drug} is an ester anaesthetic; esters cross-react through their PABA metabolite. An amide (lidocaine, articaine) is the usual alternative.",
  },
  {
    id: "amide_local_anesthetic",
    allergen_terms: AMIDE_ANESTHETIC_ALLERGENS,
    drugs: [
      { term: "lidocaine", rxcui: "6387" },
      { term: "lignocaine" },
      { term: "xylocaine" },
      { term: "articaine" },
      { term: "septocaine" },
      { term: "orabloc" },
      { term: "mepivacaine" },
      { term: "carbocaine" },
      { term: "polocaine" },
      { term: "prilocaine" },
      { term: "citanest" },
      { term: "oraqix" },
      { term: "bupivacaine" },
      { term: "marcaine" },
    ],
    severity: "high",
    message:
      "Allergy to {allergen} (amide local anaesthetic): {drug} is an amide anaesthetic. True amide allergy is rare and cross-reactivity within the class varies; confirm with allergy testing before use.",
  },
  {
    id: "sulfite_vasoconstrictor",
    allergen_terms: ["sulfite", "sulfites", "sulphite", "sulphites", "bisulfite", "metabisulfite", "sodium metabisulfite"],
    drugs: [{ term: "epinephrine" }, { term: "epi" }, { term: "adrenaline" }, { term: "levonordefrin" }],
    severity: "moderate",
    message:
      "Allergy to {allergen} (sulfite): local anaesthetics with {drug} contain sodium metabisulfite as a preservative; consider a plain anaesthetic without vasoconstrictor.",
  },
];
