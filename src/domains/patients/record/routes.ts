import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { Patient, PatientCreate, PatientListQuery, PatientPatch, PatientTransition } from "./schemas";
import { archivePatient, createPatient, getPatient, restorePatient, transitionPatientStatus, updatePatient } from "./service";
import { listPatients } from "./list";
import { patientUpdatePlace } from "./where";
import { bodyPlace, listPlace } from "@/platform/tenancy/placement";

export const patientRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.patients", prefix: "/api/v1/:org_id/patients", tags: ["Patients"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listPatients(ctx, query), {
      permission: { key: "patients.read", where: listPlace },
      query: PatientListQuery,
      response: { 200: PageSchema(Patient), ...orgErrors() },
      detail: {
        summary: "List and search patients",
        description:
          "Search matches name prefixes, phone digits, email, chart number or date of birth. 404 when a referenced provider, location or tag definition does not exist.",
      },
    })
    .post(
      "",
      async ({ ctx, body, set }) => {
        set.status = 201;
        return createPatient(ctx, body);
      },
      {
        permission: { key: "patients.write", where: bodyPlace },
        body: PatientCreate,
        response: { 201: Patient, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Create a patient",
          description:
            "`first_name` and `last_name` are required. Starts `active` unless `status` is `inactive`, `prospective` or `deceased` (never `archived`; deceased without `date_time_deceased` takes now). 404 when location_uuid, a provider or responsible_party_uuid names no live record. Derived fields (balances, scheduling_restricted, potential_duplicates, ...) are read-only: 422 when sent.",
        },
      },
    )
    .get("/:patient_uuid", ({ ctx, params }) => getPatient(ctx, params.patient_uuid), {
      permission: "patients.read",
      response: { 200: Patient, ...orgErrors() },
      detail: {
        summary: "Get a patient",
        description:
          "The patient record with demographics, contact details, preferences, status and aged balances. Archived patients stay readable (a medical record), with status archived and deleted_at set.",
      },
    })
    .patch("/:patient_uuid", ({ ctx, params, body }) => updatePatient(ctx, params.patient_uuid, body), {
      permission: { key: "patients.write", where: patientUpdatePlace },
      body: PatientPatch,
      response: { 200: Patient, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Update a patient",
        description: "status is changed through transition-status, archive and restore. Archived patients are read-only (422 patient_archived).",
      },
    })
    .post("/:patient_uuid/archive", ({ ctx, params }) => archivePatient(ctx, params.patient_uuid), {
      permission: "patients.write",
      response: { 200: Patient, ...orgErrors(409) },
      detail: { summary: "Archive a patient", description: "Sets deleted_at and status archived; the record stays readable by id." },
    })
    .post("/:patient_uuid/restore", ({ ctx, params }) => restorePatient(ctx, params.patient_uuid), {
      permission: "patients.write",
      response: { 200: Patient, ...orgErrors(409) },
      detail: { summary: "Restore an archived patient", description: "archived -> inactive, deleted_at cleared; 422 invalid_transition when not archived." },
    })
    .post("/:patient_uuid/transition-status", ({ ctx, params, body }) => transitionPatientStatus(ctx, params.patient_uuid, body), {
      permission: "patients.write",
      body: PatientTransition,
      response: { 200: Patient, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Change a patient's status",
        description:
          "active <-> inactive; prospective -> active | inactive; active | inactive -> deceased; deceased -> inactive. Anything else is 422 invalid_transition.",
      },
    });
