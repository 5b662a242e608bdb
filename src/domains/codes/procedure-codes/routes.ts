import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { ProcedureCode, ProcedureCodeCreate, ProcedureCodeListQuery, ProcedureCodePatch } from "./schemas";
import { archiveProcedureCode, createProcedureCode, getProcedureCode, listProcedureCodes, updateProcedureCode } from "./service";

export const procedureCodeRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/codes/procedure-codes", tags: ["Codes"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listProcedureCodes(ctx, query), {
      permission: "codes.read",
      query: ProcedureCodeListQuery,
      response: { 200: PageSchema(ProcedureCode), ...orgErrors() },
      detail: { summary: "List procedure codes (ordered by code)" },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createProcedureCode(ctx, body);
      },
      {
        permission: "codes.write",
        body: ProcedureCodeCreate,
        response: { 201: ProcedureCode, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a procedure code",
          description:
            "`code` is stored upper-case and must fit `code_type` (cdt: D and four digits; 422 `invalid_code_format`); it is unique among codes that are not archived: 409 `duplicate` (archiving frees it). termination_date before effective_date is 422 `invalid_date_range`.",
        },
      },
    )
    .get("/:procedure_code_uuid", ({ ctx, params }) => getProcedureCode(ctx, params.procedure_code_uuid), {
      permission: "codes.read",
      response: { 200: ProcedureCode, ...orgErrors() },
      detail: {
        summary: "Get a procedure code",
        description:
          "The code with its names, category, treatment area, default fee (a two-decimal string), billing and charting flags, effective and termination dates and status. An archived code is 404.",
      },
    })
    .patch("/:procedure_code_uuid", ({ ctx, params, body }) => updateProcedureCode(ctx, params.procedure_code_uuid, body), {
      permission: "codes.write",
      body: ProcedureCodePatch,
      response: { 200: ProcedureCode, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a procedure code",
        description:
          "The create rules are judged on the record as it will be (a PATCH of `code_type` alone is checked against the stored code); a code another live record has is 409 `duplicate`. Records pointing at the code follow a rename.",
      },
    })
    .post("/:procedure_code_uuid/archive", ({ ctx, params }) => archiveProcedureCode(ctx, params.procedure_code_uuid), {
      permission: "codes.write",
      response: { 200: ProcedureCode, ...orgErrors() },
      detail: {
        summary: "Archive a procedure code",
        description:
          "Soft delete: the code leaves lists and answers 404 (archiving again too), and its code is free for a new record. To retire a code that stays listed, set status inactive instead.",
      },
    });
