import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { IcdCode, IcdCodeListQuery } from "./schemas";
import { getIcdCode, listIcdCodes } from "./service";

// Read-only: the catalogue is seeded per org; spec.md has no write endpoints.
export const icdCodeRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/codes/icd-codes", tags: ["Codes"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listIcdCodes(ctx, query), {
      permission: "codes.read",
      query: IcdCodeListQuery,
      response: { 200: PageSchema(IcdCode), ...orgErrors() },
      detail: { summary: "List ICD-10-CM codes (ordered by code)" },
    })
    .get("/:icd_code_uuid", ({ ctx, params }) => getIcdCode(ctx, params.icd_code_uuid), {
      permission: "codes.read",
      response: { 200: IcdCode, ...orgErrors() },
      detail: { summary: "Get an ICD code", description: "One ICD-10-CM diagnosis code with its description and category. Unknown id: 404." },
    });
