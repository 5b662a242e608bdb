import { z } from "zod";
import { BaseVersion, DateTime, QueryBool, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

const editable = {
  name: z.string().trim().min(1).max(100).describe("Unique among active tag definitions (ignoring case)"),
  color: z
    .string()
    .regex(/^#[0-9a-fA-F]{6}$/, "Must be a hex colour like #1a2b3c")
    .nullable()
    .describe("Hex colour, #RRGGBB"),
  description: z.string().trim().max(500).nullable(),
};

export const TagDefinitionCreate = z.strictObject({
  name: editable.name,
  color: editable.color.optional(),
  description: editable.description.optional(),
});
export type TagDefinitionCreate = z.infer<typeof TagDefinitionCreate>;

export const TagDefinitionPatch = z.strictObject({ base_version: BaseVersion, ...z.object(editable).partial().shape });
export type TagDefinitionPatch = z.infer<typeof TagDefinitionPatch>;

export const TagDefinition = z
  .object({
    ...RecordMeta,
    name: z.string(),
    color: z.string().nullable(),
    description: z.string().nullable(),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "TagDefinition" });
export type TagDefinition = z.infer<typeof TagDefinition>;

export const TagDefinitionListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  search: z.string().trim().max(100).optional().describe("Case-insensitive substring of the name"),
  include_archived: QueryBool.optional().describe("Also list archived definitions (default false)"),
});
export type TagDefinitionListQuery = z.infer<typeof TagDefinitionListQuery>;

export const PatientTagAdd = z.strictObject({ tag_definition_uuid: Uuid });
export type PatientTagAdd = z.infer<typeof PatientTagAdd>;

export const PatientTag = z
  .object({
    tag_definition: Ref,
    color: z.string().nullable(),
    tag_archived: z.boolean().describe("The definition was archived after the tag was added; the tag stays until removed"),
    tagged_at: DateTime,
  })
  .meta({ id: "PatientTag" });
export type PatientTag = z.infer<typeof PatientTag>;

export const PatientTagListQuery = z.strictObject({ ...pagingQuery(50, 200) });
