import { z } from "zod";
import { DateTime, QueryList, Uuid } from "@/platform/records/fields";
import { pagingQuery } from "@/platform/records/paging";

// ---- time bounds -------------------------------------------------------------

const DATE_OR_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?([Zz]|[+\- ]\d{2}(?::?\d{2})?)?)?$/;

// Stored timestamps are toISOString() text, compared as strings: stay in 4-digit years.
const MIN_TIME = Date.parse("0000-01-01T00:00:00.000Z");
const MAX_TIME = Date.parse("9999-12-31T23:59:59.999Z");

/** An instant range covering one query value at the precision it was written in. */
export type TimeBound = { from: string; until: string };

/**
 * Parses an ISO 8601 date or date-time into the half-open UTC range it names:
 * a bare date is that whole UTC day, `10:00` the whole minute, `10:00:05` the
 * whole second. A date-time without offset is read as UTC; a space before the
 * offset is a `+` that arrived unencoded in a query string. Null when invalid.
 */
export function parseTimeBound(value: string): TimeBound | null {
  const m = DATE_OR_DATE_TIME.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const year = Number(y),
    month = Number(mo),
    day = Number(d);
  const hour = h === undefined ? 0 : Number(h),
    minute = mi === undefined ? 0 : Number(mi),
    second = s === undefined ? 0 : Number(s);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return null;
  const ms = frac === undefined ? 0 : Math.floor(Number(`0.${frac}`) * 1000);
  const dt = new Date(Date.UTC(2000, 0, 1, hour, minute, second, ms));
  dt.setUTCFullYear(year, month - 1, day); // Date.UTC maps years below 100 to the 1900s
  if (dt.getUTCDate() !== day || dt.getUTCMonth() !== month - 1) return null; // e.g. 2024-02-30
  const base = dt.getTime();
  let offsetMin = 0;
  if (zone && zone !== "Z" && zone !== "z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    const oh = Number(digits.slice(0, 2)),
      om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (oh > 23 || om > 59) return null;
    offsetMin = sign * (oh * 60 + om);
  }
  const start = base - offsetMin * 60_000;
  const unit = h === undefined ? 86_400_000 : s === undefined ? 60_000 : frac === undefined ? 1000 : 1;
  const iso = (t: number) => (t >= MAX_TIME ? "9999-12-31T23:59:59.999Z" : t < MIN_TIME ? "0000-01-01T00:00:00.000Z" : new Date(t).toISOString());
  return { from: iso(start), until: iso(start + unit) };
}

const TimeBoundQuery = (what: string) =>
  z
    .string()
    .max(40)
    .refine((v) => parseTimeBound(v) !== null, "Must be an ISO 8601 date (YYYY-MM-DD) or date-time (e.g. 2025-03-01T14:30:00Z)")
    .describe(what);

// ---- query helpers -----------------------------------------------------------

// Free text stays one value even with commas (the guard re-reads the query string).
const queryText = (max: number) => z.string().trim().min(1).max(max);

const startBeforeEnd = (q: { start_date?: string; end_date?: string }, ctx: z.RefinementCtx) => {
  if (!q.start_date || !q.end_date) return;
  const a = parseTimeBound(q.start_date),
    b = parseTimeBound(q.end_date);
  if (a && b && a.from >= b.until) ctx.addIssue({ code: "custom", path: ["end_date"], message: "end_date must not be before start_date" });
};

const filterFields = {
  org_uuid: Uuid.optional().describe("Only entries of this organization"),
  actor_id: z.string().trim().min(1).max(200).optional().describe("Only entries by this actor (a user UUID, or system:<job>)"),
  action: QueryList(z.string().max(100))
    .optional()
    .describe("Only these actions, e.g. location.updated; repeat the parameter (?action=a&action=b) or separate with commas"),
  resource_type: z.string().trim().min(1).max(100).optional().describe("Only this resource type, e.g. location"),
  search: queryText(200).optional().describe("Case-insensitive substring of the action, resource type, resource id, actor display name or organization name"),
  start_date: TimeBoundQuery("Inclusive lower bound: an ISO 8601 date (from 00:00 UTC) or date-time").optional(),
  end_date: TimeBoundQuery("Inclusive upper bound: an ISO 8601 date (the whole UTC day) or date-time (the whole second or minute written)").optional(),
};

