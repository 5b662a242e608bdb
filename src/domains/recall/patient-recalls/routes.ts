import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { PatientRecall, PatientRecallCreate, PatientRecallDeleteQuery, PatientRecallListQuery, PatientRecallPatch } from "./schemas";
import { createPatientRecall, deletePatientRecall, getPatientRecall, listPatientRecalls, updatePatientRecall } from "./service";

export const patientRecallRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.patient-recalls", prefix: "/api/v1/:org_id/patients/:patient_uuid/recalls", tags: ["Recall"] })
    .use(guard(rt))
    .get("", ({ ctx, params, query }) => listPatientRecalls(ctx, params.patient_uuid, query), {
      permission: "recall.read",
      query: PatientRecallListQuery,
      response: { 200: PageSchema(PatientRecall), ...orgErrors() },
      detail: {
        summary: "List a patient's recalls",
        description:
          "The patient's live recalls, the earliest due first, each with its computed dates and status. An archived patient's recalls stay readable. 404 when the patient is missing. Paged: page_size 50 by default, at most 200.",
      },
    })
    .post(
      "",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createPatientRecall(ctx, params.patient_uuid, body);
      },
      {
        permission: "recall.write",
        body: PatientRecallCreate,
        response: { 201: PatientRecall, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Give a patient a recall",
          description:
            "A recall of a type, its dates and status worked out in the same write from the patient's completed and scheduled procedures. 404 when the patient, the recall type (also another org's) or the recall status is missing; 409 duplicate when the patient has a live recall of the type; 422 recall_type_archived, patient_archived, invalid_interval (an interval_override of zero), unknown fields.",
        },
      },
    )
    .get("/:recall_uuid", ({ ctx, params }) => getPatientRecall(ctx, params.patient_uuid, params.recall_uuid), {
      permission: "recall.read",
      response: { 200: PatientRecall, ...orgErrors() },
      detail: { summary: "Get a patient's recall", description: "404 when the patient or the recall is missing, deleted, or another patient's." },
    })
    .patch("/:recall_uuid", ({ ctx, params, body }) => updatePatientRecall(ctx, params.patient_uuid, params.recall_uuid, body), {
      permission: "recall.write",
      body: PatientRecallPatch,
      response: { 200: PatientRecall, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a patient's recall",
        description:
          "Overrides, the note, switching it off (is_disabled, disable_until_date, disable_until_balance) and the front desk's recall status; the computed fields are worked out again in the same write. Switching a perio recall on or off works the patient's prophy recalls out again. 404 when the patient, the recall or the recall status is missing; 409 version_conflict on a stale base_version; 422 patient_archived, invalid_interval, unknown or read-only fields.",
      },
    })
    .delete(
      "/:recall_uuid",
      async ({ ctx, params, query, set }) => {
        await deletePatientRecall(ctx, params.patient_uuid, params.recall_uuid, query);
        set.status = 204;
      },
      {
        permission: "recall.write",
        query: PatientRecallDeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: {
          summary: "Delete a patient's recall",
          description:
            "Soft delete (deleted_at): the recall leaves every list, and a type the patient had a recall of is never started again by itself (POST a new one). 404 when missing; 409 version_conflict on a stale base_version; 422 patient_archived.",
        },
      },
    );
