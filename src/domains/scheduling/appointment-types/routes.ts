import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  AppointmentRule,
  AppointmentRuleCreate,
  AppointmentRuleDeleteQuery,
  AppointmentRuleListQuery,
  AppointmentRulePatch,
  AppointmentType,
  AppointmentTypeCreate,
  AppointmentTypeList,
  AppointmentTypeListQuery,
  AppointmentTypePatch,
} from "./schemas";
import { archiveAppointmentType, createAppointmentType, getAppointmentType, listAppointmentTypes, updateAppointmentType } from "./service";
import { createAppointmentRule, deleteAppointmentRule, getAppointmentRule, listAppointmentRules, updateAppointmentRule } from "./rules";

const typeRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/appointment-types", tags: ["Appointment types"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listAppointmentTypes(ctx, query), {
      permission: "schedule.read",
      query: AppointmentTypeListQuery,
      response: { 200: AppointmentTypeList, ...orgErrors() },
      detail: {
        summary: "List appointment types (not paged)",
        description:
          "Every appointment type of the org by name, with code, duration, colour, default fee and whether it requires an exam; `is_active` keeps only active (or only inactive) ones, archived types are never listed. The answer is `{items, total}` without paging: an org has a handful of types.",
      },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createAppointmentType(ctx, body);
      },
      {
        permission: "schedule.write",
        body: AppointmentTypeCreate,
        response: { 201: AppointmentType, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create an appointment type",
          description:
            "`code` is unique, ignoring case, among types that are not archived (inactive ones keep theirs): 409 `duplicate`; archiving frees it. `duration_minutes` is 5-480 in steps of 5. `default_fee` becomes the fee of a booking that sends none.",
        },
      },
    )
    .get("/:type_id", ({ ctx, params }) => getAppointmentType(ctx, params.type_id), {
      permission: "schedule.read",
      response: { 200: AppointmentType, ...orgErrors() },
      detail: {
        summary: "Get an appointment type",
        description:
          "The type with its code, name, duration, colour, default fee (a two-decimal string) and whether it requires an exam. An archived type is 404.",
      },
    })
    .patch("/:type_id", ({ ctx, params, body }) => updateAppointmentType(ctx, params.type_id, body), {
      permission: "schedule.write",
      body: AppointmentTypePatch,
      response: { 200: AppointmentType, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update an appointment type",
        description:
          "Same field rules as create: a code another live type has is 409 `duplicate` (judged after `base_version`). An archived type cannot be changed (404). A new `default_fee` never re-prices booked appointments.",
      },
    })
    .post("/:type_id/archive", ({ ctx, params }) => archiveAppointmentType(ctx, params.type_id), {
      permission: "schedule.write",
      response: { 200: AppointmentType, ...orgErrors() },
      detail: {
        summary: "Archive an appointment type (deleted_at set, is_active false)",
        description:
          "Irreversible (there is no restore; use is_active false for a pause). The code is freed; rules naming the type stay, and booking it is 404.",
      },
    });

const ruleRoutes = (rt: Runtime) =>
  new Elysia({ prefix: "/api/v1/:org_id/schedule/appointment-rules", tags: ["Appointment rules"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listAppointmentRules(ctx, query), {
      permission: "schedule.read",
      query: AppointmentRuleListQuery,
      response: { 200: PageSchema(AppointmentRule), ...orgErrors() },
      detail: { summary: "List appointment rules" },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createAppointmentRule(ctx, body);
      },
      {
        permission: "schedule.write",
        body: AppointmentRuleCreate,
        response: { 201: AppointmentRule, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create an appointment rule",
          description:
            "The pair is unordered ({X, Y} is {Y, X}) and a type may pair with itself. Without `location_uuid` the rule is org-wide; a location's rule for the pair overrides the org-wide one. 404 for an unknown or archived type or location; 409 `duplicate` while a rule exists for the same pair at the same location.",
        },
      },
    )
    .get("/:rule_id", ({ ctx, params }) => getAppointmentRule(ctx, params.rule_id), {
      permission: "schedule.read",
      response: { 200: AppointmentRule, ...orgErrors() },
      detail: {
        summary: "Get an appointment rule",
        description:
          "A rule for a pair of appointment types, at one location or org-wide: whether appointments of the two types may overlap for one provider or operatory. A deleted rule is 404.",
      },
    })
    .patch("/:rule_id", ({ ctx, params, body }) => updateAppointmentRule(ctx, params.rule_id, body), {
      permission: "schedule.write",
      body: AppointmentRulePatch,
      response: { 200: AppointmentRule, ...orgErrors(409, 413, 415) },
      detail: { summary: "Change whether the pair may overlap" },
    })
    .delete(
      "/:rule_id",
      async ({ ctx, params, query, set }) => {
        await deleteAppointmentRule(ctx, params.rule_id, query.base_version);
        set.status = 204;
      },
      {
        permission: "schedule.write",
        query: AppointmentRuleDeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: { summary: "Delete an appointment rule (soft delete)" },
      },
    );

/** Appointment types, and the overlap rules between them (under /schedule). */
export const appointmentTypeRoutes = (rt: Runtime) => new Elysia({ name: "cusp.appointment-types" }).use(typeRoutes(rt)).use(ruleRoutes(rt));
