import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import {
  Alert,
  AlertCreate,
  AlertListQuery,
  AlertPatch,
  Allergy,
  AllergyCreate,
  AllergyListQuery,
  AllergyPatch,
  Disease,
  DiseaseCreate,
  DiseaseListQuery,
  DiseasePatch,
  Medication,
  MedicationCreate,
  MedicationListQuery,
  MedicationPatch,
} from "./schemas";
import { archiveAlert, createAlert, getAlert, listAlerts, updateAlert } from "./alerts";
import { archiveAllergy, createAllergy, getAllergy, listAllergies, updateAllergy } from "./allergies";
import { archiveDisease, createDisease, getDisease, listDiseases, updateDisease } from "./diseases";
import { archiveMedication, createMedication, getMedication, listMedications, updateMedication } from "./medications";

const READ = "patients.medical.read";
const WRITE = "patients.medical.write";
const ARCHIVED = "422 patient_archived when the patient is archived.";

// A patient's medical history: alerts, allergies, diseases and medications (docs/patients/medical-history.md).
export const medicalHistoryRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.medical-history", prefix: "/api/v1/:org_id/patients/:patient_uuid", tags: ["Medical history"] })
    .use(guard(rt))
    // ---- alerts
    .get("/alerts", ({ ctx, params, query }) => listAlerts(ctx, params.patient_uuid, query), {
      permission: READ,
      query: AlertListQuery,
      response: { 200: PageSchema(Alert), ...orgErrors() },
      detail: {
        summary: "List a patient's alerts",
        description: "Without status: active and disabled. include_family adds family-scoped alerts of the patient's family (same guarantor).",
      },
    })
    .post(
      "/alerts",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createAlert(ctx, params.patient_uuid, body);
      },
      {
        permission: WRITE,
        body: AlertCreate,
        response: { 201: Alert, ...orgErrors(409, 413, 415) },
        detail: { summary: "Create an alert", description: ARCHIVED },
      },
    )
    .get("/alerts/:alert_uuid", ({ ctx, params }) => getAlert(ctx, params.patient_uuid, params.alert_uuid), {
      permission: READ,
      response: { 200: Alert, ...orgErrors() },
      detail: {
        summary: "Get an alert",
        description: "One medical alert of the patient. Archived alerts stay readable (and read-only); another patient's alert is 404.",
      },
    })
    .patch("/alerts/:alert_uuid", ({ ctx, params, body }) => updateAlert(ctx, params.patient_uuid, params.alert_uuid, body), {
      permission: WRITE,
      body: AlertPatch,
      response: { 200: Alert, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update an alert", description: `Archived alerts are read-only (422 alert_archived). ${ARCHIVED}` },
    })
    .post("/alerts/:alert_uuid/archive", ({ ctx, params }) => archiveAlert(ctx, params.patient_uuid, params.alert_uuid), {
      permission: WRITE,
      response: { 200: Alert, ...orgErrors(409) },
      detail: { summary: "Archive an alert", description: "status archived and deleted_at set; 422 invalid_transition when already archived." },
    })
    // ---- allergies
    .get("/allergies", ({ ctx, params, query }) => listAllergies(ctx, params.patient_uuid, query), {
      permission: READ,
      query: AllergyListQuery,
      response: { 200: PageSchema(Allergy), ...orgErrors() },
      detail: { summary: "List a patient's allergies" },
    })
    .post(
      "/allergies",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createAllergy(ctx, params.patient_uuid, body);
      },
      {
        permission: WRITE,
        body: AllergyCreate,
        response: { 201: Allergy, ...orgErrors(409, 413, 415) },
        detail: { summary: "Record an allergy", description: `An active allergy sets the patient's allergy_review_status to reviewed. ${ARCHIVED}` },
      },
    )
    .get("/allergies/:allergy_uuid", ({ ctx, params }) => getAllergy(ctx, params.patient_uuid, params.allergy_uuid), {
      permission: READ,
      response: { 200: Allergy, ...orgErrors() },
      detail: {
        summary: "Get an allergy",
        description:
          "One allergy of the patient (allergen, reaction, whether it is active, dates). 404 when it is archived or belongs to another patient; an archived patient's history stays readable.",
      },
    })
    .patch("/allergies/:allergy_uuid", ({ ctx, params, body }) => updateAllergy(ctx, params.patient_uuid, params.allergy_uuid, body), {
      permission: WRITE,
      body: AllergyPatch,
      response: { 200: Allergy, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update an allergy", description: `An allergy left active sets the patient's allergy_review_status to reviewed. ${ARCHIVED}` },
    })
    .post("/allergies/:allergy_uuid/archive", ({ ctx, params }) => archiveAllergy(ctx, params.patient_uuid, params.allergy_uuid), {
      permission: WRITE,
      response: { 200: Allergy, ...orgErrors(409) },
      detail: {
        summary: "Archive an allergy",
        description:
          "Soft delete: the allergy leaves lists and answers 404, and archiving again is 404. The patient's allergy_review_status is left as it is. 422 patient_archived when the patient is archived.",
      },
    })
    // ---- diseases and problems
    .get("/diseases", ({ ctx, params, query }) => listDiseases(ctx, params.patient_uuid, query), {
      permission: READ,
      query: DiseaseListQuery,
      response: { 200: PageSchema(Disease), ...orgErrors() },
      detail: { summary: "List a patient's diseases and problems" },
    })
    .post(
      "/diseases",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createDisease(ctx, params.patient_uuid, body);
      },
      {
        permission: WRITE,
        body: DiseaseCreate,
        response: { 201: Disease, ...orgErrors(409, 413, 415) },
        detail: { summary: "Record a disease or problem", description: ARCHIVED },
      },
    )
    .get("/diseases/:disease_uuid", ({ ctx, params }) => getDisease(ctx, params.patient_uuid, params.disease_uuid), {
      permission: READ,
      response: { 200: Disease, ...orgErrors() },
      detail: {
        summary: "Get a disease or problem",
        description:
          "One disease or problem of the patient with its ICD code, problem status and start and stop dates. 404 when it is archived or belongs to another patient; an archived patient's history stays readable.",
      },
    })
    .patch("/diseases/:disease_uuid", ({ ctx, params, body }) => updateDisease(ctx, params.patient_uuid, params.disease_uuid, body), {
      permission: WRITE,
      body: DiseasePatch,
      response: { 200: Disease, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a disease or problem", description: ARCHIVED },
    })
    .post("/diseases/:disease_uuid/archive", ({ ctx, params }) => archiveDisease(ctx, params.patient_uuid, params.disease_uuid), {
      permission: WRITE,
      response: { 200: Disease, ...orgErrors(409) },
      detail: {
        summary: "Archive a disease or problem",
        description: "Soft delete: the record leaves lists and answers 404, and archiving again is 404. 422 patient_archived when the patient is archived.",
      },
    })
    // ---- medications
    .get("/medications", ({ ctx, params, query }) => listMedications(ctx, params.patient_uuid, query), {
      permission: READ,
      query: MedicationListQuery,
      response: { 200: PageSchema(Medication), ...orgErrors() },
      detail: { summary: "List a patient's medications" },
    })
    .post(
      "/medications",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createMedication(ctx, params.patient_uuid, body);
      },
      {
        permission: WRITE,
        body: MedicationCreate,
        response: { 201: Medication, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Record a medication",
          description: `interaction_warnings lists drug-allergy warnings against the patient's active allergies (only in this answer). 404 when provider_uuid is not a provider of this org. ${ARCHIVED}`,
        },
      },
    )
    .get("/medications/:medication_uuid", ({ ctx, params }) => getMedication(ctx, params.patient_uuid, params.medication_uuid), {
      permission: READ,
      response: { 200: Medication, ...orgErrors() },
      detail: {
        summary: "Get a medication",
        description:
          "One medication of the patient with its dates, status and prescribing provider (a reference). `interaction_warnings` is empty here: warnings are given only when the medication is recorded. 404 when it is archived or belongs to another patient.",
      },
    })
    .patch("/medications/:medication_uuid", ({ ctx, params, body }) => updateMedication(ctx, params.patient_uuid, params.medication_uuid, body), {
      permission: WRITE,
      body: MedicationPatch,
      response: { 200: Medication, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a medication", description: ARCHIVED },
    })
    .post("/medications/:medication_uuid/archive", ({ ctx, params }) => archiveMedication(ctx, params.patient_uuid, params.medication_uuid), {
      permission: WRITE,
      response: { 200: Medication, ...orgErrors(409) },
      detail: { summary: "Archive a medication", description: "404 if the patient or the medication is missing." },
    });
