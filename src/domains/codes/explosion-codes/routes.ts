import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Explosion, ExplosionCode, ExplosionCodeCreate, ExplosionCodeListQuery, ExplosionCodePatch, ExplodeRequest } from "./schemas";
import { archiveExplosionCode, createExplosionCode, explode, getExplosionCode, listExplosionCodes, updateExplosionCode } from "./service";

export const explosionCodeRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/codes/explosion-codes", tags: ["Codes"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listExplosionCodes(ctx, query), {
      permission: "codes.read",
      query: ExplosionCodeListQuery,
      response: { 200: PageSchema(ExplosionCode), ...orgErrors() },
      detail: { summary: "List explosion codes (ordered by name)" },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createExplosionCode(ctx, body);
      },
      {
        permission: "codes.write",
        body: ExplosionCodeCreate,
        response: { 201: ExplosionCode, ...orgErrors(413, 415) },
        detail: {
          summary: "Create an explosion code",
          description:
            "Starts active; names need not be unique. Each entry's `procedure_code` must be a live code of the catalogue (404); a fixed `tooth_number` only for tooth and surface codes and `surfaces` only for surface codes (422 `treatment_area_mismatch`).",
        },
      },
    )
    .get("/:explosion_code_uuid", ({ ctx, params }) => getExplosionCode(ctx, params.explosion_code_uuid), {
      permission: "codes.read",
      response: { 200: ExplosionCode, ...orgErrors() },
      detail: {
        summary: "Get an explosion code",
        description:
          "One code that charts several procedures at once: its conditions and its ordered entries, each a procedure code with quantity, tooth, surfaces and conditions of its own. An archived explosion code is 404.",
      },
    })
    .patch("/:explosion_code_uuid", ({ ctx, params, body }) => updateExplosionCode(ctx, params.explosion_code_uuid, body), {
      permission: "codes.write",
      body: ExplosionCodePatch,
      response: { 200: ExplosionCode, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update an explosion code (entries are replaced as a whole)" },
    })
    .post("/:explosion_code_uuid/archive", ({ ctx, params }) => archiveExplosionCode(ctx, params.explosion_code_uuid), {
      permission: "codes.write",
      response: { 200: ExplosionCode, ...orgErrors() },
      detail: {
        summary: "Archive an explosion code",
        description:
          "Soft delete: the code leaves lists and answers 404 (archiving again too). To stop it expanding but keep it listed, set status inactive instead.",
      },
    })
    // a computation over the catalogue: reads only, so codes.read
    .post("/:explosion_code_uuid/explode", ({ ctx, params, body }) => explode(ctx, params.explosion_code_uuid, body), {
      permission: "codes.read",
      body: ExplodeRequest,
      response: { 200: Explosion, ...orgErrors(413, 415) },
      detail: {
        summary: "The procedures an explosion code expands to for a charting context",
        description:
          "Reads only. The tooth's arch, quadrant, type and dentition come from `tooth_number` (a contradicting value is 422 `context_mismatch`); a fact missing from the context satisfies no condition. When the code's own conditions fail: 200 with `applies: false` and the unmet conditions. 422 `explosion_code_inactive`; 422 `procedure_code_unavailable` when an applying entry's code is archived or inactive.",
      },
    });
