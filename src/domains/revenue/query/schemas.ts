import { z } from "zod";
import { FilterDefinition } from "@/domains/revenue/filters/schemas";
import { CATEGORIES, FIELD_TYPES, OPERATORS, SCOPES } from "@/domains/revenue/fields/registry";

export const FieldSchema = z.object({
  key: z.string(),
  label: z.string(),
  type: z.enum(FIELD_TYPES),
  operators: z.array(z.enum(OPERATORS)),
  values: z.array(z.string()).nullable().describe("The allowed values of an enum field"),
  multi_valued: z.boolean().describe("A set the patient has members of (tags, codes, carriers): in = has any of, not_in = has none of"),
  sortable: z.boolean().describe("Usable as sort_by of POST /execute"),
  scopes: z.array(z.enum(SCOPES)),
});
export const FieldRegistry = z.object({
  categories: z.array(z.object({ key: z.enum(CATEGORIES), label: z.string(), fields: z.array(FieldSchema) })),
  scopes: z.array(z.enum(SCOPES)),
  snapshot_hash: z.string().describe("SHA-256 of the registry: the same on every instance and restart, changed only when a field is"),
  source_version: z.number().int().describe("The registry's version: send it as expected_source_snapshot_version"),
});

const SnapshotVersion = z.number().int().min(1).describe("source_version of GET /fields; a different one is 409 snapshot_mismatch, before anything runs");

export const CountRequest = z.strictObject({ expected_source_snapshot_version: SnapshotVersion, filter_definition: FilterDefinition });
export type CountRequest = z.infer<typeof CountRequest>;
export const CountResult = z.object({ count: z.number().int(), execution_time_ms: z.number(), source_snapshot_version: z.number().int() });

export const ExecuteRequest = z.strictObject({
  expected_source_snapshot_version: SnapshotVersion.optional(),
  filter_definition: FilterDefinition,
  page: z.number().int().min(1).max(100_000).default(1),
  page_size: z.number().int().min(1).max(200).default(50),
  sort_by: z.string().max(100).default("last_name").describe("A sortable field of GET /fields (422 otherwise); ties by id"),
  sort_dir: z.enum(["asc", "desc"]).default("asc"),
});
export type ExecuteRequest = z.infer<typeof ExecuteRequest>;

export const ListedPatient = z.object({
  id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  preferred_name: z.string().nullable(),
  email: z.string().nullable(),
  mobile_phone: z.string().nullable(),
  home_phone: z.string().nullable(),
  next_appointment_date: z.string().nullable(),
  values: z.record(z.string(), z.unknown()).describe("The value of each filtered field (and the sort field) for this patient; money as decimal strings"),
});
export const ExecuteResult = z.object({
  execution_time_ms: z.number(),
  page: z.number().int(),
  page_size: z.number().int(),
  patients: z.array(ListedPatient),
  source_snapshot_version: z.number().int(),
  total_count: z.number().int(),
});
