import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { guard } from "@/platform/http/guard";
import { orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { PreferenceListQuery, PreferencePatch, PreferenceUpsert, SchedulingPreference } from "./schemas";
import { getPreference, listPreferences, updatePreference, upsertPreference } from "./service";

// Patient data: the appointment keys, not the schedule configuration keys.
export const schedulingPreferenceRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.scheduling-preferences", prefix: "/api/v1/:org_id/schedule/patient-preferences", tags: ["Scheduling"] })
    .use(guard(rt))
    .get("", ({ ctx, query }) => listPreferences(ctx, query), {
      permission: "schedule.appointments.read",
      query: PreferenceListQuery,
      response: { 200: PageSchema(SchedulingPreference), ...orgErrors() },
      detail: { summary: "List patient scheduling preferences (ordered by id)" },
    })
    .get("/:preference_uuid", ({ ctx, params }) => getPreference(ctx, params.preference_uuid), {
      permission: "schedule.appointments.read",
      response: { 200: SchedulingPreference, ...orgErrors() },
      detail: {
        summary: "Get a patient scheduling preference",
        description:
          "A patient's preferred provider, operatory, weekdays, time window and contact method, with notes and whether it was learned from appointment history. Unknown id: 404.",
      },
    })
    .put("/by-patient/:patient_uuid", ({ ctx, params, body }) => upsertPreference(ctx, params.patient_uuid, body), {
      permission: "schedule.appointments.write",
      body: PreferenceUpsert,
      response: { 200: SchedulingPreference, ...orgErrors(409, 413, 415) },
      detail: {
        summary: "Create or update a patient's scheduling preference",
        description:
          "Creates it (200) when the patient has none; otherwise base_version is required (422 if omitted, 409 if stale) and only the sent fields change. 404 when the patient, provider or operatory does not resolve.",
      },
    })
    .patch("/:preference_uuid", ({ ctx, params, body }) => updatePreference(ctx, params.preference_uuid, body), {
      permission: "schedule.appointments.write",
      body: PreferencePatch,
      response: { 200: SchedulingPreference, ...orgErrors(409, 413, 415) },
      detail: { summary: "Update a patient scheduling preference", description: "The patient is immutable (422)." },
    });
