import type { OrgSeed } from "./seed";
import { coverageCategories, coverageSpans } from "@db/tenant/insurance";
import { run } from "@/platform/db/work";
import { newId } from "@/platform/ids";

// The coverage categories every org starts with: the CDT code chapters a plan's
// benefit percentages are written against ("preventive 100 %, basic 80 %,
// major 50 %"). System categories cannot be archived; an office may hide
// them, add its own, or add spans (e.g. carve implants out of prosthodontics).

type SystemCategory = [key: string, name: string, description: string, spans: [from: string, to: string][]];

export const SYSTEM_COVERAGE_CATEGORIES: SystemCategory[] = [
  ["diagnostic", "Diagnostic", "Exams, radiographs and tests (D0100-D0999)", [["D0100", "D0999"]]],
  ["preventive", "Preventive", "Cleanings, fluoride, sealants and space maintainers (D1000-D1999)", [["D1000", "D1999"]]],
  ["restorative", "Restorative", "Fillings, crowns and other restorations (D2000-D2999)", [["D2000", "D2999"]]],
  ["endodontics", "Endodontics", "Pulp and root canal treatment (D3000-D3999)", [["D3000", "D3999"]]],
  ["periodontics", "Periodontics", "Gum treatment and periodontal maintenance (D4000-D4999)", [["D4000", "D4999"]]],
  [
    "prosthodontics",
    "Prosthodontics",
    "Dentures, implants, bridges and maxillofacial prosthetics (D5000-D6999)",
    [
      ["D5000", "D5999"],
      ["D6000", "D6999"],
    ],
  ],
  ["oral_surgery", "Oral surgery", "Extractions and other surgery (D7000-D7999)", [["D7000", "D7999"]]],
  ["orthodontics", "Orthodontics", "Orthodontic treatment (D8000-D8999)", [["D8000", "D8999"]]],
  ["adjunctive", "Adjunctive general services", "Anesthesia, palliative treatment, consultations and other services (D9000-D9999)", [["D9000", "D9999"]]],
];

export const coverageCategorySeed: OrgSeed = {
  name: "coverage-categories",
  *run(tx, now) {
    const meta = { created_at: now, updated_at: now };
    for (const [i, [key, name, description, spans]] of SYSTEM_COVERAGE_CATEGORIES.entries()) {
      const categoryId = newId();
      yield* run(
        tx.insert(coverageCategories).values({
          id: categoryId,
          category_name: name,
          description,
          is_system: true,
          system_key: key,
          item_order: (i + 1) * 10,
          version: 1,
          ...meta,
        }),
      );
      yield* run(
        tx
          .insert(coverageSpans)
          .values(
            spans.map(([from_code, to_code], j) => ({ id: newId(), category_id: categoryId, from_code, to_code, is_exclusion: false, item_order: j, ...meta })),
          ),
      );
    }
  },
};
