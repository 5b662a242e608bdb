import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  AutoCodeFamily,
  AutoCodeFamilyCreate,
  AutoCodeFamilyListQuery,
  AutoCodeFamilyPatch,
  AutoCodeRule,
  AutoCodeRuleCreate,
  AutoCodeRuleListQuery,
  AutoCodeRulePatch,
  ResolveRequest,
  ResolveResult,
} from "./schemas";
import {
  archiveFamily,
  archiveRule,
  createFamily,
  createRule,
  getFamily,
  getRule,
  listFamilies,
  listRules,
  resolve,
  updateFamily,
  updateRule,
} from "./service";

export const autoCodeRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.auto-codes", prefix: "/api/v1/:org_id/odontogram/auto-codes", tags: ["Odontogram auto-codes"] })
    .use(guard(rt))
    .get("/auto-code-families", ({ ctx, query }) => listFamilies(ctx, query), {
      permission: "odontogram.read",
      query: AutoCodeFamilyListQuery,
      response: { 200: PageSchema(AutoCodeFamily), ...orgErrors() },
      detail: { summary: "List auto-code families", description: "Ordered by display_name, then id. Archived families are not listed." },
    })
    .post(
      "/auto-code-families",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createFamily(ctx, body);
      },
      {
        permission: "odontogram.write",
        body: AutoCodeFamilyCreate,
        response: { 201: AutoCodeFamily, ...orgErrors(409, 413, 415) },
        detail: { summary: "Create an auto-code family", description: "409 duplicate when a live family has the same family_name (ignoring case)." },
      },
    )
    .get("/auto-code-families/:family_uuid", ({ ctx, params }) => getFamily(ctx, params.family_uuid), {
      permission: "odontogram.read",
      response: { 200: AutoCodeFamily, ...orgErrors() },
      detail: {
        summary: "Get an auto-code family",
        description:
          "A family of procedure codes that auto-coding chooses between: its base procedure code, its selection type (what its rules compare), whether it needs a material family and whether it is active. An archived family is 404.",
      },
    })
    .patch("/auto-code-families/:family_uuid", ({ ctx, params, body }) => updateFamily(ctx, params.family_uuid, body), {
      permission: "odontogram.write",
      body: AutoCodeFamilyPatch,
      response: { 200: AutoCodeFamily, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update an auto-code family",
        description: "family_name and selection_type are immutable (422 read_only). 409 on a stale base_version.",
      },
    })
    .post("/auto-code-families/:family_uuid/archive", ({ ctx, params }) => archiveFamily(ctx, params.family_uuid), {
      permission: "odontogram.write",
      response: { 200: AutoCodeFamily, ...orgErrors() },
      detail: { summary: "Archive an auto-code family", description: "Soft-deletes the family and all its rules." },
    })
    .get("/auto-code-families/:family_uuid/rules", ({ ctx, params, query }) => listRules(ctx, params.family_uuid, query), {
      permission: "odontogram.read",
      query: AutoCodeRuleListQuery,
      response: { 200: PageSchema(AutoCodeRule), ...orgErrors() },
      detail: {
        summary: "List a family's rules",
        description: "Ordered by priority descending, ties in creation order (the order resolve checks them). 404 when the family is missing.",
      },
    })
    .post(
      "/auto-code-families/:family_uuid/rules",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createRule(ctx, params.family_uuid, body);
      },
      {
        permission: "odontogram.write",
        body: AutoCodeRuleCreate,
        response: { 201: AutoCodeRule, ...orgErrors(413, 415) },
        detail: {
          summary: "Create an auto-code rule",
          description: "conditions must have the shape of the family's selection_type (422 invalid_conditions). 404 when the family is missing.",
        },
      },
    )
    .get("/auto-code-rules/:rule_uuid", ({ ctx, params }) => getRule(ctx, params.rule_uuid), {
      permission: "odontogram.read",
      response: { 200: AutoCodeRule, ...orgErrors() },
      detail: {
        summary: "Get an auto-code rule",
        description:
          "One rule of an auto-code family: its conditions, its priority among the family's rules and the procedure code it charts when they hold, with the family as a reference. An archived rule is 404.",
      },
    })
    .patch("/auto-code-rules/:rule_uuid", ({ ctx, params, body }) => updateRule(ctx, params.rule_uuid, body), {
      permission: "odontogram.write",
      body: AutoCodeRulePatch,
      response: { 200: AutoCodeRule, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update an auto-code rule", description: "The family cannot change. 422 invalid_conditions; 409 on a stale base_version." },
    })
    .post("/auto-code-rules/:rule_uuid/archive", ({ ctx, params }) => archiveRule(ctx, params.rule_uuid), {
      permission: "odontogram.write",
      response: { 200: AutoCodeRule, ...orgErrors() },
      detail: {
        summary: "Archive an auto-code rule",
        description: "Soft delete: the rule leaves lists, answers 404 and no longer takes part in resolve; archiving again is 404.",
      },
    })
    .post("/resolve", ({ ctx, body }) => resolve(ctx, body), {
      permission: "odontogram.read",
      body: ResolveRequest,
      response: { 200: ResolveResult, ...orgErrors(413, 415) },
      detail: {
        summary: "Resolve a procedure code",
        description:
          "Names the family by exactly one of family_uuid or family_name. Checks the family's active rules by priority; the first match wins, else base_procedure_code, else procedure_code null. 404 when the family is missing.",
      },
    });
