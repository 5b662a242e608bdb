import { z } from "zod";
import { BaseVersion, DateTime, RecordMeta, Ref } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { CODE_STATUSES } from "@/domains/codes/procedure-codes/schemas";
import { TREATMENT_AREAS } from "@db/tenant/codes";
import { Surfaces, ToothNumber } from "@/domains/codes/dental-vocabulary";
import { Condition, ExplodeContext } from "./conditions";

const Conditions = z.array(Condition).max(20).describe("Every condition must hold (AND); [] always holds");

const EntryInput = z.strictObject({
  procedure_code: z
    .string()
    .trim()
    .min(1)
    .max(15)
    .transform((c) => c.toUpperCase())
    .describe("A code of this org's catalogue that is not archived (404 otherwise)"),
  quantity: z.number().int().min(1).max(99).optional().describe("Default 1"),
  tooth_number: ToothNumber.explosion.nullable().optional().describe("A fixed tooth; otherwise the context's tooth is used for tooth and surface codes"),
  surfaces: Surfaces.explosion.nullable().optional().describe("Fixed surfaces (surface codes only); otherwise the context's"),
  conditions: Conditions.optional().describe("When the entry applies; default [] (always)"),
});

const fields = {
  name: z.string().trim().min(1).max(100),
  description: z.string().trim().max(1000).nullable(),
  conditions: Conditions.describe("When the explosion code applies at all; default []"),
  entries: z.array(EntryInput).max(50).describe("The procedures it expands to, in order; default []"),
};

export const ExplosionCodeCreate = z
  .strictObject({
    name: fields.name,
    description: fields.description.optional(),
    conditions: fields.conditions.optional(),
    entries: fields.entries.optional(),
  })
  .meta({ readOnly: ["status"] });
export type ExplosionCodeCreate = z.infer<typeof ExplosionCodeCreate>;
export type EntryInput = z.infer<typeof EntryInput>;

export const ExplosionCodePatch = z.strictObject({
  base_version: BaseVersion,
  ...z.object(fields).partial().shape,
  status: z.enum(CODE_STATUSES).optional().describe("Inactive codes cannot be exploded (422)"),
});
export type ExplosionCodePatch = z.infer<typeof ExplosionCodePatch>;

const Entry = z.object({
  procedure_code: z.string().describe("The code as it is now (renaming a code follows it)"),
  procedure_code_ref: Ref.describe("uuid of the procedure code; name is its short_name"),
  quantity: z.number().int(),
  tooth_number: z.string().nullable(),
  surfaces: z.string().nullable(),
  conditions: z.array(Condition),
});

export const ExplosionCode = z
  .object({
    ...RecordMeta,
    name: z.string(),
    description: z.string().nullable(),
    conditions: z.array(Condition),
    entries: z.array(Entry),
    status: z.enum(CODE_STATUSES),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "ExplosionCode" });
export type ExplosionCode = z.infer<typeof ExplosionCode>;

export const ExplosionCodeListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  search: z.string().trim().min(1).max(100).optional().describe("Case-insensitive substring of the name or description"),
  status: z.enum(CODE_STATUSES).optional().describe("Omitted: active and inactive"),
});
export type ExplosionCodeListQuery = z.infer<typeof ExplosionCodeListQuery>;

export const ExplodeRequest = z.strictObject({ context: ExplodeContext });
export type ExplodeRequest = z.infer<typeof ExplodeRequest>;

export const ExplodedProcedure = z.object({
  entry_index: z.number().int().describe("Position of the entry in the explosion code's entries"),
  procedure_code: z.string(),
  procedure_code_uuid: z.string(),
  short_name: z.string(),
  treatment_area: z.enum(TREATMENT_AREAS),
  default_fee: z.string(),
  quantity: z.number().int(),
  tooth_number: z.string().nullable().describe("Tooth and surface codes: the entry's tooth, else the context's"),
  surfaces: z.string().nullable().describe("Surface codes: the entry's surfaces, else the context's"),
  arch: z.string().nullable().describe("Arch codes: the context's arch"),
  quadrant: z.string().nullable().describe("Quadrant codes: the context's quadrant"),
});

export const Explosion = z
  .object({
    explosion_code: Ref,
    applies: z.boolean().describe("False when the code's own conditions do not hold; procedures is then empty"),
    unmet_conditions: z.array(Condition).describe("The code's own conditions that did not hold (a fact missing from the context holds no condition)"),
    procedures: z.array(ExplodedProcedure),
  })
  .meta({ id: "Explosion" });
export type Explosion = z.infer<typeof Explosion>;
