import { Elysia } from "elysia";
import { z } from "zod";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { allowLargerBody } from "@/platform/http/input-limits";
import { orgErrors } from "@/platform/http/openapi";
import { stateOf } from "@/platform/http/request-state";
import { Era, EraListQuery, EraMatch, EraPage, EraPost, ERA_TEXT_TYPES } from "./schemas";
import { ERA_LIMIT_BYTES, getEra, listEras, matchEraClaim, postEra, readEraUpload, receiveEra } from "./service";

// an ERA sent as text is read whole, like a JSON body, up to its own limit
allowLargerBody("POST", "/api/v1/:org_id/insurance/eras", { bytes: ERA_LIMIT_BYTES, values: 10_000 });

const ClpParams = z.object({
  org_id: z.string(),
  era_uuid: z.string(),
  clp_index: z
    .string()
    .regex(/^(0|[1-9]\d{0,5})$/, "Must be a CLP's position in the file (0, 1, ...)")
    .transform(Number),
});

const UPLOAD = {
  content: {
    "multipart/form-data": {
      schema: { type: "object", required: ["file"], properties: { file: { type: "string", format: "binary", description: "The 835 file" } } },
    },
    ...Object.fromEntries(ERA_TEXT_TYPES.map((type) => [type, { schema: { type: "string", description: "The 835 file's text" } }])),
  },
  required: true,
};

export const eraRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.eras", prefix: "/api/v1/:org_id/insurance", tags: ["Claim payments"] })
    .use(guard(rt))
    .post(
      "/eras",
      async ({ ctx, request, set }) => {
        set.status = 202;
        return receiveEra(rt, ctx, await readEraUpload(request, stateOf(request).rawBody, rt.config.uploadLimit));
      },
      {
        permission: { key: "insurance.claims.write", form: true, text: ERA_TEXT_TYPES },
        response: { 202: Era, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Import an ERA (835)",
          description:
            "Takes an X12 835 file, as multipart/form-data (the part named `file`) or as a text/plain or application/edi-x12 body, up to 10 MB (413 past it; 415 for any other media type), keeps it, and answers 202 with the ERA `received`; the job claims.era-import parses it, matches its claims and posts them as the carrier's automation says (`posted`, `needs_review` or `failed` with the parser's message). The same payer's file with the same trace number (TRN) imported again is 409 duplicate_era.",
          requestBody: UPLOAD as never,
        },
      },
    )
    .get("/eras", ({ ctx, query }) => listEras(ctx, query), {
      permission: "insurance.claims.read",
      query: EraListQuery,
      response: { 200: EraPage, ...orgErrors() },
      detail: {
        summary: "List ERAs",
        description:
          "Imported ERAs, newest first, filtered by status (repeatable) and carrier, with their counts of claims matched, posted and waiting for review.",
      },
    })
    .get("/eras/:era_uuid", ({ ctx, params }) => getEra(ctx, params.era_uuid), {
      permission: "insurance.claims.read",
      response: { 200: Era, ...orgErrors() },
      detail: {
        summary: "Get an ERA",
        description:
          "The ERA with each of its claims (CLPs): the claim it matched and how, its lines and adjustments, whether it was posted, and the problems that hold it for review; 404 when missing.",
      },
    })
    .post(
      "/eras/:era_uuid/post",
      ({ ctx, params, body, set }) => {
        set.status = 202;
        return postEra(ctx, params.era_uuid, body);
      },
      {
        permission: "insurance.payments.post",
        body: EraPost,
        response: { 202: Era, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Post a reviewed ERA",
          description:
            "An ERA that needs review is posted by the job, whatever the carrier's automation: every matched claim without problems (answers 202, status processing). 409 on a stale base_version; 422 era_not_in_review when the ERA does not need review.",
        },
      },
    )
    .post("/eras/:era_uuid/claims/:clp_index/match", ({ ctx, params, body }) => matchEraClaim(ctx, params.era_uuid, params.clp_index, body), {
      permission: "insurance.payments.post",
      params: ClpParams,
      body: EraMatch,
      response: { 200: Era, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Match an ERA's claim by hand",
        description:
          "Matches the ERA's claim at clp_index (its position in the file, from 0) to one of our claims; it is judged as an automatic match (its problems listed) and posted with the rest on POST .../post. 404 for a missing ERA, clp_index or claim; 409 on a stale base_version; 422 era_claim_posted when it is posted already, era_not_in_review when the ERA is not waiting for review.",
      },
    });
