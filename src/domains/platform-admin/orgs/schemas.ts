import { z } from "zod";
import { pagingQuery } from "@/platform/records/paging";

// spec.md: "Platform org list status filter values: active, migrating, suspended".
// Archived organizations are soft-deleted: they leave this list (GET /api/v1/admin/orgs keeps them).
export const PLATFORM_ORG_STATUSES = ["active", "migrating", "suspended"] as const;

export const PlatformOrgListQuery = z.strictObject({
  ...pagingQuery(50, 200),
  search: z.string().trim().min(1).max(200).optional().describe("Case-insensitive substring of the name or slug"),
  status: z.enum(PLATFORM_ORG_STATUSES).optional().describe("Omitted: every organization that is not archived"),
});
export type PlatformOrgListQuery = z.infer<typeof PlatformOrgListQuery>;
