import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { PatientTag, PatientTagAdd, PatientTagListQuery, TagDefinition, TagDefinitionCreate, TagDefinitionListQuery, TagDefinitionPatch } from "./schemas";
import {
  addPatientTag,
  archiveTagDefinition,
  createTagDefinition,
  getTagDefinition,
  listPatientTags,
  listTagDefinitions,
  removePatientTag,
  updateTagDefinition,
} from "./service";

const definitionRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.tag-definitions", prefix: "/api/v1/:org_id/tag-definitions", tags: ["Tags"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listTagDefinitions(ctx, query), {
      permission: "patients.read",
      query: TagDefinitionListQuery,
      response: { 200: PageSchema(TagDefinition), ...orgErrors() },
      detail: { summary: "List tag definitions", description: "Ordered by name. Archived ones only with include_archived=true." },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createTagDefinition(ctx, body);
      },
      {
        permission: "patients.settings.write",
        body: TagDefinitionCreate,
        response: { 201: TagDefinition, ...orgErrors(409, 413, 415) },
        detail: { summary: "Create a tag definition", description: "409 duplicate when an active definition has the same name (ignoring case)." },
      },
    )
    .get("/:tag_definition_uuid", ({ ctx, params }) => getTagDefinition(ctx, params.tag_definition_uuid), {
      permission: "patients.read",
      response: { 200: TagDefinition, ...orgErrors() },
      detail: {
        summary: "Get a tag definition",
        description: "One tag that can be put on patients: its name, colour and description. An archived tag definition is 404.",
      },
    })
    .patch("/:tag_definition_uuid", ({ ctx, params, body }) => updateTagDefinition(ctx, params.tag_definition_uuid, body), {
      permission: "patients.settings.write",
      body: TagDefinitionPatch,
      response: { 200: TagDefinition, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a tag definition" },
    })
    .post("/:tag_definition_uuid/archive", ({ ctx, params }) => archiveTagDefinition(ctx, params.tag_definition_uuid), {
      permission: "patients.settings.write",
      response: { 200: TagDefinition, ...orgErrors(409) },
      detail: {
        summary: "Archive a tag definition",
        description: "Patients keep the tag (shown with tag_archived: true) until it is removed; it can no longer be added.",
      },
    });

const patientTagRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.patient-tags", prefix: "/api/v1/:org_id/patients", tags: ["Tags"] })
    .use(guard(rt))
    .get("/:patient_uuid/tags", ({ ctx, params, query }) => listPatientTags(ctx, params.patient_uuid, query), {
      permission: "patients.read",
      query: PatientTagListQuery,
      response: { 200: PageSchema(PatientTag), ...orgErrors() },
      detail: { summary: "List a patient's tags", description: "Ordered by tag name." },
    })
    .post(
      "/:patient_uuid/tags",
      async ({ ctx, params, body, set }) => {
        const { created, tag } = await addPatientTag(ctx, params.patient_uuid, body);
        set.status = created ? 201 : 200;
        return tag;
      },
      {
        permission: "patients.write",
        body: PatientTagAdd,
        response: { 201: PatientTag, 200: PatientTag, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Add a tag to a patient",
          description:
            "201 when added; 200 with the existing tag when the patient already has it (nothing changes). 404 when the tag definition does not exist or is archived.",
        },
      },
    )
    .delete(
      "/:patient_uuid/tags/:tag_definition_uuid",
      async ({ ctx, params, set }) => {
        await removePatientTag(ctx, params.patient_uuid, params.tag_definition_uuid);
        set.status = 204;
      },
      {
        permission: "patients.write",
        response: { 204: NoContent, ...orgErrors() },
        detail: { summary: "Remove a tag from a patient", description: "204; 404 when the patient does not carry the tag." },
      },
    );

export const tagRoutes = (rt: Runtime) => new Elysia({ name: "cusp.tags" }).use(definitionRoutes(rt)).use(patientTagRoutes(rt));