export const AUDIT_SORT_FIELDS = ["created_at", "action", "resource_type", "actor_id"] as const;

// Unknown query parameters are 422, as on every other list: a misspelt filter
// (org_id for org_uuid) would otherwise silently widen an audit search.
export const AuditListQuery = z
  .strictObject({
    ...filterFields,
    sort_by: z.enum(AUDIT_SORT_FIELDS).default("created_at").describe("Sort field; ties are broken by entry id in the same direction"),
    sort_order: z.enum(["asc", "desc"]).default("desc"),
    ...pagingQuery(25, 100),
  })
  .superRefine(startBeforeEnd);
export type AuditListQuery = z.infer<typeof AuditListQuery>;

export const AuditExportQuery = z.strictObject(filterFields).superRefine(startBeforeEnd);
export type AuditFilters = z.infer<typeof AuditExportQuery>;

export const AuditStatsQuery = z
  .strictObject({
    org_uuid: filterFields.org_uuid,
    start_date: filterFields.start_date,
    end_date: filterFields.end_date,
  })
  .superRefine(startBeforeEnd);
export type AuditStatsQuery = z.infer<typeof AuditStatsQuery>;

// ---- responses ---------------------------------------------------------------

const summaryFields = {
  id: z.string(),
  action: z.string().describe("<resource>.<verb>, e.g. location.updated"),
  actor_id: z.string(),
  actor_type: z.enum(["user", "system", "api_key"]),
  actor_display_name: z.string().nullable().describe("The actor's name when the entry was written"),
  resource_type: z.string(),
  resource_display_id: z.string().describe("Id of the changed record"),
  org_id: z.string().nullable().describe("Null for platform-level entries (e.g. shard.created)"),
  org_name: z.string().nullable().describe("The organization's current name (its name at write time once the org is gone)"),
  ip_address: z.string().nullable(),
  trace_id: z.string().nullable().describe("Request id (X-Request-Id) of the request that wrote the entry"),
  created_at: DateTime,
};

export const AuditEntrySummary = z.object(summaryFields).meta({ id: "PlatformAuditEntrySummary" });
export type AuditEntrySummary = z.infer<typeof AuditEntrySummary>;

const Snapshot = z.record(z.string(), z.unknown()).nullable();

export const AuditEntry = z
  .object({
    ...summaryFields,
    before: Snapshot.describe("The record before the change, read from the org's own database; null for creations and when tenant data is unavailable"),
    after: Snapshot.describe("The record after the change, read from the org's own database; null when tenant data is unavailable"),
  })
  .meta({ id: "PlatformAuditEntry" });
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AuditPage = z.object({
  items: z.array(AuditEntrySummary).describe("Entries without before/after: read one entry for its snapshots"),
  page: z.number().int(),
  page_size: z.number().int(),
  total: z.number().int(),
});

export const ResourceTypes = z.object({ items: z.array(z.string()) });

export const AuditStats = z.object({
  total_entries: z.number().int().describe("Entries matching org_uuid and the date range"),
  by_action: z.record(z.string(), z.number().int()).describe("Entries per action, within the filters"),
  by_resource_type: z.array(z.object({ resource_type: z.string(), count: z.number().int() })).describe("Entries per resource type, most first"),
  today_count: z.number().int().describe("Entries written today (UTC), for org_uuid when given; the date range does not apply"),
  active_actors_today: z.number().int().describe("Distinct actors with an entry today (UTC), for org_uuid when given"),
});
export type AuditStats = z.infer<typeof AuditStats>;

export const EXPORT_COLUMNS = [
  "id",
  "created_at",
  "org_id",
  "org_name",
  "actor_id",
  "actor_type",
  "actor_display_name",
  "action",
  "resource_type",
  "resource_display_id",
  "ip_address",
  "trace_id",
] as const satisfies readonly (keyof AuditEntrySummary)[];
