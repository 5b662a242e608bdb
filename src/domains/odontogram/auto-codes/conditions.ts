import { z } from "zod";
import { ValidationFailed } from "@/platform/errors";
import { issuesToDetail } from "@/platform/http/validation";
import { SELECTION_TYPES, type SelectionType } from "@db/tenant/auto-codes";
import { ARCHES, DENTITIONS, TOOTH_POSITIONS, TOOTH_TYPES, type Arch, type Dentition, type ToothPosition, type ToothType } from "@db/tenant/dental-vocabulary";
import { toothOf } from "@/domains/codes/dental-vocabulary";

// What a rule's `conditions` look like for each family selection_type, and how
// a clinical context is matched against them (docs/odontogram/auto-codes.md).

type SimpleType = Exclude<SelectionType, "combined">;
const SIMPLE_TYPES = SELECTION_TYPES.filter((t): t is SimpleType => t !== "combined");

export const MATERIAL_FAMILIES = [
  "amalgam",
  "composite",
  "glass_ionomer",
  "resin",
  "porcelain",
  "ceramic",
  "lithium_disilicate",
  "zirconia",
  "pfm",
  "pfm_high_noble",
  "pfm_noble",
  "pfm_base_metal",
  "metal",
  "metal_high_noble",
  "metal_noble",
  "metal_base_metal",
  "titanium",
  "stainless_steel",
] as const;
export type MaterialFamily = (typeof MATERIAL_FAMILIES)[number];

export const Material = z.enum(MATERIAL_FAMILIES);
export const ArchValue = z.enum(ARCHES);
const oneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).min(1).max(20)]);
const Age = z.number().int().min(0).max(130);
const SurfaceCount = z.number().int().min(1).max(5);
const Units = z.number().int().min(1).max(32);

type Refine = (v: Record<string, number | undefined>, c: z.RefinementCtx) => void;
const range =
  (lo: string, hi: string): Refine =>
  (v, c) => {
    if (v[lo] === undefined && v[hi] === undefined) c.addIssue({ code: "custom", path: [], message: `Needs ${lo}, ${hi} or both` });
    else if (v[lo] !== undefined && v[hi] !== undefined && v[lo]! > v[hi]!) c.addIssue({ code: "custom", path: [lo], message: `${lo} must not exceed ${hi}` });
  };

const SHAPES: Record<SimpleType, [z.ZodRawShape, Refine?]> = {
  age: [{ min_age: Age.optional(), max_age: Age.optional() }, range("min_age", "max_age")],
  arch: [{ arch: ArchValue }],
  dentition: [{ dentition: z.enum(DENTITIONS) }],
  material: [{ material_family: oneOrMany(Material) }],
  surface_count: [
    { count: SurfaceCount.optional(), min_count: SurfaceCount.optional(), max_count: SurfaceCount.optional() },
    (v, c) => {
      if (v.count === undefined) range("min_count", "max_count")(v, c);
      else if (v.min_count !== undefined || v.max_count !== undefined)
        c.addIssue({ code: "custom", path: ["count"], message: "Use count or min_count/max_count, not both" });
    },
  ],
  tooth_position: [{ tooth_position: z.enum(TOOTH_POSITIONS) }],
  tooth_type: [{ tooth_type: oneOrMany(z.enum(TOOTH_TYPES)) }],
  unit_count: [{ min_units: Units.optional(), max_units: Units.optional() }, range("min_units", "max_units")],
};

function simple(type: SimpleType, tagged: boolean) {
  const [shape, refine] = SHAPES[type];
  const s = z.strictObject(tagged ? { selection_type: z.literal(type), ...shape } : shape);
  return refine ? s.superRefine(refine as (v: unknown, c: z.RefinementCtx) => void) : s;
}

// selection_type is checked first so a missing or unknown one gets a precise error (no nesting of combined)
const SubCondition = z
  .looseObject({ selection_type: z.enum(SIMPLE_TYPES) })
  .pipe(z.discriminatedUnion("selection_type", SIMPLE_TYPES.map((t) => simple(t, true)) as never));

const CONDITION_SCHEMAS = {
  ...Object.fromEntries(SIMPLE_TYPES.map((t) => [t, simple(t, false)])),
  combined: z.strictObject({ all: z.array(SubCondition).min(2).max(10) }),
} as unknown as Record<SelectionType, z.ZodType<Conditions>>;

export type Conditions = Record<string, any>;

