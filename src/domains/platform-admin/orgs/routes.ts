import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { platformErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Organization } from "@/domains/admin/schemas";
import { PlatformOrgListQuery } from "./schemas";
import { listPlatformOrgs } from "./service";

export const platformOrgRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/platform/orgs", tags: ["Platform administration"] }).use(guard(rt)).get("", ({ query }) => listPlatformOrgs(rt, query), {
    platform: "platform.orgs.list",
    query: PlatformOrgListQuery,
    response: { 200: PageSchema(Organization), ...platformErrors() },
    detail: { summary: "Search organizations (archived ones are left out)" },
  });
