import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Draft, DraftConversion, DraftDetail, DraftImport, DraftImportResult, DraftListQuery, DraftReject } from "./schemas";
import { convertDraft, getDraft, importDrafts, listDrafts, rejectDraft, rematchDraft } from "./service";
import { allowLargerBody } from "@/platform/http/input-limits";
import { MAX_IMPORT_ROWS } from "./schemas";

// An import is large by nature: 10,000 rows of ~260 bytes and ~19 JSON values each are
// above the default body bounds, so this one route has its own (docs/platform/security.md).
export const IMPORT_BODY_BOUNDS = { bytes: 6 * 1024 * 1024, values: MAX_IMPORT_ROWS * 40 };
allowLargerBody("POST", "/api/v1/:org_id/insurance/drafts/import", IMPORT_BODY_BOUNDS);

/** Insurance drafts: imported rows of insurance data, matched in the background, then converted or rejected. */
export const draftRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.insurance.drafts", prefix: "/api/v1/:org_id/insurance/drafts", tags: ["Insurance"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listDrafts(ctx, query), {
      permission: "insurance.read",
      query: DraftListQuery,
      response: { 200: PageSchema(Draft), ...orgErrors() },
      detail: { summary: "List insurance drafts", description: "Oldest first (an import's drafts in row order). 404 when patient_uuid names no patient." },
    })
    // declared before /:draft_uuid so "import" is never read as an id
    .post(
      "/import",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return importDrafts(ctx, body);
      },
      {
        permission: "insurance.write",
        body: DraftImport,
        response: { 201: DraftImportResult, ...orgErrors(413, 415) },
        detail: {
          summary: "Import insurance drafts",
          description:
            "One draft per row (review_status pending, match_attempted false), stored in one write; answers at once with import_id, draft_count and the first page of the drafts. The job insurance.drafts-match then matches every row in the background (carrier by electronic id then name, plan by group number, subscriber by name and date of birth) and sets matched, pending (with candidates) or error; follow with GET /drafts?import_id=. 404 when the patient is missing; 422 patient_archived.",
        },
      },
    )
    .get("/:draft_uuid", ({ ctx, params }) => getDraft(ctx, params.draft_uuid), {
      permission: "insurance.read",
      response: { 200: DraftDetail, ...orgErrors() },
      detail: {
        summary: "Get an insurance draft with its candidates",
        description:
          "candidates lists what matching offered where it could not decide (carriers, plans, possible subscribers), each with a reason; empty lists when matched or not yet attempted.",
      },
    })
    .post("/:draft_uuid/convert", ({ ctx, params }) => convertDraft(ctx, params.draft_uuid), {
      permission: "insurance.write",
      response: { 200: DraftConversion, ...orgErrors(409) },
      detail: {
        summary: "Convert a matched draft into a subscription and a patient plan",
        description:
          "The subscriber's subscription to the matched plan (member id, effective and termination dates from the row; an existing live one with the same member id is reused) and a patient plan for the draft's patient at the lowest free ordinal, in one write. 422 draft_not_matched unless review_status is matched; 409 draft_converted when already converted; 422 draft_match_outdated when the matched plan or subscriber has been archived since; 409 ordinal_taken when the patient holds ordinals 1-4; 409 duplicate when the patient is already on the reused subscription.",
      },
    })
    .post("/:draft_uuid/reject", ({ ctx, params, body }) => rejectDraft(ctx, params.draft_uuid, body), {
      permission: "insurance.write",
      body: DraftReject,
      response: { 200: Draft, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Reject an insurance draft",
        description: "Records the reason, when and by whom. Any status but converted (409 draft_converted); rejecting again replaces the reason.",
      },
    })
    .post("/:draft_uuid/rematch", ({ ctx, params }) => rematchDraft(ctx, params.draft_uuid), {
      permission: "insurance.write",
      response: { 200: Draft, ...orgErrors(409) },
      detail: {
        summary: "Match an insurance draft again",
        description:
          "Clears the carrier, plan and subscriber matches and matches the row again at once (matched, pending with candidates, or error). A rejected draft is reopened. 409 draft_converted when converted.",
      },
    });
