import type { DrawnSurface, MarkKind, MarkStatus, ToothShape } from "./model";

// How records become marks on the drawing (docs/clinical/chart-pictures.md,
// "What is drawn"): a procedure by its CDT code, a condition by its type, a
// tooth by its recorded status. One place for these rules.

/** CDT code ranges (inclusive, by their number) and what each draws. First match wins. */
const CODE_RANGES: [from: number, to: number, kind: MarkKind][] = [
  [1351, 1353, "surfaces"], // sealants: the occlusal surface
  [2140, 2664, "surfaces"], // amalgams, resins, gold foil, inlays and onlays
  [2710, 2799, "crown"],
  [2930, 2934, "crown"], // prefabricated crowns
  [2952, 2954, "post"],
  [2960, 2962, "surfaces"], // veneers: the facial surface
  [3310, 3348, "root_canal"],
  [3410, 3426, "periapical"], // apicoectomy
  [6010, 6013, "implant"],
  [6040, 6050, "implant"],
  [6055, 6077, "crown"], // implant-supported crowns and retainers
  [6094, 6094, "crown"],
  [6194, 6194, "crown"],
  [6205, 6253, "pontic"],
  [6545, 6634, "surfaces"], // inlay and onlay retainers
  [6710, 6794, "crown"], // retainer crowns
  [7111, 7251, "extraction"],
];

/** The surface a code draws on when the procedure names none: sealants occlusal, veneers facial. */
const DEFAULT_SURFACES: [from: number, to: number, surfaces: DrawnSurface[]][] = [
  [1351, 1353, ["O"]],
  [2960, 2962, ["B"]],
];

const cdtNumber = (code: string): number | null => (/^D\d{4}$/i.test(code) ? Number(code.slice(1)) : null);

export function procedureKind(code: string): MarkKind {
  const n = cdtNumber(code);
  if (n === null) return "other";
  return CODE_RANGES.find(([from, to]) => n >= from && n <= to)?.[2] ?? "other";
}

/** I draws where O does, F and V where B does: the same regions of the occlusal-view drawing. */
const DRAWN_AS: Record<string, DrawnSurface> = { M: "M", O: "O", I: "O", D: "D", B: "B", F: "B", V: "B", L: "L" };
const ORDER: DrawnSurface[] = ["M", "O", "D", "B", "L"];

export function drawnSurfaces(letters: string | null, code?: string): DrawnSurface[] {
  const set = new Set([...(letters ?? "").toUpperCase()].map((l) => DRAWN_AS[l]).filter((l): l is DrawnSurface => !!l));
  if (!set.size && code) {
    const n = cdtNumber(code);
    for (const [from, to, surfaces] of DEFAULT_SURFACES) if (n !== null && n >= from && n <= to) return surfaces;
  }
  return ORDER.filter((s) => set.has(s));
}

/**
 * A procedure's colour: planned work (treatment planned, scheduled, in
 * progress) red; done here (complete) blue; found existing (existing_current,
 * existing_other) green; referred out (referred, complete_referred) purple.
 */
export const PROCEDURE_MARK: Record<string, Exclude<MarkStatus, "condition">> = {
  treatment_planned: "planned",
  scheduled: "planned",
  in_progress: "planned",
  complete: "completed",
  existing_current: "existing",
  existing_other: "existing",
  referred: "referred",
  complete_referred: "referred",
};

/** What a condition draws; a surface-type condition with no surface recorded is described, not drawn. */
export function conditionKind(type: string, surface: string | null): MarkKind {
  switch (type) {
    case "caries":
    case "decalcification":
    case "defective_restoration":
    case "abrasion":
    case "attrition":
    case "erosion":
    case "hypoplasia":
    case "open_contact":
      return surface ? "surfaces" : "other";
    case "fracture":
    case "fracture_root":
      return "fracture";
    case "abscess":
    case "periapical_lesion":
      return "periapical";
    case "watch":
      return "watch";
    default:
      return "other";
  }
}

/** How a tooth with this recorded status is drawn (no record: present). */
export function toothShape(status: string | null): ToothShape {
  switch (status) {
    case "missing":
    case "congenitally_absent":
    case "avulsed":
    case "hidden":
      return "absent";
    case "unerupted":
    case "impacted":
    case "partially_erupted":
      return "unerupted";
    case "residual_root":
      return "root_only";
    default:
      return "present";
  }
}

/** Statuses of a primary tooth that put it in the mouth (a reason to draw the primary row). */
export const PRIMARY_IN_MOUTH = new Set(["primary", "present", "over_retained", "exfoliating", "partially_erupted", "residual_root", "impacted", "unerupted"]);

export const STATUS_WORD: Record<MarkStatus, string> = {
  planned: "planned",
  completed: "completed",
  existing: "existing",
  referred: "referred out",
  condition: "condition",
};

/** "caries (MO, moderate)" from a condition type. */
export const conditionWords = (type: string) => type.replaceAll("_", " ");
