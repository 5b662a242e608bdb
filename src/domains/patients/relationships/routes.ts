import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Family, NoQuery, Relationship, RelationshipCreate, RelationshipList, RelationshipListQuery } from "./schemas";
import { archiveRelationship, createRelationship, getFamily, getRelationship, listDependents, listRelationships } from "./service";

// Rules and the direction of a relationship: docs/patients/relationships.md.
export const relationshipRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.relationships", prefix: "/api/v1/:org_id/patients/:patient_uuid", tags: ["Patients"] })
    .use(guard(rt))
    .get("/relationships", ({ ctx, params, query }) => listRelationships(ctx, params.patient_uuid, query), {
      permission: "patients.read",
      query: RelationshipListQuery,
      response: { 200: PageSchema(Relationship), ...orgErrors() },
      detail: {
        summary: "List a patient's relationships",
        description: "Outgoing records (this patient is from_patient) unless direction says otherwise; archived relationships are left out.",
      },
    })
    .post(
      "/relationships",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createRelationship(ctx, params.patient_uuid, body);
      },
      {
        permission: "patients.write",
        body: RelationshipCreate,
        response: { 201: Relationship, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Record a relationship",
          description:
            "One-directional: the inverse is not created. 404 when the patient or to_patient is missing (or archived); 409 duplicate when the same active (to_patient, relationship_type) exists; 422 self_relationship, 422 patient_archived.",
        },
      },
    )
    .get("/relationships/:relationship_uuid", ({ ctx, params }) => getRelationship(ctx, params.patient_uuid, params.relationship_uuid), {
      permission: "patients.read",
      response: { 200: Relationship, ...orgErrors() },
      detail: { summary: "Get a relationship", description: "Through either of its two patients; 404 otherwise and once archived." },
    })
    .post("/relationships/:relationship_uuid/archive", ({ ctx, params }) => archiveRelationship(ctx, params.patient_uuid, params.relationship_uuid), {
      permission: "patients.write",
      response: { 200: Relationship, ...orgErrors() },
      detail: { summary: "Archive a relationship", description: "Only through its from_patient; 404 when missing, already archived or another patient's." },
    })
    .get("/dependents", ({ ctx, params }) => listDependents(ctx, params.patient_uuid), {
      permission: "patients.read",
      query: NoQuery,
      response: { 200: RelationshipList, ...orgErrors() },
      detail: {
        summary: "A guardian's dependents",
        description: "This patient's relationships with is_guardian true; each dependent is the record's to_patient. Archived dependents are left out.",
      },
    })
    .get("/family", ({ ctx, params }) => getFamily(ctx, params.patient_uuid), {
      permission: "patients.read",
      query: NoQuery,
      response: { 200: Family, ...orgErrors() },
      detail: {
        summary: "Patients sharing the guarantor",
        description:
          "The guarantor (responsible party, else the patient itself) and every patient whose responsible party it is; archived patients are left out.",
      },
    });
