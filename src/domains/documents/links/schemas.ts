import { z } from "zod";
import { BaseVersionQuery, RecordMeta, Uuid } from "@/platform/records/fields";
import { LINK_TARGET_TYPES } from "@/domains/documents/schemas";

// Links from a document to other records of the org (docs/documents/document-signatures-and-links.md).

export type LinkTargetType = (typeof LINK_TARGET_TYPES)[number];

export const DocumentLink = z
  .object({
    ...RecordMeta,
    document_uuid: z.string(),
    target_type: z.enum(LINK_TARGET_TYPES),
    target_uuid: z.string(),
    target_name: z
      .string()
      .nullable()
      .describe(
        "A readable name of the target: a patient's \"First Last\", an appointment's scheduled_start, a treatment plan's name, a charted procedure's procedure_code; null for insurance drafts",
      ),
    note: z.string().nullable(),
    created_by: z.string().nullable().describe("The id of the user who made the link (null: a background job)"),
  })
  .meta({ id: "DocumentLink" });
export type DocumentLink = z.infer<typeof DocumentLink>;

export const DocumentLinkList = z.object({ items: z.array(DocumentLink).describe("The live links, oldest first") }).meta({ id: "DocumentLinkList" });
export type DocumentLinkList = z.infer<typeof DocumentLinkList>;

export const DocumentLinkCreate = z.strictObject({
  target_type: z.enum(LINK_TARGET_TYPES),
  target_uuid: Uuid.describe("A live record of this org of target_type"),
  note: z.string().trim().max(1000).nullable().optional().describe("Why the document belongs to the target (at most 1000 characters)"),
});
export type DocumentLinkCreate = z.infer<typeof DocumentLinkCreate>;

export const DocumentLinkDeleteQuery = z.strictObject({ base_version: BaseVersionQuery });
export type DocumentLinkDeleteQuery = z.infer<typeof DocumentLinkDeleteQuery>;
