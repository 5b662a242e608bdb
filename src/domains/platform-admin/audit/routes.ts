import { Elysia } from "elysia";
import { z } from "zod";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { platformErrors } from "@/platform/http/openapi";
import { AuditEntry, AuditExportQuery, AuditListQuery, AuditPage, AuditStats, AuditStatsQuery, ResourceTypes } from "./schemas";
import { auditStats, exportAuditCsv, getAuditEntry, listAuditEntries, listResourceTypes } from "./service";

const exportFileName = (now: Date) => `audit-log-${now.toISOString().slice(0, 19).replace(/[-:]/g, "")}Z.csv`;

/** The platform-wide audit log: every org's entries, for platform administrators. */
export const platformAuditRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/platform/audit", tags: ["Platform audit"] })
    .use(guard(rt))
    .get("", ({ query }) => listAuditEntries(rt, query), {
      platform: "platform.audit.read",
      query: AuditListQuery,
      response: { 200: AuditPage, ...platformErrors() },
      detail: { summary: "Search the audit log of every organization (without before/after snapshots)" },
    })
    .get(
      "/export",
      async ({ query }) => {
        const body = await exportAuditCsv(rt, query);
        return new Response(body, {
          headers: {
            "content-type": "text/csv; charset=utf-8",
            "content-disposition": `attachment; filename="${exportFileName(new Date())}"`,
            "cache-control": "private, no-store",
            "x-content-type-options": "nosniff",
          },
        });
      },
      {
        platform: "platform.audit.export",
        query: AuditExportQuery,
        response: {
          200: z.string().meta({ contentMediaType: "text/csv" }).describe("CSV attachment with a header row; before/after are not included"),
          ...platformErrors(),
        },
        detail: {
          summary: "Download the matching audit entries as CSV (newest first, streamed)",
          description:
            "Takes the list's filters (organization, actor, actions, resource type, search, date range) without paging and streams every matching entry as a CSV attachment with a header row, read in batches so any size of log downloads in flat memory. Cells a spreadsheet would run as a formula get a leading quote; before/after snapshots are not included.",
        },
      },
    )
    .get("/resource-types", () => listResourceTypes(rt), {
      platform: "platform.audit.read",
      response: { 200: ResourceTypes, ...platformErrors() },
      detail: {
        summary: "Distinct resource types in the audit log",
        description: "Every resource type that any audit entry names, sorted, as `{items}`: the values the list's `resource_type` filter can take.",
      },
    })
    .get("/stats", ({ query }) => auditStats(rt, query), {
      platform: "platform.audit.read",
      query: AuditStatsQuery,
      response: { 200: AuditStats, ...platformErrors() },
      detail: {
        summary: "Audit log counts: totals, per action and resource type, today's activity",
        description:
          "Counts over the entries matching `org_uuid` and the date range: the total, the count per action and per resource type (largest first), and for today (UTC) the number of entries and of distinct actors.",
      },
    })
    .get("/:entry_uuid", ({ params }) => getAuditEntry(rt, params.entry_uuid), {
      platform: "platform.audit.read",
      response: { 200: AuditEntry, ...platformErrors(404) },
      detail: {
        summary: "Get one audit entry with before/after read from the organization's own database",
        description:
          "The indexed entry (action, actor, resource, request id, address, time) with its before/after snapshots, which live only in the organization's own database; they are null when that database cannot be read within the time limit or the entry was purged there. Unknown id: 404.",
      },
    });
