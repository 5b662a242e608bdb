import { z } from "zod";
import { DateTime, QueryBool, RecordMeta, Ref } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

export const FIELD_TYPES = ["text", "number", "date", "boolean", "pick_list"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

const option = z.string().trim().min(1).max(100);

export const FieldDefinitionCreate = z
  .strictObject({
    name: z.string().trim().min(1).max(100).describe("Unique among active definitions (ignoring case)"),
    field_type: z.enum(FIELD_TYPES).describe("Immutable: values are checked against it"),
    pick_list_options: z
      .array(option)
      .min(1)
      .max(100)
      .optional()
      .describe("Required for pick_list (1-100 distinct options, ignoring case); not allowed for other types"),
    is_required: z.boolean().optional().describe("Default false. A required field's value can be changed but not cleared"),
    item_order: z.number().int().min(0).max(10_000).optional().describe("Display order, ascending (default 0)"),
    description: z.string().trim().max(500).nullable().optional(),
  })
  .superRefine((v, c) => {
    if (v.field_type === "pick_list" && !v.pick_list_options)
      c.addIssue({ code: "custom", path: ["pick_list_options"], message: "Required for a pick_list field" });
    if (v.field_type !== "pick_list" && v.pick_list_options)
      c.addIssue({ code: "custom", path: ["pick_list_options"], message: "Only a pick_list field has options" });
    const lower = (v.pick_list_options ?? []).map((o) => o.toLowerCase());
    if (new Set(lower).size !== lower.length) c.addIssue({ code: "custom", path: ["pick_list_options"], message: "Options must be distinct" });
  });
export type FieldDefinitionCreate = z.infer<typeof FieldDefinitionCreate>;

export const FieldDefinition = z
  .object({
    ...RecordMeta,
    name: z.string(),
    field_type: z.enum(FIELD_TYPES),
    pick_list_options: z.array(z.string()).nullable(),
    is_required: z.boolean(),
    item_order: z.number().int(),
    description: z.string().nullable(),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "PatientFieldDefinition" });
export type FieldDefinition = z.infer<typeof FieldDefinition>;

export const FieldDefinitionListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  field_type: z.enum(FIELD_TYPES).optional(),
  include_archived: QueryBool.optional().describe("Also list archived definitions (default false)"),
});
export type FieldDefinitionListQuery = z.infer<typeof FieldDefinitionListQuery>;

const FieldValueData = z.union([z.string(), z.number(), z.boolean()]);

// `value` is checked against the definition's type by the service (the type is
// only known there); here it only has to be present.
export const FieldValueSet = z
  .strictObject({
    value: z
      .unknown()
      .describe(
        "text: a string (1-4000 characters); number: a number; date: YYYY-MM-DD; boolean: true or false; pick_list: one of the options (exact spelling). Use DELETE to clear",
      ),
  })
  .superRefine((v, c) => {
    if (v.value === undefined) c.addIssue({ code: "invalid_type", expected: "string", path: ["value"], input: undefined });
  });
export type FieldValueSet = z.infer<typeof FieldValueSet>;

export const FieldValue = z
  .object({
    ...RecordMeta,
    field_definition: Ref,
    field_type: z.enum(FIELD_TYPES),
    value: FieldValueData,
  })
  .meta({ id: "PatientFieldValue" });
export type FieldValue = z.infer<typeof FieldValue>;

export const FieldValueListQuery = z.strictObject({ ...pagingQuery(100, 200) });
