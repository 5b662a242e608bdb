import type { OrgSeed } from "./seed";
import { autoCodeFamilies, autoCodeRules, type SelectionType } from "@db/tenant/auto-codes";
import { run } from "@/platform/db/work";

// The classic odontogram auto-codes with CDT codes (the codes only: the
// catalogue itself is the procedure-codes seed). Rules are listed highest
// priority first; their priorities count down from the list length. Conditions
// are stored as written: a test checks each is already what the auto-codes
// domain's parser makes of it.
type Conditions = Record<string, unknown>;
type Family = {
  family_name: string;
  display_name: string;
  description: string;
  selection_type: SelectionType;
  base_procedure_code: string | null;
  rules: [Conditions, string][];
};

const surfaces = (count: number) => ({ selection_type: "surface_count", ...(count < 4 ? { count } : { min_count: 4 }) });
const composite = (position: "anterior" | "posterior", codes: string[]): [Conditions, string][] =>
  codes.map((code, i) => [{ all: [{ selection_type: "tooth_position", tooth_position: position }, surfaces(i + 1)] }, code]);

export const AUTO_CODE_FAMILIES: Family[] = [
  {
    family_name: "composite",
    display_name: "Composite restoration",
    selection_type: "combined",
    base_procedure_code: null,
    description: "Resin-based composite by tooth position and number of surfaces (four or more share one code)",
    rules: [...composite("anterior", ["D2330", "D2331", "D2332", "D2335"]), ...composite("posterior", ["D2391", "D2392", "D2393", "D2394"])],
  },
  {
    family_name: "amalgam",
    display_name: "Amalgam restoration",
    selection_type: "surface_count",
    base_procedure_code: null,
    description: "Amalgam by number of surfaces (four or more share one code)",
    rules: [
      [{ count: 1 }, "D2140"],
      [{ count: 2 }, "D2150"],
      [{ count: 3 }, "D2160"],
      [{ min_count: 4 }, "D2161"],
    ],
  },
  {
    family_name: "crown",
    display_name: "Crown",
    selection_type: "material",
    base_procedure_code: null,
    description: "Single crown by material; generic pfm and metal count as high noble",
    rules: [
      [{ material_family: ["porcelain", "ceramic", "lithium_disilicate", "zirconia"] }, "D2740"],
      [{ material_family: ["pfm", "pfm_high_noble"] }, "D2750"],
      [{ material_family: "pfm_base_metal" }, "D2751"],
      [{ material_family: "pfm_noble" }, "D2752"],
      [{ material_family: ["metal", "metal_high_noble"] }, "D2790"],
      [{ material_family: "metal_base_metal" }, "D2791"],
      [{ material_family: "metal_noble" }, "D2792"],
      [{ material_family: "titanium" }, "D2794"],
    ],
  },
  {
    family_name: "root_canal",
    display_name: "Root canal",
    selection_type: "tooth_type",
    base_procedure_code: null,
    description: "Endodontic therapy by tooth type",
    rules: [
      [{ tooth_type: ["incisor", "canine"] }, "D3310"],
      [{ tooth_type: "premolar" }, "D3320"],
      [{ tooth_type: "molar" }, "D3330"],
    ],
  },
  {
    family_name: "extraction",
    display_name: "Extraction",
    selection_type: "dentition",
    base_procedure_code: "D7140",
    description: "Extraction of an erupted tooth or exposed root; add rules for surgical extractions as needed",
    rules: [],
  },
  {
    family_name: "sealant",
    display_name: "Sealant",
    selection_type: "dentition",
    base_procedure_code: null,
    description: "Sealant per tooth, primary and permanent",
    rules: [
      [{ dentition: "permanent" }, "D1351"],
      [{ dentition: "primary" }, "D1351"],
    ],
  },
  {
    family_name: "prophylaxis",
    display_name: "Prophylaxis",
    selection_type: "age",
    base_procedure_code: null,
    description: "Adult prophylaxis from age 14, child prophylaxis below",
    rules: [
      [{ min_age: 14 }, "D1110"],
      [{ max_age: 13 }, "D1120"],
    ],
  },
  {
    family_name: "complete_denture",
    display_name: "Complete denture",
    selection_type: "arch",
    base_procedure_code: null,
    description: "Complete denture by arch",
    rules: [
      [{ arch: "upper" }, "D5110"],
      [{ arch: "lower" }, "D5120"],
    ],
  },
];

export const autoCodeSeed: OrgSeed = {
  name: "odontogram-auto-codes",
  *run(tx, now) {
    const stamp = { created_at: now, updated_at: now, version: 1 };
    for (const { rules, ...family } of AUTO_CODE_FAMILIES) {
      const id = Bun.randomUUIDv7();
      yield* run(tx.insert(autoCodeFamilies).values({ ...family, id, is_active: true, ...stamp }));
      if (!rules.length) continue;
      // UUIDv7 ids are time-ordered: equal priorities would keep this order too
      yield* run(
        tx.insert(autoCodeRules).values(
          rules.map(([conditions, procedure_code], i) => ({
            id: Bun.randomUUIDv7(),
            family_id: id,
            conditions,
            procedure_code,
            priority: rules.length - i,
            is_active: true,
            ...stamp,
          })),
        ),
      );
    }
  },
};
