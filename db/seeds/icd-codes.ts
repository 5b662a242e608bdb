import { icdCodes } from "@db/tenant/codes";
import { run } from "@/platform/db/work";
import type { ICD_CATEGORIES } from "@db/tenant/codes";
import type { OrgSeed } from "./seed";

// ICD-10-CM diagnosis codes a dental office uses: diseases of the teeth and
// mouth (K00-K14), dentofacial and jaw conditions (M26, M27; ICD-10-CM files the
// WHO's K07 here), injuries, encounter and status codes (Z) and a few systemic
// conditions that change dental care. Every code is a billable (leaf) code;
// the descriptions are our own short wording.

type Category = (typeof ICD_CATEGORIES)[number];

const CATALOGUE: [Category, [code: string, description: string][]][] = [
  [
    "dental_caries",
    [
      ["K02.3", "Arrested tooth decay"],
      ["K02.51", "Decay in pits and fissures, enamel only"],
      ["K02.52", "Decay in pits and fissures, into dentin"],
      ["K02.53", "Decay in pits and fissures, into the pulp"],
      ["K02.61", "Decay on a smooth surface, enamel only"],
      ["K02.62", "Decay on a smooth surface, into dentin"],
      ["K02.63", "Decay on a smooth surface, into the pulp"],
      ["K02.7", "Decay of the root surface"],
      ["K02.9", "Tooth decay, not specified"],
    ],
  ],
  [
    "tooth_development",
    [
      ["K00.0", "Teeth that never developed (missing congenitally)"],
      ["K00.1", "Extra (supernumerary) teeth"],
      ["K00.2", "Teeth of unusual size or shape"],
      ["K00.6", "Problems with tooth eruption"],
      ["K01.0", "Embedded tooth, not blocked by another tooth"],
      ["K01.1", "Impacted tooth"],
    ],
  ],
  [
    "hard_tissue",
    [
      ["K03.0", "Excessive wear of teeth from tooth-to-tooth contact"],
      ["K03.1", "Wear of teeth from brushing or other friction"],
      ["K03.2", "Chemical erosion of teeth"],
      ["K03.6", "Deposits on teeth such as tartar or stain"],
      ["K03.81", "Cracked tooth"],
      ["K03.89", "Other specified conditions of tooth hard tissue"],
    ],
  ],
  [
    "pulp_periapical",
    [
      ["K04.01", "Inflamed pulp that can recover"],
      ["K04.02", "Inflamed pulp that cannot recover"],
      ["K04.1", "Dead (necrotic) pulp"],
      ["K04.4", "Acute inflammation at the root tip from the pulp"],
      ["K04.5", "Long-standing inflammation at the root tip"],
      ["K04.6", "Abscess at the root tip draining through a sinus tract"],
      ["K04.7", "Abscess at the root tip without a sinus tract"],
      ["K04.8", "Cyst at the root tip"],
    ],
  ],
  [
    "periodontal",
    [
      ["K05.00", "Sudden gum inflammation caused by plaque"],
      ["K05.01", "Sudden gum inflammation not caused by plaque"],
      ["K05.10", "Ongoing gum inflammation caused by plaque"],
      ["K05.11", "Ongoing gum inflammation not caused by plaque"],
      ["K05.211", "Aggressive periodontitis in a few sites, slight"],
      ["K05.212", "Aggressive periodontitis in a few sites, moderate"],
      ["K05.213", "Aggressive periodontitis in a few sites, severe"],
      ["K05.221", "Aggressive periodontitis throughout, slight"],
      ["K05.311", "Chronic periodontitis in a few sites, slight"],
      ["K05.312", "Chronic periodontitis in a few sites, moderate"],
      ["K05.313", "Chronic periodontitis in a few sites, severe"],
      ["K05.321", "Chronic periodontitis throughout, slight"],
      ["K05.322", "Chronic periodontitis throughout, moderate"],
      ["K05.323", "Chronic periodontitis throughout, severe"],
      ["K05.5", "Other gum and supporting tissue disease"],
      ["K06.011", "Gum recession at a few sites, minimal"],
      ["K06.012", "Gum recession at a few sites, moderate"],
      ["K06.013", "Gum recession at a few sites, severe"],
      ["K06.021", "Gum recession throughout, minimal"],
      ["K06.022", "Gum recession throughout, moderate"],
      ["K06.023", "Gum recession throughout, severe"],
      ["K06.1", "Overgrown (enlarged) gums"],
      ["K06.3", "Even (horizontal) loss of the bone around teeth"],
      ["K06.8", "Other conditions of the gums or a toothless ridge"],
    ],
  ],
  [
    "tooth_loss",
    [
      ["K08.109", "All teeth lost, cause not specified"],
      ["K08.119", "All teeth lost through injury"],
      ["K08.129", "All teeth lost through gum disease"],
      ["K08.139", "All teeth lost through decay"],
      ["K08.409", "Some teeth lost, cause not specified"],
      ["K08.419", "Some teeth lost through injury"],
      ["K08.429", "Some teeth lost through gum disease"],
      ["K08.439", "Some teeth lost through decay"],
      ["K08.3", "Root left behind in the jaw"],
    ],
  ],
  [
    "restoration",
    [
      ["K08.51", "Filling or crown with an open margin"],
      ["K08.52", "Overhanging filling that cannot be repaired"],
      ["K08.530", "Broken filling, no material lost"],
      ["K08.531", "Broken filling with material lost"],
      ["K08.54", "Filling or crown shaped in a way that harms the gums"],
      ["K08.55", "Allergy to a filling material"],
      ["K08.56", "Filling or crown with a poor appearance"],
      ["K08.59", "Other unsatisfactory filling or crown"],
    ],
  ],
  [
    "dentofacial",
    [
      ["M26.211", "Bite in Angle class I"],
      ["M26.212", "Bite in Angle class II (lower jaw set back)"],
      ["M26.213", "Bite in Angle class III (lower jaw forward)"],
      ["M26.220", "Front teeth that do not meet (anterior open bite)"],
      ["M26.24", "Crossbite"],
      ["M26.33", "Teeth displaced sideways (crowding or spacing)"],
      ["M26.4", "Bad bite, not specified"],
    ],
  ],
  [
    "tmj",
    [
      ["M26.601", "Jaw joint disorder, right side"],
      ["M26.602", "Jaw joint disorder, left side"],
      ["M26.603", "Jaw joint disorder, both sides"],
      ["M26.621", "Painful jaw joint, right side"],
      ["M26.622", "Painful jaw joint, left side"],
      ["M26.623", "Painful jaw joint, both sides"],
      ["M26.633", "Jaw joint disc problem, both sides"],
      ["M26.69", "Other jaw joint disorder"],
      ["R68.84", "Jaw pain"],
    ],
  ],
  [
    "jaw",
    [
      ["M27.2", "Inflammation of the jaw bone"],
      ["M27.3", "Dry socket after an extraction"],
      ["M27.61", "Implant that failed to fuse with the bone"],
      ["M27.62", "Implant failing later from infection or bone loss"],
      ["M27.63", "Implant failing later from a mechanical problem"],
    ],
  ],
  [
    "oral_mucosa",
    [
      ["K12.0", "Recurring canker sores"],
      ["K12.1", "Other mouth inflammation (stomatitis)"],
      ["K12.2", "Infection or abscess of the soft tissue of the mouth"],
      ["K12.30", "Mouth sores from treatment (mucositis), not specified"],
      ["K13.0", "Conditions of the lips"],
      ["K13.1", "Biting of the cheek or lip"],
      ["K13.21", "White patch on the mouth lining or tongue (leukoplakia)"],
      ["K13.70", "Lesion of the mouth lining, not specified"],
      ["K13.79", "Other lesion of the mouth lining"],
      ["K14.0", "Inflamed tongue"],
      ["K14.6", "Burning or painful tongue"],
      ["B37.0", "Oral thrush (candida)"],
    ],
  ],
  [
    "salivary",
    [
      ["K11.5", "Stone in a salivary gland"],
      ["K11.7", "Too much or too little saliva"],
      ["R68.2", "Dry mouth"],
    ],
  ],
  [
    "injury",
    [
      ["S02.5XXA", "Broken tooth from injury, first visit"],
      ["S03.2XXA", "Tooth knocked out of place, first visit"],
      ["S01.511A", "Cut lip, first visit"],
      ["S09.93XA", "Injury of the face, not specified, first visit"],
    ],
  ],
  [
    "encounter",
    [
      ["Z01.20", "Dental exam and cleaning, nothing abnormal found"],
      ["Z01.21", "Dental exam and cleaning, something abnormal found"],
      ["Z46.3", "Fitting or adjusting a dental prosthesis"],
      ["Z46.4", "Fitting or adjusting an orthodontic appliance"],
      ["Z91.841", "Low risk of tooth decay"],
      ["Z91.842", "Moderate risk of tooth decay"],
      ["Z91.843", "High risk of tooth decay"],
      ["Z96.5", "Has dental implants"],
      ["Z97.2", "Wears a denture or partial"],
      ["Z98.810", "Has dental sealants"],
      ["Z98.811", "Has dental restorations"],
      ["Z98.818", "Has had other dental procedures"],
    ],
  ],
  [
    "systemic",
    [
      ["E11.9", "Type 2 diabetes without complications"],
      ["I10", "High blood pressure"],
      ["Z79.01", "Takes blood thinners long term"],
      ["G47.33", "Obstructive sleep apnea"],
      ["Z72.0", "Uses tobacco"],
    ],
  ],
  [
    "other",
    [
      ["G47.63", "Teeth grinding during sleep"],
      ["R19.6", "Bad breath"],
      ["K08.81", "Bite forces damaging healthy support (primary occlusal trauma)"],
      ["K08.82", "Bite forces damaging weakened support (secondary occlusal trauma)"],
      ["K08.89", "Other specified conditions of teeth and supporting structures"],
      ["K08.9", "Condition of teeth and supporting structures, not specified"],
    ],
  ],
];

/** The catalogue as rows (also read by tests). */
export function starterIcdCodes(now: string) {
  return CATALOGUE.flatMap(([category, codes]) =>
    codes.map(([code, description]) => ({
      id: Bun.randomUUIDv7(),
      code,
      description,
      category,
      created_at: now,
      updated_at: now,
    })),
  );
}

// Seeds are not audited: they are the org's starting state, written while it is provisioned.
export const icdCodeSeed: OrgSeed = {
  name: "icd-codes",
  *run(tx, now) {
    const rows = starterIcdCodes(now);
    // batches keep each statement under small SQLite bound-parameter limits (999)
    for (let i = 0; i < rows.length; i += 30) yield* run(tx.insert(icdCodes).values(rows.slice(i, i + 30)));
  },
};
