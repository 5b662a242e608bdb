import { z } from "zod";
import { BaseVersion, DateTime, QueryBool, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { ArchValue, Material } from "./conditions";
import { SELECTION_TYPES } from "@db/tenant/auto-codes";
import { Surfaces, toothOf, ToothNumber } from "@/domains/codes/dental-vocabulary";

export const ProcedureCode = z
  .string()
  .trim()
  .min(1)
  .max(20)
  .regex(/^[A-Za-z0-9][A-Za-z0-9.-]*$/, "Must be a procedure code such as D2391 (letters, digits, '.' or '-')")
  .transform((c) => c.toUpperCase())
  .describe("A procedure code string (e.g. CDT D2391); stored upper case, not checked against the catalogue");

const SelectionType = z.enum(SELECTION_TYPES).describe("What the family's rules compare; fixes the shape of their conditions (immutable)");
const FamilyName = z.string().trim().min(1).max(100).describe("Unique key among live families, ignoring case; immutable");

const familyEditable = {
  display_name: z.string().trim().min(1).max(200),
  description: z.string().trim().max(2000).nullable(),
  base_procedure_code: ProcedureCode.nullable().describe("Answer of resolve when no rule matches; null: no fallback"),
  is_active: z.boolean().describe("An inactive family evaluates no rules: resolve answers its base code only"),
};

export const AutoCodeFamilyCreate = z
  .strictObject({
    family_name: FamilyName,
    display_name: familyEditable.display_name,
    selection_type: SelectionType,
    description: familyEditable.description.optional(),
    base_procedure_code: familyEditable.base_procedure_code.optional(),
    is_active: familyEditable.is_active.optional().describe("Default true"),
  })
  .meta({ readOnly: ["requires_material_family"] });
export type AutoCodeFamilyCreate = z.infer<typeof AutoCodeFamilyCreate>;

export const AutoCodeFamilyPatch = z
  .strictObject({ base_version: BaseVersion, ...z.object(familyEditable).partial().shape })
  .meta({ readOnly: ["family_name", "selection_type", "requires_material_family"] });
export type AutoCodeFamilyPatch = z.infer<typeof AutoCodeFamilyPatch>;

export const AutoCodeFamily = z
  .object({
    ...RecordMeta,
    family_name: z.string(),
    display_name: z.string(),
    description: z.string().nullable(),
    base_procedure_code: z.string().nullable(),
    is_active: z.boolean(),
    requires_material_family: z.boolean().describe("Derived: true when an active rule needs material_family in the resolve context"),
    selection_type: SelectionType,
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "AutoCodeFamily" });
export type AutoCodeFamily = z.infer<typeof AutoCodeFamily>;

export const AutoCodeFamilyListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  is_active: QueryBool.optional(),
  selection_type: SelectionType.optional(),
  search: z.string().trim().max(200).optional().describe("Case-insensitive substring of family_name or display_name"),
});
export type AutoCodeFamilyListQuery = z.infer<typeof AutoCodeFamilyListQuery>;

const Conditions = z
  .record(z.string(), z.unknown())
  .describe("Shape depends on the family's selection_type (docs/odontogram/auto-codes.md); 422 invalid_conditions otherwise");
const Priority = z.number().int().min(-10_000).max(10_000).describe("Higher is checked first; ties in creation order");

export const AutoCodeRuleCreate = z
  .strictObject({
    conditions: Conditions,
    procedure_code: ProcedureCode,
    priority: Priority.optional().describe("Default 0"),
    is_active: z.boolean().optional().describe("Default true"),
  })
  .meta({ readOnly: ["family", "family_uuid"] });
export type AutoCodeRuleCreate = z.infer<typeof AutoCodeRuleCreate>;

export const AutoCodeRulePatch = z
  .strictObject({
    base_version: BaseVersion,
    conditions: Conditions.optional(),
    procedure_code: ProcedureCode.optional(),
    priority: Priority.optional(),
    is_active: z.boolean().optional(),
  })
  .meta({ readOnly: ["family", "family_uuid"] });
export type AutoCodeRulePatch = z.infer<typeof AutoCodeRulePatch>;

export const AutoCodeRule = z
  .object({
    ...RecordMeta,
    family: Ref.describe("The family; name is its display_name"),
    conditions: z.record(z.string(), z.unknown()),
    priority: z.number().int(),
    procedure_code: z.string(),
    is_active: z.boolean(),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "AutoCodeRule" });
export type AutoCodeRule = z.infer<typeof AutoCodeRule>;

export const AutoCodeRuleListQuery = z.strictObject({ ...pagingQuery(50, 200), is_active: QueryBool.optional() });
export type AutoCodeRuleListQuery = z.infer<typeof AutoCodeRuleListQuery>;

export const ResolveContext = z
  .strictObject({
    tooth: ToothNumber.autoCode.optional(),
    surfaces: Surfaces.autoCode.optional().describe("Surfaces, e.g. MOD; surface_count is the number of letters"),
    patient_age: z.number().int().min(0).max(130).optional().describe("Age in whole years"),
    material_family: Material.optional(),
    unit_count: z.number().int().min(1).max(32).optional().describe("Units of a multi-unit procedure (bridge, splint)"),
    arch: ArchValue.optional().describe("For procedures without a tooth (dentures); must agree with the tooth when both are sent"),
  })
  .superRefine((v, c) => {
    const tooth = v.tooth === undefined ? null : toothOf(v.tooth);
    if (tooth && v.arch && tooth.arch !== v.arch) c.addIssue({ code: "custom", path: ["arch"], message: "Does not match the tooth's arch" });
  });

export const ResolveRequest = z
  .strictObject({
    family_uuid: Uuid.optional(),
    family_name: z.string().trim().min(1).max(100).optional().describe("Matched ignoring case"),
    context: ResolveContext,
  })
  .superRefine((v, c) => {
    if ((v.family_uuid === undefined) === (v.family_name === undefined)) {
      c.addIssue({ code: "custom", path: [], message: "Name the family with exactly one of family_uuid or family_name" });
    }
  });
export type ResolveRequest = z.infer<typeof ResolveRequest>;

export const ResolveResult = z
  .object({
    procedure_code: z.string().nullable().describe("The code to chart; null when no rule matched and the family has no base code"),
    matched: z.boolean().describe("True when a rule matched"),
    source: z.enum(["rule", "base", "none"]).describe("rule: a rule matched; base: the family's base_procedure_code; none: nothing"),
    rule_uuid: z.string().nullable(),
    family_uuid: z.string(),
    family_name: z.string(),
    missing_context: z.array(z.string()).describe("Context fields that rules checked before the answer needed but did not get (e.g. material_family)"),
  })
  .meta({ id: "AutoCodeResolution" });
export type ResolveResult = z.infer<typeof ResolveResult>;
