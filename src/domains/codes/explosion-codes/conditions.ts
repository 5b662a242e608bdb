import { z } from "zod";
import { invalid } from "@/platform/errors";
import type { CodeCondition } from "@db/tenant/codes";
import { ARCHES, DENTITIONS, TOOTH_GROUPS, UNIVERSAL_TEETH, type ToothGroup } from "@db/tenant/dental-vocabulary";
import { Surfaces, ToothNumber, toothOf } from "@/domains/codes/dental-vocabulary";

// The condition language of explosion codes (docs/codes/codes.md): a condition tests
// one fact of the charting context, `{field, op, value}`; a list of conditions
// holds when every one holds. Facts derived from the tooth (arch, quadrant,
// tooth_type, dentition) and from the surfaces (surface_count) are filled in.

/** In this order: a tooth's quadrant is found by its index (toothFacts). */
const QUADRANTS = ["UR", "UL", "LL", "LR"] as const;

type FieldSpec = { kind: "number"; min: number; max: number } | { kind: "enum"; values: readonly string[] };
export const CONDITION_FIELDS = {
  patient_age: { kind: "number", min: 0, max: 150 },
  surface_count: { kind: "number", min: 0, max: 6 },
  tooth_number: { kind: "enum", values: UNIVERSAL_TEETH },
  tooth_type: { kind: "enum", values: TOOTH_GROUPS },
  arch: { kind: "enum", values: ARCHES },
  quadrant: { kind: "enum", values: QUADRANTS },
  dentition: { kind: "enum", values: DENTITIONS },
} as const satisfies Record<string, FieldSpec>;
export type ConditionField = keyof typeof CONDITION_FIELDS;
const FIELD_NAMES = Object.keys(CONDITION_FIELDS) as [ConditionField, ...ConditionField[]];

export const CONDITION_OPS = ["eq", "ne", "lt", "lte", "gt", "gte", "in", "not_in"] as const;
type Op = (typeof CONDITION_OPS)[number];
const NUMERIC_OPS: readonly Op[] = ["lt", "lte", "gt", "gte"];
const LIST_OPS: readonly Op[] = ["in", "not_in"];

const fits = (spec: FieldSpec, v: unknown) =>
  spec.kind === "number" ? typeof v === "number" && Number.isInteger(v) && v >= spec.min && v <= spec.max : typeof v === "string" && spec.values.includes(v);

/** Why a condition is malformed, as [the key at fault, message], or null when it is well formed. */
export function conditionProblem(c: { field: ConditionField; op: Op; value: unknown }): [string, string] | null {
  const spec: FieldSpec = CONDITION_FIELDS[c.field];
  if (NUMERIC_OPS.includes(c.op) && spec.kind !== "number") return ["op", `${c.op} compares numbers: use it with patient_age or surface_count`];
  const expected = spec.kind === "number" ? `an integer ${spec.min}-${spec.max}` : `one of ${spec.values.join(", ")}`;
  if (LIST_OPS.includes(c.op)) {
    if (!Array.isArray(c.value) || c.value.length === 0 || c.value.length > 50) return ["value", `${c.op} needs a list of 1-50 values, each ${expected}`];
    return c.value.every((v) => fits(spec, v)) ? null : ["value", `Each value must be ${expected}`];
  }
  return fits(spec, c.value) ? null : ["value", `Must be ${expected}`];
}

export const Condition = z
  .strictObject({
    field: z.enum(FIELD_NAMES).describe("The context fact tested"),
    op: z.enum(CONDITION_OPS).describe("lt/lte/gt/gte for numeric fields only; in/not_in take a list"),
    value: z.union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))]),
  })
  .superRefine((c, ctx) => {
    const problem = conditionProblem(c);
    if (problem) ctx.addIssue({ code: "custom", path: [problem[0]], message: problem[1] });
  })
  .meta({ id: "CodeCondition" });
export type Condition = z.infer<typeof Condition>;

/** The charting context an explosion code is expanded for. */
export const ExplodeContext = z
  .strictObject({
    patient_age: z.number().int().min(0).max(150).optional(),
    tooth_number: ToothNumber.explosion.optional(),
    surfaces: Surfaces.explosion.optional(),
    tooth_type: z.enum(TOOTH_GROUPS).optional().describe("Derived from tooth_number when it is given (must agree)"),
    arch: z.enum(ARCHES).optional().describe("Derived from tooth_number when it is given (must agree)"),
    quadrant: z.enum(QUADRANTS).optional().describe("Derived from tooth_number when it is given (must agree)"),
    dentition: z.enum(DENTITIONS).optional().describe("Derived from tooth_number when it is given (must agree)"),
  })
  .meta({ id: "ExplodeContext" });
export type ExplodeContext = z.infer<typeof ExplodeContext>;
export type Facts = Partial<Record<ConditionField, string | number>>;

/** What a tooth number says about the tooth: arch, quadrant, type (anterior, premolar or molar) and dentition. */
export function toothFacts(tooth: string) {
  const t = toothOf(tooth)!;
  const i = t.dentition === "permanent" ? Number(t.tooth) - 1 : t.tooth.charCodeAt(0) - 65; // 0-31, A = 0 ... T = 19
  return {
    arch: t.arch,
    quadrant: QUADRANTS[Math.floor(i / (t.dentition === "permanent" ? 8 : 5))]!,
    tooth_type: (t.tooth_position === "anterior" ? "anterior" : t.tooth_type) as ToothGroup,
    dentition: t.dentition,
  };
}

/** The facts of a context, derived ones filled in; 422 when a given fact contradicts the tooth. */
export function factsOf(context: ExplodeContext): Facts {
  const { surfaces, ...facts } = context;
  const out: Facts = { ...facts };
  if (surfaces) out.surface_count = surfaces.length;
  if (context.tooth_number) {
    for (const [field, derived] of Object.entries(toothFacts(context.tooth_number)) as [ConditionField, string][]) {
      if (out[field] !== undefined && out[field] !== derived) {
        throw invalid(["body", "context", field], `Does not match tooth_number (${derived})`, "value_error", "context_mismatch");
      }
      out[field] = derived;
    }
  }
  return out;
}

/** True when the condition holds for the facts; a fact the context lacks satisfies no condition. */
export function holds(c: CodeCondition, facts: Facts): boolean {
  const actual = facts[c.field as ConditionField];
  if (actual === undefined) return false;
  const v = c.value;
  switch (c.op as Op) {
    case "eq":
      return actual === v;
    case "ne":
      return actual !== v;
    case "lt":
      return (actual as number) < (v as number);
    case "lte":
      return (actual as number) <= (v as number);
    case "gt":
      return (actual as number) > (v as number);
    case "gte":
      return (actual as number) >= (v as number);
    case "in":
      return (v as unknown[]).includes(actual);
    case "not_in":
      return !(v as unknown[]).includes(actual);
  }
}

export const allHold = (conditions: CodeCondition[], facts: Facts) => conditions.every((c) => holds(c, facts));