/** The conditions as the family's selection_type wants them; 422 invalid_conditions (loc under body.conditions) otherwise. */
export function parseConditions(type: SelectionType, value: unknown): Conditions {
  const r = CONDITION_SCHEMAS[type].safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues.flatMap((i) => unwrapUnion(i, value)).map((i) => ({ ...i, path: ["conditions", ...i.path] }));
  throw new ValidationFailed(issuesToDetail("body", issues as never, new Set(), { conditions: value }), "invalid_conditions");
}

type Issue = z.core.$ZodIssue;
/** A one-or-many field that fails both ways: report the branch for the value's own kind (an enum miss, not "no shape matched"). */
function unwrapUnion(issue: Issue, root: unknown): Issue[] {
  if (issue.code !== "invalid_union") return [issue];
  const value = issue.path.reduce<unknown>((v, k) => (v as Record<PropertyKey, unknown> | undefined)?.[k], root);
  const wrongKind = (i: Issue) => i.path.length === 0 && (i.code === "invalid_type" || (Array.isArray(value) && i.code === "invalid_value"));
  const branch = issue.errors.find((b) => !b.some(wrongKind));
  return branch ? branch.map((i) => ({ ...i, path: [...issue.path, ...i.path] })) : [issue];
}

/** A rule "needs material_family" when it (or one of its combined parts) is a material condition. */
export const needsMaterial = (c: Conditions) =>
  "material_family" in c || (Array.isArray(c.all) && c.all.some((s: Conditions) => s?.selection_type === "material"));

/** What the rules compare, derived from the resolve context. */
export type Facts = Partial<{
  patient_age: number;
  arch: Arch;
  dentition: Dentition;
  tooth_type: ToothType;
  tooth_position: ToothPosition;
  material_family: MaterialFamily;
  surface_count: number;
  unit_count: number;
}>;

export type Context = { tooth?: string | number; surfaces?: string; patient_age?: number; material_family?: MaterialFamily; unit_count?: number; arch?: Arch };

export function factsOf(ctx: Context): Facts {
  const tooth = ctx.tooth === undefined ? null : toothOf(ctx.tooth);
  return {
    patient_age: ctx.patient_age,
    material_family: ctx.material_family,
    unit_count: ctx.unit_count,
    surface_count: ctx.surfaces === undefined ? undefined : new Set(ctx.surfaces.toUpperCase()).size,
    arch: tooth?.arch ?? ctx.arch,
    dentition: tooth?.dentition,
    tooth_type: tooth?.tooth_type,
    tooth_position: tooth?.tooth_position,
  };
}

// Which fact each condition compares, and the context field a client sends for it.
const NEEDS: Record<SimpleType, [keyof Facts, string]> = {
  age: ["patient_age", "patient_age"],
  arch: ["arch", "tooth"],
  dentition: ["dentition", "tooth"],
  material: ["material_family", "material_family"],
  surface_count: ["surface_count", "surfaces"],
  tooth_position: ["tooth_position", "tooth"],
  tooth_type: ["tooth_type", "tooth"],
  unit_count: ["unit_count", "unit_count"],
};

const within = (v: number, lo?: number, hi?: number) => (lo === undefined || v >= lo) && (hi === undefined || v <= hi);
const oneOf = (v: unknown, want: unknown) => (Array.isArray(want) ? want.includes(v) : want === v);

/**
 * Whether the facts satisfy a rule's conditions. A condition whose fact is
 * absent does not match, and the context field it needed goes into `missing`.
 */
export function matches(type: SelectionType, c: Conditions, facts: Facts, missing: Set<string>): boolean {
  if (type === "combined") return (c.all as Conditions[]).map((s) => matches(s.selection_type, s, facts, missing)).every(Boolean);
  const [fact, input] = NEEDS[type];
  const v = facts[fact];
  if (v === undefined) {
    missing.add(input);
    return false;
  }
  switch (type) {
    case "age":
      return within(v as number, c.min_age, c.max_age);
    case "arch":
      return v === c.arch;
    case "dentition":
      return v === c.dentition;
    case "material":
      return oneOf(v, c.material_family);
    case "surface_count":
      return c.count !== undefined ? v === c.count : within(v as number, c.min_count, c.max_count);
    case "tooth_position":
      return v === c.tooth_position;
    case "tooth_type":
      return oneOf(v, c.tooth_type);
    case "unit_count":
      return within(v as number, c.min_units, c.max_units);
  }
}
