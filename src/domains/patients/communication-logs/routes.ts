import { Elysia } from "elysia";
import type { Runtime } from "@/platform/runtime";
import { AppError } from "@/platform/errors";
import { guard } from "@/platform/http/guard";
import { ErrorBody, orgErrors } from "@/platform/http/openapi";
import { PageSchema } from "@/platform/records/paging";
import { CommunicationLog, CommunicationLogCreate, CommunicationLogListQuery } from "./schemas";
import { createCommunicationLog, getCommunicationLog, listCommunicationLogs } from "./service";

/** Entries are append-only (spec.md): any attempt to change or delete one is 405 with Allow. */
const notAllowed = (allow: string) => () => {
  throw new AppError(405, "method_not_allowed", "Communication log entries are append-only", { Allow: allow });
};
// Still guarded: outsiders get 404 for the org, members without the write key 403.
// A fresh object per route: Elysia writes the expanded macro hooks into the
// options object it is given, so a shared one would carry one app's guard into the next.
const appendOnly = () => ({
  permission: "patients.communications.write" as const,
  response: { 405: ErrorBody, ...orgErrors() },
  // Not in the OpenAPI document: a method that can only refuse is no operation to call;
  // the GET/POST descriptions of the records say that these methods answer 405.
  detail: { hide: true, summary: "Not allowed: entries are append-only" },
});

export const communicationLogRoutes = (rt: Runtime) =>
  new Elysia({ name: "cusp.communication-logs", prefix: "/api/v1/:org_id/patients/:patient_uuid/communication-logs", tags: ["Patients"] })
    .use(guard(rt))
    .get("", ({ ctx, params, query }) => listCommunicationLogs(ctx, params.patient_uuid, query), {
      permission: "patients.communications.read",
      query: CommunicationLogListQuery,
      response: { 200: PageSchema(CommunicationLog), ...orgErrors() },
      detail: {
        summary: "List a patient's communication log",
        description:
          "Ordered by communicated_at (then id), oldest first unless sort_dir=desc. The log is append-only: PUT, PATCH and DELETE on it or on an entry answer 405 with `Allow`.",
      },
    })
    .post(
      "",
      async ({ ctx, params, body, set }) => {
        set.status = 201;
        return createCommunicationLog(ctx, params.patient_uuid, body);
      },
      {
        permission: "patients.communications.write",
        body: CommunicationLogCreate,
        response: { 201: CommunicationLog, ...orgErrors(409, 413, 415) },
        detail: {
          summary: "Add a communication log entry",
          description: "The recording user comes from the caller. 422 patient_archived for an archived patient.",
        },
      },
    )
    .get("/:communication_log_uuid", ({ ctx, params }) => getCommunicationLog(ctx, params.patient_uuid, params.communication_log_uuid), {
      permission: "patients.communications.read",
      response: { 200: CommunicationLog, ...orgErrors() },
      detail: {
        summary: "Get a communication log entry",
        description: "404 also when it belongs to another patient. An entry never changes: PUT, PATCH and DELETE answer 405.",
      },
    })
    .put("", notAllowed("GET, POST"), appendOnly())
    .patch("", notAllowed("GET, POST"), appendOnly())
    .delete("", notAllowed("GET, POST"), appendOnly())
    .put("/:communication_log_uuid", notAllowed("GET"), appendOnly())
    .patch("/:communication_log_uuid", notAllowed("GET"), appendOnly())
    .delete("/:communication_log_uuid", notAllowed("GET"), appendOnly());
