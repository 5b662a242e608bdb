import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { NoContent, orgErrors } from "@/platform/http/openapi";
import {
  NoQuery,
  SeedRequest,
  SeedResult,
  ToothStatus,
  ToothStatusDeleteQuery,
  ToothStatusList,
  ToothStatusPut,
  ToothTransition,
  ToothTransitionResult,
} from "./schemas";
import { deleteToothStatus, listToothStatuses, putToothStatus, seedToothStatuses, toothStatusHistory, transitionTooth } from "./service";

/** What each tooth is: one current record per tooth, superseded on change (docs/clinical/tooth-chart.md). */
export const toothChartRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.tooth-chart", prefix: "/api/v1/:org_id/clinical", tags: ["Clinical"] })
    .use(guard(rt))
    .get("/patients/:patient_uuid/tooth-statuses", ({ ctx, params }) => listToothStatuses(ctx, params.patient_uuid), {
      permission: "clinical.read",
      query: NoQuery,
      response: { 200: ToothStatusList, ...orgErrors() },
      detail: { summary: "A patient's tooth chart", description: "The current record of each charted tooth, in chart order (1-32, A-T, supernumerary)." },
    })
    .put("/patients/:patient_uuid/tooth-statuses", ({ ctx, params, body }) => putToothStatus(ctx, params.patient_uuid, body), {
      permission: "clinical.write",
      body: ToothStatusPut,
      response: { 200: ToothStatus, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Set a tooth's status",
        description:
          "Creates the tooth's record or supersedes its current one (fields not sent take their defaults). expected_version: the current record's version (0: none), else 409. 404 when the charted procedure is missing or another patient's.",
      },
    })
    .post("/patients/:patient_uuid/tooth-statuses/seed", ({ ctx, params, body }) => seedToothStatuses(ctx, params.patient_uuid, body.mode), {
      permission: "clinical.write",
      body: SeedRequest,
      response: { 200: SeedResult, ...orgErrors(413, 415) },
      detail: {
        summary: "Seed the age-appropriate dentition",
        description:
          "age_based: only when the patient has no current records (else 0). reseed: replaces the current age_seeded records, keeps manual, imported and clinical_chart ones. 422 date_of_birth_required.",
      },
    })
    .post("/patients/:patient_uuid/tooth-transition", ({ ctx, params, body }) => transitionTooth(ctx, params.patient_uuid, body), {
      permission: "clinical.write",
      body: ToothTransition,
      response: { 200: ToothTransitionResult, ...orgErrors(413, 415) },
      detail: {
        summary: "Primary tooth to permanent successor",
        description:
          "Both teeth get new records in one transaction. 422 invalid_succession when the successor is not the primary tooth's (A->4 ... J->13, K->20 ... T->29).",
      },
    })
    .get("/patients/:patient_uuid/teeth/:tooth_num/status-history", ({ ctx, params }) => toothStatusHistory(ctx, params.patient_uuid, params.tooth_num), {
      permission: "clinical.read",
      query: NoQuery,
      response: { 200: ToothStatusList, ...orgErrors() },
      detail: {
        summary: "A tooth's status history",
        description: "Every record of the tooth, superseded and deleted ones included, newest first. 422 for an invalid tooth number.",
      },
    })
    .delete(
      "/tooth-statuses/:status_uuid",
      async ({ ctx, params, query, set }) => {
        await deleteToothStatus(ctx, params.status_uuid, query.base_version);
        set.status = 204;
      },
      {
        permission: "clinical.write",
        query: ToothStatusDeleteQuery,
        response: { 204: NoContent, ...orgErrors(409) },
        detail: {
          summary: "Delete a tooth status",
          description: "Superseded and soft-deleted: the tooth leaves the active chart. 204 again when already deleted.",
        },
      },
    );
