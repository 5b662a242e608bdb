import { z } from "zod";
import { BaseVersion, BaseVersionQuery, DateTime, QueryBool, RecordMeta, Ref, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";
import { FilterDefinition } from "@/domains/revenue/filters/schemas";
import { SCOPES } from "@/domains/revenue/fields/registry";
import { ExecuteResult } from "@/domains/revenue/query/schemas";
import { PRESET_KEYS } from "@/domains/revenue/presets/catalog";

export const LIST_TYPES = ["dynamic", "preset", "static"] as const;
export type ListType = (typeof LIST_TYPES)[number];
export type ListScope = (typeof SCOPES)[number];

/** Members one request may add to a static list. */
export const MAX_MEMBERS_PER_REQUEST = 500;

const name = z.string().trim().min(1).max(200);
const description = z.string().trim().max(2000).nullable();
const tags = z
  .array(z.string().trim().min(1).max(50))
  .max(20)
  .transform((v) => [...new Set(v)])
  .describe("Free labels of the list (at most 20, each 1-50 characters; repeats dropped)");
const sortOrder = z.number().int().min(0).max(100_000).describe("Where the list sits among the caller's lists (ascending); default 0");
const scope = z.enum(SCOPES).describe("personal: only its owner sees it (others get 404); organization and location: every revenue.read member");
const scopeLocation = Uuid.describe("Required when scope is location (422 otherwise; 404 for an unknown or archived location); not allowed for other scopes");

// derived and fixed fields: sending them is 422 read_only, never silently written
const derived = [
  "owner",
  "scope_location",
  "preset_key",
  "last_executed_at",
  "last_result_count",
  "needs_review",
  "review_reason",
  "source_version",
  "base_version",
];

export const SmartListCreate = z
  .strictObject({
    name,
    list_type: z.enum(["dynamic", "static"]).describe("preset lists are made only by POST /lists/from-preset (422 here)"),
    scope,
    scope_location_uuid: scopeLocation.optional(),
    description: description.optional(),
    filter_definition: FilterDefinition.optional().describe("Required for dynamic lists (422 without); not taken by static lists (422)"),
    is_pinned: z.boolean().default(false),
    sort_order: sortOrder.default(0),
    tags: tags.default([]),
  })
  .meta({ readOnly: derived });
export type SmartListCreate = z.infer<typeof SmartListCreate>;

export const SmartListFromPreset = z
  .strictObject({
    preset_key: z.enum(PRESET_KEYS).describe("A key of GET /presets"),
    name: name.optional().describe("Default: the preset's name"),
    scope,
    scope_location_uuid: scopeLocation.optional(),
    description: description.optional().describe("Default: the preset's description"),
    is_pinned: z.boolean().default(false),
    sort_order: sortOrder.default(0),
    tags: tags.default([]),
  })
  .meta({ readOnly: [...derived, "list_type", "filter_definition"] });
export type SmartListFromPreset = z.infer<typeof SmartListFromPreset>;

export const SmartListPatch = z
  .strictObject({
    base_version: BaseVersion,
    name: name.optional(),
    description: description.optional(),
    filter_definition: FilterDefinition.optional().describe("Dynamic and preset lists only (422 for a static list); clears needs_review"),
    is_pinned: z.boolean().optional(),
    sort_order: sortOrder.optional(),
    tags: tags.optional(),
  })
  .meta({ readOnly: [...derived.filter((f) => f !== "base_version"), "list_type", "scope", "scope_location_uuid", "preset_key"] });
export type SmartListPatch = z.infer<typeof SmartListPatch>;

export const SmartListListQuery = z.strictObject({
  scope: z.enum(SCOPES).optional(),
  list_type: z.enum(LIST_TYPES).optional(),
  search: z.string().trim().min(1).max(200).optional().describe("Case-insensitive part of the name"),
  is_pinned: QueryBool.optional(),
  ...pagingQuery(25, 100),
});
export type SmartListListQuery = z.infer<typeof SmartListListQuery>;

export const ArchiveQuery = z.strictObject({ base_version: BaseVersionQuery });
export type ArchiveQuery = z.infer<typeof ArchiveQuery>;

export const SmartList = z
  .object({
    ...RecordMeta,
    name: z.string(),
    list_type: z.enum(LIST_TYPES),
    scope: z.enum(SCOPES),
    owner: Ref.describe("The user who created the list (name as it was then)"),
    scope_location: Ref.nullable(),
    description: z.string().nullable(),
    filter_definition: z.record(z.string(), z.unknown()).nullable().describe("As saved (null for static lists); see FilterDefinition"),
    is_pinned: z.boolean(),
    sort_order: z.number().int(),
    tags: z.array(z.string()),
    preset_key: z.string().nullable(),
    last_executed_at: DateTime.nullable(),
    last_result_count: z.number().int().nullable(),
    source_version: z.number().int().nullable().describe("The field registry's source_version the filter was saved against"),
    needs_review: z.boolean().describe("Set by the daily drift check when the saved filter no longer compiles against the registry"),
    review_reason: z.string().nullable(),
    base_version: z.number().int().describe("Equal to version: send it back as base_version"),
    deleted_at: DateTime.nullable(),
  })
  .meta({ id: "SmartList" });
export type SmartList = z.infer<typeof SmartList>;

export const RunListRequest = z.strictObject({
  page: z.number().int().min(1).max(100_000).default(1),
  page_size: z.number().int().min(1).max(200).default(50),
  sort_by: z.string().max(100).default("last_name").describe("A sortable field of GET /fields (422 otherwise); ties by id"),
  sort_dir: z.enum(["asc", "desc"]).default("asc"),
});
export type RunListRequest = z.infer<typeof RunListRequest>;

export const RunListResult = ExecuteResult.extend({ list_uuid: z.string(), last_executed_at: DateTime });
export const CountListResult = z.object({
  list_uuid: z.string(),
  count: z.number().int(),
  execution_time_ms: z.number(),
  source_snapshot_version: z.number().int(),
  last_executed_at: DateTime,
});

export const MembersQuery = z.strictObject({ ...pagingQuery(50, 200) });
export type MembersQuery = z.infer<typeof MembersQuery>;
export const ListMember = z.object({ patient: Ref, added_at: DateTime });
export const MembersAdd = z.strictObject({
  patient_uuids: z
    .array(Uuid)
    .min(1)
    .max(MAX_MEMBERS_PER_REQUEST)
    .describe(`1 to ${MAX_MEMBERS_PER_REQUEST} live patients of this org (404 for any other); members already in the list and repeats are ignored`),
});
export type MembersAdd = z.infer<typeof MembersAdd>;
export const MembersAdded = z.object({ added: z.number().int(), ignored: z.number().int(), member_count: z.number().int() });

// ---- actions (Phase 2: answered 501 after the list and the body are checked) ----

export const CreateTasksAction = z.strictObject({
  assigned_to_uuid: Uuid,
  due_date: z.iso.date().optional(),
  priority: z.enum(["high", "low", "medium"]).optional(),
  task_template: z.string().trim().min(1).max(2000).describe("Placeholders {patient_name}, {phone}, {recall_date}"),
});
export const ExportAction = z.strictObject({
  columns: z.array(z.string().min(1).max(100)).min(1).max(100),
  format: z.enum(["csv", "xlsx"]).optional(),
});
export const TagAction = z.strictObject({
  action: z.enum(["add", "remove"]),
  tag_uuids: z.array(Uuid).min(1).max(20).describe("At most 20 tag definitions"),
});
/** What the actions will answer once they exist (documented now; today they answer 501). */
export const CreateTasksResult = z.object({ assigned_to: Ref, tasks_created: z.number().int() });
export const ExportResult = z.string().describe("The file, in the requested format");
export const TagResult = z.object({ patients_affected: z.number().int(), tags_applied: z.number().int() });
