import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { FieldDefinition, FieldDefinitionCreate, FieldDefinitionListQuery, FieldValue, FieldValueListQuery, FieldValueSet } from "./schemas";
import {
  archiveFieldDefinition,
  clearFieldValue,
  createFieldDefinition,
  getFieldDefinition,
  listFieldDefinitions,
  listFieldValues,
  setFieldValue,
} from "./service";

const definitionRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.patient-field-definitions", prefix: "/api/v1/:org_id/patient-field-definitions", tags: ["Custom fields"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listFieldDefinitions(ctx, query), {
      permission: "patients.read",
      query: FieldDefinitionListQuery,
      response: { 200: PageSchema(FieldDefinition), ...orgErrors() },
      detail: { summary: "List patient field definitions", description: "Ordered by item_order, then name." },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createFieldDefinition(ctx, body);
      },
      {
        permission: "patients.settings.write",
        body: FieldDefinitionCreate,
        response: { 201: FieldDefinition, ...orgErrors(409, 413, 415) },
        detail: { summary: "Create a patient field definition", description: "409 duplicate when an active definition has the same name (ignoring case)." },
      },
    )
    .get("/:field_definition_uuid", ({ ctx, params }) => getFieldDefinition(ctx, params.field_definition_uuid), {
      permission: "patients.read",
      response: { 200: FieldDefinition, ...orgErrors() },
      detail: {
        summary: "Get a patient field definition",
        description:
          "One org-defined patient field: its name, type, pick-list options, whether it is required and its order. An archived definition is 404 (its values are kept but no longer listed).",
      },
    })
    .post("/:field_definition_uuid/archive", ({ ctx, params }) => archiveFieldDefinition(ctx, params.field_definition_uuid), {
      permission: "patients.settings.write",
      response: { 200: FieldDefinition, ...orgErrors(409) },
      detail: { summary: "Archive a patient field definition", description: "Its values are kept but leave field-values lists." },
    });

const valueRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.patient-field-values", prefix: "/api/v1/:org_id/patients", tags: ["Custom fields"] })
    .use(guard(rt))
    .get("/:patient_uuid/field-values", ({ ctx, params, query }) => listFieldValues(ctx, params.patient_uuid, query), {
      permission: "patients.read",
      query: FieldValueListQuery,
      response: { 200: PageSchema(FieldValue), ...orgErrors() },
      detail: {
        summary: "List a patient's custom field values",
        description: "Fields without a value (and archived fields) are absent. Ordered like the definitions.",
      },
    })
    .put(
      "/:patient_uuid/field-values/:field_definition_uuid",
      ({ ctx, params, body }) => setFieldValue(ctx, params.patient_uuid, params.field_definition_uuid, body),
      {
        permission: "patients.write",
        body: FieldValueSet,
        response: { 200: FieldValue, ...orgErrors(413, 415) },
        detail: {
          summary: "Set a custom field value",
          description: "Creates or replaces. 422 when the value does not fit the field's type; 404 when the definition does not exist or is archived.",
        },
      },
    )
    .delete(
      "/:patient_uuid/field-values/:field_definition_uuid",
      async ({ ctx, params, set }) => {
        await clearFieldValue(ctx, params.patient_uuid, params.field_definition_uuid);
        set.status = 204;
      },
      {
        permission: "patients.write",
        response: { 204: NoContent, ...orgErrors() },
        detail: { summary: "Clear a custom field value", description: "204; 404 when the field has no value; 422 field_required for a required field." },
      },
    );

export const customFieldRoutes = (rt: Runtime) => new Elysia({ name: "cusp.custom-fields" }).use(definitionRoutes(rt)).use(valueRoutes(rt));
