import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { Claim, ClaimCreate, ClaimListQuery, ClaimPage, ClaimPatch, ClaimStatusChange } from "./schemas";
import { changeClaimStatus, createClaim, getClaim, listClaims, updateClaim } from "./service";

export const claimRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.claims", prefix: "/api/v1/:org_id/insurance", tags: ["Claims"] })
    .use(guard(rt))
    .get("/claims", ({ ctx, query }) => listClaims(ctx, query), {
      permission: "insurance.claims.read",
      query: ClaimListQuery,
      response: { 200: ClaimPage, ...orgErrors() },
      detail: {
        summary: "List claims",
        description:
          "Claims and pre-authorizations, newest service date first, filtered by status (repeatable), type, patient, carrier, service date range and sent date range. The outstanding claims a billing coordinator works: `status=sent&sent_to=<30 days ago>`.",
      },
    })
    .post(
      "/claims",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createClaim(ctx, body);
      },
      {
        permission: "insurance.claims.write",
        body: ClaimCreate,
        response: { 201: Claim, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a claim or pre-authorization",
          description:
            "Bills a patient plan for 1 to 50 of the patient's procedures (completed ones; treatment-planned ones for a preauth), each with its current estimate for that plan; the procedures get has_active_claim and code_sent. 404 for a missing patient, patient plan, procedure, provider or document; 409 already_claimed when a procedure is on a live claim of the plan; 422 for every other problem, one detail item per bad field or procedure (a secondary claim needs each procedure's primary claim received).",
        },
      },
    )
    .get("/claims/:claim_uuid", ({ ctx, params }) => getClaim(ctx, params.claim_uuid), {
      permission: "insurance.claims.read",
      response: { 200: Claim, ...orgErrors() },
      detail: { summary: "Get a claim", description: "The claim with its procedures and what the carrier answered for each; 404 when missing." },
    })
    .patch("/claims/:claim_uuid", ({ ctx, params, body }) => updateClaim(ctx, params.claim_uuid, body), {
      permission: "insurance.claims.write",
      body: ClaimPatch,
      response: { 200: Claim, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Change a claim",
        description:
          "Procedures, providers, place of service, prior authorization number and attachments change only while the claim is unsent or on hold (422 claim_locked otherwise); the note changes until it is void. 409 on a stale base_version or a procedure already on another live claim.",
      },
    })
    .post("/claims/:claim_uuid/status", ({ ctx, params, body }) => changeClaimStatus(ctx, params.claim_uuid, body), {
      permission: "insurance.claims.write",
      body: ClaimStatusChange,
      response: { 200: Claim, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Move a claim to another status",
        description:
          "unsent ↔ hold, unsent → queued → sent → received, sent → rejected → unsent, and void from any status before received (its procedures are let go). Any other move is 422 invalid_transition; a stale base_version is 409.",
      },
    });
