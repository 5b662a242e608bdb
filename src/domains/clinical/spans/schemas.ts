import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { ProcedureStatus } from "@/domains/codes/dental-vocabulary";

export const SPAN_STATUSES = ["active", "completed"] as const;
export const MEMBER_ROLES = ["abutment", "pontic", "retainer", "connector", "other"] as const;

const MemberInput = z.strictObject({
  procedure_uuid: Uuid.describe("A charted procedure of the same patient, not deleted and in no other span"),
  role: z.enum(MEMBER_ROLES),
  position: z.number().int().min(1).max(100).optional().describe("Order along the span, unique within it; default the member's place in the list (1-based)"),
});

export const SpanCreate = z
  .strictObject({
    members: z.array(MemberInput).min(2).max(32).describe("At least two procedures, e.g. a bridge 3-5: abutment on 3, pontic on 4, abutment on 5"),
    note: z.string().max(2000).optional(),
    status: z.enum(SPAN_STATUSES).optional().describe("Default active"),
    span_definition_uuid: Uuid.nullable().optional().describe("Stored as given: there is no span definitions catalogue yet (its name is null)"),
  })
  .meta({ readOnly: ["id", "version", "created_at", "updated_at", "deleted_at", "patient", "span_definition"] });
export type SpanCreate = z.infer<typeof SpanCreate>;

export const SpanPatch = z
  .strictObject({
    base_version: BaseVersion,
    note: z.string().max(2000).optional(),
    status: z.enum(SPAN_STATUSES).optional(),
  })
  .meta({ readOnly: ["id", "version", "created_at", "updated_at", "deleted_at", "patient", "members", "span_definition"] });
export type SpanPatch = z.infer<typeof SpanPatch>;

export const SpanMember = z
  .object({
    charted_procedure: Ref.describe('name: the code and where, e.g. "D6240 #4"'),
    role: z.enum(MEMBER_ROLES),
    position: z.number().int(),
    tooth_number: z.string().nullable(),
    procedure_status: ProcedureStatus,
  })
  .meta({ id: "ProcedureSpanMember" });
export type SpanMember = z.infer<typeof SpanMember>;

export const ProcedureSpan = z
  .object({
    ...RecordMeta,
    patient: Ref,
    members: z.array(SpanMember).describe("Ordered by position"),
    note: z.string(),
    status: z.enum(SPAN_STATUSES),
    span_definition: Ref.nullable(),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "ProcedureSpan" });
export type ProcedureSpan = z.infer<typeof ProcedureSpan>;

export const SpanMembers = z.object({ items: z.array(SpanMember), total: z.number().int() });

export const SpanCascadeResult = z.object({
  span_uuid: z.string(),
  deleted_procedure_uuids: z.array(z.string()).describe("Member procedures that were not completed: soft-deleted"),
  preserved_procedure_uuids: z.array(z.string()).describe("complete and complete_referred members: kept as standalone records"),
});

export const SpanListQuery = z.strictObject({ ...pagingQuery(50, 200), status: z.enum(SPAN_STATUSES).optional() });
export type SpanListQuery = z.infer<typeof SpanListQuery>;

export const SpanDeleteQuery = z.strictObject({ base_version: BaseVersionQuery });
